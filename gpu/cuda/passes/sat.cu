// sat: the inclusive float64 summed-area table S(x, y) = sum of src over [-P, x] x [-P, y] (P the table's
// padding) of src extended by pass.extend pixels with the border mode, or of a float64 source (a table of a
// table: double integration) that covers the table's area. Two scans: along rows (one block per
// table row: per-thread chunk sums, a block-wide exclusive scan of them, then the running sums written), then
// down columns (a block of 32 value columns x 16 row segments: segment sums, carries from the segments above,
// then the running sums; coalesced reads and writes of whole rows of doubles).
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

}  // namespace gpublur::cuda
