// dual-down, dual-up: the dual filter's passes. The source and output sizes differ (ceil(n / 2)). Both take their
// bilinear samples as explicit weights over texels fetched with the border remap, not through the texture unit:
// the down pass's 5 samples per output would be 5 filtered RGBA32F fetches (64-byte footprints), the up pass's 8
// per output at quarter positions 8, and GL kawase's 4 filtered fetches per pixel measured ~2 copies a pass on
// an H100 (docs/performance.md).
// - dual-up (shaders/dual_up.comp): a group's coarse window through shared memory, one output per invocation.
// - dual-down: the first two downs of a chain as one dispatch where core's dual_pair pairs them
//   (shaders/dual_down_pair.comp, the middle level in shared memory and never stored: the port of CUDA's
//   dual_fused.cuh); other downs direct (shaders/dual_down.comp: one invocation per output from its 4 x 4
//   texels, no shared memory, 16 x 16 groups).
// Measured against the other forms on an H100: docs/performance.md, "GL dual".
#include <string>

#include <fmt/format.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

// dual_down.comp's group (both axes) and dual_up.comp's fine tile (its group is kUpTile x 8 invocations); outputs
// of at most kSmallPixels use kSmall for both: a 64^2 level is then 64 groups instead of 16 or 4, spread over
// more SMs (kawase dual at sigma 200 on an H100, five such passes: 0.4623 -> 0.4587 ms, 0.4651 -> 0.4613).
constexpr int kDownGroup = 16, kUpTile = 32, kSmall = 8;
constexpr long long kSmallPixels = 256 * 256;
// dual_down_pair.comp's level-2 tile (one invocation per output), its group (TILE_X x kPairGroupY) and its
// strips of level-1 cells: the window, 34 x 28 cells (15.2 KB), is 238 strips of 4, one round of the 256
// invocations (tiles of 16 x 8 / 11 / 13 / 15 / 17 with strips of 2-9 measured on an H100: docs/performance.md,
// "GL dual").
constexpr int kPairTileX = 16, kPairTileY = 13, kPairGroupY = 16, kPairStrip = 4;
constexpr int kPairWindowBytes = (2 * kPairTileX + 2) * (2 * kPairTileY + 2) * 16;
static_assert((2 * kPairTileY + 2) % kPairStrip == 0 && kPairGroupY >= kPairTileY &&
              (2 * kPairTileX + 2) * (2 * kPairTileY + 2) / kPairStrip <= kPairTileX * kPairGroupY);

// One pass, `file`'s group covering `tile` x `tile` outputs (`def` names the tile or group for the shader).
Status setup_one(GlPassContext& ctx, const Program& program, size_t index, GlStep& step, const char* file,
                 const char* form, const char* def, int tile) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  if ((long long)dst.w * dst.h <= kSmallPixels) tile = kSmall;
  GLuint prog = 0;
  if (Status s = ctx.program({{file, GL_COMPUTE_SHADER}}, fmt::format("#define {} {}\n", def, tile), prog, true); !s)
    return s;
  const GLint u_border = GlPassContext::uniform(prog, "border");
  step.form = form;
  step.work = [&ctx, prog, u_border, border = int(pass.border), src, dst, tile] {
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups(dst.w, tile), groups(dst.h, tile), 1);
  };
  return Status::success();
}

Status setup_down_pair(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  GLuint prog = 0;
  if (Status s = ctx.program({{"dual_down_pair.comp", GL_COMPUTE_SHADER}},
                             fmt::format("#define TILE_X {}\n#define TILE_Y {}\n#define GROUP_Y {}\n#define STRIP {}\n",
                                         kPairTileX, kPairTileY, kPairGroupY, kPairStrip),
                             prog, true);
      !s)
    return s;
  gl_pair_step(ctx, program, index, prog, "dual-down-pair", kPairTileX, kPairTileY, {}, step);  // unpadded images
  return Status::success();
}

}  // namespace

Status gl_dual_down(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  if (dual_pair(program, index) && kPairWindowBytes <= shared_budget(ctx.limits().max_shared, 0))
    return setup_down_pair(ctx, program, index, step);
  return setup_one(ctx, program, index, step, "dual_down.comp", "dual-down", "GROUP", kDownGroup);
}

// (Its window, (32 / 2 + 4)^2 vec4 = 6.4 KB, is within GL's 32 KB minimum of shared memory: no direct fallback.)
Status gl_dual_up(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  return setup_one(ctx, program, index, step, "dual_up.comp", "dual-up", "TILE", kUpTile);
}

}  // namespace gpublur
