// down2: the analysis filter's 2D down-sampling by 2 (shaders/down2.comp), one invocation per stored coarse pixel,
// texels fetched with the border mode over the source's stored area. `--down mipmap` (hint "mipmap") runs here
// too: glGenerateMipmap would need mip levels on every image's texture and rounds odd sizes down (GL: floor(n /
// 2)), while the program's coarse images are ceil(n / 2) with clamp rings; the 2x2 box is the same function
// (docs/methods.md, pyramid).
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_down2(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  if (pass.taps.size() > 64) return Status::fail("GL down2: at most 64 taps per axis");
  // Up to 4 taps (the analysis kernels): the direct window per invocation. Longer (the pyramid's last level with
  // the coarsest Gaussian folded in): separable through shared memory (shaders/down2_sep.comp).
  const bool sep = pass.taps.size() > 4;
  GLuint prog = 0;
  if (Status s = ctx.program({{sep ? "down2_sep.comp" : "down2.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_dsize = GlPassContext::uniform(prog, "dsize"), u_border = GlPassContext::uniform(prog, "border"),
              u_n = GlPassContext::uniform(prog, "n"), u_first = GlPassContext::uniform(prog, "first"),
              u_taps = GlPassContext::uniform(prog, "taps"), u_dpad = GlPassContext::uniform(prog, "dst_pad"),
              u_spad = GlPassContext::uniform(prog, "src_pad");
  step.form = pass.hint == "mipmap" ? "down2-mipmap-box" : sep ? "down2-separable" : "down2";
  step.work = [&ctx, prog, sep, src, dst, border = int(pass.border), first = pass.widths[0], taps = pass.taps, u_dsize,
               u_border, u_n, u_first, u_taps, u_dpad, u_spad] {
    glProgramUniform2i(prog, u_dsize, dst.stored_w(), dst.stored_h());
    glProgramUniform1i(prog, u_dpad, dst.pad);
    glProgramUniform1i(prog, u_spad, src.pad);
    glProgramUniform1i(prog, u_border, border);
    glProgramUniform1i(prog, u_n, int(taps.size()));
    glProgramUniform1i(prog, u_first, first);
    glProgramUniform1fv(prog, u_taps, GLsizei(taps.size()), taps.data());
    ctx.bind_io(prog, src.tex, dst.tex);
    const int g = sep ? 8 : 16;
    glDispatchCompute(groups(dst.stored_w(), g), groups(dst.stored_h(), g), 1);
  };
  return Status::success();
}

}  // namespace gpublur
