// dual-down, dual-up: the dual filter's passes as their definition (core/program.hpp), each bilinear sample
// computed from the general bilinear interpolation of the border-extended source at its position
// (core/dual_grid.hpp), in float64.
#include <cmath>

#include "core/dual_grid.hpp"
#include "core/reference/pass_table.hpp"

namespace gpublur {
namespace {

// Bilinear interpolation of channel c at the position (fx, fy) in index units, pixels read with the border.
double bilinear(const CpuImage& src, double fx, double fy, int c, Border b) {
  const int x0 = int(std::floor(fx)), y0 = int(std::floor(fy));
  const double ax = fx - x0, ay = fy - y0;
  return (1 - ay) * ((1 - ax) * src.read(x0, y0, c, b) + ax * src.read(x0 + 1, y0, c, b)) +
         ay * ((1 - ax) * src.read(x0, y0 + 1, c, b) + ax * src.read(x0 + 1, y0 + 1, c, b));
}

}  // namespace

Status cpu_dual_down(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  for_rows(dst.height, threads, [&](int Y) {
    const double cy = dual_coarse_centre(Y);
    for (int X = 0; X < dst.width; ++X) {
      const double cx = dual_coarse_centre(X);
      for (int c = 0; c < src.channels; ++c) {
        double sum = 4 * bilinear(src, cx, cy, c, pass.border);
        for (int sy : {-1, 1})
          for (int sx : {-1, 1}) sum += bilinear(src, cx + sx, cy + sy, c, pass.border);
        dst.set(dst.offset(X, Y) + size_t(c), sum / 8);
      }
    }
  });
  return Status::success();
}

Status cpu_dual_up(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  for_rows(dst.height, threads, [&](int y) {
    const double uy = dual_fine_centre(y);
    for (int x = 0; x < dst.width; ++x) {
      const double ux = dual_fine_centre(x);
      for (int c = 0; c < src.channels; ++c) {
        double sum = 0;
        for (int s : {-1, 1}) {
          sum += bilinear(src, ux + s, uy, c, pass.border) + bilinear(src, ux, uy + s, c, pass.border);
          sum += 2 * (bilinear(src, ux + 0.5 * s, uy + 0.5, c, pass.border) +
                      bilinear(src, ux + 0.5 * s, uy - 0.5, c, pass.border));
        }
        dst.set(dst.offset(x, y) + size_t(c), sum / 12);
      }
    }
  });
  return Status::success();
}

}  // namespace gpublur
