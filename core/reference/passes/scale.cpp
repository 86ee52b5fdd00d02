// scale: dst = taps[0] * src over dst's area (src a float64 table that covers it, read `extend` pixels on).
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_scale(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = dst.channels, P = dst.pad, e = pass.extend;
  const double f = double(pass.taps[0]);
  for_rows(dst.height + 2 * P, threads, [&](int row) {
    const int y = row - P;
    for (int x = -P; x < dst.width + P; ++x) {
      const size_t o = dst.offset(x, y), i = src.offset(x + e, y + e);
      for (int c = 0; c < C; ++c) dst.set(o + size_t(c), f * src.get(i + size_t(c)));
    }
  });
  return Status::success();
}

}  // namespace gpublur
