// down2: dst(X, Y) = sum_{i, j} t_i t_j src(2X + o + i, 2Y + o + j) (core/program.hpp, core/resample.hpp), every
// read through the border mode. float64, the 2D sum written out (no separable shortcut).
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_down2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = src.channels, o = pass.widths[0], n = int(pass.taps.size());
  for_rows(dst.height, threads, [&](int Y) {
    for (int X = 0; X < dst.width; ++X)
      for (int c = 0; c < C; ++c) {
        double sum = 0;
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i)
            sum += double(pass.taps[size_t(j)]) * double(pass.taps[size_t(i)]) *
                   src.read(2 * X + o + i, 2 * Y + o + j, c, pass.border);
        dst.set(dst.offset(X, Y) + size_t(c), sum);
      }
  });
  return Status::success();
}

}  // namespace gpublur
