// conv2d-matrix: direct 2D correlation with a full matrix of weights (core/program.hpp Op::Conv2dMatrix),
// float64 accumulation, every source row extended once with the border mode.
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_conv2d_matrix(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int kw = pass.widths[0], kh = pass.widths[1], rx = kw / 2, ry = kh / 2, C = src.channels;
  const size_t row = size_t(dst.width) * C;
  std::vector<LineBatch> rows(size_t(src.height));
  for_rows(src.height, threads, [&](int y) { gather_lines(src, 0, y, 1, rx, pass.border, rows[size_t(y)]); });
  LineBatch zero;
  zero.n = src.width, zero.ext = rx, zero.vec = C;
  zero.buf.assign(size_t(src.width + 2 * rx) * C, 0.0);
  for_rows(dst.height, threads, [&](int y) {
    std::vector<double> acc(row, 0.0);
    for (int j = -ry; j <= ry; ++j) {
      const int yi = remap_index(y + j, src.height, pass.border);
      LineBatch& line = yi < 0 ? zero : rows[size_t(yi)];
      const float* wrow = pass.taps.data() + size_t(j + ry) * size_t(kw);
      for (int i = -rx; i <= rx; ++i) {
        const double w = wrow[i + rx];
        if (w == 0) continue;
        const double* in = line.at(i);
        for (size_t k = 0; k < row; ++k) acc[k] += w * in[k];
      }
    }
    for (int x = 0; x < dst.width; ++x)
      for (int c = 0; c < C; ++c) dst.set(dst.offset(x, y) + size_t(c), acc[size_t(x) * C + c]);
  });
  return Status::success();
}

}  // namespace gpublur
