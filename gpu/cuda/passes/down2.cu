// down2: one thread per coarse pixel, the n x n window (n = 2 or 4) at 2X + first read explicitly through L1
// with the border remapped, rows weighted first and then summed with the column weights (the reference's
// products, in float). Each fine pixel is read by at most 4 threads (4 taps) and neighbours share cache lines.
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

struct Taps {
  float w[4];
};

template <typename T>
__device__ __forceinline__ T read(const T* __restrict__ in, int x, int y, int W, int H, Border b) {
  const int rx = remap_index(x, W, b), ry = remap_index(y, H, b);
  return rx < 0 || ry < 0 ? vzero<T>() : in[size_t(ry) * W + rx];
}

template <typename T>
__global__ void down2_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, int CW, int CH, Border b,
                             int n, int first, Taps t) {
  const int X = blockIdx.x * blockDim.x + threadIdx.x, Y = blockIdx.y * blockDim.y + threadIdx.y;
  if (X >= CW || Y >= CH) return;
  const int x0 = 2 * X + first, y0 = 2 * Y + first;
  T acc = vzero<T>();
  for (int j = 0; j < n; ++j) {
    T row = vzero<T>();
    for (int i = 0; i < n; ++i) vfma(t.w[i], read(in, x0 + i, y0 + j, W, H, b), row);
    vfma(t.w[j], row, acc);
  }
  out[size_t(Y) * CW + X] = acc;
}

template <typename T>
Status run(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  Taps t{{0.f, 0.f, 0.f, 0.f}};
  for (size_t i = 0; i < pass.taps.size(); ++i) t.w[i] = pass.taps[i];
  down2_kernel<T><<<dim3((dst.width + 31) / 32, (dst.height + 7) / 8), dim3(32, 8), 0, st>>>(
      static_cast<const T*>(src.data), static_cast<T*>(dst.data), src.width, src.height, dst.width, dst.height,
      pass.border, int(pass.taps.size()), pass.widths[0], t);
  return cuda_status(cudaGetLastError(), "launching down2");
}

}  // namespace

Status launch_down2(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (src.f64 || dst.f64 || src.pad || dst.pad) return Status::fail("CUDA down2: needs unpadded float32 images");
  if (pass.taps.size() > 4) return Status::fail("CUDA down2: at most 4 taps per axis");
  if (dst.width != (src.width + 1) / 2 || dst.height != (src.height + 1) / 2)
    return Status::fail("CUDA down2: the coarse image must be ceil(n / 2)");
  path = pass.hint == "mipmap" ? "down2-mipmap-box" : "down2";
  switch (dst.channels) {
    case 1: return run<float>(pass, src, dst, s);
    case 2: return run<float2>(pass, src, dst, s);
    case 4: return run<float4>(pass, src, dst, s);
    default: return Status::fail("CUDA down2: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
