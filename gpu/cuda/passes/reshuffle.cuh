// reshuffle's block logic (gpu/cuda/passes/reshuffle.cu), host and device. The tile path is conv2d-matrix's
// (passes/output_tile.cuh): a block of BX x BY threads makes TW x TH outputs, PER rows per thread; phase 1
// loads the (TW + 2R) x (TH + 2R) source tile border-remapped (tile::load_tile with a (2R+1)^2 window), one
// barrier, phase 2 walks the linkage sets: per unique weight, the PER sums of the tile values at the set's
// offsets, then one multiply-add of the weight each. Links are packed on the host per path:
//   tile:   n_u, then n_u tile offsets (dy + R) * (TW + 2R) + (dx + R), for each unique weight u in order;
//   global: n_u, then n_u offsets ((dy + R) << 16) | (dx + R) (one thread per output, R < 32768).
// tests/cuda/test_cuda_reshuffle_emulated.cu runs both on the host.
#pragma once
#include <cuda_runtime.h>

#include <vector>

#include "core/border.hpp"
#include "core/program.hpp"
#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/passes/output_tile.cuh"

namespace gpublur::cuda::reshuffle {

using tile::BX;
using tile::BY;
using tile::PER;
using tile::TH;
using tile::TW;

__host__ __device__ __forceinline__ int tile_width(int R) { return TW + 2 * R; }
__host__ __device__ __forceinline__ int tile_values(int R) { return tile::tile_values(2 * R + 1, 2 * R + 1); }

// Phase 2 of the tile path, thread (lx, ly) of block (bx, by); link(i) is int i of the packed links, weight(u)
// unique weight u.
template <typename T, typename Link, typename Weight>
__host__ __device__ __forceinline__ void compute(const T* __restrict__ s, T* __restrict__ out, int lx, int ly, int bx,
                                                 int by, int W, int H, int R, int U, Link link, Weight weight) {
  const int tw = tile_width(R);
  const T* base = s + ly * tw + lx;  // the tile at offset (-R, -R) of this thread's first output
  T acc[PER];
#pragma unroll
  for (int p = 0; p < PER; ++p) acc[p] = vzero<T>();
  int at = 0;
  for (int u = 0; u < U; ++u) {
    const int n = link(at++);
    T sum[PER];
#pragma unroll
    for (int p = 0; p < PER; ++p) sum[p] = vzero<T>();
    for (int k = 0; k < n; ++k) {
      const int off = link(at++);
#pragma unroll
      for (int p = 0; p < PER; ++p) sum[p] = vadd(sum[p], base[p * BY * tw + off]);
    }
    const float w = weight(u);
#pragma unroll
    for (int p = 0; p < PER; ++p) vfma(w, sum[p], acc[p]);
  }
  tile::store_outputs(acc, out, lx, ly, bx, by, W, H);
}

// The global path: output (x, y), every tap read from `in` with the border remap.
template <typename T, typename Link, typename Weight>
__host__ __device__ __forceinline__ T pixel(const T* __restrict__ in, int x, int y, int W, int H, Border b, int R,
                                            int U, Link link, Weight weight) {
  T acc = vzero<T>();
  int at = 0;
  for (int u = 0; u < U; ++u) {
    const int n = link(at++);
    T sum = vzero<T>();
    for (int k = 0; k < n; ++k) {
      const int v = link(at++);
      const int gx = remap_index(x + (v & 0xffff) - R, W, b), gy = remap_index(y + (v >> 16) - R, H, b);
      if (gx >= 0 && gy >= 0) sum = vadd(sum, in[size_t(gy) * W + gx]);
    }
    vfma(weight(u), sum, acc);
  }
  return acc;
}

// The pass's links (core/program.hpp Op::Reshuffle) packed for the tile path (tile = true) or the global one.
inline std::vector<int> pack_links(const Pass& pass, bool tile) {
  const int R = pass.widths[0], tw = tile_width(R);
  std::vector<int> out;
  out.reserve(pass.links.size());
  size_t at = 0;
  for (size_t u = 0; u < pass.taps.size(); ++u) {
    const int n = pass.links[at++];
    out.push_back(n);
    for (int k = 0; k < n; ++k, at += 2) {
      const int dx = pass.links[at] + R, dy = pass.links[at + 1] + R;
      out.push_back(tile ? dy * tw + dx : (dy << 16) | dx);
    }
  }
  return out;
}

}  // namespace gpublur::cuda::reshuffle
