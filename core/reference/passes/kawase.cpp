// kawase: dst(x, y) = the mean of the bilinear samples of src at (x + sx (k + 1/2), y + sy (k + 1/2)), sx, sy =
// +-1; a sample halfway between pixels weighs each of its 2 x 2 pixels 1/4 (pixels read with the border mode).
// float64.
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_kawase(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int k = pass.widths[0], C = src.channels;
  for_rows(dst.height, threads, [&](int y) {
    for (int x = 0; x < dst.width; ++x)
      for (int c = 0; c < C; ++c) {
        double mean = 0;
        for (int sy : {-1, 1})
          for (int sx : {-1, 1}) {
            // The sample at offset s (k + 1/2) lies between pixels s k and s (k + 1).
            const int x0 = x + sx * k, x1 = x + sx * (k + 1), y0 = y + sy * k, y1 = y + sy * (k + 1);
            const double sample = 0.25 * (src.read(x0, y0, c, pass.border) + src.read(x1, y0, c, pass.border) +
                                          src.read(x0, y1, c, pass.border) + src.read(x1, y1, c, pass.border));
            mean += 0.25 * sample;
          }
        dst.set(dst.offset(x, y) + size_t(c), mean);
      }
  });
  return Status::success();
}

}  // namespace gpublur
