// spread: Kosloff's polynomial spreading of the tent's second derivatives (core/program.hpp, Op::Spread), in
// gather form: each table pixel sums the nine weighted source pixels that spread onto it, which is the
// scatter of the thesis without its write conflicts; the spread that lands before the image's first column
// or row is folded into the two lines before it (fold weights 2 - d and d - 1 for the position -d). Float64.
#include <vector>

#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_spread(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  if (dst.pad != 1) return Status::fail("cpu spread: the table's padding must be 1 (two lines before the image)");
  // dst's stored pixel (i, j) is image pixel (i, j) - 2: pad-relative x is image x + 1.
  const int R = pass.widths[0], X = pass.extend, C = dst.channels, W = src.width, H = src.height;
  const int M = X + R - 1;  // the spread is 0 before -M
  static constexpr double w[3] = {1.0, -2.0, 1.0};
  auto E = [&](int x, int y, int c) {
    return x < -X || y < -X || x >= W + X || y >= H + X ? 0.0 : src.read(x, y, c, pass.border);
  };
  auto s = [&](int x, int y, int c) {
    double v = 0.0;
    for (int b = 0; b < 3; ++b)
      for (int a = 0; a < 3; ++a) v += w[a] * w[b] * E(x - 1 + (a - 1) * R, y - 1 + (b - 1) * R, c);
    return v;
  };
  const size_t line = size_t(W + 2) * size_t(C);
  // Source row y's spread, columns -M..-1 folded into the table's columns -2 and -1, added times `f` to `out`
  // (the table's columns -2..W-1).
  auto add_folded_row = [&](int y, double f, double* out) {
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) out[size_t(x + 2) * C + c] += f * s(x, y, c);
    for (int d = 1; d <= M; ++d)
      for (int c = 0; c < C; ++c) {
        const double v = f * s(-d, y, c);
        out[size_t(C) + c] += (2.0 - d) * v;  // column -1
        out[size_t(c)] += (d - 1.0) * v;      // column -2
      }
  };
  for_rows(dst.height + 2, threads, [&](int row) {
    const int ty = row - 2;
    std::vector<double> acc(line, 0.0);
    if (ty >= 0) {
      add_folded_row(ty, 1.0, acc.data());
    } else {  // rows -M..-1 folded likewise into rows -2 and -1
      for (int d = 1; d <= M; ++d) add_folded_row(-d, ty == -1 ? 2.0 - d : d - 1.0, acc.data());
    }
    for (int i = 0; i < W + 2; ++i)
      for (int c = 0; c < C; ++c) dst.set(dst.offset(i - 1, row - 1) + size_t(c), acc[size_t(i) * C + c]);
  });
  return Status::success();
}

}  // namespace gpublur
