// spread's fold taps (core/spread_fold.hpp): g_t(p) over the positions E reads, gathered by the border mode.
#include "core/spread_fold.hpp"

#include <algorithm>

namespace gpublur {

std::vector<SpreadFoldTap> spread_fold_taps(int R, int X, Border border, int n) {
  std::vector<double> w1(size_t(std::max(n, 0)), 0.0), w2(w1.size(), 0.0);
  // s(-d) reads E at p = -d - 1 + a R (a = -1, 0, 1; weights 1, -2, 1) for d = 1..M: p from -M - 1 - R to R - 2,
  // and E is 0 outside [-X, n + X) (with Op::Spread's X = R - 1 the end is never reached).
  for (int p = -X; p <= std::min(R - 2, n + X - 1); ++p) {
    double g1, g2;
    spread_fold_weight(p, R, X, g1, g2);
    const int i = spread_e_index(p, n, X, border);
    if (i < 0 || (g1 == 0.0 && g2 == 0.0)) continue;
    w1[size_t(i)] += g1, w2[size_t(i)] += g2;
  }
  std::vector<SpreadFoldTap> taps;
  for (int i = 0; i < n; ++i)
    if (w1[size_t(i)] != 0.0 || w2[size_t(i)] != 0.0) taps.push_back({i, w1[size_t(i)], w2[size_t(i)]});
  return taps;
}

std::vector<SpreadFoldTap> spread_fold_taps_xy(int R, int X, Border border, int w, int h, int& ntx) {
  std::vector<SpreadFoldTap> taps = spread_fold_taps(R, X, border, w);
  ntx = int(taps.size());
  const std::vector<SpreadFoldTap> ty = spread_fold_taps(R, X, border, h);
  taps.insert(taps.end(), ty.begin(), ty.end());
  return taps;
}

}  // namespace gpublur
