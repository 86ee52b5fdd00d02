// diffusion: widths[0] explicit heat steps u += c (sum of the 4 neighbours - 4 u) over src's stored area
// (padding included), each step reading beyond it with the border mode (zero: 0). float64 throughout, two
// buffers in turn.
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_diffusion(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int p = src.pad, W = src.width + 2 * p, H = src.height + 2 * p, C = src.channels, steps = pass.widths[0];
  const double c = double(pass.taps[0]);
  const size_t row = size_t(W) * C;
  std::vector<double> a(row * size_t(H)), b(a.size());
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int k = 0; k < C; ++k) a[size_t(y) * row + size_t(x) * C + k] = src.get(src.offset(x - p, y - p) + size_t(k));
  // The value at stored position (x, y), channel k, of u under the border mode.
  auto at = [&](const std::vector<double>& u, int x, int y, int k) {
    x = remap_index(x, W, pass.border);
    y = remap_index(y, H, pass.border);
    return x < 0 || y < 0 ? 0.0 : u[size_t(y) * row + size_t(x) * C + k];
  };
  for (int s = 0; s < steps; ++s) {
    for_rows(H, threads, [&](int y) {
      for (int x = 0; x < W; ++x)
        for (int k = 0; k < C; ++k) {
          const double u = a[size_t(y) * row + size_t(x) * C + k];
          const double around = at(a, x - 1, y, k) + at(a, x + 1, y, k) + at(a, x, y - 1, k) + at(a, x, y + 1, k);
          b[size_t(y) * row + size_t(x) * C + k] = u + c * (around - 4 * u);
        }
    });
    a.swap(b);
  }
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int k = 0; k < C; ++k)
        dst.set(dst.offset(x - p, y - p) + size_t(k), a[size_t(y) * row + size_t(x) * C + k]);
  return Status::success();
}

}  // namespace gpublur
