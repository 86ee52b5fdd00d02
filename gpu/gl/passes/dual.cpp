// dual-down, dual-up: the dual filter's passes. The source and output sizes differ (ceil(n / 2)). Both take their
// bilinear samples as explicit weights over texels fetched with the border remap, not through the texture unit:
// the down pass's 5 samples per output would be 5 filtered RGBA32F fetches (64-byte footprints), the up pass's 8
// per output at quarter positions 8, and GL kawase's 4 filtered fetches per pixel measured ~2 copies a pass on
// an H100 (docs/performance.md).
// The direct forms (as gpu/cuda/passes/dual.cu): no shared memory, no barrier, 16 x 16 groups.
// shaders/dual_down.comp: one invocation per output from its 4 x 4 texels; dual_up.comp: one per 2 x 2 outputs
// from 5 x 5 texels. Measured against a shared-memory tile per group, 32 x 8 groups, 2 or 4 outputs per
// invocation and imageLoad in one A/B run on an H100 (docs/performance.md, "kawase --impl dual").
// (A column form of dual-up, one invocation per fine column and 4 fine rows, was written for an A/B run and
// failed to compile on NVIDIA's GLSL compiler, "array index out of bounds": removed, not measured.)
#include <string>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

constexpr int kGroup = 16;  // the shaders' local size, both axes

// `per_x`, `per_y`: outputs per invocation along each axis. The constant-trip loops get NVIDIA's unroll pragma (their
// arrays must live in registers).
Status setup(GlPassContext& ctx, const Program& program, size_t index, GlStep& step, const char* file,
             const char* form, int per_x, int per_y) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{file, GL_COMPUTE_SHADER}}, "", prog, true); !s) return s;
  const GLint u_border = GlPassContext::uniform(prog, "border");
  step.form = form;
  step.work = [&ctx, prog, u_border, border = int(pass.border), src, dst, per_x, per_y] {
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups((dst.w + per_x - 1) / per_x, kGroup), groups((dst.h + per_y - 1) / per_y, kGroup), 1);
  };
  return Status::success();
}

}  // namespace

Status gl_dual_down(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  return setup(ctx, program, index, step, "dual_down.comp", "dual-down", 1, 1);
}

Status gl_dual_up(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  return setup(ctx, program, index, step, "dual_up.comp", "dual-up", 2, 2);
}

}  // namespace gpublur
