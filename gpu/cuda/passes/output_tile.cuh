// A block's source tile and output tile (reshuffle's CUDA form, passes/reshuffle.cuh), host and device: a block of
// BX x BY threads makes TW x TH outputs (PER rows per thread, BY apart); every thread loads its share of the
// (TW + kw - 1) x (TH + kh - 1) source tile, border-remapped, and stores its PER outputs. (conv2d-matrix used this
// tile with one shared-memory load a multiply-add until the seventy-first session; it runs on the ring kernel now,
// passes/conv2d_ring.cuh.) tests/cuda/test_cuda_reshuffle_emulated.cu runs it on the host.
#pragma once
#include <cuda_runtime.h>

#include "core/border.hpp"
#include "gpu/cuda/cuda_common.cuh"

namespace gpublur::cuda::tile {

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

}  // namespace gpublur::cuda::tile
