// diffusion: N explicit heat steps over the stored area (core/program.hpp Op::Diffusion) with temporal blocking: a block loads its
// 32 x 32 output tile plus a halo of S pixels into shared memory, runs S steps there (each step's valid area
// shrinks by one pixel per side) and writes the tile: one global read and write per S steps instead of per step.
// Border modes need no per-step remapping: the tile is loaded from the extension that the steps preserve
// (core/border.hpp stencil_extension), so cells outside the image evolve like the pixels they mirror.
// S = 1 is plain ping-pong through global memory (the thesis's form); GPUBLUR_CUDA_DIFFUSION_STEPS sets S.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

constexpr int kTile = 32, kThreadsX = 32, kThreadsY = 8, kMaxSteps = 16;

template <typename T>
__device__ __forceinline__ T vscale(float s, T v) {
  T r = vzero<T>();
  vfma(s, v, r);
  return r;
}

template <typename T>
__global__ void __launch_bounds__(kThreadsX * kThreadsY) diffusion_kernel(const T* __restrict__ in,
                                                                          T* __restrict__ out, int W, int H,
                                                                          Border b, float c, int steps) {
  extern __shared__ float4 smem4[];
  const int n = kTile + 2 * steps;
  T* s0 = reinterpret_cast<T*>(smem4);
  T* s1 = s0 + n * n;
  const int ox = blockIdx.x * kTile - steps, oy = blockIdx.y * kTile - steps;
  const int tid = threadIdx.y * kThreadsX + threadIdx.x, nthreads = kThreadsX * kThreadsY;
  for (int i = tid; i < n * n; i += nthreads) {
    const int ty = i / n, tx = i % n;
    float sx, sy;
    const int x = stencil_extension(ox + tx, W, b, sx), y = stencil_extension(oy + ty, H, b, sy);
    s0[i] = vscale(sx * sy, in[size_t(y) * W + x]);
  }
  __syncthreads();
  const float centre = 1.f - 4.f * c;
  for (int k = 1; k <= steps; ++k) {
    // Cells [k, n - k) of the tile are valid after step k.
    const int m = n - 2 * k;
    for (int i = tid; i < m * m; i += nthreads) {
      const int ty = k + i / m, tx = k + i % m, at = ty * n + tx;
      T v = vscale(centre, s0[at]);
      T around = vadd(vadd(s0[at - 1], s0[at + 1]), vadd(s0[at - n], s0[at + n]));
      vfma(c, around, v);
      s1[at] = v;
    }
    __syncthreads();
    T* t = s0;
    s0 = s1, s1 = t;
  }
  for (int i = tid; i < kTile * kTile; i += nthreads) {
    const int ty = i / kTile, tx = i % kTile;
    const int x = ox + steps + tx, y = oy + steps + ty;
    if (x < W && y < H) out[size_t(y) * W + x] = s0[(ty + steps) * n + tx + steps];
  }
}

int steps_per_launch() { return std::clamp(diffusion_steps_per_launch(), 1, kMaxSteps); }

template <typename T>
Status run_diffusion(int steps, float c, Border b, const DevImage& src, const DevImage& dst, void* scratch,
                     size_t scratch_bytes, cudaStream_t st, std::string& path) {
  const int W = dst.stride(), H = dst.rows(), per = steps_per_launch();  // the stored area is the domain
  const int launches = (steps + per - 1) / per;
  const size_t bytes_image = dst.bytes();
  if (launches > 1 && scratch_bytes < bytes_image) return Status::fail("CUDA diffusion: scratch too small");
  // Launch j writes dst where launches - 1 - j is even, else the scratch image: the last one writes dst.
  const T* from = static_cast<const T*>(src.data);
  const dim3 grid((W + kTile - 1) / kTile, (H + kTile - 1) / kTile), block(kThreadsX, kThreadsY);
  auto tile_bytes = [](int s) { return 2 * size_t(kTile + 2 * s) * size_t(kTile + 2 * s) * sizeof(T); };
  auto k = diffusion_kernel<T>;
  // Once, for the largest tile (S = per): every launch's tile is at most that.
  if (Status st_ = allow_smem(k, tile_bytes(std::min(per, steps))); !st_) return st_;
  for (int j = 0, done = 0; j < launches; ++j) {
    const int s = std::min(per, steps - done);
    T* to = (launches - 1 - j) % 2 == 0 ? static_cast<T*>(dst.data) : static_cast<T*>(scratch);
    k<<<grid, block, tile_bytes(s), st>>>(from, to, W, H, b, c, s);
    if (Status st_ = cuda_status(cudaGetLastError(), "launching diffusion"); !st_) return st_;
    from = to;
    done += s;
  }
  path = "diffusion-" + std::to_string(per) + "-per-launch";
  return Status::success();
}

}  // namespace

int& diffusion_steps_per_launch() {
  static int s = [] {
    const char* e = std::getenv("GPUBLUR_CUDA_DIFFUSION_STEPS");
    return e && *e ? std::atoi(e) : 4;  // measured best on an H100 (docs/performance.md, diffusion)
  }();
  return s;
}

size_t diffusion_scratch(const Pass& pass, const DevImage& src) {
  if (pass.widths.empty() || pass.widths[0] <= steps_per_launch()) return 0;
  return src.bytes();  // one ping-pong image beside dst
}

Status launch_diffusion(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch,
                        size_t scratch_bytes, cudaStream_t s, std::string& path) {
  if (src.f64 || dst.f64 || src.pad != dst.pad) return Status::fail("CUDA diffusion: needs float32 images, one padding");
  const int steps = pass.widths[0];
  const float c = pass.taps[0];
  switch (dst.channels) {
    case 1: return run_diffusion<float>(steps, c, pass.border, src, dst, scratch, scratch_bytes, s, path);
    case 2: return run_diffusion<float2>(steps, c, pass.border, src, dst, scratch, scratch_bytes, s, path);
    case 4: return run_diffusion<float4>(steps, c, pass.border, src, dst, scratch, scratch_bytes, s, path);
    default: return Status::fail("CUDA diffusion: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
