// integral1d: the cascade of boxes of REAL widths along one axis (core/integral.hpp; the integral method).
// Schedule: box1d's (shaders/box1d.comp with FRAC_LIST): a group holds lines x (outputs + 2 reach) positions in
// shared memory (at most GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, queried, capped at 48 KiB: 32 KiB on llvmpipe),
// runs every box there with running sums restarted per block of positions, and stores once; each box is the
// odd integer box plus its two fractional end pixels read directly, which is the seed's interpolation of the
// prefix sums at the window ends rearranged so that no long float32 prefix sum is ever differenced. A whole
// 4096-wide RGBA row of vec4 positions (64 KiB) fits no GL group: rows run as tiles with their halo, vec4 lines or
// (box_tile's choice) two rounds of two-channel lines, which hold twice the positions; where the reach is too long
// for any tile, the line walkers (moving_average.comp, float64 sums) take it.
// An x-y pair runs as box1d's transposed pair (passes/box_pair.cpp).
#include <spdlog/spdlog.h>

#include "core/integral.hpp"
#include "gpu/gl/gl_tiles.hpp"
#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

GlBoxCascade gl_box_cascade(const Pass& pass) {
  GlBoxCascade c;
  if (pass.op == Op::Integral1d) {
    for (float w : pass.taps) {
      const FracBox b = frac_box(w);
      c.widths.push_back(2 * b.r + 1);
      c.spans.push_back(2 * b.reach() + 1);
      c.fracs.push_back(float(b.e));  // exact: (w - 1) / 2 - r of a float w
      c.wreals.push_back(w);
    }
  } else {
    c.widths = c.spans = pass.widths;
  }
  for (int s : c.spans) c.reach += s / 2;
  return c;
}

Status gl_integral1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  if (cascade_pair(program, index)) {
    bool taken = false;
    if (Status s = gl_box_pair(ctx, program, index, taken, step); !s || taken) return s;
  }
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  const GlLimits& lim = ctx.limits();
  const GlBoxCascade bc = gl_box_cascade(pass);
  const std::string spec = box_tile_spec();  // GPUBLUR_GL_BOX_TILE, as for box1d (tests force shapes)
  BoxTile tile = spec == "lines" ? BoxTile{}
                                 : box_tile(bc.spans, lim.max_shared, lim.max_invocations, spec, box_totals_spec(),
                                            pass.axis == 0 ? dst.w : dst.h, ctx.channels(), true,
                                            box_const_tail(pass.border));
  tile.sums = box_sums();
  if (tile.lines == 0) {
    spdlog::debug("GL integral1d: reach {} as line walkers", bc.reach);
    return gl_box_lines(ctx, program, pass, src, dst, step);
  }
  return gl_box_tiles(ctx, pass, src, dst, tile, "integral1d-tiles", step);
}

std::string gl_frac_defines(const GlBoxCascade& bc) {
  if (bc.fracs.empty()) return "";
  const int nw = int(bc.widths.size());
  return "#define FRAC_LIST " + glsl_floats(bc.fracs.data(), nw) + "\n#define WREAL_LIST " +
         glsl_floats(bc.wreals.data(), nw) + "\n";
}

}  // namespace gpublur
