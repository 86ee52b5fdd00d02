// scale: dst = taps[0] * src over dst's stored area, src a float64 table that covers it, read `shift` pixels on
// (pass.extend; the float64 product rounded once to float32). One thread per pixel, rows grid-strided.
#include <algorithm>
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

template <typename T>
__global__ void scale_kernel(const double* __restrict__ src, int sstride, int spad, double f, T* __restrict__ dst,
                             int dstride, int drows, int dpad, int shift) {
  constexpr int K = VecInfo<T>::K;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= dstride) return;
  const int sx = i - dpad + spad + shift;
  for (int row = blockIdx.y; row < drows; row += gridDim.y) {
    const double* s = src + (size_t(row - dpad + spad + shift) * size_t(sstride) + size_t(sx)) * K;
    T out;
#pragma unroll
    for (int c = 0; c < K; ++c) vset(out, c, float(f * s[c]));
    dst[size_t(row) * dstride + i] = out;
  }
}

template <typename T>
Status run_scale(double f, int shift, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  const dim3 grid((dst.stride() + 127) / 128, std::min(dst.rows(), 65535));
  scale_kernel<T><<<grid, 128, 0, st>>>(static_cast<const double*>(src.data), src.stride(), src.pad, f,
                                        static_cast<T*>(dst.data), dst.stride(), dst.rows(), dst.pad, shift);
  return cuda_status(cudaGetLastError(), "launching scale");
}

}  // namespace

Status launch_scale(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (pass.taps.size() != 1 || !src.f64 || dst.f64 || pass.extend < 0 || src.pad < dst.pad + pass.extend ||
      dst.channels != src.channels)
    return Status::fail("CUDA scale: needs one factor, a float64 source covering a float32 destination");
  path = "scale";
  const double f = double(pass.taps[0]);
  switch (dst.channels) {
    case 1: return run_scale<float>(f, pass.extend, src, dst, s);
    case 2: return run_scale<float2>(f, pass.extend, src, dst, s);
    case 4: return run_scale<float4>(f, pass.extend, src, dst, s);
    default: return Status::fail("CUDA scale: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
