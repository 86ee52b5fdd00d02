// The 2D ring kernel (gpu/cuda/passes/conv2d.cu, conv2d_matrix.cu): direct 2D correlation over a
// (2 ry + 1)-row x ntaps-column window. A block computes 16 rows x 128 columns; each thread 8 consecutive outputs
// of one row. For each tap row j the block needs input rows y - ry + j of its 16 lines: a ring of 17
// shared-memory rows, one new row loaded per j (cp.async, while the others compute), so every input row is
// fetched once per block. Within a tap row the taps run register-blocked from shared memory (conv_block) with the
// weights `weights.row(j)(t)`: gauss-2d's w[j] * w[t], or a matrix's row j. Border remapping happens only when rows
// are loaded.
#pragma once
#include "gpu/cuda/cuda_common.cuh"

namespace gpublur::cuda::ring {

constexpr int K = 8, TL = 16, TA = 128, kThreads = TL * TA / K, kSlots = TL + 1;

// Shared-memory bytes of the ring for ntaps columns of taps.
template <typename T>
size_t ring_bytes(int ntaps) {
  return size_t(kSlots) * size_t((TA + ntaps - 1) | 1) * sizeof(T);
}

template <typename T>
__device__ __forceinline__ void load_row(const T* __restrict__ in, T* __restrict__ dst, int gy, int a0, int npos,
                                         int W, Border b, int rx) {
  const T* src = in + size_t(gy < 0 ? 0 : gy) * W;
  for (int p = threadIdx.x; p < npos; p += kThreads) {
    const int gx = remap_index(a0 - rx + p, W, b);
    const bool ok = gy >= 0 && gx >= 0;
    cp_async_pixel(dst + p, ok ? src + gx : in, ok);
  }
}

// PADDED: ntaps is a multiple of K (zero weights past the window) and the tap loop has no tail step; else
// conv_block_any runs the last ntaps % K taps as a tail. Taps reach rx to the left and ry up; tap rows 2 ry + 1.
template <typename T, bool PADDED, typename Weights>
__global__ void __launch_bounds__(kThreads) kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H,
                                                   Border b, int rx, int ry, int ntaps, Weights weights) {
  extern __shared__ float4 smem4[];
  T* s = reinterpret_cast<T*>(smem4);
  const int npos = TA + ntaps - 1;
  const int pitch = npos | 1;
  const int a0 = blockIdx.x * TA, l0 = grid_row() * TL;
  if (l0 >= H) return;  // tall_grid's blocks past the image
  const int line = threadIdx.x % TL, chunk = threadIdx.x / TL;

  // Slot (j + line) % kSlots holds input row l0 - ry + j + line at tap row j.
  for (int i = 0; i < TL; ++i) load_row(in, s + i * pitch, remap_index(l0 - ry + i, H, b), a0, npos, W, b, rx);
  cp_async_wait_all();
  __syncthreads();

  T total[K];
#pragma unroll
  for (int k = 0; k < K; ++k) total[k] = vzero<T>();
  for (int j = 0; j <= 2 * ry; ++j) {
    // Prefetch the row tap row j + 1 adds into the slot nobody reads at tap row j.
    if (j < 2 * ry)
      load_row(in, s + ((j + TL) % kSlots) * pitch, remap_index(l0 - ry + j + TL, H, b), a0, npos, W, b, rx);
    const auto w = weights.row(j);
    const T* src = s + ((j + line) % kSlots) * pitch + chunk * K;
    T acc[K];
    if constexpr (PADDED)
      conv_block<T, K>(w, ntaps, [&](int p) { return src[p]; }, acc);
    else
      conv_block_any<T, K>(w, ntaps, [&](int p) { return src[p]; }, acc);
#pragma unroll
    for (int k = 0; k < K; ++k) total[k] = vadd(total[k], acc[k]);
    cp_async_wait_all();
    __syncthreads();
  }

  const int y = l0 + line;
  if (y < H) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int x = a0 + chunk * K + k;
      if (x < W) out[size_t(y) * W + x] = total[k];
    }
  }
}

// Launches `kernel` over a W x H image; ring_bytes<T>(ntaps) must fit the device (allow_smem).
template <typename T, bool PADDED, typename Weights>
Status launch(const T* src, T* dst, int W, int H, Border b, int rx, int ry, int ntaps, Weights weights,
              cudaStream_t st) {
  auto k = kernel<T, PADDED, Weights>;
  const size_t bytes = ring_bytes<T>(ntaps);
  if (Status s = allow_smem(k, bytes); !s) return s;
  k<<<tall_grid((W + TA - 1) / TA, (H + TL - 1) / TL), kThreads, bytes, st>>>(src, dst, W, H, b, rx, ry, ntaps,
                                                                              weights);
  return Status::success();
}

}  // namespace gpublur::cuda::ring
