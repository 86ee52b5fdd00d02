// spread: the nine weighted source pixels that spread onto each pixel of the float64 table (gather form of
// Kosloff's spreading, core/program.hpp Op::Spread): s(x, y) = sum w_a w_b E(x - 1 + a R, y - 1 + b R),
// w = (1, -2, 1), E the source read with the border mode on the area extended by pass.extend and 0 beyond.
// The table covers [-2, w) x [-2, h) (stored pixel i is image pixel i - 2); its lines -1 and -2 hold the spread
// before the image folded in (a value at -d counts 2 - d times at -1 and d - 1 times at -2).
// Kernels: the image's area, one thread per table pixel (rows grid-strided; the nine reads hit three source
// rows, L1/L2); the 2 (w + h) folded pixels of the image's lines, a warp per image line summing its M spread
// values (M = extend + R - 1) into both; the four corners, whose M^2 values before both lines are shared by 64
// blocks and summed in a fixed order. (One thread per folded pixel would serialise thousands of values; a block
// per folded pixel measured 0.12 ms of fixed cost at 4096^2 on an H100: the spread pass 0.46 ms against 0.34
// ms unfolded at sigma 3.)
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

// The weight of position -(i + 1) in the folded line t (-1: 2 - d, -2: d - 1, d = i + 1).
__device__ __forceinline__ double fold_weight(int t, int i) { return t == -1 ? 1.0 - i : double(i); }

__device__ __forceinline__ double warp_sum(double v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// The 2 (w + h) folded pixels of the image's lines, one warp per image column (its rows -1 and -2) and per
// image row (its columns -1 and -2): each of the M spread values before the line is computed once, a few per
// lane, and added to both folded pixels.
template <typename T>
__global__ void spread_edge_kernel(const T* __restrict__ src, int W, int H, Border b, int R, int X, int M,
                                   double* __restrict__ dst, int dstride) {
  constexpr int K = VecInfo<T>::K;
  const int g = int(blockIdx.x) * (blockDim.x / 32) + int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  if (g >= W + H) return;
  const bool column = g < W;  // image column g, else image row g - W
  double a1[K], a2[K];        // the folded pixels at -1 and -2
#pragma unroll
  for (int c = 0; c < K; ++c) a1[c] = 0.0, a2[c] = 0.0;
  for (int i = lane; i < M; i += 32) {
    double v[K];
#pragma unroll
    for (int c = 0; c < K; ++c) v[c] = 0.0;
    add_spread(src, W, H, b, R, X, column ? g : -(i + 1), column ? -(i + 1) : g - W, 1.0, v);
#pragma unroll
    for (int c = 0; c < K; ++c) a1[c] += fold_weight(-1, i) * v[c], a2[c] += fold_weight(-2, i) * v[c];
  }
#pragma unroll
  for (int c = 0; c < K; ++c) a1[c] = warp_sum(a1[c]), a2[c] = warp_sum(a2[c]);
  if (lane == 0) {
    const size_t at1 = column ? size_t(1) * dstride + size_t(g + 2) : size_t(g - W + 2) * dstride + 1;
    const size_t at2 = column ? size_t(g + 2) : size_t(g - W + 2) * dstride;
#pragma unroll
    for (int c = 0; c < K; ++c) dst[at1 * K + c] = a1[c], dst[at2 * K + c] = a2[c];
  }
}

constexpr int kCornerBlocks = 64, kCornerThreads = 256;

// The four corner pixels: the M^2 spread values before both lines, each computed once and added to the four
// corners with their two fold weights, shared by kCornerBlocks blocks (with one block for them, and a warp per
// folded pixel of the lines, 1024^2 at sigma 48 took 0.397 ms against 0.317 now on an H100);
// each block leaves its four sums in the scratch, and spread_corner_sum adds the blocks' sums in block order,
// so the result does not depend on scheduling.
template <typename T>
__global__ void __launch_bounds__(kCornerThreads)
    spread_corner_kernel(const T* __restrict__ src, int W, int H, Border b, int R, int X, int M,
                         double* __restrict__ partial) {
  constexpr int K = VecInfo<T>::K;
  __shared__ double red[kCornerThreads / 32][4 * K];
  double acc[4 * K];
#pragma unroll
  for (int c = 0; c < 4 * K; ++c) acc[c] = 0.0;
  const int n = M * M;  // M <= 2 * 2048 (the registry's largest radius), so M^2 fits an int
  for (int k = int(blockIdx.x * kCornerThreads + threadIdx.x); k < n; k += kCornerBlocks * kCornerThreads) {
    const int ix = k % M, iy = k / M;
    double v[K];
#pragma unroll
    for (int c = 0; c < K; ++c) v[c] = 0.0;
    add_spread(src, W, H, b, R, X, -(ix + 1), -(iy + 1), 1.0, v);
#pragma unroll
    for (int q = 0; q < 4; ++q) {  // corner q: (tx, ty) = (-1 - (q & 1), -1 - (q >> 1))
      const double f = fold_weight(-1 - (q & 1), ix) * fold_weight(-1 - (q >> 1), iy);
#pragma unroll
      for (int c = 0; c < K; ++c) acc[q * K + c] += f * v[c];
    }
  }
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
#pragma unroll
  for (int c = 0; c < 4 * K; ++c) {
    const double t = warp_sum(acc[c]);
    if (lane == 0) red[warp][c] = t;
  }
  __syncthreads();
  if (int(threadIdx.x) < 4 * K) {
    double t = 0.0;
    for (int w = 0; w < kCornerThreads / 32; ++w) t += red[w][threadIdx.x];
    partial[blockIdx.x * 4 * K + threadIdx.x] = t;
  }
}

// One thread per corner value (4 K of them).
template <int K>
__global__ void spread_corner_sum(const double* __restrict__ partial, double* __restrict__ dst, int dstride) {
  const int i = int(threadIdx.x), q = i / K, c = i % K;
  double t = 0.0;
  for (int g = 0; g < kCornerBlocks; ++g) t += partial[g * 4 * K + i];
  const int tx = -1 - (q & 1), ty = -1 - (q >> 1);
  dst[(size_t(ty + 2) * size_t(dstride) + size_t(tx + 2)) * K + c] = t;
}

template <typename T>
Status run_spread(const Pass& pass, const DevImage& src, const DevImage& dst, double* partial, cudaStream_t st) {
  constexpr int K = VecInfo<T>::K;
  const int W = src.width, H = src.height, R = pass.widths[0], X = pass.extend, M = X + R - 1;
  const T* in = static_cast<const T*>(src.data);
  double* out = static_cast<double*>(dst.data);
  spread_kernel<T><<<dim3((W + 127) / 128, std::min(H, 65535)), 128, 0, st>>>(in, W, H, pass.border, R, X, out,
                                                                               dst.stride());
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_status(e, "launching spread");
  spread_edge_kernel<T><<<(W + H + 7) / 8, 256, 0, st>>>(in, W, H, pass.border, R, X, M, out, dst.stride());
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_status(e, "launching spread (folded lines)");
  spread_corner_kernel<T><<<kCornerBlocks, kCornerThreads, 0, st>>>(in, W, H, pass.border, R, X, M, partial);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_status(e, "launching spread (corners)");
  spread_corner_sum<K><<<1, 4 * K, 0, st>>>(partial, out, dst.stride());
  return cuda_status(cudaGetLastError(), "launching spread (corner sums)");
}

}  // namespace

size_t spread_scratch(const Pass&, const DevImage&) { return size_t(kCornerBlocks) * 4 * 4 * sizeof(double); }

Status launch_spread(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch, size_t scratch_bytes,
                     cudaStream_t s, std::string& path) {
  if (pass.widths.size() != 1 || src.f64 || src.pad != 0 || !dst.f64 || dst.pad != 1 ||
      dst.channels != src.channels)
    return Status::fail("CUDA spread: needs one radius, an unpadded float32 source and a float64 table of padding 1");
  if (scratch_bytes < spread_scratch(pass, src)) return Status::fail("CUDA spread: scratch too small");
  double* partial = static_cast<double*>(scratch);
  path = "spread";
  switch (src.channels) {
    case 1: return run_spread<float>(pass, src, dst, partial, s);
    case 2: return run_spread<float2>(pass, src, dst, partial, s);
    case 4: return run_spread<float4>(pass, src, dst, partial, s);
    default: return Status::fail("CUDA spread: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
