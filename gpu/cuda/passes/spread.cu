// spread: the nine weighted source pixels that spread onto each pixel of the float64 table (gather form of
// Kosloff's spreading, core/program.hpp Op::Spread): s(x, y) = sum w_a w_b E(x - 1 + a R, y - 1 + b R),
// w = (1, -2, 1), E the source read with the border mode on the area extended by pass.extend and 0 beyond.
// The table covers [-2, w) x [-2, h) (stored pixel i is image pixel i - 2); its lines -1 and -2 hold the spread
// before the image folded in (a value at -d counts 2 - d times at -1 and d - 1 times at -2).
// Kernels: the image's area, one thread per table pixel (rows grid-strided; the nine reads hit three source
// rows, L1/L2); then the fold from core's taps on source lines (core/spread_fold.hpp, uploaded each run into the
// scratch): the rows' sums S_t(j) (a warp a row, lanes over the taps) and the columns' sums (a block of 32
// columns, 8 rows of lanes over the taps), then the 2 (w + h) folded pixels from three sums each and the four
// corners as dot products of a warp each. Every sum is in a fixed order, so the table does not depend on
// scheduling. Work (h |taps_x| + w |taps_y|) per channel, at most 2 w h: the fold written out (every margin
// pixel's nine reads, (w + h) M + 4 M^2 of them, M = extend + R - 1) grew with R^2.
#include <algorithm>
#include <string>
#include <vector>

#include "core/spread_fold.hpp"

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

__device__ __forceinline__ double warp_sum(double v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// The rows' sums, a warp per source row j: S[(t H + j) K + c] = sum over the taps along x of w_t src(index, j).
template <typename T>
__global__ void spread_row_sums(const T* __restrict__ src, int W, int H, const SpreadFoldTap* __restrict__ taps,
                                int ntaps, double* __restrict__ S) {
  constexpr int K = VecInfo<T>::K;
  const int j = int(blockIdx.x) * (blockDim.x / 32) + int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  if (j >= H) return;
  double s1[K], s2[K];
#pragma unroll
  for (int c = 0; c < K; ++c) s1[c] = 0.0, s2[c] = 0.0;
  const T* row = src + size_t(j) * size_t(W);
  for (int k = lane; k < ntaps; k += 32) {
    const SpreadFoldTap t = taps[k];
    const T v = row[t.index];
#pragma unroll
    for (int c = 0; c < K; ++c) s1[c] += t.w1 * double(vget(v, c)), s2[c] += t.w2 * double(vget(v, c));
  }
#pragma unroll
  for (int c = 0; c < K; ++c) s1[c] = warp_sum(s1[c]), s2[c] = warp_sum(s2[c]);
  if (lane == 0)
#pragma unroll
    for (int c = 0; c < K; ++c) S[size_t(j) * K + c] = s1[c], S[(size_t(H) + j) * K + c] = s2[c];
}

constexpr int kColLanes = 8;  // rows of lanes a block of 32 columns splits the taps over

// The columns' sums, 32 columns a block: Cs[(u W + i) K + c] = sum over the taps along y of w_u src(i, index);
// lane row r takes taps r, r + 8, ..., and the 8 partial sums are added in order.
template <typename T>
__global__ void __launch_bounds__(32 * kColLanes)
    spread_col_sums(const T* __restrict__ src, int W, const SpreadFoldTap* __restrict__ taps, int ntaps,
                    double* __restrict__ Cs) {
  constexpr int K = VecInfo<T>::K;
  __shared__ double part[kColLanes][2 * K][32];
  const int tx = int(threadIdx.x) % 32, r = int(threadIdx.x) / 32, i = int(blockIdx.x) * 32 + tx;
  double s1[K], s2[K];
#pragma unroll
  for (int c = 0; c < K; ++c) s1[c] = 0.0, s2[c] = 0.0;
  if (i < W)
    for (int k = r; k < ntaps; k += kColLanes) {
      const SpreadFoldTap t = taps[k];
      const T v = src[size_t(t.index) * size_t(W) + size_t(i)];
#pragma unroll
      for (int c = 0; c < K; ++c) s1[c] += t.w1 * double(vget(v, c)), s2[c] += t.w2 * double(vget(v, c));
    }
#pragma unroll
  for (int c = 0; c < K; ++c) part[r][c][tx] = s1[c], part[r][K + c][tx] = s2[c];
  __syncthreads();
  if (r == 0 && i < W) {
#pragma unroll
    for (int c = 0; c < 2 * K; ++c) {
      double t = 0.0;
      for (int q = 0; q < kColLanes; ++q) t += part[q][c][tx];
      Cs[(size_t(c / K) * size_t(W) + size_t(i)) * K + size_t(c % K)] = t;
    }
  }
}

// The 2 (w + h) folded pixels of the image's lines, a thread each: table column t of row y from the rows' sums
// S_t at E's rows y - 1 + b R, table row u of column x from the columns' sums at E's columns x - 1 + a R.
template <int K>
__global__ void spread_fold_lines(int W, int H, Border b, int R, int X, const double* __restrict__ S,
                                  const double* __restrict__ Cs, double* __restrict__ dst, int dstride) {
  const int g = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (g >= 2 * (W + H)) return;
  const bool column = g < 2 * W;  // table rows -1 / -2 at image column x, else columns -1 / -2 at image row y
  const int line = column ? g / W : (g - 2 * W) / H, at = column ? g % W : (g - 2 * W) % H;  // line 0: -1, 1: -2
  const int n = column ? W : H;
  const double* sums = (column ? Cs : S) + size_t(line) * size_t(n) * K;
  double acc[K];
#pragma unroll
  for (int c = 0; c < K; ++c) acc[c] = 0.0;
#pragma unroll
  for (int a = -1; a <= 1; ++a) {
    const int i = spread_e_index(at - 1 + a * R, n, X, b);
    if (i < 0) continue;
    const double w = a == 0 ? -2.0 : 1.0;
#pragma unroll
    for (int c = 0; c < K; ++c) acc[c] += w * sums[size_t(i) * K + c];
  }
  const size_t o = column ? size_t(1 - line) * dstride + size_t(at + 2) : size_t(at + 2) * dstride + size_t(1 - line);
#pragma unroll
  for (int c = 0; c < K; ++c) dst[o * K + c] = acc[c];
}

// The four corners, a warp each: corner (t, u) = sum over the taps along y of w_u S_t(index).
template <int K>
__global__ void spread_fold_corners(int H, const SpreadFoldTap* __restrict__ taps, int ntaps,
                                    const double* __restrict__ S, double* __restrict__ dst, int dstride) {
  const int q = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;  // q: t = bit 0, u = bit 1 (0: -1, 1: -2)
  const int t = q & 1, u = q >> 1;
  const double* st = S + size_t(t) * size_t(H) * K;
  double acc[K];
#pragma unroll
  for (int c = 0; c < K; ++c) acc[c] = 0.0;
  for (int k = lane; k < ntaps; k += 32) {
    const SpreadFoldTap tap = taps[k];
    const double w = u == 0 ? tap.w1 : tap.w2;
#pragma unroll
    for (int c = 0; c < K; ++c) acc[c] += w * st[size_t(tap.index) * K + c];
  }
#pragma unroll
  for (int c = 0; c < K; ++c) acc[c] = warp_sum(acc[c]);
  if (lane == 0)
#pragma unroll
    for (int c = 0; c < K; ++c) dst[(size_t(1 - u) * size_t(dstride) + size_t(1 - t)) * K + c] = acc[c];
}

// The scratch: the taps along x then those along y (W + H at most), then the rows' sums (2 H K) and the columns'
// (2 W K).
size_t fold_taps_bytes(int W, int H) { return (size_t(W + H) * sizeof(SpreadFoldTap) + 255) / 256 * 256; }
size_t fold_bytes(int W, int H, int K) { return fold_taps_bytes(W, H) + 2 * size_t(W + H) * K * sizeof(double); }

template <typename T>
Status run_spread(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch, cudaStream_t st) {
  constexpr int K = VecInfo<T>::K;
  const int W = src.width, H = src.height, R = pass.widths[0], X = pass.extend;
  const T* in = static_cast<const T*>(src.data);
  double* out = static_cast<double*>(dst.data);
  // The taps, x's then y's, in one upload of their own size (24 bytes a tap: a few KB where R is small against the
  // image), queued before the kernels: a pageable copy is staged by the driver before the call returns (so `taps`
  // may go after it) and does not wait on a kernel queued ahead of it.
  int ntx = 0;
  const std::vector<SpreadFoldTap> taps = spread_fold_taps_xy(R, X, pass.border, W, H, ntx);
  const int nty = int(taps.size()) - ntx;
  SpreadFoldTap* tx_dev = static_cast<SpreadFoldTap*>(scratch);
  const SpreadFoldTap* ty_dev = tx_dev + ntx;
  double* S = reinterpret_cast<double*>(static_cast<char*>(scratch) + fold_taps_bytes(W, H));
  double* Cs = S + 2 * size_t(H) * K;
  if (!taps.empty())
    if (Status s = cuda_status(cudaMemcpyAsync(tx_dev, taps.data(), taps.size() * sizeof(SpreadFoldTap),
                                               cudaMemcpyHostToDevice, st),
                               "uploading spread's fold taps");
        !s)
      return s;
  spread_kernel<T><<<dim3((W + 127) / 128, std::min(H, 65535)), 128, 0, st>>>(in, W, H, pass.border, R, X, out,
                                                                               dst.stride());
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_status(e, "launching spread");
  spread_row_sums<T><<<(H + 7) / 8, 256, 0, st>>>(in, W, H, tx_dev, ntx, S);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_status(e, "launching spread (rows' sums)");
  spread_col_sums<T><<<(W + 31) / 32, 32 * kColLanes, 0, st>>>(in, W, ty_dev, nty, Cs);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_status(e, "launching spread (columns' sums)");
  spread_fold_lines<K><<<(2 * (W + H) + 255) / 256, 256, 0, st>>>(W, H, pass.border, R, X, S, Cs, out,
                                                                   dst.stride());
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_status(e, "launching spread (folded lines)");
  spread_fold_corners<K><<<1, 128, 0, st>>>(H, ty_dev, nty, S, out, dst.stride());
  return cuda_status(cudaGetLastError(), "launching spread (corners)");
}

}  // namespace

size_t spread_scratch(const Pass&, const DevImage& src) {
  return fold_bytes(src.width, src.height, src.channels);
}

Status launch_spread(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch, size_t scratch_bytes,
                     cudaStream_t s, std::string& path) {
  if (pass.widths.size() != 1 || src.f64 || src.pad != 0 || !dst.f64 || dst.pad != 1 ||
      dst.channels != src.channels)
    return Status::fail("CUDA spread: needs one radius, an unpadded float32 source and a float64 table of padding 1");
  if (scratch_bytes < spread_scratch(pass, src)) return Status::fail("CUDA spread: scratch too small");
  path = "spread";
  switch (src.channels) {
    case 1: return run_spread<float>(pass, src, dst, scratch, s);
    case 2: return run_spread<float2>(pass, src, dst, scratch, s);
    case 4: return run_spread<float4>(pass, src, dst, scratch, s);
    default: return Status::fail("CUDA spread: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
