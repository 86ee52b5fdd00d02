// copy: dst = src over dst's area (an unpadded source is extended with the border mode).
#include <algorithm>

#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_copy(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = dst.channels, p = dst.pad;
  if (p == 0 && src.pad == 0 && !src.f64 && !dst.f64) {  // the common case: one block copy
    std::copy(src.f, src.f + size_t(src.width) * src.height * C, dst.f);
    return Status::success();
  }
  for_rows(dst.height + 2 * p, threads, [&](int row) {
    const int y = row - p;
    for (int x = -p; x < dst.width + p; ++x) {
      const size_t o = dst.offset(x, y);
      for (int c = 0; c < C; ++c) dst.set(o + size_t(c), src.read(x, y, c, pass.border));
    }
  });
  return Status::success();
}

}  // namespace gpublur
