// conv2d: direct (2r+1)^2 convolution with the outer product taps (x) taps (no separation): the ring kernel
// (passes/conv2d_ring.cuh: 16 rows x 128 columns a block, a ring of 17 shared-memory rows, 8 outputs a thread
// register-blocked) with weights w[j] * w[t]. Radii too large for the ring fall back to a plain global-memory
// kernel.
#include <algorithm>
#include <vector>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/conv2d_ring.cuh"

namespace gpublur::cuda {
namespace {

__constant__ float c_w[kMaxTaps];

using ring::K;

// gauss-2d's weights: row j's taps are w[j] * w[t].
struct GaussWeights {
  struct Row {
    float wy;
    __device__ __forceinline__ float operator()(int t) const { return wy * c_w[t]; }
  };
  __device__ __forceinline__ Row row(int j) const { return Row{c_w[j]}; }
};

template <typename T>
__global__ void conv2d_global_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b,
                                      int r) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = grid_row() * blockDim.y + threadIdx.y;
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
  if (ring::ring_bytes<T>(ntaps) <= size_t(max_smem_optin())) {
    s = padded ? ring::launch<T, true>(src, dst, W, H, border, r, r, ntaps, GaussWeights{}, st)
               : ring::launch<T, false>(src, dst, W, H, border, r, r, ntaps, GaussWeights{}, st);
    if (!s) return s;
    path = "direct-2d-smem";
  } else {
    conv2d_global_kernel<T><<<tall_grid((W + 31) / 32, (H + 7) / 8), dim3(32, 8), 0, st>>>(src, dst, W, H,
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
