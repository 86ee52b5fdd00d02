// down2: the analysis filter's 2D down-sampling by 2 (shaders/down2.comp), one invocation per coarse pixel,
// texels fetched with the border mode. `--down mipmap` (hint "mipmap") runs here too: glGenerateMipmap would
// need mip levels on every image's texture and rounds odd sizes down (GL: floor(n / 2)), while the program's
// coarse images are ceil(n / 2); the 2x2 box is the same function (docs/methods.md, pyramid).
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_down2(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  if (pass.taps.size() > 4) return Status::fail("GL down2: at most 4 taps per axis");
  GLuint prog = 0;
  if (Status s = ctx.program({{"down2.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_dsize = GlPassContext::uniform(prog, "dsize"), u_border = GlPassContext::uniform(prog, "border"),
              u_n = GlPassContext::uniform(prog, "n"), u_first = GlPassContext::uniform(prog, "first"),
              u_taps = GlPassContext::uniform(prog, "taps");
  float t[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < pass.taps.size(); ++i) t[i] = pass.taps[i];
  step.form = pass.hint == "mipmap" ? "down2-mipmap-box" : "down2";
  step.work = [&ctx, prog, src, dst, border = int(pass.border), n = int(pass.taps.size()), first = pass.widths[0],
               t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3], u_dsize, u_border, u_n, u_first, u_taps] {
    glProgramUniform2i(prog, u_dsize, dst.w, dst.h);
    glProgramUniform1i(prog, u_border, border);
    glProgramUniform1i(prog, u_n, n);
    glProgramUniform1i(prog, u_first, first);
    glProgramUniform4f(prog, u_taps, t0, t1, t2, t3);
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups(dst.w, 16), groups(dst.h, 16), 1);
  };
  return Status::success();
}

}  // namespace gpublur
