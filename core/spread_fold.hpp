// spread's margin fold as weights on the source's lines (core/methods/spread.cpp, Op::Spread), so that every
// backend folds in time bounded by the image, not by the radius.
//
// The table's line t (-1 or -2) before the image along x holds, for an image row y,
//     T(t, y) = sum_{d=1..M} f_t(d) s(-d, y),   f_-1(d) = 2 - d,  f_-2(d) = d - 1,  M = X + R - 1,
// with s(x, y) = sum_{a,b} w_a w_b E(x - 1 + a R, y - 1 + b R), a, b in {-1, 0, 1}, w = (1, -2, 1). The sum over d
// and a is a weight g_t(p) on each position p = -d - 1 + a R that E reads, and E(p, q) is the source at the border
// mode's index of p (0 outside [-X, n + X) or where the mode reads zero). Gathering g_t onto those indices gives at
// most min(n, 2R - 2) taps k_t(i) on source columns i, so with the rows' sums
//     S_t(j) = sum_i k_t(i) src(i, j)                                   (one per source row j)
// the folded pixels are
//     T(t, y) = sum_b w_b E_y(y - 1 + b R)   (E_y: S_t at the border mode's index, 0 where E is)
//     T(t, u) = sum_j k'_u(j) S_t(j)           (the corners; k' the taps along y)
// and the same along y with the columns' sums. Work: (h |k| + w |k'|) per channel, at most 2 w h, where the literal
// fold (every margin pixel's nine reads) cost about 9 ((w + h) M + 4 M^2): 125 ms against a few here for a 512^2
// image at R 2048 on the cpu backend (docs/methods.md, spread). The weights are integers below 2^31, so a tap's
// sums are exact in float64 in any order.
#pragma once
#include <vector>

#include "core/border.hpp"

namespace gpublur {

struct SpreadFoldTap {
  int index;  // the source line, in [0, n)
  double w1;  // its weight in the folded line -1
  double w2;  // and in the line -2
};

// E's index along an axis of n pixels at position q (host and device): the border mode's index inside the area
// extended by X, -1 where E is 0 (beyond it, or where the mode reads zero).
GPUBLUR_HD int spread_e_index(int q, int n, int X, Border b) {
  return q < -X || q >= n + X ? -1 : remap_index(q, n, b);
}

// The fold's weights on margin position p (before the gathering): g_t(p) = sum over a = -1, 0, 1 of w_a f_t(d),
// d = -p - 1 + a R, the terms with 1 <= d <= M = X + R - 1; g1 for the line -1 (f = 2 - d), g2 for -2 (f = d - 1).
// Integers below 4 M in magnitude.
GPUBLUR_HD void spread_fold_weight(int p, int R, int X, double& g1, double& g2) {
  g1 = 0.0, g2 = 0.0;
  for (int a = -1; a <= 1; ++a) {
    const int d = -p - 1 + a * R;
    if (d < 1 || d > X + R - 1) continue;
    const double w = a == 0 ? -2.0 : 1.0;
    g1 += w * (2.0 - d), g2 += w * (d - 1.0);
  }
}

// The fold's taps along an axis of n pixels for radius R and extension X (Op::Spread's widths[0] and extend),
// ascending by index, none with both weights 0: at most min(n, R + X - 1) of them (X = R - 1: min(n, 2R - 2)).
std::vector<SpreadFoldTap> spread_fold_taps(int R, int X, Border border, int n);
// The taps along x (of w) then those along y (of h) in one list, as the GPU backends upload them; ntx: how many
// are x's.
std::vector<SpreadFoldTap> spread_fold_taps_xy(int R, int X, Border border, int w, int h, int& ntx);

}  // namespace gpublur
