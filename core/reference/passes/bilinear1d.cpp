// bilinear1d: taps at fractional offsets, each a bilinear sample of the two border-remapped texels around
// it with exact interpolation; that is the discrete kernel of the split taps (core/gauss.hpp
// linear_exact_kernel), run as a conv1d. GPUs' texture units compute it with 8-bit fractions.
#include "core/gauss.hpp"
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_bilinear1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  int reach = 0;
  const std::vector<double> k = linear_exact_kernel(pass.offsets, pass.taps, reach);
  Pass conv = pass;
  conv.op = Op::Conv1d;
  conv.taps.assign(k.begin(), k.end());
  return cpu_conv1d(conv, src, dst, threads);
}

}  // namespace gpublur
