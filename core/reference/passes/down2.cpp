// down2: dst(X, Y) = sum_{i, j} t_i t_j src(2X + o + i, 2Y + o + j) (core/program.hpp, core/resample.hpp) over
// dst's whole stored area (its padding too), every read through resample_read (the border mode over src's
// stored area). float64, the 2D sum written out (no separable shortcut).
#include "core/reference/pass_table.hpp"
#include "core/resample.hpp"

namespace gpublur {

Status cpu_down2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = src.channels, o = pass.widths[0], n = int(pass.taps.size()), P = dst.pad;
  auto read = [&](int x, int y, int c) {
    const int sx = resample_index(x, src.width, src.pad, pass.border),
              sy = resample_index(y, src.height, src.pad, pass.border);
    return sx < -src.pad || sy < -src.pad ? 0.0 : src.get(src.offset(sx, sy) + size_t(c));
  };
  for_rows(dst.height + 2 * P, threads, [&](int row) {
    const int Y = row - P;
    for (int X = -P; X < dst.width + P; ++X)
      for (int c = 0; c < C; ++c) {
        double sum = 0;
        for (int j = 0; j < n; ++j) {
          double line = 0;
          for (int i = 0; i < n; ++i) line += double(pass.taps[size_t(i)]) * read(2 * X + o + i, 2 * Y + o + j, c);
          sum += double(pass.taps[size_t(j)]) * line;
        }
        dst.set(dst.offset(X, Y) + size_t(c), sum);
      }
  });
  return Status::success();
}

}  // namespace gpublur
