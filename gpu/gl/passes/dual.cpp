// dual-down, dual-up: the dual filter's passes. The source and output sizes differ (ceil(n / 2)). Both take their
// bilinear samples as explicit weights over texels fetched with the border remap, not through the texture unit:
// the down pass's 5 samples per output would be 5 filtered RGBA32F fetches (64-byte footprints), the up pass's 8
// per output at quarter positions 8, and GL kawase's 4 filtered fetches per pixel measured ~2 copies a pass on
// an H100 (docs/performance.md).
// Default, the direct form (as gpu/cuda/passes/dual.cu): no shared memory, no barrier, 32 x 8 groups.
// shaders/dual_down_direct.comp: one invocation per output (GPUBLUR_GL_RESAMPLE_ROWS=2|4: per 2 or 4 outputs
// down a column), dual_up_direct.comp: one per 2 x 2 outputs from 5 x 5 texels (GPUBLUR_GL_RESAMPLE_ROWS=2|4:
// per 2 or 4 such quads down a column). GPUBLUR_GL_RESAMPLE_LOAD=image: imageLoad instead of texelFetch (forms
// "-image").
// GPUBLUR_GL_RESAMPLE_TILE=1, the previous form (for one A/B measurement): dual_down.comp, dual_up.comp, a
// shared-memory tile of the source per 16 x 16 group (down 34 x 34 texels, up 20 x 20, 2 x 2 outputs per
// invocation).
#include <string>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

// `per_x`, `per_y`: outputs per invocation along each axis; gx x gy invocations per group; `direct`: the direct
// form, whose constant-trip loops get NVIDIA's unroll pragma (their arrays must live in registers), its group
// shape from GPUBLUR_GL_RESAMPLE_GROUP.
Status setup(GlPassContext& ctx, const Program& program, size_t index, GlStep& step, const char* file,
             const std::string& defines, const std::string& form, int per_x, int per_y, int gx, int gy,
             bool direct) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  const bool image = direct && resample_image_load();
  const GroupShape g = resample_group();
  if (direct) gx = g.x, gy = g.y;
  const std::string more = direct ? g.defines() + (image ? "#define LOAD_IMAGE 1\n" : "") : "";
  if (Status s = ctx.program({{file, GL_COMPUTE_SHADER}}, defines + more, prog, direct); !s) return s;
  const GLint u_border = GlPassContext::uniform(prog, "border");
  step.form = form + (image ? "-image" : "") + (direct ? g.suffix() : "");
  step.work = [&ctx, prog, u_border, border = int(pass.border), src, dst, per_x, per_y, gx, gy, image] {
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    if (image) glBindImageTexture(1, src.tex, 0, GL_FALSE, 0, GL_READ_ONLY, ctx.store_format());
    glDispatchCompute(groups((dst.w + per_x - 1) / per_x, gx), groups((dst.h + per_y - 1) / per_y, gy), 1);
  };
  return Status::success();
}

}  // namespace

Status gl_dual_down(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  if (resample_tile()) return setup(ctx, program, index, step, "dual_down.comp", "", "dual-down-tile", 1, 1, 16, 16,
                                     false);
  const int rows = resample_rows();
  return setup(ctx, program, index, step, "dual_down_direct.comp", "#define ROWS " + std::to_string(rows) + "\n",
               rows == 1 ? "dual-down" : "dual-down-rows" + std::to_string(rows), 1, rows, 32, 8, true);
}

Status gl_dual_up(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  if (resample_tile()) return setup(ctx, program, index, step, "dual_up.comp", "", "dual-up-tile", 2, 2, 16, 16, false);
  const int rows = resample_rows();
  return setup(ctx, program, index, step, "dual_up_direct.comp", "#define ROWS " + std::to_string(rows) + "\n",
               rows == 1 ? "dual-up" : "dual-up-rows" + std::to_string(rows), 2, 2 * rows, 32, 8, true);
}

}  // namespace gpublur
