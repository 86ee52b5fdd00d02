// reshuffle: Porikli's single-output reshuffling (core/program.hpp Op::Reshuffle) as written: per output row,
// for each unique weight the sum of the source pixels over its linkage set, then one multiply-add of the
// weight; float64, every source row extended once with the border mode (as conv2d).
#include <algorithm>

#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_reshuffle(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int R = pass.widths[0];
  for_rows_2d(src, dst, R, pass.border, threads, [&](int y, const ExtendedRows& rows, std::vector<double>& acc) {
    std::vector<double> sum(acc.size());
    const int* l = pass.links.data();
    for (float w : pass.taps) {
      std::fill(sum.begin(), sum.end(), 0.0);
      const int n = *l++;
      for (int k = 0; k < n; ++k, l += 2) {
        const LineBatch* line = rows.at(y + l[1]);
        if (!line) continue;  // a zero-border row outside the image
        const double* in = line->at(l[0]);
        for (size_t i = 0; i < sum.size(); ++i) sum[i] += in[i];
      }
      for (size_t i = 0; i < acc.size(); ++i) acc[i] += double(w) * sum[i];
    }
  });
  return Status::success();
}

}  // namespace gpublur
