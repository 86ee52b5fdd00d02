// dual-down, dual-up: the dual filter's passes (shaders/dual_down.comp, dual_up.comp). The source and output
// sizes differ (ceil(n / 2)). Both take their bilinear samples as explicit weights over a shared-memory tile of
// the source (texelFetch with the border remap), not through the texture unit: the down pass's 5 samples per
// output are 5 filtered RGBA32F fetches (64-byte footprints), the up pass's 8 per output at quarter positions 8,
// and GL kawase's 4 filtered fetches per pixel measured ~2 copies a pass on an H100 (docs/performance.md). Down:
// one invocation per output, 34 x 34 texels per 16 x 16 group; up: 2 x 2 outputs per invocation, 20 x 20 texels.
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

// `per`: outputs per invocation along each axis (1 down, 2 up), 16 x 16 invocations per group.
Status setup(GlPassContext& ctx, const Program& program, size_t index, GlStep& step, const char* file,
             const char* form, int per) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{file, GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_border = GlPassContext::uniform(prog, "border");
  step.form = form;
  step.work = [&ctx, prog, u_border, border = int(pass.border), src, dst, per] {
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups((dst.w + per - 1) / per, 16), groups((dst.h + per - 1) / per, 16), 1);
  };
  return Status::success();
}

}  // namespace

Status gl_dual_down(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  return setup(ctx, program, index, step, "dual_down.comp", "dual-down-tile", 1);
}

Status gl_dual_up(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  return setup(ctx, program, index, step, "dual_up.comp", "dual-up-tile", 2);
}

}  // namespace gpublur
