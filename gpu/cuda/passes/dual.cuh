// The dual filter's per-thread logic (gpu/cuda/passes/dual.cu), host and device, with the bilinear samples
// expanded into explicit float weights over the pixels they touch (core/program.hpp Op::DualDown/DualUp,
// core/dual_grid.hpp). tests/cuda/test_cuda_dual_emulated.cu runs it on the host against the CPU reference.
#pragma once
#include <cuda_runtime.h>

#include "core/border.hpp"
#include "gpu/cuda/cuda_common.cuh"

namespace gpublur::cuda::dual {

template <typename T>
__host__ __device__ __forceinline__ T fetch(const T* __restrict__ in, int rx, int ry, int W) {
  return rx < 0 || ry < 0 ? vzero<T>() : in[size_t(ry) * W + rx];
}

// Down: output (X, Y) of the coarse image. The centre sample (at the middle of source pixels 2X, 2X + 1) is the
// mean of those 2 x 2 pixels, the 4 corner samples (+-1 source pixel) the means of the 2 x 2 blocks that tile
// the 4 x 4 pixels 2X - 1 .. 2X + 2: (4 * inner / 4 + all 16 / 4) / 8 = inner / 8 + all / 32.
template <typename T>
__host__ __device__ __forceinline__ T down_value(const T* __restrict__ in, int X, int Y, int Ws, int Hs, Border b) {
  int cx[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) cx[i] = remap_index(2 * X - 1 + i, Ws, b);
  T all = vzero<T>(), inner = vzero<T>();
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int ry = remap_index(2 * Y - 1 + j, Hs, b);
    const T a = fetch(in, cx[0], ry, Ws), m0 = fetch(in, cx[1], ry, Ws), m1 = fetch(in, cx[2], ry, Ws),
            d = fetch(in, cx[3], ry, Ws);
    const T mid = vadd(m0, m1);
    all = vadd(all, vadd(vadd(a, d), mid));
    if (j == 1 || j == 2) inner = vadd(inner, mid);
  }
  T res = vzero<T>();
  vfma(1.f / 32.f, all, res);
  vfma(1.f / 8.f, inner, res);
  return res;
}

template <typename T>
__host__ __device__ __forceinline__ void down_pixel(const T* __restrict__ in, T* __restrict__ out, int X, int Y,
                                                    int Ws, int Hs, int Wd, Border b) {
  out[size_t(Y) * Wd + X] = down_value(in, X, Y, Ws, Hs, b);
}

// Up: one thread makes the 2 x 2 fine pixels (2X + px, 2Y + py), px, py in {0, 1}, from the 5 x 5 coarse pixels
// X - 2 .. X + 2 (x) Y - 2 .. Y + 2. Per axis, for phase p (fine centre at X - 1/4 for p = 0, X + 1/4 for p = 1)
// the samples at offsets 0, +-1/2, +-1 each weigh two coarse pixels 1/4 and 3/4; summed over the pattern's
// groups, on the window index i = 0 .. 4 (coarse X - 2 + i):
//   Pv: the axial samples at +-1,  Qv: the one at 0,  Rv: the diagonal ones at +-1/2,
// and the 2D weight is (P_x Q_y + Q_x P_y + 2 R_x R_y) / 12 (axial samples (+-1, 0) and (0, +-1), weight 1;
// diagonal (+-1/2, +-1/2), weight 2). Constant-folded in the unrolled loops.
__host__ __device__ constexpr float Pv(int p, int i) {
  return p == 0 ? (i == 0 ? 0.25f : i == 1 ? 0.75f : i == 2 ? 0.25f : i == 3 ? 0.75f : 0.f)
                : (i == 1 ? 0.75f : i == 2 ? 0.25f : i == 3 ? 0.75f : i == 4 ? 0.25f : 0.f);
}
__host__ __device__ constexpr float Qv(int p, int i) {
  return p == 0 ? (i == 1 ? 0.25f : i == 2 ? 0.75f : 0.f) : (i == 2 ? 0.75f : i == 3 ? 0.25f : 0.f);
}
__host__ __device__ constexpr float Rv(int p, int i) {
  return p == 0 ? (i == 1 ? 0.75f : i == 2 ? 1.f : i == 3 ? 0.25f : 0.f)
                : (i == 1 ? 0.25f : i == 2 ? 1.f : i == 3 ? 0.75f : 0.f);
}
__host__ __device__ constexpr float up_weight(int px, int py, int i, int j) {
  return (Pv(px, i) * Qv(py, j) + Qv(px, i) * Pv(py, j) + 2.f * Rv(px, i) * Rv(py, j)) * (1.f / 12.f);
}

template <typename T>
__host__ __device__ __forceinline__ void up_quad(const T* __restrict__ in, T* __restrict__ out, int X, int Y, int Ws,
                                                 int Hs, int Wd, int Hd, Border b) {
  int cx[5];
#pragma unroll
  for (int i = 0; i < 5; ++i) cx[i] = remap_index(X - 2 + i, Ws, b);
  T acc[2][2] = {{vzero<T>(), vzero<T>()}, {vzero<T>(), vzero<T>()}};  // [py][px]
#pragma unroll
  for (int j = 0; j < 5; ++j) {
    const int ry = remap_index(Y - 2 + j, Hs, b);
    T v[5];
#pragma unroll
    for (int i = 0; i < 5; ++i) v[i] = fetch(in, cx[i], ry, Ws);
#pragma unroll
    for (int py = 0; py < 2; ++py)
#pragma unroll
      for (int px = 0; px < 2; ++px)
#pragma unroll
        for (int i = 0; i < 5; ++i) {
          const float w = up_weight(px, py, i, j);
          if (w != 0.f) vfma(w, v[i], acc[py][px]);
        }
  }
#pragma unroll
  for (int py = 0; py < 2; ++py)
#pragma unroll
    for (int px = 0; px < 2; ++px) {
      const int x = 2 * X + px, y = 2 * Y + py;
      if (x < Wd && y < Hd) out[size_t(y) * Wd + x] = acc[py][px];
    }
}

}  // namespace gpublur::cuda::dual
