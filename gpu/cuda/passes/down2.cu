// down2: one thread per stored coarse pixel, the n x n window (n even, <= 64) at 2X + first read explicitly
// through L1 with the border mode over the source's stored area (core/resample.hpp resample_index), rows
// weighted first and then summed with the column weights (the reference's products, in float). The analysis
// kernels proper have 2 or 4 taps (each fine pixel read by at most 4 threads, neighbours share cache lines); the
// pyramid's last level carries the coarsest Gaussian folded in (up to 28 taps at --sigma's level choice), at
// 1 / 4^L of the pixels.
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/resample.cuh"

namespace gpublur::cuda {
namespace {

constexpr int kDown2MaxTaps = 64;
struct Taps {
  float w[kDown2MaxTaps];
};

template <typename T>
__global__ void down2_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, int spad, int CW, int CH,
                             int dpad, Border b, int n, int first, Taps t) {
  const int tx = blockIdx.x * blockDim.x + threadIdx.x, ty = blockIdx.y * blockDim.y + threadIdx.y;
  const int dstride = CW + 2 * dpad;
  if (tx >= dstride || ty >= CH + 2 * dpad) return;
  out[size_t(ty) * dstride + tx] = resample::down2_at(in, W, H, spad, tx, ty, dpad, b, n, first, t.w);
}

template <typename T>
__global__ void down2_sep_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, int spad, int CW,
                                 int CH, int dpad, Border b, int n, int first, Taps t) {
  __shared__ T rows[resample::sep_rows(kDown2MaxTaps) * resample::kSepBlock];
  const int tid = threadIdx.y * resample::kSepBlock + threadIdx.x;
  resample::down2_sep_rows(in, W, H, spad, int(blockIdx.x), int(blockIdx.y), dpad, b, n, first, t.w, tid, rows);
  __syncthreads();
  const int tx = blockIdx.x * resample::kSepBlock + threadIdx.x, ty = blockIdx.y * resample::kSepBlock + threadIdx.y;
  const int dstride = CW + 2 * dpad;
  if (tx >= dstride || ty >= CH + 2 * dpad) return;
  out[size_t(ty) * dstride + tx] = resample::down2_sep_out(rows, int(threadIdx.x), int(threadIdx.y), n, t.w);
}

template <typename T>
Status run(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  Taps t{};
  for (size_t i = 0; i < pass.taps.size(); ++i) t.w[i] = pass.taps[i];
  if (pass.taps.size() > 4) {  // the folded last level: separable through shared memory
    constexpr int B = resample::kSepBlock;
    down2_sep_kernel<T><<<dim3((dst.stride() + B - 1) / B, (dst.rows() + B - 1) / B), dim3(B, B), 0, st>>>(
        static_cast<const T*>(src.data), static_cast<T*>(dst.data), src.width, src.height, src.pad, dst.width,
        dst.height, dst.pad, pass.border, int(pass.taps.size()), pass.widths[0], t);
    return cuda_status(cudaGetLastError(), "launching down2 (separable)");
  }
  down2_kernel<T><<<dim3((dst.stride() + 31) / 32, (dst.rows() + 7) / 8), dim3(32, 8), 0, st>>>(
      static_cast<const T*>(src.data), static_cast<T*>(dst.data), src.width, src.height, src.pad, dst.width,
      dst.height, dst.pad, pass.border, int(pass.taps.size()), pass.widths[0], t);
  return cuda_status(cudaGetLastError(), "launching down2");
}

}  // namespace

Status launch_down2(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (src.f64 || dst.f64) return Status::fail("CUDA down2: needs float32 images");
  if (pass.taps.size() > size_t(kDown2MaxTaps)) return Status::fail("CUDA down2: at most 64 taps per axis");
  if (dst.width != (src.width + 1) / 2 || dst.height != (src.height + 1) / 2)
    return Status::fail("CUDA down2: the coarse image must be ceil(n / 2)");
  path = pass.hint == "mipmap" ? "down2-mipmap-box" : pass.taps.size() > 4 ? "down2-separable" : "down2";
  switch (dst.channels) {
    case 1: return run<float>(pass, src, dst, s);
    case 2: return run<float2>(pass, src, dst, s);
    case 4: return run<float4>(pass, src, dst, s);
    default: return Status::fail("CUDA down2: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
