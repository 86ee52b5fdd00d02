// conv2d: direct 2D convolution, (2r+1)^2 taps per pixel, weight taps[dy] * taps[dx], no separation.
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_conv2d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int r = int(pass.taps.size() / 2);
  // Each source row extended once (the rows of the extended image; zero rows outside for Border::Zero).
  for_rows_2d(src, dst, r, pass.border, threads, [&](int y, const ExtendedRows& rows, std::vector<double>& acc) {
    for (int dy = -r; dy <= r; ++dy) {
      const LineBatch& line = rows.at_or_zero(y + dy);
      const double wy = pass.taps[size_t(dy + r)];
      for (int dx = -r; dx <= r; ++dx) {
        const double w = wy * pass.taps[size_t(dx + r)];
        const double* in = line.at(dx);
        for (size_t i = 0; i < acc.size(); ++i) acc[i] += w * in[i];
      }
    }
  });
  return Status::success();
}

}  // namespace gpublur
