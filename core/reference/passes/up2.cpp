// up2: the biquadratic B-spline synthesis: per axis 3/4 on the coarse pixel up2_near(x) and 1/4 on up2_far(x)
// (core/resample.hpp) over dst's whole stored area, reads through resample_read. float64.
#include "core/reference/pass_table.hpp"
#include "core/resample.hpp"

namespace gpublur {

Status cpu_up2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = src.channels, P = dst.pad;
  auto read = [&](int x, int y, int c) {
    const int sx = resample_index(x, src.width, src.pad, pass.border),
              sy = resample_index(y, src.height, src.pad, pass.border);
    return sx < -src.pad || sy < -src.pad ? 0.0 : src.get(src.offset(sx, sy) + size_t(c));
  };
  for_rows(dst.height + 2 * P, threads, [&](int row) {
    const int y = row - P, yn = up2_near(y), yf = up2_far(y);
    for (int x = -P; x < dst.width + P; ++x) {
      const int xn = up2_near(x), xf = up2_far(x);
      for (int c = 0; c < C; ++c) {
        const double v = 0.75 * (0.75 * read(xn, yn, c) + 0.25 * read(xf, yn, c)) +
                         0.25 * (0.75 * read(xn, yf, c) + 0.25 * read(xf, yf, c));
        dst.set(dst.offset(x, y) + size_t(c), v);
      }
    }
  });
  return Status::success();
}

}  // namespace gpublur
