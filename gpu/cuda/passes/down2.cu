// down2: one thread per stored coarse pixel, the n x n window (n even, <= 64) at 2X + first read explicitly
// through L1 with the border mode over the source's stored area (core/resample.hpp resample_index), rows
// weighted first and then summed with the column weights (the reference's products, in float). The analysis
// kernels proper have 2 or 4 taps (each fine pixel read by at most 4 threads, neighbours share cache lines); the
// pyramid's last level carries the coarsest Gaussian folded in (up to 28 taps at --sigma's level choice), at
// 1 / 4^L of the pixels. The schedules (pass_table.cpp; resample_fused.cuh has the block logic): two short
// passes in a row as one kernel (down2x2_kernel, the middle level only in shared memory), the long one as rows
// then columns through scratch, a short pass left unpaired as down2_kernel. (The older schedule, one kernel per
// pass and the long one as one shared-memory kernel, measured slower: docs/performance.md.)
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/resample.cuh"
#include "gpu/cuda/passes/resample_fused.cuh"

namespace gpublur::cuda {
namespace {

constexpr int kDown2MaxTaps = 64;
struct Taps {
  float w[kDown2MaxTaps];
};

template <typename T>
__global__ void down2_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, int spad, int CW, int CH,
                             int dpad, Border b, int n, int first, Taps t) {
  wait_for_previous_grid();
  const int tx = blockIdx.x * blockDim.x + threadIdx.x, ty = grid_row() * blockDim.y + threadIdx.y;
  const int dstride = CW + 2 * dpad;
  if (tx >= dstride || ty >= CH + 2 * dpad) return;
  out[size_t(ty) * dstride + tx] = resample::down2_at(in, W, H, spad, tx, ty, dpad, b, n, first, t.w);
}

// The long Down2 in two kernels through scratch (resample_fused.cuh): rows, then columns.
template <typename T>
__global__ void down2_rows_kernel(const T* __restrict__ in, T* __restrict__ rows, int W, int H, int spad, int dstride,
                                  int dpad, Border b, int n, int first, Taps t) {
  wait_for_previous_grid();
  const int tx = blockIdx.x * blockDim.x + threadIdx.x, sy = grid_row() * blockDim.y + threadIdx.y;
  if (tx >= dstride || sy >= H + 2 * spad) return;
  rows[size_t(sy) * dstride + tx] = resample::down2_rows_at(in, W, spad, tx, sy, dpad, b, n, first, t.w);
}

template <typename T>
__global__ void down2_cols_kernel(const T* __restrict__ rows, T* __restrict__ out, int H, int spad, int CW, int CH,
                                  int dpad, Border b, int n, int first, Taps t) {
  wait_for_previous_grid();
  const int tx = blockIdx.x * blockDim.x + threadIdx.x, ty = grid_row() * blockDim.y + threadIdx.y;
  const int dstride = CW + 2 * dpad;
  if (tx >= dstride || ty >= CH + 2 * dpad) return;
  out[size_t(ty) * dstride + tx] = resample::down2_cols_at(rows, H, spad, dstride, tx, ty, dpad, b, n, first, t.w);
}

// Two Down2 passes as one (resample_fused.cuh): the level-1 window in shared memory, level 1 never written.
template <typename T, int N1>
__global__ void __launch_bounds__(resample::kFuseThreads, 2)
    down2x2_kernel(const T* __restrict__ in, T* __restrict__ out, resample::Level l0, resample::Level l1,
                   resample::Level l2, Border b1, int first1, Taps t1, Border b2, int n2, int first2, Taps t2) {
  __shared__ T win[resample::kDownWinX * resample::kDownWinY];
  const int tid = threadIdx.y * resample::kFuseThreadsX + threadIdx.x, by = grid_row();
  const int dstride = l2.w + 2 * l2.p, drows = l2.h + 2 * l2.p;
  if (by * resample::kDownTileY >= drows) return;  // tall_grid's blocks past the image
  resample::down2x2_fill<T, N1>(in, l0, l1, l2, b1, first1, t1.w, b2, n2, first2, int(blockIdx.x), by, tid,
                                resample::kFuseThreads, win);
  __syncthreads();
  const int tx = blockIdx.x * resample::kDownTileX + threadIdx.x;
  for (int ly = threadIdx.y; ly < resample::kDownTileY; ly += resample::kFuseThreadsY) {
    const int ty = by * resample::kDownTileY + ly;
    if (tx < dstride && ty < drows)
      out[size_t(ty) * dstride + tx] = resample::down2x2_out(win, int(threadIdx.x), ly, n2, t2.w);
  }
}

Taps taps_of(const Pass& pass) {
  Taps t{};
  for (size_t i = 0; i < pass.taps.size() && i < size_t(kDown2MaxTaps); ++i) t.w[i] = pass.taps[i];
  return t;
}

template <typename T>
Status run_rows_cols(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch, cudaStream_t st) {
  const Taps t = taps_of(pass);
  const int n = int(pass.taps.size()), first = pass.widths[0];
  T* rows = static_cast<T*>(scratch);
  if (cudaError_t e = launch_dependent(down2_rows_kernel<T>, tall_grid((dst.stride() + 31) / 32, (src.rows() + 7) / 8),
                                      dim3(32, 8), 0, st, static_cast<const T*>(src.data), rows, src.width,
                                      src.height, src.pad, dst.stride(), dst.pad, pass.border, n, first, t);
      e != cudaSuccess)
    return cuda_status(e, "launching down2 rows");
  return cuda_status(launch_dependent(down2_cols_kernel<T>, tall_grid((dst.stride() + 31) / 32, (dst.rows() + 7) / 8),
                                      dim3(32, 8), 0, st, static_cast<const T*>(rows), static_cast<T*>(dst.data),
                                      src.height, src.pad, dst.width, dst.height, dst.pad, pass.border, n, first, t),
                     "launching down2 columns");
}

template <typename T>
Status run_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid, const DevImage& dst,
                cudaStream_t st) {
  const resample::Level l0{src.width, src.height, src.pad}, l1{mid.width, mid.height, mid.pad},
      l2{dst.width, dst.height, dst.pad};
  const dim3 grid = tall_grid((dst.stride() + resample::kDownTileX - 1) / resample::kDownTileX,
                              (dst.rows() + resample::kDownTileY - 1) / resample::kDownTileY),
             block(resample::kFuseThreadsX, resample::kFuseThreadsY);
  const T* in = static_cast<const T*>(src.data);
  T* out = static_cast<T*>(dst.data);
  const int n2 = int(q.taps.size());
  if (p.taps.size() == 4)
    down2x2_kernel<T, 4><<<grid, block, 0, st>>>(in, out, l0, l1, l2, p.border, p.widths[0], taps_of(p), q.border,
                                                 n2, q.widths[0], taps_of(q));
  else if (p.taps.size() == 2)
    down2x2_kernel<T, 2><<<grid, block, 0, st>>>(in, out, l0, l1, l2, p.border, p.widths[0], taps_of(p), q.border,
                                                 n2, q.widths[0], taps_of(q));
  else
    return Status::fail("CUDA down2: the fused pair takes 2 or 4 taps");
  return cuda_status(cudaGetLastError(), "launching down2 x 2 (fused)");
}

template <typename T>
Status run(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  Taps t{};
  for (size_t i = 0; i < pass.taps.size(); ++i) t.w[i] = pass.taps[i];
  return cuda_status(launch_dependent(down2_kernel<T>, tall_grid((dst.stride() + 31) / 32, (dst.rows() + 7) / 8),
                                      dim3(32, 8), 0, st, static_cast<const T*>(src.data), static_cast<T*>(dst.data),
                                      src.width, src.height, src.pad, dst.width, dst.height, dst.pad, pass.border,
                                      int(pass.taps.size()), pass.widths[0], t),
                     "launching down2");
}

Status check(const Pass& pass, const DevImage& src, const DevImage& dst) {
  if (src.f64 || dst.f64) return Status::fail("CUDA down2: needs float32 images");
  if (pass.taps.size() > size_t(kDown2MaxTaps)) return Status::fail("CUDA down2: at most 64 taps per axis");
  if (dst.width != (src.width + 1) / 2 || dst.height != (src.height + 1) / 2)
    return Status::fail("CUDA down2: the coarse image must be ceil(n / 2)");
  if (dst.channels != 1 && dst.channels != 2 && dst.channels != 4)
    return Status::fail("CUDA down2: unsupported device channel count");
  return Status::success();
}

}  // namespace

// core's down2_fusable (core/program.hpp) admits what the fused window holds.
static_assert(resample::kFuseMaxTaps == kResamplePairMaxTaps, "the fused window's taps are core's pair maximum");

size_t down2_scratch(const Pass& pass, const DevImage& src, const DevImage& dst) {
  if (pass.taps.size() <= 4) return 0;
  return size_t(dst.stride()) * size_t(src.rows()) * size_t(dst.channels) * sizeof(float);
}

Status launch_down2_rows_cols(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch,
                              size_t scratch_bytes, cudaStream_t s, std::string& path) {
  if (Status c = check(pass, src, dst); !c) return c;
  // Short kernels: one thread a pixel. Long ones always rows then columns, even on a tiny coarsest level (direct
  // there, a thread's n^2 reads run in series with too few threads to hide them: 70 against 12 microseconds at
  // 36^2 pixels and 24 taps, H100).
  if (pass.taps.size() <= 4) return launch_down2(pass, src, dst, s, path);
  if (!scratch || scratch_bytes < down2_scratch(pass, src, dst)) return Status::fail("CUDA down2: scratch too small");
  path = "down2-rows-cols";
  switch (dst.channels) {
    case 1: return run_rows_cols<float>(pass, src, dst, scratch, s);
    case 2: return run_rows_cols<float2>(pass, src, dst, scratch, s);
    default: return run_rows_cols<float4>(pass, src, dst, scratch, s);
  }
}

Status launch_down2_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid, const DevImage& dst,
                         cudaStream_t s, std::string& path) {
  if (Status c = check(p, src, mid); !c) return c;
  if (Status c = check(q, mid, dst); !c) return c;
  if (!down2_fusable(p, q)) return Status::fail("CUDA down2: only two short analysis kernels fuse");
  if (src.channels != dst.channels) return Status::fail("CUDA down2: channel counts differ");
  path = p.hint == "mipmap" ? "down2-mipmap-box-fused2" : "down2-fused2";
  switch (dst.channels) {
    case 1: return run_pair<float>(p, q, src, mid, dst, s);
    case 2: return run_pair<float2>(p, q, src, mid, dst, s);
    default: return run_pair<float4>(p, q, src, mid, dst, s);
  }
}

Status launch_down2(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (src.f64 || dst.f64) return Status::fail("CUDA down2: needs float32 images");
  if (pass.taps.size() > size_t(kDown2MaxTaps)) return Status::fail("CUDA down2: at most 64 taps per axis");
  if (dst.width != (src.width + 1) / 2 || dst.height != (src.height + 1) / 2)
    return Status::fail("CUDA down2: the coarse image must be ceil(n / 2)");
  if (pass.taps.size() > 4) return Status::fail("CUDA down2: a long kernel runs rows then columns (scratch)");
  path = pass.hint == "mipmap" ? "down2-mipmap-box" : "down2";
  switch (dst.channels) {
    case 1: return run<float>(pass, src, dst, s);
    case 2: return run<float2>(pass, src, dst, s);
    case 4: return run<float4>(pass, src, dst, s);
    default: return Status::fail("CUDA down2: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
