// dual-down, dual-up: the dual filter's passes. The source and output sizes differ (ceil(n / 2)).
// Down (shaders/dual_down.comp): 5 bilinear samples at half-texel positions through a sampler with GL_LINEAR and
// the border's wrap mode (GlPassContext::sampler), as kawase's pass; one invocation per output pixel.
// Up (shaders/dual_up.comp): its 8 samples per output at quarter positions as explicit weights over a shared
// tile of the source (texelFetch with the border remap), 2 x 2 outputs per invocation: 8 filtered fetches per
// output pixel would cost about 4 copies of the output (GL kawase's 4 per pixel measured ~2 copies a pass).
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
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{"dual_up.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_border = GlPassContext::uniform(prog, "border");
  step.form = "dual-up-tile";
  step.work = [&ctx, prog, u_border, border = int(pass.border), src, dst] {
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    // One invocation per 2 x 2 outputs, 16 x 16 invocations per group.
    glDispatchCompute(groups((dst.w + 1) / 2, 16), groups((dst.h + 1) / 2, 16), 1);
  };
  return Status::success();
}

}  // namespace gpublur
