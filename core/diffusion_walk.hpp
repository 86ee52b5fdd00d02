// Diffusion's walk (gpu/cuda/passes/diffusion.cu, shaders/diffusion.comp): the rows a block / group walks. A block's
// walk is a chain of S barriers a row and its first rows wait on DRAM, so the segment length minimises waves x (rows
// walked + start_rows), the waves of `slots` resident blocks over strips x segments. On an H200 (CUDA, sigma 12, 360
// steps): RGBA 1024^2 segments of 16 rows 2.69 ms against 32 rows 2.13; one channel 16 rows 1.14 against 32 rows 1.38;
// RGBA 4096^2 about 70 rows 18.1 ms against 18.8 at 140 and 20.5 at 35 (docs/performance.md, "Diffusion as a walk").
#pragma once

namespace gpublur {

constexpr int kDiffusionStartRows = 24;

inline int diffusion_walk_segment(int H, int S, long long strips, long long slots) {
  int best = H;
  long long best_cost = -1;
  for (int nseg = 1; nseg <= H; ++nseg) {
    const int seg = (H + nseg - 1) / nseg;
    if (seg < 2 * S && nseg > 1) break;
    if (nseg > 1 && seg == (H + nseg - 2) / (nseg - 1)) continue;  // the same segments as nseg - 1
    const long long blocks = strips * ((H + seg - 1) / seg), waves = (blocks + slots - 1) / slots;
    const long long cost = waves * (seg + 2 * S + kDiffusionStartRows);
    if (best_cost < 0 || cost < best_cost) best = seg, best_cost = cost;
  }
  return best;
}

}  // namespace gpublur
