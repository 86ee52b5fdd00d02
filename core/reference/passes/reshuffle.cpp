// reshuffle: Porikli's single-output reshuffling (core/program.hpp Op::Reshuffle) as written: per output row,
// for each unique weight the sum of the source pixels over its linkage set, then one multiply-add of the
// weight; float64, every source row extended once with the border mode (as conv2d).
#include <algorithm>

#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_reshuffle(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int R = pass.widths[0], C = src.channels;
  const size_t row = size_t(dst.width) * C;
  std::vector<LineBatch> rows(size_t(src.height));
  for_rows(src.height, threads, [&](int y) { gather_lines(src, 0, y, 1, R, pass.border, rows[size_t(y)]); });
  for_rows(dst.height, threads, [&](int y) {
    std::vector<double> acc(row, 0.0), sum(row);
    const int* l = pass.links.data();
    for (float w : pass.taps) {
      std::fill(sum.begin(), sum.end(), 0.0);
      const int n = *l++;
      for (int k = 0; k < n; ++k, l += 2) {
        const int yi = remap_index(y + l[1], src.height, pass.border);
        if (yi < 0) continue;  // a zero-border row outside the image
        const double* in = rows[size_t(yi)].at(l[0]);
        for (size_t i = 0; i < row; ++i) sum[i] += in[i];
      }
      for (size_t i = 0; i < row; ++i) acc[i] += double(w) * sum[i];
    }
    for (int x = 0; x < dst.width; ++x)
      for (int c = 0; c < C; ++c) dst.set(dst.offset(x, y) + size_t(c), acc[size_t(x) * C + c]);
  });
  return Status::success();
}

}  // namespace gpublur
