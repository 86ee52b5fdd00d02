// conv2d-matrix: direct 2D correlation with a full kw x kh matrix (core/program.hpp Op::Conv2dMatrix) on the ring
// kernel (passes/conv2d_ring.cuh, gauss-2d's: 16 rows x 128 columns a block, a ring of 17 shared-memory rows, 8
// outputs a thread register-blocked, every row of the matrix its own weights). It replaced a tile of 32 x 32
// outputs with 4 rows a thread and one shared-memory load a multiply-add: H200 4096^2 RGBA 19 x 19 3.03 -> 1.46 ms,
// 73 x 73 44.9 -> 15.0 (docs/performance.md "GL 2D methods from shared memory; GL kawase runs", "CUDA conv2d-matrix
// on the ring"). Weights: __constant__ (a warp-uniform index, one broadcast per tap) up to
// kConv2dMatrixConstTaps, else global memory in the scratch (__ldg, also warp-uniform). Where the ring does not fit
// the shared memory (matrices wider than about 700 columns for four channels), one thread per output reads every
// tap from global memory.
#include <algorithm>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/conv2d_ring.cuh"

namespace gpublur::cuda {
namespace {

__constant__ float c_m[kConv2dMatrixConstTaps];

template <bool CONST>
__device__ __forceinline__ float weight(const float* __restrict__ gw, int k) {
  if constexpr (CONST)
    return c_m[k];
  else
    return __ldg(gw + k);
}

// The ring's weights: row j of the row-major matrix.
template <bool CONST>
struct MatrixWeights {
  const float* gw;
  int kw;
  struct Row {
    const float* gw;
    int base;
    __device__ __forceinline__ float operator()(int t) const { return weight<CONST>(gw, base + t); }
  };
  __device__ __forceinline__ Row row(int j) const { return Row{gw, j * kw}; }
};

template <typename T, bool CONST>
__global__ void conv2d_matrix_global(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b, int kw,
                                     int kh, const float* __restrict__ gw) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = grid_row() * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  const int rx = kw / 2, ry = kh / 2;
  T total = vzero<T>();
  for (int j = 0; j < kh; ++j) {
    const int gy = remap_index(y - ry + j, H, b);
    if (gy < 0) continue;
    const T* row = in + size_t(gy) * W;
    T part = vzero<T>();  // the row summed apart, as the ring and conv2d_global_kernel do: one rounding a row
    for (int i = 0; i < kw; ++i) {
      const int gx = remap_index(x - rx + i, W, b);
      if (gx >= 0) vfma(weight<CONST>(gw, j * kw + i), row[gx], part);
    }
    total = vadd(total, part);
  }
  out[size_t(y) * W + x] = total;
}

template <typename T, bool CONST>
Status run(const Pass& pass, const DevImage& in, const DevImage& out, const float* gw, cudaStream_t st,
           std::string& path) {
  const int W = in.width, H = in.height, kw = pass.widths[0], kh = pass.widths[1];
  const T* src = static_cast<const T*>(in.data);
  T* dst = static_cast<T*>(out.data);
  if (ring::ring_bytes<T>(kw) <= size_t(max_smem_optin())) {
    if (Status s = ring::launch<T, false>(src, dst, W, H, pass.border, kw / 2, kh / 2, kw,
                                          MatrixWeights<CONST>{gw, kw}, st);
        !s)
      return s;
    path = CONST ? "matrix-2d-ring-const" : "matrix-2d-ring-global-weights";
  } else {
    conv2d_matrix_global<T, CONST><<<tall_grid((W + 31) / 32, (H + 7) / 8), dim3(32, 8), 0, st>>>(
        src, dst, W, H, pass.border, kw, kh, gw);
    path = CONST ? "matrix-2d-global-const" : "matrix-2d-global";
  }
  return cuda_status(cudaGetLastError(), "launching conv2d-matrix");
}
template <bool CONST>
Status run_channels(const Pass& pass, const DevImage& src, const DevImage& dst, const float* gw, cudaStream_t s,
                    std::string& path) {
  switch (src.channels) {
    case 1: return run<float, CONST>(pass, src, dst, gw, s, path);
    case 2: return run<float2, CONST>(pass, src, dst, gw, s, path);
    case 4: return run<float4, CONST>(pass, src, dst, gw, s, path);
    default: return Status::fail("CUDA conv2d-matrix: unsupported device channel count");
  }
}

}  // namespace

size_t conv2d_matrix_scratch(const Pass& pass, const DevImage&) {
  return pass.taps.size() <= size_t(kConv2dMatrixConstTaps) ? 0 : pass.taps.size() * sizeof(float);
}

Status launch_conv2d_matrix(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch,
                            size_t scratch_bytes, cudaStream_t s, std::string& path) {
  if (pass.widths.size() != 2 || pass.widths[0] % 2 == 0 || pass.widths[1] % 2 == 0 ||
      pass.taps.size() != size_t(pass.widths[0]) * size_t(pass.widths[1]))
    return Status::fail("CUDA conv2d-matrix: the pass needs an odd width and height and width x height taps");
  if (pass.taps.size() <= size_t(kConv2dMatrixConstTaps)) {
    if (Status st = upload_taps(c_m, pass.taps, int(pass.taps.size()), s); !st) return st;
    return run_channels<true>(pass, src, dst, nullptr, s, path);
  }
  const size_t bytes = pass.taps.size() * sizeof(float);
  if (!scratch || scratch_bytes < bytes) return Status::fail("CUDA conv2d-matrix: no scratch for the weights");
  if (Status st = cuda_status(cudaMemcpyAsync(scratch, pass.taps.data(), bytes, cudaMemcpyHostToDevice, s),
                              "uploading matrix weights");
      !st)
    return st;
  return run_channels<false>(pass, src, dst, static_cast<const float*>(scratch), s, path);
}

}  // namespace gpublur::cuda
