// The per-pixel logic of Down2 and Up2 (passes/down2.cu, passes/up2.cu), host and device: one destination pixel
// at stored position (tx, ty) of images laid out as DevImage (rows of width + 2 pad, pixel (x, y) at stored
// (x + pad, y + pad)); reads apply the border mode over the source's stored area (core/resample.hpp
// resample_index). tests/cuda/test_cuda_resample_emulated.cu runs it on the host against the CPU reference.
#pragma once
#include "core/border.hpp"
#include "gpu/cuda/cuda_common.cuh"

namespace gpublur::cuda::resample {

__host__ __device__ __forceinline__ float scaled(float w, float v) { return w * v; }
__host__ __device__ __forceinline__ float2 scaled(float w, float2 v) { return make_float2(w * v.x, w * v.y); }
__host__ __device__ __forceinline__ float4 scaled(float w, float4 v) {
  return make_float4(w * v.x, w * v.y, w * v.z, w * v.w);
}

// Stored index of pixel x in a source of length n and padding p, -1 where the border reads zero.
__host__ __device__ __forceinline__ int stored(int x, int n, int p, Border b) { return remap_index(x + p, n + 2 * p, b); }
__host__ __device__ __forceinline__ int floor_half(int x) { return x >= 0 ? x / 2 : -((1 - x) / 2); }

// Down2 at stored (tx, ty) of dst: the n x n window at 2X + first, rows weighted first, then the column weights.
template <typename T>
__host__ __device__ __forceinline__ T down2_at(const T* __restrict__ in, int W, int H, int spad, int tx, int ty,
                                               int dpad, Border b, int n, int first, const float* w) {
  const int sstride = W + 2 * spad;
  const int x0 = 2 * (tx - dpad) + first, y0 = 2 * (ty - dpad) + first;
  T acc = vzero<T>();
  for (int j = 0; j < n; ++j) {
    const int sy = stored(y0 + j, H, spad, b);
    T row = vzero<T>();
    if (sy >= 0)
      for (int i = 0; i < n; ++i) {
        const int sx = stored(x0 + i, W, spad, b);
        if (sx >= 0) row = vadd(row, scaled(w[i], in[size_t(sy) * sstride + sx]));
      }
    acc = vadd(acc, scaled(w[j], row));
  }
  return acc;
}

// Up2 at stored (tx, ty) of dst: 3/4 on the coarse pixel floor(x / 2), 1/4 on the one on the fine pixel's side.
template <typename T>
__host__ __device__ __forceinline__ T up2_at(const T* __restrict__ in, int CW, int CH, int spad, int tx, int ty,
                                             int dpad, Border b) {
  const int x = tx - dpad, y = ty - dpad, sstride = CW + 2 * spad;
  const int xn = floor_half(x), yn = floor_half(y), xf = xn + ((x & 1) ? 1 : -1), yf = yn + ((y & 1) ? 1 : -1);
  auto read = [&](int cx, int cy) {
    const int sx = stored(cx, CW, spad, b), sy = stored(cy, CH, spad, b);
    return sx < 0 || sy < 0 ? vzero<T>() : in[size_t(sy) * sstride + sx];
  };
  const T r0 = vadd(scaled(0.75f, read(xn, yn)), scaled(0.25f, read(xf, yn)));
  const T r1 = vadd(scaled(0.75f, read(xn, yf)), scaled(0.25f, read(xf, yf)));
  return vadd(scaled(0.75f, r0), scaled(0.25f, r1));
}

}  // namespace gpublur::cuda::resample
