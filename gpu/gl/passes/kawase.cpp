// kawase: one Kawase pass (shaders/kawase.comp): 4 bilinear samples through a sampler object with GL_LINEAR and
// the border's wrap mode (GlPassContext::sampler), normalised coordinates, 16x16 groups. On an H100 faster
// than the 16 pixels by texelFetch with the border remap as the CUDA kernel (docs/performance.md, "kawase
// --impl dual": 1.403 / 3.708 ms against 1.711 / 4.548 at sigma 3 / 12).
#include <string>

#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_kawase(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{"kawase.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_offset = GlPassContext::uniform(prog, "offset");
  step.form = "kawase-sampler";
  step.work = [&ctx, prog, u_offset, offset = float(pass.widths[0]) + 0.5f, sampler = ctx.sampler(pass.border), src,
               dst] {
    glProgramUniform1f(prog, u_offset, offset);
    ctx.dispatch_sampled(prog, sampler, src.tex, dst.tex, dst.w, dst.h);
  };
  return Status::success();
}

}  // namespace gpublur
