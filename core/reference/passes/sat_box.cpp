// sat-box: the mean over the w x w window centred on each pixel from four lookups in an inclusive summed-
// area table; lookups before the table's first row or column read 0 (the empty sum).
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_sat_box(const Pass& pass, const CpuImage& table, CpuImage& dst, int threads) {
  const int w = pass.widths[0], h = w / 2, C = dst.channels, p = dst.pad;
  const double area = double(w) * w;
  auto S = [&](int x, int y, int c) {
    return x < -table.pad || y < -table.pad ? 0.0 : table.d[table.offset(x, y) + size_t(c)];
  };
  for_rows(dst.height + 2 * p, threads, [&](int row) {
    const int y = row - p;
    for (int x = -p; x < dst.width + p; ++x)
      for (int c = 0; c < C; ++c) {
        const double sum = S(x + h, y + h, c) - S(x - h - 1, y + h, c) - S(x + h, y - h - 1, c) +
                           S(x - h - 1, y - h - 1, c);
        dst.set(dst.offset(x, y) + size_t(c), sum / area);
      }
  });
  return Status::success();
}

}  // namespace gpublur
