// conv2d: direct 2D convolution, (2r+1)^2 taps per pixel, weight taps[dy] * taps[dx], no separation.
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_conv2d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int r = int(pass.taps.size() / 2), C = src.channels;
  const size_t row = size_t(dst.width) * C;
  // Each source row extended once (the rows of the extended image; zero rows outside for Border::Zero).
  std::vector<LineBatch> rows(size_t(src.height));
  for_rows(src.height, threads, [&](int y) { gather_lines(src, 0, y, 1, r, pass.border, rows[size_t(y)]); });
  LineBatch zero;
  zero.n = src.width, zero.ext = r, zero.vec = C;
  zero.buf.assign(size_t(src.width + 2 * r) * C, 0.0);
  for_rows(dst.height, threads, [&](int y) {
    std::vector<double> acc(row, 0.0);
    for (int dy = -r; dy <= r; ++dy) {
      const int yi = remap_index(y + dy, src.height, pass.border);
      LineBatch& line = yi < 0 ? zero : rows[size_t(yi)];
      const double wy = pass.taps[size_t(dy + r)];
      for (int dx = -r; dx <= r; ++dx) {
        const double w = wy * pass.taps[size_t(dx + r)];
        const double* in = line.at(dx);
        for (size_t i = 0; i < row; ++i) acc[i] += w * in[i];
      }
    }
    for (int x = 0; x < dst.width; ++x)
      for (int c = 0; c < C; ++c) dst.set(dst.offset(x, y) + size_t(c), acc[size_t(x) * C + c]);
  });
  return Status::success();
}

}  // namespace gpublur
