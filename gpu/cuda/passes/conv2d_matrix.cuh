// conv2d-matrix's block logic (gpu/cuda/passes/conv2d_matrix.cu), host and device: a block of BX x BY threads
// makes TW x TH outputs (PER rows per thread, BY apart). Phase 1: every thread loads its share of the
// (TW + kw - 1) x (TH + kh - 1) source tile, border-remapped; one barrier; phase 2: each thread walks all
// kw x kh weights over the tile. tests/cuda/test_cuda_conv2d_matrix_emulated.cu runs the phases on the host.
#pragma once
#include <cuda_runtime.h>

#include "core/border.hpp"
#include "gpu/cuda/cuda_common.cuh"

namespace gpublur::cuda::matrix {

constexpr int BX = 32, BY = 8, PER = 4, TW = BX, TH = BY * PER;

// Shared-memory values of one block's tile.
__host__ __device__ __forceinline__ int tile_values(int kw, int kh) { return (TW + kw - 1) * (TH + kh - 1); }

// Phase 1, thread `tid` (0 .. BX * BY - 1) of block (bx, by).
template <typename T>
__host__ __device__ __forceinline__ void load_tile(const T* __restrict__ in, T* __restrict__ s, int tid, int bx,
                                                   int by, int W, int H, Border b, int kw, int kh) {
  const int rx = kw / 2, ry = kh / 2, tw = TW + kw - 1, n = tile_values(kw, kh);
  const int x0 = bx * TW, y0 = by * TH;
  for (int i = tid; i < n; i += BX * BY) {
    const int ty = i / tw, tx = i - ty * tw;
    const int gx = remap_index(x0 - rx + tx, W, b), gy = remap_index(y0 - ry + ty, H, b);
    s[i] = (gx < 0 || gy < 0) ? vzero<T>() : in[size_t(gy) * W + gx];
  }
}

// Thread (lx, ly) of block (bx, by) stores its PER outputs (column x, rows PER apart), those inside the image.
template <typename T>
__host__ __device__ __forceinline__ void store_outputs(const T (&acc)[PER], T* __restrict__ out, int lx, int ly,
                                                       int bx, int by, int W, int H) {
  const int x = bx * TW + lx;
  if (x >= W) return;
#pragma unroll
  for (int p = 0; p < PER; ++p) {
    const int y = by * TH + ly + p * BY;
    if (y < H) out[size_t(y) * W + x] = acc[p];
  }
}

// Phase 2, thread (lx, ly) of block (bx, by): its PER outputs; weight(k) is weight k of the row-major matrix.
template <typename T, typename Weight>
__host__ __device__ __forceinline__ void compute(const T* __restrict__ s, T* __restrict__ out, int lx, int ly, int bx,
                                                 int by, int W, int H, int kw, int kh, Weight weight) {
  const int tw = TW + kw - 1;
  T acc[PER];
#pragma unroll
  for (int p = 0; p < PER; ++p) acc[p] = vzero<T>();
  for (int j = 0; j < kh; ++j) {
    const T* row = s + (ly + j) * tw + lx;
    const int base = j * kw;
    for (int i = 0; i < kw; ++i) {
      const float wt = weight(base + i);
#pragma unroll
      for (int p = 0; p < PER; ++p) vfma(wt, row[p * BY * tw + i], acc[p]);
    }
  }
  store_outputs(acc, out, lx, ly, bx, by, W, H);
}

}  // namespace gpublur::cuda::matrix
