// box2d: the mean of src over the w x w window centred on each pixel of dst's stored area, read directly:
// w^2 reads per pixel (the thesis's 2D box). An unpadded source is read with the border mode outside; a padded
// one only inside its area (the program's padding guarantees it). Sums: each window row in float32 in runs of
// 16 values, the runs added in float64 (a float32 sum of w^2 values would lose ~1e-4 at large w).
// Where the tile fits shared memory, a block of 32 x 8 threads computes a 32 x 32 output tile (4 rows per
// thread) from a (32 + w - 1)^2 input tile; otherwise one thread per pixel reads global memory (L1/L2).
#include <algorithm>
#include <string>

#include "gpu/cuda/passes/box_common.cuh"

namespace gpublur::cuda {
namespace {

constexpr int kTile = 32, kRowsPerThread = 4, kRun = 16;

// Window sum of w x w values at(dx, dy), dx, dy in [0, w), as described above.
template <typename T, typename At>
__device__ __forceinline__ void window_sum(int w, At at, DSum<T>& sum) {
  sum.zero();
  for (int dy = 0; dy < w; ++dy)
    for (int x0 = 0; x0 < w; x0 += kRun) {
      T run = vzero<T>();
      const int x1 = min(w, x0 + kRun);
      for (int dx = x0; dx < x1; ++dx) run = vadd(run, at(dx, dy));
      sum.add(run);
    }
}

template <typename T>
__global__ void __launch_bounds__(kTile * 8) box2d_smem_kernel(const T* __restrict__ src, int sstride, int spad, int W,
                                                               int H, Border b, T* __restrict__ dst, int dstride,
                                                               int drows, int dpad, int w) {
  extern __shared__ float4 smem4[];
  T* s = reinterpret_cast<T*>(smem4);
  const int n = kTile + w - 1, pitch = n | 1;
  const int h = w / 2;
  // Tile origin in dst's stored coordinates; the input tile starts h pixels up and left of it.
  const int ox = blockIdx.x * kTile, oy = grid_row() * kTile;
  if (oy >= drows) return;  // tall_grid's blocks past the image
  const int tid = threadIdx.y * kTile + threadIdx.x;
  for (int i = tid; i < n * n; i += kTile * 8) {
    const int ty = i / n, tx = i % n;
    s[ty * pitch + tx] = read_pixel(src, sstride, spad, W, H, ox + tx - dpad - h, oy + ty - dpad - h, b);
  }
  __syncthreads();
  const double inv = 1.0 / (double(w) * w);
  for (int k = 0; k < kRowsPerThread; ++k) {
    const int ly = threadIdx.y + 8 * k, lx = threadIdx.x;
    const int col = ox + lx, row = oy + ly;
    if (col >= dstride || row >= drows) continue;
    DSum<T> sum;
    window_sum<T>(w, [&](int dx, int dy) { return s[(ly + dy) * pitch + lx + dx]; }, sum);
    dst[size_t(row) * dstride + col] = sum.scaled(inv);
  }
}

template <typename T>
__global__ void box2d_global_kernel(const T* __restrict__ src, int sstride, int spad, int W, int H, Border b,
                                    T* __restrict__ dst, int dstride, int drows, int dpad, int w) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = grid_row() * blockDim.y + threadIdx.y;
  if (col >= dstride || row >= drows) return;
  const int h = w / 2, x = col - dpad - h, y = row - dpad - h;
  DSum<T> sum;
  window_sum<T>(w, [&](int dx, int dy) { return read_pixel(src, sstride, spad, W, H, x + dx, y + dy, b); }, sum);
  dst[size_t(row) * dstride + col] = sum.scaled(1.0 / (double(w) * w));
}

template <typename T>
Status run_box2d(int w, Border b, const DevImage& src, const DevImage& dst, cudaStream_t st, std::string& path) {
  const T* sp = static_cast<const T*>(src.data);
  T* dp = static_cast<T*>(dst.data);
  const int n = kTile + w - 1;
  const size_t bytes = size_t(n) * size_t(n | 1) * sizeof(T);
  if (bytes <= size_t(max_smem_optin())) {
    auto k = box2d_smem_kernel<T>;
    Status s = allow_smem(k, bytes);
    if (!s) return s;
    const dim3 grid = tall_grid((dst.stride() + kTile - 1) / kTile, (dst.rows() + kTile - 1) / kTile);
    k<<<grid, dim3(kTile, 8), bytes, st>>>(sp, src.stride(), src.pad, src.width, src.height, b, dp, dst.stride(),
                                           dst.rows(), dst.pad, w);
    path = "box2d-smem";
  } else {
    const dim3 grid = tall_grid((dst.stride() + 31) / 32, (dst.rows() + 7) / 8);
    box2d_global_kernel<T><<<grid, dim3(32, 8), 0, st>>>(sp, src.stride(), src.pad, src.width, src.height, b, dp,
                                                         dst.stride(), dst.rows(), dst.pad, w);
    path = "box2d-global";
  }
  return cuda_status(cudaGetLastError(), "launching box2d");
}

}  // namespace

Status launch_box2d(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (pass.widths.size() != 1 || src.f64 || dst.f64) return Status::fail("CUDA box2d: needs one width, float32 images");
  const int w = pass.widths[0];
  switch (dst.channels) {
    case 1: return run_box2d<float>(w, pass.border, src, dst, s, path);
    case 2: return run_box2d<float2>(w, pass.border, src, dst, s, path);
    case 4: return run_box2d<float4>(w, pass.border, src, dst, s, path);
    default: return Status::fail("CUDA box2d: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
