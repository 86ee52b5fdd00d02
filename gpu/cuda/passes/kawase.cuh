// The per-thread logic of the kawase pass (passes/kawase.cu), host and device, on unpadded images of W x H: the
// mean of the 16 pixels at the columns x -+ k, x -+ (k + 1) and the rows likewise (the 4 half-pixel bilinear
// samples, each the mean of its 2 x 2 pixels), read with the border mode, summed row by row.
// tests/cuda/test_cuda_kawase_emulated.cu runs it on the host against the CPU reference.
#pragma once
#include "core/border.hpp"
#include "gpu/cuda/cuda_common.cuh"

namespace gpublur::cuda::kawase {

constexpr int kRun = 4;  // outputs a thread computes down its column for offsets up to 3

// The 4 offsets of a pass's rows and columns: -(k + 1), -k, k, k + 1 (k = 0: the pixel itself twice).
__host__ __device__ __forceinline__ constexpr int offset(int k, int i) { return i < 2 ? -(k + 1 - i) : k + i - 2; }

// A row's 4-pixel sum at the remapped columns rx (the zero border: -1, a row ry < 0 likewise).
template <typename T>
__host__ __device__ __forceinline__ T row_sum(const T* __restrict__ in, int W, int ry, const int (&rx)[4]) {
  T h = vzero<T>();
  if (ry < 0) return h;
  const T* row = in + size_t(ry) * size_t(W);
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (rx[i] >= 0) h = vadd(h, row[rx[i]]);
  return h;
}

// One output at (x, y), any k: 8 border remaps, 16 reads.
template <typename T>
__host__ __device__ __forceinline__ void pixel(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b,
                                               int k, int x, int y) {
  int rx[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) rx[i] = remap_index(x + offset(k, i), W, b);
  T sum = vzero<T>();
#pragma unroll
  for (int j = 0; j < 4; ++j) sum = vadd(sum, row_sum(in, W, remap_index(y + offset(k, j), H, b), rx));
  T res = vzero<T>();
  vfma(1.f / 16.f, sum, res);
  out[size_t(y) * size_t(W) + x] = res;
}

// kRun outputs from (x, y0) down, offset KK <= 3: each row's sum once, at most 2 kRun + 2 rows for the kRun
// outputs where one output a thread reads 4 rows each (10 row sums for 4 outputs against 16).
template <typename T, int KK>
__host__ __device__ __forceinline__ void run(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b,
                                             int x, int y0) {
  constexpr int V = kRun, T0 = -KK - 1, NT = 2 * KK + V + 2;  // rows y0 + T0 .. y0 + T0 + NT - 1
  int rx[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) rx[i] = remap_index(x + offset(KK, i), W, b);
  T acc[V];
#pragma unroll
  for (int j = 0; j < V; ++j) acc[j] = vzero<T>();
#pragma unroll
  for (int t = 0; t < NT; ++t) {
    const int dt = T0 + t;  // the row's offset from y0: output j reads it where dt - j is one of the offsets
    bool used = false;
#pragma unroll
    for (int j = 0; j < V; ++j)
#pragma unroll
      for (int o = 0; o < 4; ++o) used = used || dt - j == offset(KK, o);
    if (!used) continue;
    const T h = row_sum(in, W, remap_index(y0 + dt, H, b), rx);
#pragma unroll
    for (int j = 0; j < V; ++j)
#pragma unroll
      for (int o = 0; o < 4; ++o)
        if (dt - j == offset(KK, o)) acc[j] = vadd(acc[j], h);
  }
#pragma unroll
  for (int j = 0; j < V; ++j)
    if (y0 + j < H) {
      T res = vzero<T>();
      vfma(1.f / 16.f, acc[j], res);
      out[size_t(y0 + j) * size_t(W) + x] = res;
    }
}

}  // namespace gpublur::cuda::kawase
