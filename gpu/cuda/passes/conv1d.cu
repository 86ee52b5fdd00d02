// conv1d: out(x) = sum_k taps[k + r] in(x + k) along an axis, 2r+1 taps, shared-memory tiles, register-blocked.
// The separable pair (core's separable_pair: along x then y through an intermediate nothing else reads) is
// scheduled as one unit:
//  - small radius: one fused kernel per tile (tile + halo loaded once, horizontal pass into a shared
//    intermediate, vertical pass from it): one device-memory read and write of the image.
//  - larger radius: two passes through the device-memory intermediate, each a tile of 16 lines x 128 outputs
//    with its halo in shared memory; each thread computes 8 consecutive outputs along the filter direction.
//    Pipelined variant: persistent blocks with two tile buffers, the next tile's load overlapping the math.
//  - radius <= 12: a fused kernel with the radius as a template parameter, 64-wide tiles, in-place
//    horizontal pass (less shared memory, fewer halo re-reads, no padded taps).
//  - radius 48..192: the same two passes with 8 lines x 256 outputs per block, >= 3 blocks/SM (less halo
//    traffic, more resident warps; SepTuning::pass_shape).
//  - RGBA, radius 48..300: the two passes on tensor cores, FP16 operands split in two (conv1d_tc16.cu;
//    SepTuning::pass_tc16). A 3xTF32 version measured slower than the SIMT passes and was removed.
//  - radius too large for shared memory: a plain global-memory pass (correct for any radius).
// A lone pass (one axis) runs the pass kernel of that axis that the pair would use.
// Border remapping happens only while loading tiles, never in the tap loops.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/conv1d_tc16.hpp"

namespace gpublur::cuda {
namespace {

__constant__ float c_w[kMaxTaps];

struct ConstWeight {
  __device__ __forceinline__ float operator()(int t) const { return c_w[t]; }
};

constexpr int kThreads = 256;

// The fused kernels' input tile: image rows [gy0, gy0 + rows) x columns [gx0, gx0 + cols) into shared rows of
// `pitch` pixels, one warp per row, the border mode applied once here (zero reads as cp.async zero-fill).
// Returns after the copies have landed and the block has synchronised.
template <typename T>
__device__ __forceinline__ void load_tile_async(const T* __restrict__ in, T* s, int pitch, int rows, int cols,
                                                int gx0, int gy0, int W, int H, Border b) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  constexpr int nwarps = kThreads / 32;
  for (int ry = warp; ry < rows; ry += nwarps) {
    const int gy = remap_index(gy0 + ry, H, b);
    T* dst = s + ry * pitch;
    const T* src = in + size_t(gy < 0 ? 0 : gy) * W;
    for (int rx = lane; rx < cols; rx += 32) {
      const int gx = remap_index(gx0 + rx, W, b);
      const bool ok = gx >= 0 && gy >= 0;
      cp_async_pixel(dst + rx, ok ? src + gx : in, ok);
    }
  }
  cp_async_wait_all();
  __syncthreads();
}

// ---- fused kernel: TW x TH outputs per block, 4 outputs per thread ---------------------------------
template <typename T, int K, int TW, int TH>
__global__ void __launch_bounds__(kThreads) sep_fused_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                             int W, int H, Border b, int r, int ntaps) {
  extern __shared__ float4 smem4[];
  T* s_in = reinterpret_cast<T*>(smem4);
  const int rows = TH + ntaps - 1;  // rows the vertical pass reads (padded taps read finite data)
  const int cols = TW + ntaps - 1;
  const int pin = cols | 1;         // odd pitch: lanes on consecutive rows hit distinct banks
  constexpr int pmid = TW + 1;
  T* s_mid = s_in + rows * pin;
  const int x0 = blockIdx.x * TW, y0 = grid_row() * TH;
  if (y0 >= H) return;  // tall_grid's blocks past the image
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  constexpr int nwarps = kThreads / 32;

  load_tile_async(in, s_in, pin, rows, cols, x0 - r, y0 - r, W, H, b);

  constexpr int hchunks = TW / K;
  for (int item = threadIdx.x; item < rows * hchunks; item += kThreads) {
    const int line = item % rows, chunk = item / rows;
    const T* s = s_in + line * pin + chunk * K;
    T acc[K];
    conv_block_any<T, K>(ConstWeight{}, ntaps, [&](int p) { return s[p]; }, acc);
    T* d = s_mid + line * pmid + chunk * K;
#pragma unroll
    for (int k = 0; k < K; ++k) d[k] = acc[k];
  }
  __syncthreads();

  for (int item = threadIdx.x; item < TW * (TH / K); item += kThreads) {
    const int line = item % TW, chunk = item / TW;
    const T* s = s_mid + chunk * K * pmid + line;
    T acc[K];
    conv_block_any<T, K>(ConstWeight{}, ntaps, [&](int p) { return s[p * pmid]; }, acc);
    T* d = s_in + chunk * K * pmid + line;  // output staging, reuses the input tile
#pragma unroll
    for (int k = 0; k < K; ++k) d[k * pmid] = acc[k];
  }
  __syncthreads();

  for (int ry = warp; ry < TH; ry += nwarps) {
    const int y = y0 + ry;
    if (y >= H) break;
    for (int rx = lane; rx < TW; rx += 32) {
      const int x = x0 + rx;
      if (x < W) out[size_t(y) * W + x] = s_in[ry * pmid + rx];
    }
  }
}

template <int TW, int TH>
size_t fused_smem(int ntaps, size_t elem) {
  const int rows = TH + ntaps - 1, cols = TW + ntaps - 1;
  return size_t(rows) * ((cols | 1) + TW + 1) * elem;
}

// ---- fused kernel, compile-time radius R: 64 x TH outputs per block, 8 outputs per thread ------------
// The horizontal pass overwrites its own input rows (32 rows per step, a warp's lanes on consecutive rows),
// so shared memory holds only the (TH + 2R) x (64 + 2R) input tile; the vertical pass stores its 8 outputs
// per thread straight from registers (a warp writes 32 consecutive pixels of a row). Taps are exactly
// 2R + 1, unrolled, with the weights as constant-bank operands of the FMAs.
constexpr int kFixedTW = 64, kFixedK = 8, kFixedMaxR = 12;

template <typename T, int R, int TH>
__global__ void __launch_bounds__(kThreads, 2) sep_fused_fixed_kernel(const T* __restrict__ in,
                                                                      T* __restrict__ out, int W, int H,
                                                                      Border b) {
  constexpr int TW = kFixedTW, K = kFixedK, NT = 2 * R + 1;
  constexpr int rows = TH + 2 * R, cols = TW + 2 * R, pitch = cols | 1;
  static_assert(TW / K == kThreads / 32, "one warp per horizontal chunk");
  extern __shared__ float4 smem4[];
  T* s = reinterpret_cast<T*>(smem4);
  const int x0 = blockIdx.x * TW, y0 = grid_row() * TH;
  if (y0 >= H) return;  // tall_grid's blocks past the image
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;

  load_tile_async(in, s, pitch, rows, cols, x0 - R, y0 - R, W, H, b);

  // Horizontal: warp w computes columns [8w, 8w + 8) of rows g*32 + lane. Each step touches only its own
  // 32 rows, so one barrier (all reads of those rows done) before writing back in place suffices.
#pragma unroll 1
  for (int g = 0; g < (rows + 31) / 32; ++g) {
    const int line = g * 32 + lane;
    const bool active = line < rows;
    // Lanes past the tile read the last row, which only this step writes (after its barrier): pointing them
    // at row 0, written by the step before without a barrier between, was a read/write race (racecheck).
    T* row = s + (active ? line : rows - 1) * pitch + warp * K;
    T acc[K];
    conv_fixed<T, K, NT>(ConstWeight{}, [&](int p) { return row[p]; }, acc);
    __syncthreads();
    if (active) {
#pragma unroll
      for (int k = 0; k < K; ++k) row[k] = acc[k];
    }
  }
  __syncthreads();

  // Vertical: thread (col, chunk) computes rows chunk*8 .. chunk*8+7 of column col.
  const int col = threadIdx.x % TW, x = x0 + col;
#pragma unroll 1
  for (int chunk = threadIdx.x / TW; chunk < TH / K; chunk += kThreads / TW) {
    const T* src = s + chunk * K * pitch + col;
    T acc[K];
    conv_fixed<T, K, NT>(ConstWeight{}, [&](int p) { return src[p * pitch]; }, acc);
    if (x < W) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int y = y0 + chunk * K + k;
        if (y < H) out[size_t(y) * W + x] = acc[k];
      }
    }
  }
}

template <int R, int TH>
constexpr size_t fixed_smem(size_t elem) {
  return size_t(TH + 2 * R) * ((kFixedTW + 2 * R) | 1) * elem;
}

// Launches sep_fused_fixed_kernel<T, R, TH> for the runtime radius r (R = 0 .. kFixedMaxR).
template <typename T, int TH, int R = 0>
Status launch_fixed(int r, const T* in, T* out, int W, int H, Border b, size_t optin, cudaStream_t st) {
  if constexpr (R > kFixedMaxR) {
    return Status::fail("CUDA conv1d: no fixed-radius fused kernel for radius " + std::to_string(r));
  } else {
    if (r != R) return launch_fixed<T, TH, R + 1>(r, in, out, W, H, b, optin, st);
    constexpr size_t bytes = fixed_smem<R, TH>(sizeof(T));
    if (bytes > optin) return Status::fail("CUDA conv1d: fused tile does not fit shared memory");
    auto k = sep_fused_fixed_kernel<T, R, TH>;
    Status s = allow_smem(k, bytes);
    if (!s) return s;
    const dim3 grid = tall_grid((W + kFixedTW - 1) / kFixedTW, (H + TH - 1) / TH);
    k<<<grid, kThreads, bytes, st>>>(in, out, W, H, b);
    return cuda_status(cudaGetLastError(), "launching conv1d pair (fused, fixed radius)");
  }
}

// A pass tile: lines l0.. x positions a0 - r .. a0 - r + npos (border remapped here only; lines past the
// image repeat the last one), cp.async into HORIZ [line][pos] (row pitch `pitch`) or VERT [pos][line].
template <typename T, int TL, int TA, bool HORIZ, int THREADS>
__device__ __forceinline__ void pass_load(const T* __restrict__ in, T* s, int W, int H, Border b, int r,
                                          int npos, int pitch, int a0, int l0) {
  constexpr int threads = THREADS;
  if (HORIZ) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int line = warp; line < TL; line += threads / 32) {
      const T* src = in + size_t(min(l0 + line, H - 1)) * W;
      T* dst = s + line * pitch;
      for (int p = lane; p < npos; p += 32) {
        const int gx = remap_index(a0 - r + p, W, b);
        cp_async_pixel(dst + p, gx < 0 ? in : src + gx, gx >= 0);
      }
    }
  } else {
    for (int i = threadIdx.x; i < npos * TL; i += threads) {
      const int line = i % TL, p = i / TL;
      const int gx = min(l0 + line, W - 1);
      const int gy = remap_index(a0 - r + p, H, b);
      cp_async_pixel(s + p * TL + line, gy < 0 ? in : in + size_t(gy) * W + gx, gy >= 0);
    }
  }
}

// This thread's K consecutive outputs of line `line` from a loaded pass tile (layouts as pass_load's).
template <typename T, int K, int TL, bool HORIZ>
__device__ __forceinline__ void pass_conv(const T* s, int pitch, int line, int chunk, int ntaps, T (&acc)[K]) {
  if (HORIZ) {
    const T* src = s + line * pitch + chunk * K;
    conv_block_any<T, K>(ConstWeight{}, ntaps, [&](int p) { return src[p]; }, acc);
  } else {
    const T* src = s + chunk * K * TL + line;
    conv_block_any<T, K>(ConstWeight{}, ntaps, [&](int p) { return src[p * TL]; }, acc);
  }
}

// ---- one pass: TL lines x TA outputs per block, K outputs per thread along the axis -------------------
// Horizontal passes stage their TL x TA outputs in shared memory (row pitch `pitch`) so that each warp writes
// whole row runs: coalesced stores, where storing from registers would write K-strided pixels.
template <typename T, int TL, int TA, int THREADS>
__device__ __forceinline__ void store_rows(const T* s, int pitch, T* __restrict__ out, int W, int H, int l0, int a0) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  for (int ln = warp; ln < TL; ln += THREADS / 32) {
    const int y = l0 + ln;
    if (y >= H) break;
    for (int p = lane; p < TA; p += 32) {
      const int x = a0 + p;
      if (x < W) out[size_t(y) * W + x] = s[ln * pitch + p];
    }
  }
}

template <typename T, int K, int TL, int TA, bool HORIZ>
__device__ __forceinline__ void pass_tile(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b,
                                          int r, int ntaps) {
  extern __shared__ float4 smem4[];
  T* s = reinterpret_cast<T*>(smem4);
  constexpr int threads = TL * TA / K;
  const int npos = TA + ntaps - 1;
  // HORIZ: [line][pos] with an odd pitch; VERT: [pos][line]. Either way lanes of a quarter warp read
  // distinct banks in the tap loop.
  const int pitch = HORIZ ? (npos | 1) : TL;
  const int a0 = (HORIZ ? int(blockIdx.x) : grid_row()) * TA;  // the rows on y (and z: tall_grid)
  const int l0 = (HORIZ ? grid_row() : int(blockIdx.x)) * TL;
  if ((HORIZ ? l0 : a0) >= H) return;  // tall_grid's blocks past the image

  pass_load<T, TL, TA, HORIZ, threads>(in, s, W, H, b, r, npos, pitch, a0, l0);
  cp_async_wait_all();
  __syncthreads();

  const int line = threadIdx.x % TL, chunk = threadIdx.x / TL;
  T acc[K];
  pass_conv<T, K, TL, HORIZ>(s, pitch, line, chunk, ntaps, acc);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (HORIZ)
      s[line * pitch + chunk * K + k] = acc[k];
    else
      s[(chunk * K + k) * TL + line] = acc[k];
  }
  __syncthreads();

  if (HORIZ) {
    store_rows<T, TL, TA, threads>(s, pitch, out, W, H, l0, a0);
  } else {
    for (int i = threadIdx.x; i < TA * TL; i += threads) {
      const int ln = i % TL, p = i / TL;
      const int x = l0 + ln, y = a0 + p;
      if (x < W && y < H) out[size_t(y) * W + x] = s[p * TL + ln];
    }
  }
}

template <typename T, int K, int TL, int TA, bool HORIZ>
__global__ void __launch_bounds__(TL * TA / K) sep_pass_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                               int W, int H, Border b, int r, int ntaps) {
  pass_tile<T, K, TL, TA, HORIZ>(in, out, W, H, b, r, ntaps);
}

// The same pass with a minimum of MINB resident blocks per SM (register cap 64K / (MINB x threads)), for the
// large-radius shapes: 8 lines x 256 outputs (70 KB of shared memory at r 144, 3 blocks/SM fit) load a third
// less halo than 16 x 128 tiles (544 vs 2 x 416 positions per 256 outputs and line).
template <typename T, int K, int TL, int TA, bool HORIZ, int MINB>
__global__ void __launch_bounds__(TL * TA / K, MINB) sep_pass_lb_kernel(const T* __restrict__ in,
                                                                        T* __restrict__ out, int W, int H,
                                                                        Border b, int r, int ntaps) {
  pass_tile<T, K, TL, TA, HORIZ>(in, out, W, H, b, r, ntaps);
}

constexpr int kPassK = 8, kPassTL = 16, kPassTA = 128;

size_t pass_smem(int ntaps, size_t elem, int ta = kPassTA, int tl = kPassTL) {
  const int npos = ta + ntaps - 1;
  return size_t(tl) * ((npos | 1) + 1) * elem;
}

// ---- one pass, pipelined: persistent blocks walk tiles (same tile shape as sep_pass_kernel) with two
// shared-memory buffers; the cp.async load of the next tile is in flight while this tile is computed, so
// DRAM/L2 traffic overlaps the FMAs inside every block instead of only across blocks.
template <typename T, int TL, int TA, bool HORIZ>
__global__ void __launch_bounds__(TL * TA / kPassK) sep_pass_pipe_kernel(const T* __restrict__ in,
                                                                         T* __restrict__ out, int W, int H,
                                                                         Border b, int r, int ntaps) {
  constexpr int K = kPassK, threads = TL * TA / K;
  extern __shared__ float4 smem4[];
  const int npos = TA + ntaps - 1;
  const int pitch = HORIZ ? (npos | 1) : TL;
  const int buf_elems = HORIZ ? TL * pitch : npos * TL;
  T* const buf0 = reinterpret_cast<T*>(smem4);
  const int len_a = HORIZ ? W : H, len_l = HORIZ ? H : W;
  const int tiles_a = (len_a + TA - 1) / TA, tiles_l = (len_l + TL - 1) / TL, ntiles = tiles_a * tiles_l;
  // Same order as sep_pass_kernel's grid: neighbouring blocks share halos in L2.
  auto origin = [&](int tile, int& a0, int& l0) {
    if (HORIZ) {
      a0 = (tile % tiles_a) * TA, l0 = (tile / tiles_a) * TL;
    } else {
      l0 = (tile % tiles_l) * TL, a0 = (tile / tiles_l) * TA;
    }
  };

  int tile = blockIdx.x, cur = 0, a0 = 0, l0 = 0;
  if (tile < ntiles) {
    origin(tile, a0, l0);
    pass_load<T, TL, TA, HORIZ, threads>(in, buf0, W, H, b, r, npos, pitch, a0, l0);
  }
  cp_async_commit();
  const int line = threadIdx.x % TL, chunk = threadIdx.x / TL;
  for (; tile < ntiles; tile += gridDim.x, cur ^= 1) {
    T* s = buf0 + cur * buf_elems;
    const int next = tile + gridDim.x;
    int na0 = 0, nl0 = 0;
    if (next < ntiles) {
      origin(next, na0, nl0);
      pass_load<T, TL, TA, HORIZ, threads>(in, buf0 + (cur ^ 1) * buf_elems, W, H, b, r, npos, pitch, na0, nl0);
    }
    cp_async_commit();
    cp_async_wait_group<1>();  // this tile's group is done; the next one may still be in flight
    __syncthreads();

    T acc[K];
    pass_conv<T, K, TL, HORIZ>(s, pitch, line, chunk, ntaps, acc);
    __syncthreads();  // all reads of s done: it becomes the staging tile (HORIZ) / the next prefetch target
    if (HORIZ) {
#pragma unroll
      for (int k = 0; k < K; ++k) s[line * pitch + chunk * K + k] = acc[k];
      __syncthreads();
      store_rows<T, TL, TA, threads>(s, pitch, out, W, H, l0, a0);
      __syncthreads();  // staging reads done before the next iteration prefetches into s
    } else {
      // Straight from registers: for each k a warp stores 2 runs of TL consecutive pixels.
      const int x = l0 + line;
      if (x < W) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
          const int y = a0 + chunk * K + k;
          if (y < H) out[size_t(y) * W + x] = acc[k];
        }
      }
    }
    a0 = na0, l0 = nl0;
  }
}

// ---- any radius: one output per thread straight from global memory ----------------------------------
template <typename T, bool HORIZ>
__global__ void sep_global_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b,
                                  int r) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = grid_row() * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  T acc = vzero<T>();
  for (int t = 0; t <= 2 * r; ++t) {
    if (HORIZ) {
      const int gx = remap_index(x - r + t, W, b);
      if (gx >= 0) vfma(c_w[t], in[size_t(y) * W + gx], acc);
    } else {
      const int gy = remap_index(y - r + t, H, b);
      if (gy >= 0) vfma(c_w[t], in[size_t(gy) * W + x], acc);
    }
  }
  out[size_t(y) * W + x] = acc;
}

// The passes of shape (K, TL, TA, MINB) that `axes` asks for; launched = false (nothing launched) when the
// tile does not fit.
template <typename T, int K, int TL, int TA, int MINB>
Status launch_pass_lb(const T* h_in, T* h_out, const T* v_in, T* v_out, int axes, int W, int H, Border b, int r,
                      int ntaps, size_t optin, cudaStream_t st, bool& launched) {
  launched = false;
  const size_t bytes = pass_smem(ntaps, sizeof(T), TA, TL);
  if (bytes > optin) return Status::success();
  auto kh = sep_pass_lb_kernel<T, K, TL, TA, true, MINB>;
  auto kv = sep_pass_lb_kernel<T, K, TL, TA, false, MINB>;
  Status s;
  // MINB blocks need most of the SM's shared memory: ask for the largest carveout.
  if (!(s = allow_smem(kh, bytes, true)) || !(s = allow_smem(kv, bytes, true))) return s;
  constexpr int threads = TL * TA / K;
  if (axes & 1)
    kh<<<tall_grid((W + TA - 1) / TA, (H + TL - 1) / TL), threads, bytes, st>>>(h_in, h_out, W, H, b, r, ntaps);
  if (axes & 2)
    kv<<<tall_grid((W + TL - 1) / TL, (H + TA - 1) / TA), threads, bytes, st>>>(v_in, v_out, W, H, b, r, ntaps);
  launched = true;
  return cuda_status(cudaGetLastError(), "launching conv1d (two passes, 8-line tiles)");
}

// axes: 3 the pair (src -> mid along x, mid -> dst along y), 1 along x src -> dst, 2 along y src -> dst.
template <typename T>
Status run_sep(const std::vector<float>& taps, Border b, const DevImage& in, const DevImage& tmp,
               const DevImage& out, int axes, cudaStream_t st, std::string& path) {
  const int W = in.width, H = in.height, r = int(taps.size() / 2);
  const T* src = static_cast<const T*>(in.data);
  T* dst = static_cast<T*>(out.data);
  // The horizontal pass reads h_in and writes h_out, the vertical one v_in -> v_out.
  const bool pair = axes == 3, do_h = (axes & 1) != 0, do_v = (axes & 2) != 0;
  T* mid = pair ? static_cast<T*>(tmp.data) : nullptr;
  const T* h_in = src;
  T* h_out = pair ? mid : dst;
  const T* v_in = pair ? mid : src;
  T* v_out = dst;
  const char* suffix = pair ? "" : do_h ? "-x" : "-y";
  const SepTuning tune = sep_tuning();
  const size_t optin = size_t(max_smem_optin());

  if (pair && tune.fused_kind == 1 && r <= kFixedMaxR && r <= tune.fused_max_radius) {
    Status s = upload_taps(c_w, taps, int(taps.size()), st);
    if (!s) return s;
    const bool tall = tune.fused_tile_h == 64 || (tune.fused_tile_h == 0 && r <= 9);
    s = tall ? launch_fixed<T, 64>(r, src, dst, W, H, b, optin, st)
             : launch_fixed<T, 32>(r, src, dst, W, H, b, optin, st);
    if (s) path = tall ? "fused-fixed-64x64" : "fused-fixed-64x32";
    return s;
  }

  // Fused: K = 4 keeps the padded tap count close to 2r+1 at small radii.
  constexpr int FK = 4, FW = 32;
  const int fntaps = round_up(2 * r + 1, FK);
  if (pair && r <= tune.fused_max_radius) {
    const bool tall = tune.fused_tile_h == 64;
    const size_t bytes = tall ? fused_smem<FW, 64>(fntaps, sizeof(T)) : fused_smem<FW, 32>(fntaps, sizeof(T));
    if (bytes <= optin) {
      Status s = upload_taps(c_w, taps, fntaps, st);
      if (!s) return s;
      const int th = tall ? 64 : 32;
      const dim3 grid = tall_grid((W + FW - 1) / FW, (H + th - 1) / th);
      if (tall) {
        auto k = sep_fused_kernel<T, FK, FW, 64>;
        if (!(s = allow_smem(k, bytes))) return s;
        k<<<grid, kThreads, bytes, st>>>(src, dst, W, H, b, r, fntaps);
      } else {
        auto k = sep_fused_kernel<T, FK, FW, 32>;
        if (!(s = allow_smem(k, bytes))) return s;
        k<<<grid, kThreads, bytes, st>>>(src, dst, W, H, b, r, fntaps);
      }
      path = tall ? "fused-tile-32x64" : "fused-tile-32x32";
      return cuda_status(cudaGetLastError(), "launching conv1d pair (fused)");
    }
  }

  // Pass kernels take any tap count; padding to a multiple of kPassK (zero weights) is the old behaviour.
  const int ntaps = tune.pass_pad_taps ? round_up(2 * r + 1, kPassK) : 2 * r + 1;
  Status s = upload_taps(c_w, taps, ntaps, st);
  if (!s) return s;
  const bool large = r >= tune.pass_large_min_radius && r <= tune.pass_large_max_radius;
  if constexpr (std::is_same_v<T, float4>) {
    const bool tc16 = tune.pass_tc16 == 1 || (tune.pass_tc16 == 2 && r >= tune.pass_tc16_min_radius &&
                                              r <= tune.pass_tc16_max_radius);
    if (tc16) {
      bool launched = false;
      s = launch_sep_tc16(h_in, h_out, v_in, v_out, axes, W, H, b, r, taps, optin, st, launched);
      if (!s) return s;
      if (launched) {
        path = std::string("two-pass-tc-2xfp16") + suffix;
        return s;
      }
    }
  }
  const int shape = tune.pass_shape >= 0 ? tune.pass_shape : (large ? 2 : 0);
  if (shape == 1 || shape == 2) {
    bool launched = false;
    s = shape == 1
            ? launch_pass_lb<T, 16, 8, 256, 3>(h_in, h_out, v_in, v_out, axes, W, H, b, r, ntaps, optin, st, launched)
            : launch_pass_lb<T, 8, 8, 256, 3>(h_in, h_out, v_in, v_out, axes, W, H, b, r, ntaps, optin, st, launched);
    if (!s) return s;
    if (launched) {
      path = std::string(shape == 1 ? "two-pass-8x256-k16" : "two-pass-8x256-k8") + suffix;
      return s;
    }
  }
  const size_t bytes = pass_smem(ntaps, sizeof(T));
  const bool pipelined = tune.pass_pipelined == 1 || (tune.pass_pipelined == 2 && r >= 30 && r <= 48);
  if (pipelined && 2 * bytes <= optin) {
    auto kh = sep_pass_pipe_kernel<T, kPassTL, kPassTA, true>;
    auto kv = sep_pass_pipe_kernel<T, kPassTL, kPassTA, false>;
    if (!(s = allow_smem(kh, 2 * bytes)) || !(s = allow_smem(kv, 2 * bytes))) return s;
    constexpr int threads = kPassTL * kPassTA / kPassK;
    const int sms = sm_count();
    int per_sm_h = 0, per_sm_v = 0;
    if (!(s = blocks_per_sm(kh, threads, 2 * bytes, per_sm_h)) || !(s = blocks_per_sm(kv, threads, 2 * bytes, per_sm_v)))
      return s;
    const long long tiles_h = (long long)((W + kPassTA - 1) / kPassTA) * ((H + kPassTL - 1) / kPassTL);
    const long long tiles_v = (long long)((W + kPassTL - 1) / kPassTL) * ((H + kPassTA - 1) / kPassTA);
    const int gh = int(std::max(1LL, std::min<long long>(tiles_h, (long long)sms * std::max(1, per_sm_h))));
    const int gv = int(std::max(1LL, std::min<long long>(tiles_v, (long long)sms * std::max(1, per_sm_v))));
    if (do_h) kh<<<gh, threads, 2 * bytes, st>>>(h_in, h_out, W, H, b, r, ntaps);
    if (do_v) kv<<<gv, threads, 2 * bytes, st>>>(v_in, v_out, W, H, b, r, ntaps);
    path = std::string("two-pass-pipelined") + suffix;
    return cuda_status(cudaGetLastError(), "launching conv1d (two passes, pipelined)");
  }
  // Wide tiles (256 outputs, 512 threads): a smaller halo share per output at large radii.
  const size_t bytes_wide = pass_smem(ntaps, sizeof(T), 2 * kPassTA);
  if (tune.pass_wide && bytes_wide <= optin) {
    constexpr int TA = 2 * kPassTA;
    auto kh = sep_pass_kernel<T, kPassK, kPassTL, TA, true>;
    auto kv = sep_pass_kernel<T, kPassK, kPassTL, TA, false>;
    if (!(s = allow_smem(kh, bytes_wide)) || !(s = allow_smem(kv, bytes_wide))) return s;
    constexpr int threads = kPassTL * TA / kPassK;
    if (do_h)
      kh<<<tall_grid((W + TA - 1) / TA, (H + kPassTL - 1) / kPassTL), threads, bytes_wide, st>>>(h_in, h_out, W,
                                                                                                H, b, r, ntaps);
    if (do_v)
      kv<<<tall_grid((W + kPassTL - 1) / kPassTL, (H + TA - 1) / TA), threads, bytes_wide, st>>>(v_in, v_out, W,
                                                                                                H, b, r, ntaps);
    path = std::string("two-pass-smem-wide") + suffix;
    return cuda_status(cudaGetLastError(), "launching conv1d (two passes, wide tiles)");
  }
  if (bytes <= optin) {
    auto kh = sep_pass_kernel<T, kPassK, kPassTL, kPassTA, true>;
    auto kv = sep_pass_kernel<T, kPassK, kPassTL, kPassTA, false>;
    if (!(s = allow_smem(kh, bytes)) || !(s = allow_smem(kv, bytes))) return s;
    constexpr int threads = kPassTL * kPassTA / kPassK;
    if (do_h)
      kh<<<tall_grid((W + kPassTA - 1) / kPassTA, (H + kPassTL - 1) / kPassTL), threads, bytes, st>>>(
          h_in, h_out, W, H, b, r, ntaps);
    if (do_v)
      kv<<<tall_grid((W + kPassTL - 1) / kPassTL, (H + kPassTA - 1) / kPassTA), threads, bytes, st>>>(
          v_in, v_out, W, H, b, r, ntaps);
    path = std::string("two-pass-smem") + suffix;
    return cuda_status(cudaGetLastError(), "launching conv1d (two passes)");
  }
  const dim3 block(32, 8), grid = tall_grid((W + 31) / 32, (H + 7) / 8);
  if (do_h) sep_global_kernel<T, true><<<grid, block, 0, st>>>(h_in, h_out, W, H, b, r);
  if (do_v) sep_global_kernel<T, false><<<grid, block, 0, st>>>(v_in, v_out, W, H, b, r);
  path = std::string("two-pass-global") + suffix;
  return cuda_status(cudaGetLastError(), "launching conv1d (global memory)");
}

}  // namespace

SepTuning& sep_tuning() {
  static SepTuning t = [] {
    SepTuning d;
    // GPUBLUR_CUDA_SEP_TC16=0/1/2 overrides pass_tc16 (0 restores the SIMT passes without a rebuild).
    if (const char* e = std::getenv("GPUBLUR_CUDA_SEP_TC16"); e && *e >= '0' && *e <= '2') d.pass_tc16 = *e - '0';
    return d;
  }();
  return t;
}

Status launch_conv1d(const std::vector<float>& taps, Border b, const DevImage& src, const DevImage& mid,
                     const DevImage& dst, int axes, cudaStream_t s, std::string& path) {
  if (taps.size() % 2 != 1 || taps.size() + 16 > size_t(kMaxTaps))
    return Status::fail("CUDA conv1d: " + std::to_string(taps.size()) + " taps (odd, at most " +
                        std::to_string(kMaxTaps - 16) + ")");
  if (axes < 1 || axes > 3) return Status::fail("CUDA conv1d: bad axes");
  switch (src.channels) {
    case 1: return run_sep<float>(taps, b, src, mid, dst, axes, s, path);
    case 2: return run_sep<float2>(taps, b, src, mid, dst, axes, s, path);
    case 4: return run_sep<float4>(taps, b, src, mid, dst, axes, s, path);
    default: return Status::fail("CUDA conv1d: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
