// up2: the biquadratic B-spline synthesis: per axis 3/4 on the coarse pixel up2_near(x) and 1/4 on up2_far(x)
// (core/resample.hpp), reads through the border mode. float64.
#include "core/reference/pass_table.hpp"
#include "core/resample.hpp"

namespace gpublur {

Status cpu_up2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = src.channels;
  for_rows(dst.height, threads, [&](int y) {
    const int yn = up2_near(y), yf = up2_far(y);
    for (int x = 0; x < dst.width; ++x) {
      const int xn = up2_near(x), xf = up2_far(x);
      for (int c = 0; c < C; ++c) {
        auto r = [&](int a, int b) { return src.read(a, b, c, pass.border); };
        const double v = 0.5625 * r(xn, yn) + 0.1875 * (r(xf, yn) + r(xn, yf)) + 0.0625 * r(xf, yf);
        dst.set(dst.offset(x, y) + size_t(c), v);
      }
    }
  });
  return Status::success();
}

}  // namespace gpublur
