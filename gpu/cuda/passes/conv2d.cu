// conv2d: direct (2r+1)^2 convolution with the outer product taps (x) taps (no separation).
// A block computes 16 rows x 128 columns; each thread 8 consecutive outputs of one row. For each tap row j
// the block needs input rows y - r + j of its 16 lines: a ring of 17 shared-memory rows, one new row
// loaded per j (cp.async, while the others compute), so every input row is fetched once per block. Within a
// tap row the taps run register-blocked from shared memory with weight w[j] * w[t]. Border remapping happens only
// when rows are loaded. Radii too large for the ring fall back to a plain global-memory kernel.
#include <algorithm>
#include <vector>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

__constant__ float c_w[kMaxTaps];

constexpr int K = 8, TL = 16, TA = 128, kThreads = TL * TA / K, kSlots = TL + 1;

template <typename T>
__device__ __forceinline__ void load_row(const T* __restrict__ in, T* __restrict__ dst, int gy, int a0, int npos,
                                         int W, Border b, int r) {
  const T* src = in + size_t(gy < 0 ? 0 : gy) * W;
  for (int p = threadIdx.x; p < npos; p += kThreads) {
    const int gx = remap_index(a0 - r + p, W, b);
    const bool ok = gy >= 0 && gx >= 0;
    cp_async_pixel(dst + p, ok ? src + gx : in, ok);
  }
}

// PADDED: ntaps is a multiple of K (zero weights past 2r + 1) and the tap loop has no tail step; else ntaps =
// 2r + 1 and conv_block_any runs the last ntaps % K taps as a tail.
template <typename T, bool PADDED>
__global__ void __launch_bounds__(kThreads) conv2d_kernel(const T* __restrict__ in, T* __restrict__ out, int W,
                                                           int H, Border b, int r, int ntaps) {
  extern __shared__ float4 smem4[];
  T* s = reinterpret_cast<T*>(smem4);
  const int npos = TA + ntaps - 1;
  const int pitch = npos | 1;
  const int a0 = blockIdx.x * TA, l0 = blockIdx.y * TL;
  const int line = threadIdx.x % TL, chunk = threadIdx.x / TL;

  // Slot (j + line) % kSlots holds input row l0 - r + j + line at tap row j.
  for (int i = 0; i < TL; ++i) load_row(in, s + i * pitch, remap_index(l0 - r + i, H, b), a0, npos, W, b, r);
  cp_async_wait_all();
  __syncthreads();

  T total[K];
#pragma unroll
  for (int k = 0; k < K; ++k) total[k] = vzero<T>();
  for (int j = 0; j <= 2 * r; ++j) {
    // Prefetch the row tap row j + 1 adds into the slot nobody reads at tap row j.
    if (j < 2 * r)
      load_row(in, s + ((j + TL) % kSlots) * pitch, remap_index(l0 - r + j + TL, H, b), a0, npos, W, b, r);
    const float wy = c_w[j];
    const T* src = s + ((j + line) % kSlots) * pitch + chunk * K;
    T acc[K];
    if constexpr (PADDED)
      conv_block<T, K>([&](int t) { return wy * c_w[t]; }, ntaps, [&](int p) { return src[p]; }, acc);
    else
      conv_block_any<T, K>([&](int t) { return wy * c_w[t]; }, ntaps, [&](int p) { return src[p]; }, acc);
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

template <typename T>
__global__ void conv2d_global_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b,
                                      int r) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  T total = vzero<T>();
  for (int j = 0; j <= 2 * r; ++j) {
    const int gy = remap_index(y - r + j, H, b);
    if (gy < 0) continue;
    T acc = vzero<T>();
    for (int t = 0; t <= 2 * r; ++t) {
      const int gx = remap_index(x - r + t, W, b);
      if (gx >= 0) vfma(c_w[j] * c_w[t], in[size_t(gy) * W + gx], acc);
    }
    total = vadd(total, acc);
  }
  out[size_t(y) * W + x] = total;
}

template <typename T>
Status run_2d(const std::vector<float>& taps, Border border, const DevImage& in, const DevImage& out,
              cudaStream_t st, std::string& path) {
  const int W = in.width, H = in.height, r = int(taps.size() / 2);
  // Taps per row: padded with zero weights to a multiple of K where that adds at most 1/16 more, else exactly
  // 2r + 1 with a tail step. H100, 4096^2 RGBA: exact 1.49 vs padded 1.569 ms at r 9, 15.51 vs 15.55 at r 36,
  // padded 214.8 vs exact 225.5 at r 144 (docs/performance.md, CUDA round 5).
  const int exact = 2 * r + 1, padded_taps = round_up(exact, K);
  const bool padded = padded_taps - exact <= exact / 16;
  const int ntaps = padded ? padded_taps : exact;
  Status s = upload_taps(c_w, taps, ntaps, st);
  if (!s) return s;
  const T* src = static_cast<const T*>(in.data);
  T* dst = static_cast<T*>(out.data);
  const int optin = max_smem_optin();
  const size_t bytes = size_t(kSlots) * ((TA + ntaps - 1) | 1) * sizeof(T);
  if (bytes <= size_t(optin)) {
    auto k = padded ? conv2d_kernel<T, true> : conv2d_kernel<T, false>;
    if (!(s = allow_smem(k, bytes))) return s;
    k<<<dim3((W + TA - 1) / TA, (H + TL - 1) / TL), kThreads, bytes, st>>>(src, dst, W, H, border, r, ntaps);
    path = "direct-2d-smem";
  } else {
    conv2d_global_kernel<T><<<dim3((W + 31) / 32, (H + 7) / 8), dim3(32, 8), 0, st>>>(src, dst, W, H,
                                                                                       border, r);
    path = "direct-2d-global";
  }
  return cuda_status(cudaGetLastError(), "launching conv2d");
}

}  // namespace

Status launch_conv2d(const std::vector<float>& taps, Border b, const DevImage& src, const DevImage& dst,
                     cudaStream_t s, std::string& path) {
  if (taps.size() % 2 != 1 || taps.size() + 16 > size_t(kMaxTaps))
    return Status::fail("CUDA conv2d: " + std::to_string(taps.size()) + " taps (odd, at most " +
                        std::to_string(kMaxTaps - 16) + ")");
  switch (src.channels) {
    case 1: return run_2d<float>(taps, b, src, dst, s, path);
    case 2: return run_2d<float2>(taps, b, src, dst, s, path);
    case 4: return run_2d<float4>(taps, b, src, dst, s, path);
    default: return Status::fail("CUDA conv2d: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
