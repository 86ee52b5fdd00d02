// dual-down, dual-up: the dual filter's passes (shaders/dual_down.comp, dual_up.comp): bilinear samples through
// a sampler with GL_LINEAR and the border's wrap mode (GlPassContext::sampler), normalised coordinates of the
// source, one invocation per output pixel in 16x16 groups. The source and output sizes differ (ceil(n / 2)).
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

Status setup(GlPassContext& ctx, const Program& program, size_t index, GlStep& step, const char* file,
             const char* form) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{file, GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  step.form = form;
  step.work = [&ctx, prog, sampler = ctx.sampler(pass.border), src, dst] {
    ctx.dispatch_sampled(prog, sampler, src.tex, dst.tex, dst.w, dst.h);
  };
  return Status::success();
}

}  // namespace

Status gl_dual_down(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  return setup(ctx, program, index, step, "dual_down.comp", "dual-down-sampler");
}

Status gl_dual_up(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  return setup(ctx, program, index, step, "dual_up.comp", "dual-up-sampler");
}

}  // namespace gpublur
