// spread: the nine weighted source pixels that spread onto each pixel of the float64 table (gather form of
// Kosloff's spreading, core/program.hpp Op::Spread): s(x, y) = sum w_a w_b E(x - 1 + a R, y - 1 + b R),
// w = (1, -2, 1), E the source read with the border mode on the area extended by pass.extend and 0 beyond.
// The table covers [-2, w) x [-2, h) (stored pixel i is image pixel i - 2); its lines -1 and -2 hold the spread
// before the image folded in (a value at -d counts 2 - d times at -1 and d - 1 times at -2).
// Two kernels: the image's area, one thread per table pixel (rows grid-strided; the nine reads hit three
// source rows, L1/L2); and the 2 (w + h) + 4 folded pixels, one block each, whose M or M^2 spread values
// (M = extend + R - 1) are summed by the block: thousands of values per pixel, which one thread would
// serialise.
#include <algorithm>
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

template <typename T>
__device__ __forceinline__ void add_spread(const T* __restrict__ src, int W, int H, Border b, int R, int X, int x,
                                           int y, double f, double* acc) {
  constexpr int K = VecInfo<T>::K;
#pragma unroll
  for (int bb = -1; bb <= 1; ++bb) {
    const int sy = y - 1 + bb * R;
    if (sy < -X || sy >= H + X) continue;
#pragma unroll
    for (int aa = -1; aa <= 1; ++aa) {
      const int sx = x - 1 + aa * R;
      if (sx < -X || sx >= W + X) continue;
      const double w = f * (aa == 0 ? -2.0 : 1.0) * (bb == 0 ? -2.0 : 1.0);
      const T v = read_pixel(src, W, 0, W, H, sx, sy, b);
#pragma unroll
      for (int c = 0; c < K; ++c) acc[c] += w * double(vget(v, c));
    }
  }
}

// The image's area: table pixels (x, y) >= 0, each its own spread value.
template <typename T>
__global__ void spread_kernel(const T* __restrict__ src, int W, int H, Border b, int R, int X,
                              double* __restrict__ dst, int dstride) {
  constexpr int K = VecInfo<T>::K;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= W) return;
  for (int y = blockIdx.y; y < H; y += gridDim.y) {
    double acc[K];
#pragma unroll
    for (int c = 0; c < K; ++c) acc[c] = 0.0;
    add_spread(src, W, H, b, R, X, x, y, 1.0, acc);
    double* o = dst + (size_t(y + 2) * size_t(dstride) + size_t(x + 2)) * K;
#pragma unroll
    for (int c = 0; c < K; ++c) o[c] = acc[c];
  }
}

constexpr int kFoldThreads = 256;

// One folded table pixel per block: block m < 2W is row -1 - m / W at column m % W, then 2H column pixels,
// then the four corners. Per axis a folded line -1 or -2 takes the positions -1..-M with weights 2 - d or
// d - 1; an image line takes its own position with weight 1.
template <typename T>
__global__ void spread_fold_kernel(const T* __restrict__ src, int W, int H, Border b, int R, int X, int M,
                                   double* __restrict__ dst, int dstride) {
  constexpr int K = VecInfo<T>::K;
  __shared__ double red[kFoldThreads * K];
  int m = int(blockIdx.x), tx, ty;
  if (m < 2 * W) {
    tx = m % W, ty = -1 - m / W;
  } else if ((m -= 2 * W) < 2 * H) {
    ty = m % H, tx = -1 - m / H;
  } else {
    m -= 2 * H;
    tx = -1 - (m & 1), ty = -1 - (m >> 1);
  }
  const int nx = tx >= 0 ? 1 : M, ny = ty >= 0 ? 1 : M;
  double acc[K];
#pragma unroll
  for (int c = 0; c < K; ++c) acc[c] = 0.0;
  const int n = nx * ny;  // M <= 2 * 2048 (the registry's largest radius), so M^2 fits an int
  for (int k = int(threadIdx.x); k < n; k += kFoldThreads) {
    const int ix = k % nx, iy = k / nx;
    int x = tx, y = ty;
    double f = 1.0;
    if (tx < 0) x = -(ix + 1), f *= tx == -1 ? 2.0 - (ix + 1) : double(ix);
    if (ty < 0) y = -(iy + 1), f *= ty == -1 ? 2.0 - (iy + 1) : double(iy);
    if (f != 0.0) add_spread(src, W, H, b, R, X, x, y, f, acc);
  }
#pragma unroll
  for (int c = 0; c < K; ++c) red[threadIdx.x * K + c] = acc[c];
  __syncthreads();
  for (int span = kFoldThreads / 2; span > 0; span /= 2) {
    if (int(threadIdx.x) < span)
#pragma unroll
      for (int c = 0; c < K; ++c) red[threadIdx.x * K + c] += red[(threadIdx.x + span) * K + c];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    double* o = dst + (size_t(ty + 2) * size_t(dstride) + size_t(tx + 2)) * K;
#pragma unroll
    for (int c = 0; c < K; ++c) o[c] = red[c];
  }
}

template <typename T>
Status run_spread(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  const int W = src.width, H = src.height, R = pass.widths[0], X = pass.extend;
  const dim3 grid((W + 127) / 128, std::min(H, 65535));
  spread_kernel<T><<<grid, 128, 0, st>>>(static_cast<const T*>(src.data), W, H, pass.border, R, X,
                                         static_cast<double*>(dst.data), dst.stride());
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_status(e, "launching spread");
  spread_fold_kernel<T><<<2 * W + 2 * H + 4, kFoldThreads, 0, st>>>(static_cast<const T*>(src.data), W, H,
                                                                     pass.border, R, X, X + R - 1,
                                                                     static_cast<double*>(dst.data), dst.stride());
  return cuda_status(cudaGetLastError(), "launching spread (folded margin)");
}

}  // namespace

Status launch_spread(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (pass.widths.size() != 1 || src.f64 || src.pad != 0 || !dst.f64 || dst.pad != 1 ||
      dst.channels != src.channels)
    return Status::fail("CUDA spread: needs one radius, an unpadded float32 source and a float64 table of padding 1");
  path = "spread";
  switch (src.channels) {
    case 1: return run_spread<float>(pass, src, dst, s);
    case 2: return run_spread<float2>(pass, src, dst, s);
    case 4: return run_spread<float4>(pass, src, dst, s);
    default: return Status::fail("CUDA spread: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
