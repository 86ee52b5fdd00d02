// kawase: the Intel article's pass (per-thread logic in passes/kawase.cuh): offsets up to 3 (the passes --sigma
// makes at full resolution) a thread a run of kawase::kRun outputs down a column, each row's 4-pixel sum once;
// larger offsets a thread a pixel. Reads through L1, border remapped; what the texture unit computes at exactly
// half-pixel positions, without its 8-bit weights.
#include <string>

#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/kawase.cuh"

namespace gpublur::cuda {
namespace {

template <typename T>
__global__ void kawase_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b, int k) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = grid_row() * blockDim.y + threadIdx.y;
  if (x < W && y < H) kawase::pixel(in, out, W, H, b, k, x, y);
}

template <typename T, int KK>
__global__ void kawase_run_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y0 = (grid_row() * blockDim.y + threadIdx.y) * kawase::kRun;
  if (x < W && y0 < H) kawase::run<T, KK>(in, out, W, H, b, x, y0);
}

template <typename T>
Status run(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  const int W = dst.width, H = dst.height;
  const T* in = static_cast<const T*>(src.data);
  T* out = static_cast<T*>(dst.data);
  const dim3 block(32, 8), runs = tall_grid((W + 31) / 32, (H + 8 * kawase::kRun - 1) / (8 * kawase::kRun));
  // Runs where they still fill the GPU (a thread per kRun pixels, half the SMs' resident threads or more): on an H200
  // 1024^2 and up 1.2-2.4x faster, 128^2-256^2 (kawase's working images at sigma 12-48 from 1024^2) 16-20% slower.
  const bool fills = 1LL * W * H >= 1024LL * kawase::kRun * sm_count();
  switch (fills ? pass.widths[0] : -1) {
    case 0: kawase_run_kernel<T, 0><<<runs, block, 0, st>>>(in, out, W, H, pass.border); break;
    case 1: kawase_run_kernel<T, 1><<<runs, block, 0, st>>>(in, out, W, H, pass.border); break;
    case 2: kawase_run_kernel<T, 2><<<runs, block, 0, st>>>(in, out, W, H, pass.border); break;
    case 3: kawase_run_kernel<T, 3><<<runs, block, 0, st>>>(in, out, W, H, pass.border); break;
    default:
      kawase_kernel<T><<<tall_grid((W + 31) / 32, (H + 7) / 8), block, 0, st>>>(in, out, W, H, pass.border,
                                                                                pass.widths[0]);
  }
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
