// up2: one thread per stored fine pixel, the B-spline's 4 coarse pixels (3/4 on floor(x / 2), 1/4 on the
// neighbour on the fine pixel's side, per axis) read explicitly through L1 with the border mode over the
// source's stored area: exact weights, no texture-unit interpolation. Two passes in a row run as one kernel
// (up2x2_kernel, the middle level only in shared memory; pass_table.cpp chooses, resample_fused.cuh).
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/resample.cuh"
#include "gpu/cuda/passes/resample_fused.cuh"

namespace gpublur::cuda {
namespace {

template <typename T>
__global__ void up2_kernel(const T* __restrict__ in, T* __restrict__ out, int CW, int CH, int spad, int W, int H,
                           int dpad, Border b) {
  wait_for_previous_grid();
  const int tx = blockIdx.x * blockDim.x + threadIdx.x, ty = grid_row() * blockDim.y + threadIdx.y;
  const int dstride = W + 2 * dpad;
  if (tx >= dstride || ty >= H + 2 * dpad) return;
  out[size_t(ty) * dstride + tx] = resample::up2_at(in, CW, CH, spad, tx, ty, dpad, b);
}

template <typename T>
Status run(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  return cuda_status(launch_dependent(up2_kernel<T>, tall_grid((dst.stride() + 31) / 32, (dst.rows() + 7) / 8),
                                     dim3(32, 8), 0, st, static_cast<const T*>(src.data), static_cast<T*>(dst.data),
                                     src.width, src.height, src.pad, dst.width, dst.height, dst.pad, pass.border),
                     "launching up2");
}

// Two Up2 passes as one (resample_fused.cuh): the middle level's window in shared memory, never written.
template <typename T>
__global__ void __launch_bounds__(resample::kFuseThreads) up2x2_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                   resample::Level l2, resample::Level l1,
                                                                   resample::Level l0, Border b1, Border b2) {
  __shared__ T win[resample::kUpWinX * resample::kUpWinY];
  const int tid = threadIdx.y * resample::kFuseThreadsX + threadIdx.x;
  const int bx = int(blockIdx.x), by = grid_row();
  const int dstride = l0.w + 2 * l0.p, drows = l0.h + 2 * l0.p;
  if (by * resample::kUpTileY >= drows) return;  // tall_grid's blocks past the image
  resample::up2x2_fill(in, l2, l1, l0.p, b1, b2, bx, by, tid, resample::kFuseThreads, win);
  __syncthreads();
  for (int ly = threadIdx.y; ly < resample::kUpTileY; ly += resample::kFuseThreadsY) {
    const int ty = by * resample::kUpTileY + ly;
    for (int lx = threadIdx.x; lx < resample::kUpTileX; lx += resample::kFuseThreadsX) {
      const int tx = bx * resample::kUpTileX + lx;
      if (tx < dstride && ty < drows) out[size_t(ty) * dstride + tx] = resample::up2x2_out(win, bx, by, tx, ty, l0.p);
    }
  }
}

template <typename T>
Status run_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid, const DevImage& dst,
                cudaStream_t st) {
  const resample::Level l2{src.width, src.height, src.pad}, l1{mid.width, mid.height, mid.pad},
      l0{dst.width, dst.height, dst.pad};
  up2x2_kernel<T><<<tall_grid((dst.stride() + resample::kUpTileX - 1) / resample::kUpTileX,
                              (dst.rows() + resample::kUpTileY - 1) / resample::kUpTileY),
                    dim3(resample::kFuseThreadsX, resample::kFuseThreadsY), 0, st>>>(
      static_cast<const T*>(src.data), static_cast<T*>(dst.data), l2, l1, l0, p.border, q.border);
  return cuda_status(cudaGetLastError(), "launching up2 x 2 (fused)");
}

Status check(const DevImage& src, const DevImage& dst) {
  if (src.f64 || dst.f64) return Status::fail("CUDA up2: needs float32 images");
  if (src.width != (dst.width + 1) / 2 || src.height != (dst.height + 1) / 2)
    return Status::fail("CUDA up2: the coarse image must be ceil(n / 2)");
  if (dst.channels != 1 && dst.channels != 2 && dst.channels != 4)
    return Status::fail("CUDA up2: unsupported device channel count");
  return Status::success();
}

}  // namespace

Status launch_up2_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid, const DevImage& dst,
                       cudaStream_t s, std::string& path) {
  if (Status c = check(src, mid); !c) return c;
  if (Status c = check(mid, dst); !c) return c;
  if (src.channels != dst.channels) return Status::fail("CUDA up2: channel counts differ");
  path = "up2-fused2";
  switch (dst.channels) {
    case 1: return run_pair<float>(p, q, src, mid, dst, s);
    case 2: return run_pair<float2>(p, q, src, mid, dst, s);
    default: return run_pair<float4>(p, q, src, mid, dst, s);
  }
}

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
