// sat: the inclusive summed-area table S(x, y) = sum of src over [-P, x] x [-P, y], P the table's padding,
// of src extended by `extend` pixels with the border mode; float64 (in float32 the table of a 4096 x 4096
// image loses the low bits of every window sum: docs/methods.md, box).
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_sat(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int P = dst.pad, C = dst.channels, W = dst.width, H = dst.height;
  // Rows: running sums along x.
  for_rows(H + 2 * P, threads, [&](int row) {
    const int y = row - P;
    std::vector<double> run(size_t(C), 0.0);
    for (int x = -P; x < W + P; ++x) {
      const size_t o = dst.offset(x, y);
      for (int c = 0; c < C; ++c) dst.d[o + size_t(c)] = run[size_t(c)] += src.read(x, y, c, pass.border);
    }
  });
  sat_columns(dst, threads);
  return Status::success();
}

void sat_columns(CpuImage& dst, int threads) {
  const int stride_values = dst.stride() * dst.channels, rows = dst.height + 2 * dst.pad;
  const int bands = (stride_values + 63) / 64;
  for_rows(bands, threads, [&](int band) {
    const int v0 = band * 64, v1 = std::min(stride_values, v0 + 64);
    for (int row = 1; row < rows; ++row) {
      double* cur = dst.d + size_t(row) * size_t(stride_values);
      const double* prev = cur - stride_values;
      for (int v = v0; v < v1; ++v) cur[v] += prev[v];
    }
  });
}

}  // namespace gpublur
