// diffusion: N explicit heat steps over the stored area (core/program.hpp Op::Diffusion), S of them a launch (temporal
// blocking) as a walk down the image: a block of kThreads threads owns a strip of columns, each thread one channel of
// CPL neighbouring pixels, and walks the rows of a segment plus S above and below. Each new row (level 0) moves every
// level k < S on by one row: level k + 1 at the row before level k's newest, from level k's last three rows (held in
// registers, two a level) and its left / right neighbours (the threads' edge columns through shared memory, one barrier
// a level). Level S leaves S rows behind the input and is stored; the strip's S outer columns on each side and the
// segment's S extra rows above and below are the cone the steps need. One global read and write per S steps; a cell
// step costs two shared-memory accesses of a float for CPL cells and no index arithmetic, where the 32 x 32 tiles
// before (S = 4) made six float4 accesses and a division a cell. H200, 4096^2 sigma 12 (360 steps): one channel
// 22.6 -> 4.37 ms, RGBA 37.4 -> 15.95; 1024^2 RGBA 3.63 -> 1.99 (docs/performance.md, "Diffusion as a walk").
// Border modes need no per-step remapping: rows and columns are loaded from the extension that the steps preserve
// (core/border.hpp stencil_extension), so cells outside the image evolve like the pixels they mirror.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/diffusion_walk.hpp"
#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kMaxSteps = 8;  // steps a launch (registers: two rows a level)
// Columns a thread, 4 against 2 on an H200 at sigma 12 (call 392): 4096^2 RGBA 18.0 against 22.6 ms, one channel
// 6.46 against 7.08; 1024^2 RGBA 2.67 against 3.18, one channel 1.13 against 0.99 (docs/performance.md, "Diffusion as
// a walk").
constexpr int kCpl = 4;
// Rows ahead asked of L2: RGBA 4096^2 18.0 ms against 21.7 with none, 18.1 at 8, 19.2 at 16 (call 392).
constexpr int kAhead = 4;

// Thread tid takes channel tid % K of CPL neighbouring pixels: the K threads of a pixel group sit side by side, so a
// cell's left / right neighbours (same channel) are K threads away, and a thread's registers hold 2 S CPL floats
// whatever the channels. A float4 a thread (its own columns' neighbours in registers, the edges' four times the
// shared-memory bytes) ran RGBA at 4096^2 sigma 12 in 29.0 ms (call 391) against 18.1 (call 392).
template <int K, int CPL>
__device__ __forceinline__ void load_row(const float* __restrict__ in, int W, int y, float sy, int ch,
                                         const int (&xi)[CPL], const float (&xs)[CPL], float (&v)[CPL]) {
  const float* row = in + size_t(y) * W * K + ch;
#pragma unroll
  for (int j = 0; j < CPL; ++j) v[j] = xs[j] * sy * __ldg(row + size_t(xi[j]) * K);
}

// Block (strip, segment): pixels strip * valid - S .. + kThreads / K * CPL, output rows seg0 .. seg0 + seg - 1.
template <int K, int CPL, int S>
__global__ void __launch_bounds__(kThreads) diffusion_walk_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                                  int W, int H, Border b, float c, int seg) {
  __shared__ float edge[2][2][kThreads];  // [parity][first / last column][thread]
  constexpr int G = kThreads / K, valid = G * CPL - 2 * S;
  const int tid = int(threadIdx.x), ch = tid % K, g = tid / K;
  const int q0 = g * CPL, x0 = int(blockIdx.x) * valid - S + q0, y0 = int(blockIdx.y) * seg;
  int xi[CPL];
  float xs[CPL];
#pragma unroll
  for (int j = 0; j < CPL; ++j) xi[j] = stencil_extension(x0 + j, W, b, xs[j]);
  float prev[S][CPL], cur[S][CPL];  // level k's rows before its newest and its newest
#pragma unroll
  for (int k = 0; k < S; ++k)
#pragma unroll
    for (int j = 0; j < CPL; ++j) prev[k][j] = cur[k][j] = 0.f;
  const int n = min(seg, H - y0), rows = n + 2 * S;  // input rows y0 - S .. y0 + n + S - 1
  float next[CPL];
  float sy;
  load_row<K, CPL>(in, W, stencil_extension(y0 - S, H, b, sy), sy, ch, xi, xs, next);
  int parity = 0;
  for (int i = 0; i < rows; ++i) {
    float v[CPL];
#pragma unroll
    for (int j = 0; j < CPL; ++j) v[j] = next[j];
    if (i + 1 < rows)  // the next row's loads in flight during this row's steps
      load_row<K, CPL>(in, W, stencil_extension(y0 - S + i + 1, H, b, sy), sy, ch, xi, xs, next);
    if (i + kAhead < rows) {  // and rows further on asked of L2 (DRAM's latency is longer than a row)
      float sp;
      prefetch_l2(in + (size_t(stencil_extension(y0 - S + i + kAhead, H, b, sp)) * W + xi[0]) * K + ch);
    }
#pragma unroll
    for (int k = 0; k < S; ++k) {
      // v: level k's row i - k; level k + 1 at row i - k - 1 from prev (i - k - 2), cur (i - k - 1) and v.
      edge[parity][0][tid] = cur[k][0];
      edge[parity][1][tid] = cur[k][CPL - 1];
      __syncthreads();  // one a level: the next level writes the other parity's edges
      // The block's outer pixel groups take their own value: wrong, but only in the cone that is not stored.
      const float left = g > 0 ? edge[parity][1][tid - K] : cur[k][0];
      const float right = g + 1 < G ? edge[parity][0][tid + K] : cur[k][CPL - 1];
      parity ^= 1;
      float o[CPL];
#pragma unroll
      for (int j = 0; j < CPL; ++j) {
        const float l = j == 0 ? left : cur[k][j - 1], r = j == CPL - 1 ? right : cur[k][j + 1];
        // u + c (neighbours - 4 u), as GL: float's 1 - 4c drifted even a constant image over many steps.
        const float u = cur[k][j];
        o[j] = fmaf(c, fmaf(-4.f, u, (l + r) + (prev[k][j] + v[j])), u);
      }
#pragma unroll
      for (int j = 0; j < CPL; ++j) prev[k][j] = cur[k][j], cur[k][j] = v[j], v[j] = o[j];
    }
    // v: level S at row i - S of the walk, image row y0 + i - 2S
    const int y = y0 + i - 2 * S;
    if (i >= 2 * S) {
#pragma unroll
      for (int j = 0; j < CPL; ++j) {
        const int q = q0 + j, x = x0 + j;
        if (q >= S && q < S + valid && x < W) out[(size_t(y) * W + x) * K + ch] = v[j];
      }
    }
  }
}

template <int K, int CPL, int S>
Status launch_walk(const float* from, float* to, int W, int H, Border b, float c, cudaStream_t st) {
  auto k = diffusion_walk_kernel<K, CPL, S>;
  constexpr int valid = kThreads / K * CPL - 2 * S;
  int per_sm = 0;
  if (Status s = blocks_per_sm(k, kThreads, 0, per_sm); !s) return s;
  const int strips = (W + valid - 1) / valid;
  // At most 65535 segments (the grid's y limit; images over a million rows tall).
  const int seg = std::max(diffusion_walk_segment(H, S, strips, 1LL * std::max(1, per_sm) * sm_count()),
                           (H + 65534) / 65535);
  const dim3 grid(strips, (H + seg - 1) / seg);
  k<<<grid, kThreads, 0, st>>>(from, to, W, H, b, c, seg);
  return cuda_status(cudaGetLastError(), "launching diffusion");
}

template <int K, int CPL, int S = kMaxSteps>
Status launch_steps(int s, const float* from, float* to, int W, int H, Border b, float c, cudaStream_t st) {
  if constexpr (S > 1)
    if (s < S) return launch_steps<K, CPL, S - 1>(s, from, to, W, H, b, c, st);
  return launch_walk<K, CPL, S>(from, to, W, H, b, c, st);
}

int steps_per_launch() {
  const int v = diffusion_steps_per_launch();
  return v <= 0 ? kMaxSteps : std::min(v, kMaxSteps);
}

template <int K, int CPL = kCpl>
Status run_diffusion(int steps, float c, Border b, const DevImage& src, const DevImage& dst, void* scratch,
                     size_t scratch_bytes, cudaStream_t st, std::string& path) {
  const int W = dst.stride(), H = dst.rows(), per = steps_per_launch();  // the stored area is the domain
  const int launches = (steps + per - 1) / per;
  if (launches > 1 && scratch_bytes < dst.bytes()) return Status::fail("CUDA diffusion: scratch too small");
  // Launch j writes dst where launches - 1 - j is even, else the scratch image: the last one writes dst.
  const float* from = static_cast<const float*>(src.data);
  for (int j = 0, done = 0; j < launches; ++j) {
    const int s = std::min(per, steps - done);
    float* to = (launches - 1 - j) % 2 == 0 ? static_cast<float*>(dst.data) : static_cast<float*>(scratch);
    if (Status st_ = launch_steps<K, CPL>(s, from, to, W, H, b, c, st); !st_) return st_;
    from = to;
    done += s;
  }
  path = "diffusion-walk-" + std::to_string(per) + "-per-launch";
  return Status::success();
}

}  // namespace

int& diffusion_steps_per_launch() {
  static int s = [] {
    const char* e = std::getenv("GPUBLUR_CUDA_DIFFUSION_STEPS");
    return e && *e ? std::atoi(e) : 0;  // 0: the most (kMaxSteps)
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
    case 1: return run_diffusion<1>(steps, c, pass.border, src, dst, scratch, scratch_bytes, s, path);
    case 2: return run_diffusion<2>(steps, c, pass.border, src, dst, scratch, scratch_bytes, s, path);
    case 4: return run_diffusion<4>(steps, c, pass.border, src, dst, scratch, scratch_bytes, s, path);
    default: return Status::fail("CUDA diffusion: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
