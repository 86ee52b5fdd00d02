// Device helpers shared by the kernels: per-pixel vector arithmetic for float/float2/float4 pixels,
// border remapping (core/border.hpp, compiled for the device), and the register-blocked 1D convolution
// step every Gaussian kernel is built from.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "core/border.hpp"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {

// Most taps any plan can have (radius <= 4096 in the registry), rounded up for register blocking.
constexpr int kMaxTaps = 2 * 4096 + 1 + 16;

// Copies taps, zero-padded to ntaps values (weights past the kernel are zero for register blocking), into
// the calling file's __constant__ weight array `symbol`, on stream st.
template <typename Symbol>
Status upload_taps(const Symbol& symbol, const std::vector<float>& taps, int ntaps, cudaStream_t st) {
  std::vector<float> w(std::max(size_t(ntaps), taps.size()), 0.f);
  std::copy(taps.begin(), taps.end(), w.begin());
  return cuda_status(cudaMemcpyToSymbolAsync(symbol, w.data(), w.size() * sizeof(float), 0, cudaMemcpyHostToDevice, st),
                     "uploading weights");
}

// Programmatic dependent launch (Hopper): a kernel started with launch_dependent may be scheduled while the
// kernel before it in the stream is finishing, hiding the launch latency that dominates small kernels; it must
// call wait_for_previous_grid() before it reads or writes any memory (that waits for the previous kernel's
// completion and its writes). The pyramid's small-level kernels (down2, down2 rows / columns, up2): quasi
// pyramid at sigma 200 on an H100 0.305-0.307 -> 0.298-0.304 ms; box1d's line kernels and iir's tile kernels:
// iir 1024^2 RGBA 0.066 -> 0.060 ms, box 1024^2 0.061 -> 0.059 (docs/performance.md).
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

template <typename... Params, typename... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t st,
                             Args&&... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = st;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}

// Grids of more than 65535 tile rows (gridDim.y's limit: an image over 524280 rows in tiles of 8) spread the rows over
// y and z. A kernel launched so reads its tile row as grid_row(); the last z slice's blocks past the grid's rows land
// on rows past the image, which the kernels skip (whole blocks, before any barrier).
inline dim3 tall_grid(unsigned gx, long long rows) {
  const long long n = std::max<long long>(rows, 1), y = std::min<long long>(n, 65535);
  return dim3(gx, unsigned(y), unsigned((n + y - 1) / y));
}
__device__ __forceinline__ int grid_row() { return int(blockIdx.z * gridDim.y + blockIdx.y); }

// Pixel-vector helpers (host and device: tests/cuda emulate the box kernels' block logic on the host).
template <typename T> __host__ __device__ __forceinline__ T vzero();
template <> __host__ __device__ __forceinline__ float vzero<float>() { return 0.f; }
template <> __host__ __device__ __forceinline__ float2 vzero<float2>() { return make_float2(0.f, 0.f); }
template <> __host__ __device__ __forceinline__ float4 vzero<float4>() { return make_float4(0.f, 0.f, 0.f, 0.f); }

__host__ __device__ __forceinline__ void vfma(float w, float v, float& a) { a = fmaf(w, v, a); }
__host__ __device__ __forceinline__ void vfma(float w, float2 v, float2& a) {
  a.x = fmaf(w, v.x, a.x);
  a.y = fmaf(w, v.y, a.y);
}
__host__ __device__ __forceinline__ void vfma(float w, float4 v, float4& a) {
  a.x = fmaf(w, v.x, a.x);
  a.y = fmaf(w, v.y, a.y);
  a.z = fmaf(w, v.z, a.z);
  a.w = fmaf(w, v.w, a.w);
}

__host__ __device__ __forceinline__ float vadd(float a, float b) { return a + b; }
__host__ __device__ __forceinline__ float2 vadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__host__ __device__ __forceinline__ float4 vadd(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

// K outputs of a 1D convolution, register-blocked along the filter direction:
//   acc[k] = sum_{t < ntaps} weight(t) * load(k + t)
// ntaps is a multiple of K (weights past the kernel are zero). Each loaded value feeds K FMAs per channel;
// the K-value window rotates through registers by compile-time indices, so nothing spills to local memory.
// `weight` reads __constant__ memory with a warp-uniform index (one LDC per tap for K*channels FMAs).
template <typename T, int K, typename Weight, typename Load>
__device__ __forceinline__ void conv_block(Weight weight, int ntaps, Load load, T (&acc)[K]) {
  T win[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = vzero<T>();
#pragma unroll
  for (int k = 0; k < K - 1; ++k) win[k] = load(k);
  for (int t0 = 0; t0 < ntaps; t0 += K) {
#pragma unroll
    for (int s = 0; s < K; ++s) {
      // Here win[(s + k) % K] holds load(t0 + s + k).
      win[(s + K - 1) % K] = load(t0 + s + K - 1);
      const float wt = weight(t0 + s);
#pragma unroll
      for (int k = 0; k < K; ++k) vfma(wt, win[(s + k) % K], acc[k]);
    }
  }
}

// conv_block for any ntaps (no zero-weight padding): whole K-tap steps, then the last ntaps % K taps with
// compile-time window indices behind a warp-uniform guard. Loads reach load(ntaps + K - 2), as conv_block's.
// Not a replacement for conv_block on padded taps: conv2d at r 144 on an H100 ran 214.8 ms with
// conv_block, 225.5 with this one on 289 taps, 231.1 with this one on 296 padded taps (the tail's code costs
// the main loop); at r 9 this one on 19 taps beat conv_block on 24 (1.49 vs 1.569 ms).
template <typename T, int K, typename Weight, typename Load>
__device__ __forceinline__ void conv_block_any(Weight weight, int ntaps, Load load, T (&acc)[K]) {
  T win[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = vzero<T>();
#pragma unroll
  for (int k = 0; k < K - 1; ++k) win[k] = load(k);
  const int full = ntaps - ntaps % K;
  int t0 = 0;
  for (; t0 < full; t0 += K) {
#pragma unroll
    for (int s = 0; s < K; ++s) {
      win[(s + K - 1) % K] = load(t0 + s + K - 1);
      const float wt = weight(t0 + s);
#pragma unroll
      for (int k = 0; k < K; ++k) vfma(wt, win[(s + k) % K], acc[k]);
    }
  }
  const int rem = ntaps - full;
#pragma unroll
  for (int s = 0; s < K - 1; ++s) {
    if (s < rem) {
      win[(s + K - 1) % K] = load(t0 + s + K - 1);
      const float wt = weight(t0 + s);
#pragma unroll
      for (int k = 0; k < K; ++k) vfma(wt, win[(s + k) % K], acc[k]);
    }
  }
}

// Asynchronous global -> shared copy of one pixel (cp.async) to shared address dst (loops that step it by a
// constant take this form): tile loads put every load of a thread in flight at once instead of stalling on each.
// valid = false writes zeros (the zero border) and reads nothing.
template <typename T>
__device__ __forceinline__ void cp_async_to(unsigned dst, const T* gsrc, bool valid) {
  constexpr int n = int(sizeof(T));
  const int src_size = valid ? n : 0;
  if constexpr (n == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gsrc), "r"(src_size) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(gsrc), "n"(n), "r"(src_size)
                 : "memory");
}
// The same copy of 16 bytes always read (no src-size operand: the form whole tiles' loads were measured with,
// iir1d.cu's iir2d_load_tile).
__device__ __forceinline__ void cp_async_to(unsigned dst, const float4* gsrc) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(gsrc) : "memory");
}
template <typename T>
__device__ __forceinline__ void cp_async_pixel(T* smem_dst, const T* gsrc, bool valid) {
  cp_async_to(static_cast<unsigned>(__cvta_generic_to_shared(smem_dst)), gsrc, valid);
}
// A hint that a line of global memory will be read soon: fetched into L2 (kept there first when L2 evicts), no
// register written, no fault on the address (box1d's line kernels ask for the block a few launch slots ahead).
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p));
}

__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
// Groups, for double buffering: commit what this thread issued so far; wait until at most N groups pend.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// conv_block with a compile-time tap count NT (any NT, no zero padding): fully unrolled, so each weight is
// an immediate constant-bank operand of its FMAs (no weight loads, no loop overhead).
template <typename T, int K, int NT, typename Weight, typename Load>
__device__ __forceinline__ void conv_fixed(Weight weight, Load load, T (&acc)[K]) {
  T win[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = vzero<T>();
#pragma unroll
  for (int k = 0; k < K - 1; ++k) win[k] = load(k);
#pragma unroll
  for (int t = 0; t < NT; ++t) {
    win[(t + K - 1) % K] = load(t + K - 1);
    const float wt = weight(t);
#pragma unroll
    for (int k = 0; k < K; ++k) vfma(wt, win[(t + k) % K], acc[k]);
  }
}

inline int round_up(int v, int m) { return (v + m - 1) / m * m; }

// Enough blocks to fill the GPU several times over; grid-stride loops do the rest.
inline int grid_for(size_t items, int block) {
  const size_t want = (items + block - 1) / block;
  return int(want < 1 ? 1 : (want > 132 * 32 ? 132 * 32 : want));
}

// Component access of a pixel vector by an index that is a compile-time constant after unrolling (the
// vector stays in registers).
template <typename T> struct VecInfo;
template <> struct VecInfo<float> { static constexpr int K = 1; };
template <> struct VecInfo<float2> { static constexpr int K = 2; };
template <> struct VecInfo<float4> { static constexpr int K = 4; };
__host__ __device__ __forceinline__ float vget(const float& v, int) { return v; }
__host__ __device__ __forceinline__ float vget(const float2& v, int i) { return i == 0 ? v.x : v.y; }
__host__ __device__ __forceinline__ float vget(const float4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}
__host__ __device__ __forceinline__ void vset(float& v, int, float x) { v = x; }
__host__ __device__ __forceinline__ void vset(float2& v, int i, float x) { (i == 0 ? v.x : v.y) = x; }
__host__ __device__ __forceinline__ void vset(float4& v, int i, float x) {
  (i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w) = x;
}

// A pixel of a program image (core/program.hpp) at (x, y) of the input's frame: stored pixels as they are;
// outside the stored area the border mode on [0, w) x [0, h) (only unpadded images are read there; zero -> 0).
// `base` points at stored pixel (-pad, -pad), rows of `stride` pixels.
template <typename T>
__device__ __forceinline__ T read_pixel(const T* __restrict__ base, int stride, int pad, int w, int h, int x, int y,
                                        Border b) {
  if (x < -pad || y < -pad || x >= w + pad || y >= h + pad) {
    x = remap_index(x, w, b);
    y = remap_index(y, h, b);
    if (x < 0 || y < 0) return vzero<T>();
  }
  return base[size_t(y + pad) * size_t(stride) + size_t(x + pad)];
}

}  // namespace gpublur::cuda
