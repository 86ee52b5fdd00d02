// box_pair: a cascade of boxes along x then the same cascade along y (core/program.hpp cascade_pair: Box1d or
// Integral1d) as two column passes of shaders/box1d.comp (AXIS 1) that store transposed (TRANSPOSE): the first reads
// the source's columns and writes each as a row of a scratch texture of the transposed size, the second reads that
// texture's columns (the source's rows) and writes each as a row of the destination. Cols(Cols(in)^T)^T =
// Rows(Cols(in)): the columns' boxes run first, the same function within float rounding.
// Why: the rows pass cost about 0.1 ms more than the columns pass at 4096^2 RGBA (H200), which fits NVIDIA's
// block-linear textures holding 16 bytes of each of two rows in a 32-byte sector (a warp along one row fills half of
// each sector it touches, one down a column whole ones; not profiled). Here every load runs down columns, and with two
// lines a group (box_pair_tile) a warp's transposed stores write two rows at once. H200, 4096^2 RGBA
// (docs/performance.md "GL box: the transposed pair"): box 0.458 -> 0.334 ms at sigma 3, 0.481 -> 0.382 at 12, 0.553
// -> 0.485 at 48.
// One line a group (sigma 100 and beyond at 4096^2) stores along a row, half sectors: 2-2.5x the stores down a column
// in a micro, but the pair as two row passes storing down columns measured no faster there (box 4096^2 sigma 200 -0.9%,
// 2048^2 sigma 100-200 up to 66% slower; H200, docs/performance.md "GL: one line a group's stores by direction").
#include "gpu/gl/gl_tiles.hpp"
#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_box_pair(GlPassContext& ctx, const Program& program, size_t index, bool& taken, GlStep& step) {
  taken = false;
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(program.passes[index + 1].dst);
  const std::string spec = box_tile_spec();
  if (!box_transposed_pair() || spec == "lines" || src.pad || dst.pad || src.f64 || dst.f64) return Status::success();
  const GlLimits& lim = ctx.limits();
  const GlBoxCascade bc = gl_box_cascade(pass);
  const bool frac = pass.op == Op::Integral1d;
  // Dispatch k's lines: the source's columns (k = 0, src.h positions), then the scratch texture's (src.w).
  BoxTile tiles[2];
  for (int k = 0; k < 2; ++k) {
    tiles[k] = box_pair_tile(bc.spans, lim.max_shared, lim.max_invocations, spec, box_totals_spec(),
                             k == 0 ? src.h : src.w, ctx.channels(), frac, box_const_tail(pass.border));
    tiles[k].sums = box_sums();
    if (tiles[k].lines == 0) return Status::success();  // a reach no tile holds: the passes' line walkers
    // One line a group stores one row at a time: measured slower than the passes for one channel (H200, 4096^2 box
    // sigma 200 0.649 against 0.502 ms, integral 0.596 against 0.505), even for two as vec2 lines (0.745 / 0.741),
    // 2-3% faster for RGBA in two rounds (box 0.741 against 0.757, integral 1.338 against 1.385) and for two channels
    // as float lines in two rounds up to 16% (call 269, docs/performance.md "GL: the wide shapes from half of the
    // positions stored": integral 8192^2 sigma 400 mirror 4.187 against 3.536, 6000^2 clamp 1.597 against 1.443; box
    // 8192^2 sigma 500 mirror 3.375 against 3.046; none slower).
    if (tiles[k].lines == 1 && ctx.channels() <= 2 && tiles[k].rounds == 1 && spec.empty()) return Status::success();
  }
  GLuint mid = 0;
  if (Status s = ctx.scratch_texture("box pair (transposed)", src.h, src.w, ctx.store_format(), mid); !s) return s;
  const std::string extra = "#define TRANSPOSE 1\n" + gl_frac_defines(bc);
  GlBoxLinePass lp[2];
  for (int k = 0; k < 2; ++k)
    if (Status s = gl_box_line_pass(ctx, bc, tiles[k], pass.border, 1, k == 0 ? src.h : src.w, k == 0 ? src.w : src.h,
                                    extra, lp[k], true);
        !s)
      return s;
  step.passes = 2;
  step.form = frac ? "integral1d-pair" : "box1d-pair";
  step.work = [&ctx, lp0 = lp[0], lp1 = lp[1], border = int(pass.border), src, dst, mid] {
    lp0.dispatch(ctx, border, src.tex, mid);
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
    lp1.dispatch(ctx, border, mid, dst.tex);
  };
  taken = true;
  return Status::success();
}

}  // namespace gpublur
