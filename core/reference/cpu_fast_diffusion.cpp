// The cpu backend's diffusion: the reference's steps (passes/diffusion.cpp: float64, two buffers in turn, the same
// sums in the same order) with a row's neighbours by pointer and the border mode only at the stored area's edges,
// where the reference border-remapped all four neighbours of every value.
#include <algorithm>
#include <vector>

#include "core/reference/cpu_fast.hpp"
#include "core/reference/row_threads.hpp"

namespace gpublur {

void cpu_fast_diffusion(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int p = src.pad, W = src.width + 2 * p, H = src.height + 2 * p, C = src.channels, steps = pass.widths[0];
  const double c = double(pass.taps[0]);
  const size_t row = size_t(W) * size_t(C), n = row * size_t(H);
  std::vector<double> a(src.f, src.f + n), b(n);  // the whole stored area, rows in order
  for (int s = 0; s < steps; ++s) {
    for_rows(H, threads, [&](int y) {
      const int yu = remap_index(y - 1, H, pass.border), yd = remap_index(y + 1, H, pass.border);
      const double* cur = a.data() + size_t(y) * row;
      const double* up = yu < 0 ? nullptr : a.data() + size_t(yu) * row;
      const double* down = yd < 0 ? nullptr : a.data() + size_t(yd) * row;
      double* out = b.data() + size_t(y) * row;
      // Value k of stored column x (any x: the border mode at the edges; the zero border reads 0).
      const auto side = [&](int x, int k) {
        const int xi = remap_index(x, W, pass.border);
        return xi < 0 ? 0.0 : cur[size_t(xi) * C + size_t(k)];
      };
      const auto step = [&](size_t i, double left, double right) {
        const double u = cur[i];
        const double around = left + right + (up ? up[i] : 0.0) + (down ? down[i] : 0.0);
        out[i] = u + c * (around - 4 * u);
      };
      for (int k = 0; k < C; ++k) step(size_t(k), side(-1, k), side(1, k));
      if (W > 1) {
        // Interior values: both neighbours in the row (the channel's value one pixel either side); written out where
        // both neighbour rows exist, so that the loop vectorises.
        const size_t lo = size_t(C), hi = size_t(W - 1) * size_t(C);
        if (up && down) {
          for (size_t i = lo; i < hi; ++i) {
            const double u = cur[i];
            out[i] = u + c * (cur[i - C] + cur[i + C] + up[i] + down[i] - 4 * u);
          }
        } else {
          for (size_t i = lo; i < hi; ++i) step(i, cur[i - C], cur[i + C]);
        }
        for (int k = 0; k < C; ++k) step(hi + size_t(k), side(W - 2, k), side(W, k));
      }
    });
    a.swap(b);
  }
  std::transform(a.begin(), a.end(), dst.f, [](double v) { return float(v); });
}

}  // namespace gpublur
