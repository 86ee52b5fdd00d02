// bilateral, bilateral1d: out(p) = sum_q w_s(q - p) w_r(p, q) I(q) / sum_q w_s(q - p) w_r(p, q), q over the
// (2r+1)^2 window (bilateral) or the 2r+1 pixels along the pass's axis (bilateral1d), read with the border mode;
// w_s the product of the 1D taps, w_r = exp(-range * |I(p) - I(q)|^2) over the colour channels (every channel but
// pass_alpha's). float64.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "core/reference/pass_table.hpp"

namespace gpublur {
namespace {

constexpr double kFloatMin = FLT_MIN, kFloatMax = FLT_MAX;

Status bilateral(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads, bool two_d) {
  const int C = src.channels, alpha = pass_alpha(pass, C), r = pass.radius();
  const double range = double(pass.range);
  for_rows(dst.height, threads, [&](int y) {
    std::vector<double> centre(static_cast<size_t>(C)), q(centre), sum(centre);
    for (int x = 0; x < dst.width; ++x) {
      for (int c = 0; c < C; ++c) centre[size_t(c)] = src.read(x, y, c, pass.border), sum[size_t(c)] = 0;
      double total = 0;
      const int ry = two_d || pass.axis == 1 ? r : 0, rx = two_d || pass.axis == 0 ? r : 0;
      for (int dy = -ry; dy <= ry; ++dy)
        for (int dx = -rx; dx <= rx; ++dx) {
          double d2 = 0;
          for (int c = 0; c < C; ++c) {
            q[size_t(c)] = src.read(x + dx, y + dy, c, pass.border);
            if (c != alpha) d2 += (q[size_t(c)] - centre[size_t(c)]) * (q[size_t(c)] - centre[size_t(c)]);
          }
          const double ws = two_d ? double(pass.taps[size_t(dx + r)]) * double(pass.taps[size_t(dy + r)])
                                  : double(pass.taps[size_t((pass.axis == 0 ? dx : dy) + r)]);
          double w = ws * std::exp(-range * d2);
          if (d2 <= kFloatMax) w = std::max(w, kFloatMin);  // bilateral_weight_floor (core/program.hpp)
          total += w;
          for (int c = 0; c < C; ++c) sum[size_t(c)] += w * q[size_t(c)];
        }
      for (int c = 0; c < C; ++c) dst.set(dst.offset(x, y) + size_t(c), sum[size_t(c)] / total);
    }
  });
  return Status::success();
}

}  // namespace

Status cpu_bilateral(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  return bilateral(pass, src, dst, threads, true);
}

Status cpu_bilateral1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  return bilateral(pass, src, dst, threads, false);
}

}  // namespace gpublur
