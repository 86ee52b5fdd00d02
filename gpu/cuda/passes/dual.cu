// dual-down, dual-up: the dual filter's passes (gpu/cuda/passes/dual.cuh has the per-thread logic). Explicit
// float weights over the pixels the bilinear samples touch, read through L1 with the border remapped (no
// texture unit, as kawase.cu). Down: one thread per coarse pixel (16 reads). Up: one thread per 2 x 2 fine
// pixels, from 5 x 5 coarse reads (25 reads for 4 outputs instead of 4 x 16). The first two downs run as one
// kernel where pass_table.cpp pairs them, the middle level only in shared memory (dual_fused.cuh has the block
// logic; measured 0.146 ms against 0.155 for the two on an H100). Ups fused the same way measured slower.
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/dual.cuh"
#include "gpu/cuda/passes/dual_fused.cuh"

namespace gpublur::cuda {
namespace {

template <typename T>
__global__ void dual_down_kernel(const T* __restrict__ in, T* __restrict__ out, int Ws, int Hs, int Wd, int Hd,
                                 Border b) {
  const int X = blockIdx.x * blockDim.x + threadIdx.x, Y = grid_row() * blockDim.y + threadIdx.y;
  if (X >= Wd || Y >= Hd) return;
  dual::down_pixel(in, out, X, Y, Ws, Hs, Wd, b);
}

template <typename T>
__global__ void dual_up_kernel(const T* __restrict__ in, T* __restrict__ out, int Ws, int Hs, int Wd, int Hd,
                               Border b) {
  const int X = blockIdx.x * blockDim.x + threadIdx.x, Y = grid_row() * blockDim.y + threadIdx.y;
  if (2 * X >= Wd || 2 * Y >= Hd) return;
  dual::up_quad(in, out, X, Y, Ws, Hs, Wd, Hd, b);
}

template <typename T>
Status run(bool down, const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  const int Wd = dst.width, Hd = dst.height;
  const int gw = down ? Wd : (Wd + 1) / 2, gh = down ? Hd : (Hd + 1) / 2;  // threads per axis
  const dim3 block(32, 8), grid = tall_grid((gw + 31) / 32, (gh + 7) / 8);
  if (down)
    dual_down_kernel<T><<<grid, block, 0, st>>>(static_cast<const T*>(src.data), static_cast<T*>(dst.data),
                                                src.width, src.height, Wd, Hd, pass.border);
  else
    dual_up_kernel<T><<<grid, block, 0, st>>>(static_cast<const T*>(src.data), static_cast<T*>(dst.data), src.width,
                                              src.height, Wd, Hd, pass.border);
  return cuda_status(cudaGetLastError(), down ? "launching dual-down" : "launching dual-up");
}

// Two downs as one (dual_fused.cuh): the level-1 window in shared memory (66 x 34 cells, 35.9 KB at float4).
template <typename T>
__global__ void __launch_bounds__(dual::kFuseThreads) dual_down2x_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                       dual::Size l0, dual::Size l1, dual::Size l2,
                                                                       Border b1, Border b2) {
  __shared__ T win[dual::kDownWinX * dual::kDownWinY];
  const int tid = threadIdx.y * dual::kFuseThreadsX + threadIdx.x, by = grid_row();
  if (by * dual::kDownTileY >= l2.h) return;  // tall_grid's blocks past the image
  dual::down2x2_fill(in, l0, l1, b1, b2, int(blockIdx.x), by, tid, dual::kFuseThreads, win);
  __syncthreads();
  const int X = blockIdx.x * dual::kDownTileX + threadIdx.x;
  for (int ly = threadIdx.y; ly < dual::kDownTileY; ly += dual::kFuseThreadsY) {
    const int Y = by * dual::kDownTileY + ly;
    if (X < l2.w && Y < l2.h) out[size_t(Y) * l2.w + X] = dual::down2x2_out(win, int(threadIdx.x), ly);
  }
}

template <typename T>
Status run_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid, const DevImage& dst,
                cudaStream_t st) {
  const dual::Size a{src.width, src.height}, m{mid.width, mid.height}, d{dst.width, dst.height};
  const dim3 block(dual::kFuseThreadsX, dual::kFuseThreadsY);
  const dim3 grid = tall_grid((d.w + dual::kDownTileX - 1) / dual::kDownTileX,
                              (d.h + dual::kDownTileY - 1) / dual::kDownTileY);
  dual_down2x_kernel<T><<<grid, block, 0, st>>>(static_cast<const T*>(src.data), static_cast<T*>(dst.data), a, m, d,
                                                p.border, q.border);
  return cuda_status(cudaGetLastError(), "launching dual-down x 2 (fused)");
}

Status check(bool down, const DevImage& src, const DevImage& dst) {
  if (src.f64 || dst.f64 || src.pad || dst.pad) return Status::fail("CUDA dual: needs unpadded float32 images");
  // The sizes the grid mapping assumes (core/dual_grid.hpp): coarse = ceil(fine / 2).
  const DevImage& fine = down ? src : dst;
  const DevImage& coarse = down ? dst : src;
  if (coarse.width != (fine.width + 1) / 2 || coarse.height != (fine.height + 1) / 2)
    return Status::fail("CUDA dual: the coarse image is not ceil(fine / 2)");
  if (dst.channels != 1 && dst.channels != 2 && dst.channels != 4)
    return Status::fail("CUDA dual: unsupported device channel count");
  return Status::success();
}

Status launch_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid, const DevImage& dst,
                   cudaStream_t s, std::string& path) {
  if (Status c = check(true, src, mid); !c) return c;
  if (Status c = check(true, mid, dst); !c) return c;
  if (src.channels != dst.channels || mid.channels != dst.channels)
    return Status::fail("CUDA dual: channel counts differ");
  path = "dual-down-fused2";
  switch (dst.channels) {
    case 1: return run_pair<float>(p, q, src, mid, dst, s);
    case 2: return run_pair<float2>(p, q, src, mid, dst, s);
    default: return run_pair<float4>(p, q, src, mid, dst, s);
  }
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

Status launch_dual_down_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid,
                             const DevImage& dst, cudaStream_t s, std::string& path) {
  return launch_pair(p, q, src, mid, dst, s, path);
}

}  // namespace gpublur::cuda
