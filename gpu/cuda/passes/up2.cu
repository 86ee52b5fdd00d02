// up2: one thread per stored fine pixel, the B-spline's 4 coarse pixels (3/4 on floor(x / 2), 1/4 on the
// neighbour on the fine pixel's side, per axis) read explicitly through L1 with the border mode over the
// source's stored area: exact weights, no texture-unit interpolation.
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/resample.cuh"

namespace gpublur::cuda {
namespace {

template <typename T>
__global__ void up2_kernel(const T* __restrict__ in, T* __restrict__ out, int CW, int CH, int spad, int W, int H,
                           int dpad, Border b) {
  const int tx = blockIdx.x * blockDim.x + threadIdx.x, ty = blockIdx.y * blockDim.y + threadIdx.y;
  const int dstride = W + 2 * dpad;
  if (tx >= dstride || ty >= H + 2 * dpad) return;
  out[size_t(ty) * dstride + tx] = resample::up2_at(in, CW, CH, spad, tx, ty, dpad, b);
}

template <typename T>
Status run(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  up2_kernel<T><<<dim3((dst.stride() + 31) / 32, (dst.rows() + 7) / 8), dim3(32, 8), 0, st>>>(
      static_cast<const T*>(src.data), static_cast<T*>(dst.data), src.width, src.height, src.pad, dst.width,
      dst.height, dst.pad, pass.border);
  return cuda_status(cudaGetLastError(), "launching up2");
}

}  // namespace

Status launch_up2(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (src.f64 || dst.f64) return Status::fail("CUDA up2: needs float32 images");
  if (src.width != (dst.width + 1) / 2 || src.height != (dst.height + 1) / 2)
    return Status::fail("CUDA up2: the coarse image must be ceil(n / 2)");
  path = "up2";
  switch (dst.channels) {
    case 1: return run<float>(pass, src, dst, s);
    case 2: return run<float2>(pass, src, dst, s);
    case 4: return run<float4>(pass, src, dst, s);
    default: return Status::fail("CUDA up2: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
