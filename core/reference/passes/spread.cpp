// spread: Kosloff's polynomial spreading of the tent's second derivatives (core/program.hpp, Op::Spread), in
// gather form: each output pixel sums the nine weighted source pixels that spread onto it, which is the
// scatter of the thesis without its write conflicts. Float64.
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_spread(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  // dst's stored pixel (i, j) is (i, j) - 2P (Op::Spread): pad-relative x is image x + P.
  const int R = pass.widths[0], X = pass.extend, C = dst.channels, P = dst.pad, W = src.width, H = src.height;
  static constexpr double w[3] = {1.0, -2.0, 1.0};
  auto E = [&](int x, int y, int c) {
    return x < -X || y < -X || x >= W + X || y >= H + X ? 0.0 : src.read(x, y, c, pass.border);
  };
  for_rows(dst.height + 2 * P, threads, [&](int row) {
    const int yp = row - P, y = yp - P;
    for (int xp = -P; xp < dst.width + P; ++xp) {
      const int x = xp - P;
      for (int c = 0; c < C; ++c) {
        double s = 0.0;
        for (int b = 0; b < 3; ++b)
          for (int a = 0; a < 3; ++a) s += w[a] * w[b] * E(x - 1 + (a - 1) * R, y - 1 + (b - 1) * R, c);
        dst.set(dst.offset(xp, yp) + size_t(c), s);
      }
    }
  });
  return Status::success();
}

}  // namespace gpublur
