// conv1d: out(x) = sum_k taps[k + r] in(x + k) along the pass's axis, float64 accumulation, the border mode
// applied by extending each line once.
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_conv1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int r = int(pass.taps.size() / 2);
  for_line_batches(src, dst, pass.axis, r, pass.border, threads, [&](LineBatch& lb) {
    std::vector<double> out(size_t(lb.n) * size_t(lb.vec), 0.0);
    for (int k = -r; k <= r; ++k) {
      const double w = pass.taps[size_t(k + r)];
      const double* in = lb.at(k);
      for (size_t i = 0; i < out.size(); ++i) out[i] += w * in[i];
    }
    return out;
  });
  return Status::success();
}

}  // namespace gpublur
