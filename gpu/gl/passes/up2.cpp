// up2: the B-spline up-sampling by 2 (shaders/up2.comp), 4 coarse texels per fine pixel fetched with the border
// mode over the source's stored area, one invocation per stored fine pixel, 16 x 16 groups (measured against
// one invocation per 2 x 2 fine pixels on an H100: docs/performance.md, "pyramid and --downsample").
#include <string>

#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_up2(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{"up2.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_dsize = GlPassContext::uniform(prog, "dsize"), u_border = GlPassContext::uniform(prog, "border"),
              u_dpad = GlPassContext::uniform(prog, "dst_pad"), u_spad = GlPassContext::uniform(prog, "src_pad");
  step.form = "up2";
  step.work = [&ctx, prog, src, dst, border = int(pass.border), u_dsize, u_border, u_dpad, u_spad] {
    glProgramUniform2i(prog, u_dsize, dst.stored_w(), dst.stored_h());
    glProgramUniform1i(prog, u_dpad, dst.pad);
    glProgramUniform1i(prog, u_spad, src.pad);
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups(dst.stored_w(), 16), groups(dst.stored_h(), 16), 1);
  };
  return Status::success();
}

}  // namespace gpublur
