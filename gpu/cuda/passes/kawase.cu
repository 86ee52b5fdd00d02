// kawase: one thread per pixel, the 4 half-pixel bilinear samples as the mean of their 2 x 2 pixels each
// (16 reads through L1, border remapped), which is what the texture unit computes at exactly half-pixel
// positions, without its 8-bit weights.
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

template <typename T>
__device__ __forceinline__ T read(const T* __restrict__ in, int x, int y, int W, int H, Border b) {
  const int rx = remap_index(x, W, b), ry = remap_index(y, H, b);
  return rx < 0 || ry < 0 ? vzero<T>() : in[size_t(ry) * W + rx];
}

template <typename T>
__global__ void kawase_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b, int k) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  T sum = vzero<T>();
  for (int sy = -1; sy <= 1; sy += 2)
    for (int sx = -1; sx <= 1; sx += 2) {
      const int x0 = x + sx * k, x1 = x + sx * (k + 1), y0 = y + sy * k, y1 = y + sy * (k + 1);
      sum = vadd(sum, vadd(vadd(read(in, x0, y0, W, H, b), read(in, x1, y0, W, H, b)),
                           vadd(read(in, x0, y1, W, H, b), read(in, x1, y1, W, H, b))));
    }
  T res = vzero<T>();
  vfma(1.f / 16.f, sum, res);
  out[size_t(y) * W + x] = res;
}

template <typename T>
Status run(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  const int W = dst.width, H = dst.height;
  kawase_kernel<T><<<dim3((W + 31) / 32, (H + 7) / 8), dim3(32, 8), 0, st>>>(
      static_cast<const T*>(src.data), static_cast<T*>(dst.data), W, H, pass.border, pass.widths[0]);
  return cuda_status(cudaGetLastError(), "launching kawase");
}

}  // namespace

Status launch_kawase(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (src.f64 || dst.f64 || src.pad || dst.pad) return Status::fail("CUDA kawase: needs unpadded float32 images");
  path = "kawase";
  switch (dst.channels) {
    case 1: return run<float>(pass, src, dst, s);
    case 2: return run<float2>(pass, src, dst, s);
    case 4: return run<float4>(pass, src, dst, s);
    default: return Status::fail("CUDA kawase: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
