// conv2d-matrix: direct 2D correlation with a full matrix of weights (core/program.hpp Op::Conv2dMatrix),
// float64 accumulation, every source row extended once with the border mode.
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_conv2d_matrix(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int kw = pass.widths[0], kh = pass.widths[1], rx = kw / 2, ry = kh / 2;
  for_rows_2d(src, dst, rx, pass.border, threads, [&](int y, const ExtendedRows& rows, std::vector<double>& acc) {
    for (int j = -ry; j <= ry; ++j) {
      const LineBatch& line = rows.at_or_zero(y + j);
      const float* wrow = pass.taps.data() + size_t(j + ry) * size_t(kw);
      for (int i = -rx; i <= rx; ++i) {
        const double w = wrow[i + rx];
        if (w == 0) continue;
        const double* in = line.at(i);
        for (size_t k = 0; k < acc.size(); ++k) acc[k] += w * in[k];
      }
    }
  });
  return Status::success();
}

}  // namespace gpublur
