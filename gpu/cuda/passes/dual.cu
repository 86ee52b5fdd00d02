// dual-down, dual-up: the dual filter's passes (gpu/cuda/passes/dual.cuh has the per-thread logic). Explicit
// float weights over the pixels the bilinear samples touch, read through L1 with the border remapped (no
// texture unit, as kawase.cu). Down: one thread per coarse pixel (16 reads). Up: one thread per 2 x 2 fine
// pixels, from 5 x 5 coarse reads (25 reads for 4 outputs instead of 4 x 16).
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/dual.cuh"

namespace gpublur::cuda {
namespace {

template <typename T>
__global__ void dual_down_kernel(const T* __restrict__ in, T* __restrict__ out, int Ws, int Hs, int Wd, int Hd,
                                 Border b) {
  const int X = blockIdx.x * blockDim.x + threadIdx.x, Y = blockIdx.y * blockDim.y + threadIdx.y;
  if (X >= Wd || Y >= Hd) return;
  dual::down_pixel(in, out, X, Y, Ws, Hs, Wd, b);
}

template <typename T>
__global__ void dual_up_kernel(const T* __restrict__ in, T* __restrict__ out, int Ws, int Hs, int Wd, int Hd,
                               Border b) {
  const int X = blockIdx.x * blockDim.x + threadIdx.x, Y = blockIdx.y * blockDim.y + threadIdx.y;
  if (2 * X >= Wd || 2 * Y >= Hd) return;
  dual::up_quad(in, out, X, Y, Ws, Hs, Wd, Hd, b);
}

template <typename T>
Status run(bool down, const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  const int Wd = dst.width, Hd = dst.height;
  const int gw = down ? Wd : (Wd + 1) / 2, gh = down ? Hd : (Hd + 1) / 2;  // threads per axis
  const dim3 block(32, 8), grid((gw + 31) / 32, (gh + 7) / 8);
  if (down)
    dual_down_kernel<T><<<grid, block, 0, st>>>(static_cast<const T*>(src.data), static_cast<T*>(dst.data),
                                                src.width, src.height, Wd, Hd, pass.border);
  else
    dual_up_kernel<T><<<grid, block, 0, st>>>(static_cast<const T*>(src.data), static_cast<T*>(dst.data), src.width,
                                              src.height, Wd, Hd, pass.border);
  return cuda_status(cudaGetLastError(), down ? "launching dual-down" : "launching dual-up");
}

Status launch(bool down, const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s,
              std::string& path) {
  if (src.f64 || dst.f64 || src.pad || dst.pad) return Status::fail("CUDA dual: needs unpadded float32 images");
  // The sizes the grid mapping assumes (core/dual_grid.hpp): coarse = ceil(fine / 2).
  const DevImage& fine = down ? src : dst;
  const DevImage& coarse = down ? dst : src;
  if (coarse.width != (fine.width + 1) / 2 || coarse.height != (fine.height + 1) / 2)
    return Status::fail("CUDA dual: the coarse image is not ceil(fine / 2)");
  path = down ? "dual-down" : "dual-up";
  switch (dst.channels) {
    case 1: return run<float>(down, pass, src, dst, s);
    case 2: return run<float2>(down, pass, src, dst, s);
    case 4: return run<float4>(down, pass, src, dst, s);
    default: return Status::fail("CUDA dual: unsupported device channel count");
  }
}

}  // namespace

Status launch_dual_down(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  return launch(true, pass, src, dst, s, path);
}

Status launch_dual_up(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  return launch(false, pass, src, dst, s, path);
}

}  // namespace gpublur::cuda
