// box2d: the mean of src over the w x w window centred on each pixel of dst's area (an unpadded source read
// with the border mode). The CPU's schedule sums rows then columns in float64 (w + w additions instead of
// w^2, the same sum up to float64 rounding); the GPUs read all w^2 pixels, the thesis's direct form.
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_box2d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int w = pass.widths[0], h = w / 2, C = dst.channels, p = dst.pad;
  const int cols = dst.width + 2 * p, rows = dst.height + 2 * p + 2 * h;
  // Horizontal window sums for every source row dst needs: rows -p-h .. H+p+h-1, columns -p .. W+p-1.
  std::vector<double> hs(size_t(rows) * size_t(cols) * C);
  for_rows(rows, threads, [&](int r) {
    const int y = r - p - h;
    for (int x = -p; x < dst.width + p; ++x)
      for (int c = 0; c < C; ++c) {
        double s = 0;
        for (int dx = -h; dx <= h; ++dx) s += src.read(x + dx, y, c, pass.border);
        hs[(size_t(r) * cols + size_t(x + p)) * C + size_t(c)] = s;
      }
  });
  const double area = double(w) * w;
  for_rows(dst.height + 2 * p, threads, [&](int r) {
    const int y = r - p;
    for (int x = -p; x < dst.width + p; ++x)
      for (int c = 0; c < C; ++c) {
        double s = 0;
        for (int dy = 0; dy < w; ++dy) s += hs[(size_t(r + dy) * cols + size_t(x + p)) * C + size_t(c)];
        dst.set(dst.offset(x, y) + size_t(c), s / area);
      }
  });
  return Status::success();
}

}  // namespace gpublur
