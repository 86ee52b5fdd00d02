// up2: the B-spline up-sampling by 2 (shaders/up2.comp), 4 coarse texels per fine pixel fetched with the border
// mode over the source's stored area. Default (QUAD 1): one invocation per 2 x 2 fine pixels from 3 x 3 coarse
// texels, 32 x 8 groups (GPUBLUR_GL_RESAMPLE_ROWS=2|4: 2 or 4 such quads down a column);
// GPUBLUR_GL_RESAMPLE_TILE=1, the previous form (for one A/B measurement): one invocation per stored fine pixel,
// 16 x 16 groups. GPUBLUR_GL_RESAMPLE_LOAD=image: imageLoad instead of texelFetch (form "-image").
#include <string>

#include <fmt/format.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_up2(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  const bool quad = !resample_tile();
  const int rows = quad ? resample_rows() : 1;
  const bool image = quad && resample_image_load();
  const GroupShape g = resample_group();
  const std::string load = image ? "#define LOAD_IMAGE 1\n" : "";
  const std::string defines =
      quad ? fmt::format("#define QUAD 1\n#define ROWS {}\n{}{}", rows, g.defines(), load) : "#define QUAD 0\n";
  GLuint prog = 0;
  if (Status s = ctx.program({{"up2.comp", GL_COMPUTE_SHADER}}, defines, prog, quad); !s) return s;
  const GLint u_dsize = GlPassContext::uniform(prog, "dsize"), u_border = GlPassContext::uniform(prog, "border"),
              u_dpad = GlPassContext::uniform(prog, "dst_pad"), u_spad = GlPassContext::uniform(prog, "src_pad");
  step.form = !quad ? "up2-tile"
                    : (rows == 1 ? "up2" : fmt::format("up2-rows{}", rows)) + (image ? "-image" : "") + g.suffix();
  step.work = [&ctx, prog, quad, rows, image, g, src, dst, border = int(pass.border), u_dsize, u_border, u_dpad,
               u_spad] {
    glProgramUniform2i(prog, u_dsize, dst.stored_w(), dst.stored_h());
    glProgramUniform1i(prog, u_dpad, dst.pad);
    glProgramUniform1i(prog, u_spad, src.pad);
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    if (image) glBindImageTexture(1, src.tex, 0, GL_FALSE, 0, GL_READ_ONLY, ctx.store_format());
    if (quad) {
      // Quads cover stored texels 2q - e, 2q - e + 1 (e = dst pad's parity; shaders/up2.comp), `rows` of them
      // down a column per invocation.
      const int e = dst.pad & 1;
      glDispatchCompute(groups((dst.stored_w() + e + 1) / 2, g.x), groups((dst.stored_h() + e + 1) / 2, g.y * rows),
                        1);
    } else {
      glDispatchCompute(groups(dst.stored_w(), 16), groups(dst.stored_h(), 16), 1);
    }
  };
  return Status::success();
}

}  // namespace gpublur
