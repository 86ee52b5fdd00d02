// sat: the inclusive float64 summed-area table S(x, y) = sum of src over [-P, x] x [-P, y] (P the table's
// padding) of src extended by pass.extend pixels with the border mode, or of a float64 source (a table of a
// table: double integration) that covers the table's area. Two scans: along rows (one block per
// table row: per-thread chunk sums, a block-wide exclusive scan of them, then the running sums written), then
// down columns (a block of 32 value columns x 16 row segments: segment sums, carries from the segments above,
// then the running sums; coalesced reads and writes of whole rows of doubles).
// Two Sats that double-integrate a table (sat_pair, core/program.hpp: spread's) run as a pair: one double prefix
// sum along each row, then one down each column, in the same two schedules (chunks or segments carry two sums).
#include <algorithm>
#include <string>

#include "gpu/cuda/passes/box_common.cuh"

namespace gpublur::cuda {
namespace {

constexpr int kRowThreads = 256, kColX = 32, kColSegs = 16;

// Exclusive block-wide prefix of each thread's K sums (blockDim.x == kRowThreads); `total` gets the block's sum.
template <int K>
__device__ __forceinline__ void block_exclusive_scan(double (&v)[K], double (&total)[K]) {
  __shared__ double warp_sums[kRowThreads / 32][K];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  double incl[K];
#pragma unroll
  for (int c = 0; c < K; ++c) {
    double x = v[c];
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const double y = __shfl_up_sync(0xffffffffu, x, o);
      if (lane >= o) x += y;
    }
    incl[c] = x;
    if (lane == 31) warp_sums[warp][c] = x;
  }
  __syncthreads();
#pragma unroll
  for (int c = 0; c < K; ++c) {
    double before = 0.0, all = 0.0;
    for (int w = 0; w < kRowThreads / 32; ++w) {
      if (w < warp) before += warp_sums[w][c];
      all += warp_sums[w][c];
    }
    v[c] = before + incl[c] - v[c];
    total[c] = all;
  }
}

// The table's source, read as K float64 values at (x, y) of the image frame: a float32 image (an unpadded one
// extended with the border mode), or a float64 table that covers the table's area (a table of a table).
template <typename T>
struct ImageSource {
  static constexpr int K = VecInfo<T>::K;
  const T* src;
  int stride, pad, W, H;
  Border b;
  __device__ __forceinline__ void read(int x, int y, double (&v)[K]) const {
    const T p = read_pixel(src, stride, pad, W, H, x, y, b);
#pragma unroll
    for (int c = 0; c < K; ++c) v[c] = double(vget(p, c));
  }
};

template <int KK>
struct TableSource {
  static constexpr int K = KK;
  const double* src;
  int stride, pad;
  __device__ __forceinline__ void read(int x, int y, double (&v)[K]) const {
    const double* p = src + (size_t(y + pad) * size_t(stride) + size_t(x + pad)) * K;
#pragma unroll
    for (int c = 0; c < K; ++c) v[c] = p[c];
  }
};

template <typename Src>
__global__ void __launch_bounds__(kRowThreads) sat_rows_kernel(Src src, int W, double* __restrict__ table, int P) {
  constexpr int K = Src::K;
  const int Wt = W + 2 * P, y = int(blockIdx.x) - P;
  const int E = (Wt + kRowThreads - 1) / kRowThreads;
  const int x0 = threadIdx.x * E, x1 = min(Wt, x0 + E);  // table columns
  double acc[K], total[K], v[K];
#pragma unroll
  for (int c = 0; c < K; ++c) acc[c] = 0.0;
  for (int xt = x0; xt < x1; ++xt) {
    src.read(xt - P, y, v);
#pragma unroll
    for (int c = 0; c < K; ++c) acc[c] += v[c];
  }
  block_exclusive_scan<K>(acc, total);
  double* row = table + size_t(blockIdx.x) * size_t(Wt) * K;
  for (int xt = x0; xt < x1; ++xt) {
    src.read(xt - P, y, v);
#pragma unroll
    for (int c = 0; c < K; ++c) {
      acc[c] += v[c];
      row[size_t(xt) * K + c] = acc[c];
    }
  }
}

__global__ void __launch_bounds__(kColX* kColSegs) sat_cols_kernel(double* __restrict__ table, int values, int rows) {
  __shared__ double seg[kColSegs][kColX];
  const int v = blockIdx.x * kColX + threadIdx.x;
  const int E = (rows + kColSegs - 1) / kColSegs;
  const int r0 = threadIdx.y * E, r1 = min(rows, r0 + E);
  double s = 0.0;
  if (v < values)
    for (int r = r0; r < r1; ++r) s += table[size_t(r) * values + v];
  seg[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  double acc = 0.0;
  for (int i = 0; i < int(threadIdx.y); ++i) acc += seg[i][threadIdx.x];
  if (v < values)
    for (int r = r0; r < r1; ++r) {
      double* p = table + size_t(r) * values + v;
      acc += *p;
      *p = acc;
    }
}

// The pair's rows: dst = Px^2 src along each of the `rows` stored rows of n pixels (K doubles each). A chunk's
// (t1, t2) are its values' sum and the sum of their running sums; the chunk's first running sums come from two
// block scans: S1 of the t1 before it, S2 of (t2 + length S1) before it.
template <int K>
__global__ void __launch_bounds__(kRowThreads)
    sat_pair_rows_kernel(const double* __restrict__ src, double* __restrict__ dst, int n) {
  const int E = (n + kRowThreads - 1) / kRowThreads;
  const int x0 = min(n, int(threadIdx.x) * E), x1 = min(n, x0 + E);
  const size_t row = size_t(blockIdx.x) * size_t(n) * K;
  const double* s = src + row;
  double* d = dst + row;
  double s1[K], s2[K], total[K];
#pragma unroll
  for (int c = 0; c < K; ++c) s1[c] = s2[c] = 0.0;
  for (int x = x0; x < x1; ++x)
#pragma unroll
    for (int c = 0; c < K; ++c) s1[c] += s[size_t(x) * K + c], s2[c] += s1[c];
  block_exclusive_scan<K>(s1, total);
#pragma unroll
  for (int c = 0; c < K; ++c) s2[c] += double(x1 - x0) * s1[c];
  __syncthreads();  // the scans share their warp sums
  block_exclusive_scan<K>(s2, total);
  for (int x = x0; x < x1; ++x)
#pragma unroll
    for (int c = 0; c < K; ++c) s1[c] += s[size_t(x) * K + c], s2[c] += s1[c], d[size_t(x) * K + c] = s2[c];
}

// The pair's columns: dst = Py^2 src down each of the `values` double columns (segments as sat_cols_kernel's, each
// with its (t1, t2) as the rows' chunks).
__global__ void __launch_bounds__(kColX* kColSegs)
    sat_pair_cols_kernel(const double* __restrict__ src, double* __restrict__ dst, int values, int rows) {
  __shared__ double seg1[kColSegs][kColX], seg2[kColSegs][kColX];
  const int v = blockIdx.x * kColX + threadIdx.x;
  const int E = (rows + kColSegs - 1) / kColSegs;
  const int r0 = min(rows, int(threadIdx.y) * E), r1 = min(rows, r0 + E);
  double s1 = 0.0, s2 = 0.0;
  if (v < values)
    for (int r = r0; r < r1; ++r) s1 += src[size_t(r) * values + v], s2 += s1;
  seg1[threadIdx.y][threadIdx.x] = s1;
  seg2[threadIdx.y][threadIdx.x] = s2;
  __syncthreads();
  s1 = s2 = 0.0;
  for (int i = 0; i < int(threadIdx.y); ++i) {
    const int n = min(rows, (i + 1) * E) - min(rows, i * E);
    s2 += seg2[i][threadIdx.x] + double(n) * s1;
    s1 += seg1[i][threadIdx.x];
  }
  if (v < values)
    for (int r = r0; r < r1; ++r) {
      s1 += src[size_t(r) * values + v], s2 += s1;
      dst[size_t(r) * values + v] = s2;
    }
}

template <int K>
Status run_sat_pair(const DevImage& src, const DevImage& mid, const DevImage& dst, cudaStream_t st) {
  sat_pair_rows_kernel<K><<<mid.rows(), kRowThreads, 0, st>>>(static_cast<const double*>(src.data),
                                                              static_cast<double*>(mid.data), mid.stride());
  if (Status s = cuda_status(cudaGetLastError(), "launching sat pair rows"); !s) return s;
  const int values = mid.stride() * K;
  // (Segments of the columns: 16, as sat_cols_kernel's, measured the fastest on an H200 of 2, 4, 8 and 16: spread sigma
  // 12 4096^2 RGBA pair 1.706 / 2.093 / 1.814 / 1.707 ms at 16 / 2 / 4 / 8, one channel 0.526 / 1.068 / 0.761 / 0.607.)
  sat_pair_cols_kernel<<<(values + kColX - 1) / kColX, dim3(kColX, kColSegs), 0, st>>>(
      static_cast<const double*>(mid.data), static_cast<double*>(dst.data), values, mid.rows());
  return cuda_status(cudaGetLastError(), "launching sat pair columns");
}

Status sat_cols(const DevImage& table, cudaStream_t st) {
  const int values = table.stride() * table.channels;
  sat_cols_kernel<<<(values + kColX - 1) / kColX, dim3(kColX, kColSegs), 0, st>>>(static_cast<double*>(table.data),
                                                                                  values, table.rows());
  return cuda_status(cudaGetLastError(), "launching sat");
}

template <typename T>
Status run_sat(const DevImage& src, const DevImage& table, Border b, cudaStream_t st) {
  const ImageSource<T> s{static_cast<const T*>(src.data), src.stride(), src.pad, src.width, src.height, b};
  sat_rows_kernel<<<table.rows(), kRowThreads, 0, st>>>(s, src.width, static_cast<double*>(table.data), table.pad);
  return sat_cols(table, st);
}

template <int K>
Status run_sat_of_table(const DevImage& src, const DevImage& table, cudaStream_t st) {
  const TableSource<K> s{static_cast<const double*>(src.data), src.stride(), src.pad};
  sat_rows_kernel<<<table.rows(), kRowThreads, 0, st>>>(s, src.width, static_cast<double*>(table.data), table.pad);
  return sat_cols(table, st);
}

}  // namespace

Status launch_sat(const Pass& pass, const DevImage& src, const DevImage& table, cudaStream_t s, std::string& path) {
  if (!table.f64 || table.channels != src.channels)
    return Status::fail("CUDA sat: the table must be float64 with the source's channels");
  path = "sat-scan";
  if (src.f64) {  // a table of a table: the source covers the table's area (core/program.hpp)
    if (pass.extend != 0 || src.pad < table.pad) return Status::fail("CUDA sat: a float64 source must cover the table");
    switch (src.channels) {
      case 1: return run_sat_of_table<1>(src, table, s);
      case 2: return run_sat_of_table<2>(src, table, s);
      case 4: return run_sat_of_table<4>(src, table, s);
      default: return Status::fail("CUDA sat: unsupported device channel count");
    }
  }
  switch (src.channels) {
    case 1: return run_sat<float>(src, table, pass.border, s);
    case 2: return run_sat<float2>(src, table, pass.border, s);
    case 4: return run_sat<float4>(src, table, pass.border, s);
    default: return Status::fail("CUDA sat: unsupported device channel count");
  }
}

Status launch_sat_pair(const DevImage& src, const DevImage& mid, const DevImage& dst, cudaStream_t s,
                       std::string& path) {
  const auto same = [&](const DevImage& t) {
    return t.f64 && t.channels == src.channels && t.width == src.width && t.height == src.height && t.pad == src.pad;
  };
  if (!same(src) || !same(mid) || !same(dst))
    return Status::fail("CUDA sat pair: needs three float64 tables of one area");
  path = "sat-pair";
  switch (src.channels) {
    case 1: return run_sat_pair<1>(src, mid, dst, s);
    case 2: return run_sat_pair<2>(src, mid, dst, s);
    case 4: return run_sat_pair<4>(src, mid, dst, s);
    default: return Status::fail("CUDA sat pair: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
