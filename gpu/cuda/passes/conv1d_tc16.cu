// conv1d passes on tensor cores with FP16 operands split in two ("2xFP16"), RGBA float32 images.
//
// Each pass is a banded-Toeplitz GEMM per warp: D (16 rows = 4 lines x 4 channels, 8 outputs) += A (16 rows x
// 16 input positions, from the shared tile) x B_d (16 positions x 8 outputs, B_d[k][n] = w[8d + k - n]),
// `mma.sync m16n8k16` with FP32 accumulation. FP16 keeps 11 significant bits, so each operand is split:
// x = hi + lo (hi = fp16(x), lo = fp16(x - hi): 22 bits, the rest ~2^-23 |x|, or 3e-8 absolute where lo is
// subnormal), and a chunk is lo*hi + hi*lo + hi*hi (lo*lo ~2^-24 relative, dropped). Products of FP16 values
// are exact in FP32. The weights are scaled by 2^S (max weight in [1, 2)) so their lo parts stay normal;
// the output is scaled back by 2^-S, exactly. Tensor cores add with truncation, so each chunk's three MMAs
// start from zero and the chunk goes into the FP32 accumulator with a round-to-nearest FADD.
// Why not 3xTF32 (round 4, measured slower and removed): m16n8k16 FP16 covers 16 positions per MMA, TF32
// m16n8k8 only 8, so the same accuracy takes half the MMAs (docs/performance.md, CUDA round 5).
// Range: FP16 ends at 65504. A block whose tile holds a value beyond that (or NaN/Inf: a NaN times a zero
// weight of the band would leak into outputs outside its radius) computes its outputs with plain FP32 FMAs
// from the same tile instead; the result is the same function either way.
// Tile: 8 lines x 256 outputs per block, 256 threads = 8 warps of 4 lines x 64 outputs (8 n-blocks of 8).
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/conv1d_tc16.hpp"

namespace gpublur::cuda {
namespace {

constexpr int kTL = 8, kTA = 256, kNB = 8, kThreads = kTL * kTA / 8;
constexpr int kMaxD = 256;  // B_d blocks, d = -1 .. (2r + 7) / 8: radius <= ~1000
constexpr int kLanesE = 14;  // e = 2 * tig - gid in [-7, 6]
constexpr float kHalfMax = 65504.f;

__device__ uint4 g_tab[kMaxD * kLanesE];  // [d + 1][e + 7]: (b0 hi, b1 hi, b0 lo, b1 lo), f16x2 each
__device__ float g_w[kMaxTaps];           // unscaled weights, for the FP32 fallback

// Blocks of 8 taps d = -1 .. dmax(r) that touch the band; chunks of 16 positions per warp; tile positions.
__host__ __device__ inline int tc16_dmax(int r) { return (2 * r + 7) / 8; }
__host__ __device__ inline int tc16_chunks(int r) { return (tc16_dmax(r) + 7) / 2 + 1; }
__host__ __device__ inline int tc16_npos(int r) { return kTA - 64 + 16 * tc16_chunks(r); }
inline size_t tc16_smem(int r) {
  const int npos = tc16_npos(r);
  return size_t(std::max(kTL * (npos | 1), npos * kTL)) * sizeof(float4);
}

// Shared layouts, both conflict-free for the fragment loads (lanes: 2 positions x 2 lines x 4 channels x 4):
// horizontal [line][pos] with an odd line pitch; vertical [pos][8 lines], the line XOR-swizzled by
// 2 * ((pos / 2) % 4).
template <bool HORIZ>
__device__ __forceinline__ int tile_index(int line, int pos, int pitch) {
  return HORIZ ? line * pitch + pos : pos * kTL + (line ^ (((pos >> 1) & 3) << 1));
}

__device__ __forceinline__ unsigned pack_half2(__half2 h) {
  unsigned u;
  memcpy(&u, &h, 4);
  return u;
}

// Two adjacent K values of one A row, split into hi and lo f16x2; `ok` turns false on values FP16 cannot hold.
__device__ __forceinline__ void split_pair(float x0, float x1, unsigned& hi, unsigned& lo, bool& ok) {
  ok &= fabsf(x0) <= kHalfMax && fabsf(x1) <= kHalfMax;  // false for NaN too
  const __half2 h = __floats2half2_rn(x0, x1);
  const float2 hf = __half22float2(h);
  hi = pack_half2(h);
  lo = pack_half2(__floats2half2_rn(x0 - hf.x, x1 - hf.y));
}

__device__ __forceinline__ void mma_f16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1,
                                        const float (&c)[4]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11,%12,%13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
}

// One 16-position chunk q of a warp: the A fragment (lane rows gid / gid + 8 = line / line + 2, columns
// 2 tig, 2 tig + 1, 2 tig + 8, 2 tig + 9) loaded and split once, then every n-block j with d = 2q - j.
template <bool CHECK>
__device__ __forceinline__ void chunk_step(const float* __restrict__ sf, int row0, int row1, int pos0,
                                           int pstride, const uint4* __restrict__ tab, int q, int dmax,
                                           float (&acc)[kNB][4], bool& ok) {
  const int p = (pos0 + 16 * q) * pstride;
  unsigned ahi[4], alo[4];
  split_pair(sf[row0 + p], sf[row0 + p + pstride], ahi[0], alo[0], ok);
  split_pair(sf[row1 + p], sf[row1 + p + pstride], ahi[1], alo[1], ok);
  split_pair(sf[row0 + p + 8 * pstride], sf[row0 + p + 9 * pstride], ahi[2], alo[2], ok);
  split_pair(sf[row1 + p + 8 * pstride], sf[row1 + p + 9 * pstride], ahi[3], alo[3], ok);
  const float zero[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
  for (int j = 0; j < kNB; ++j) {
    const int d = 2 * q - j;
    if (CHECK && (d < -1 || d > dmax)) continue;
    const uint4 b = tab[(d + 1) * kLanesE];
    float t[4];
    mma_f16(t, alo, b.x, b.y, zero);
    mma_f16(t, ahi, b.z, b.w, t);
    mma_f16(t, ahi, b.x, b.y, t);
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[j][i] += t[i];
  }
}

template <bool HORIZ>
__global__ void __launch_bounds__(kThreads, 3) sep_pass_tc16_kernel(const float4* __restrict__ in,
                                                                     float4* __restrict__ out, int W, int H,
                                                                     Border b, int r, float unscale) {
  extern __shared__ float4 smem4[];
  float4* s = smem4;
  const int dmax = tc16_dmax(r), chunks = tc16_chunks(r), npos = tc16_npos(r);
  const int pitch = npos | 1;
  const int n_axis = HORIZ ? W : H, n_lines = HORIZ ? H : W;
  const int a0 = (HORIZ ? int(blockIdx.x) : grid_row()) * kTA;  // the rows on y (and z: tall_grid)
  const int l0 = (HORIZ ? grid_row() : int(blockIdx.x)) * kTL;
  if ((HORIZ ? l0 : a0) >= H) return;  // tall_grid's blocks past the image
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;

  // Tile: lines l0.., positions a0 - r.. (border remapped here only; lines past the image repeat the last).
  for (int i = threadIdx.x; i < npos * kTL; i += kThreads) {
    const int line = HORIZ ? i / npos : i % kTL, p = HORIZ ? i % npos : i / kTL;
    const int gl = min(l0 + line, n_lines - 1);
    const int ga = remap_index(a0 - r + p, n_axis, b);
    const size_t at = HORIZ ? size_t(gl) * W + (ga < 0 ? 0 : ga) : size_t(ga < 0 ? 0 : ga) * W + gl;
    cp_async_pixel(s + tile_index<HORIZ>(line, p, pitch), in + at, ga >= 0);
  }
  cp_async_wait_all();
  __syncthreads();

  const int gid = lane >> 2, tig = lane & 3, ch = gid & 3;
  const int line = 4 * (warp & 1) + (gid >> 2);  // rows gid; rows gid + 8 are line + 2
  const int O = (warp >> 1) * (8 * kNB);
  const int pos0 = O + 2 * tig;
  // Float offsets of (line, pos0 + k): row part + k * pstride (the vertical swizzle is constant per lane:
  // (pos / 2) % 4 = tig for every position this lane reads).
  const int pstride = HORIZ ? 4 : 4 * kTL;
  const int row0 = HORIZ ? line * pitch * 4 + ch : (line ^ (tig << 1)) * 4 + ch;
  const int row1 = HORIZ ? (line + 2) * pitch * 4 + ch : ((line + 2) ^ (tig << 1)) * 4 + ch;
  const float* sf = reinterpret_cast<const float*>(s);
  const uint4* tab = g_tab + (2 * tig - gid + 7);

  float acc[kNB][4];
#pragma unroll
  for (int j = 0; j < kNB; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  bool ok = true;
  // Every n-block is in its band for 3 <= q <= dmax / 2; the ends test d per block.
  const int q_full = min(chunks, dmax / 2 + 1);
  int q = 0;
  for (; q < min(3, chunks); ++q) chunk_step<true>(sf, row0, row1, pos0, pstride, tab, q, dmax, acc, ok);
  for (; q < q_full; ++q) chunk_step<false>(sf, row0, row1, pos0, pstride, tab, q, dmax, acc, ok);
  for (; q < chunks; ++q) chunk_step<true>(sf, row0, row1, pos0, pstride, tab, q, dmax, acc, ok);

  if (__syncthreads_and(ok)) {  // also: every warp is done reading the tile
    // The outputs go through shared memory (the tile's layouts, odd pitch / swizzle: conflict-free), so
    // that the device-memory stores are whole float4 pixels, coalesced. acc[j][i]: line + 2 * (i >> 1),
    // position O + 8 j + 2 tig + (i & 1), channel ch.
    constexpr int spitch = kTA | 1;
    float* sw = reinterpret_cast<float*>(s);
#pragma unroll
    for (int j = 0; j < kNB; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i)
        sw[tile_index<HORIZ>(line + (i >> 1) * 2, O + 8 * j + 2 * tig + (i & 1), spitch) * 4 + ch] =
            acc[j][i] * unscale;
    __syncthreads();
    for (int i = threadIdx.x; i < kTL * kTA; i += kThreads) {
      const int ln = HORIZ ? i / kTA : i % kTL, p = HORIZ ? i % kTA : i / kTL;
      const int x = HORIZ ? a0 + p : l0 + ln, y = HORIZ ? l0 + ln : a0 + p;
      if (x < W && y < H) out[size_t(y) * W + x] = s[tile_index<HORIZ>(ln, p, spitch)];
    }
    return;
  }
  // A value FP16 cannot hold: plain FP32 taps from the same tile (rare: HDR beyond 65504, NaN, Inf).
  for (int i = threadIdx.x; i < kTL * kTA; i += kThreads) {
    const int ln = i / kTA, p = i % kTA;
    float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int t = 0; t <= 2 * r; ++t) vfma(g_w[t], s[tile_index<HORIZ>(ln, p + t, pitch)], a);
    const int x = HORIZ ? a0 + p : l0 + ln, y = HORIZ ? l0 + ln : a0 + p;
    if (x < W && y < H) out[size_t(y) * W + x] = a;
  }
}

// Host-side FP16 round to nearest even (cuda_fp16's host conversion), as raw bits.
uint16_t half_bits(float x) {
  const __half h = __float2half_rn(x);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
float half_value(uint16_t u) {
  __half h;
  std::memcpy(&h, &u, 2);
  return __half2float(h);
}

}  // namespace

bool tc16_fits(int r, size_t optin) {
  return tc16_dmax(r) + 2 <= kMaxD && 2 * r + 1 <= kMaxTaps && tc16_smem(r) <= optin;
}

Status launch_sep_tc16(const float4* h_in, float4* h_out, const float4* v_in, float4* v_out, int axes, int W,
                       int H, Border b, int r, const std::vector<float>& weights, size_t optin, cudaStream_t st,
                       bool& launched) {
  launched = false;
  const int ntaps = 2 * r + 1;
  if (!tc16_fits(r, optin) || int(weights.size()) < ntaps) return Status::success();
  // Scale so the largest weight lies in [1, 2): its lo part (and the tails') stay normal FP16 numbers.
  const float wmax = *std::max_element(weights.begin(), weights.begin() + ntaps);
  int e = 0;
  std::frexp(wmax, &e);  // wmax = m * 2^e, m in [0.5, 1)
  const float scale = std::ldexp(1.f, 1 - e), unscale = std::ldexp(1.f, e - 1);
  auto wv = [&](int t) { return t >= 0 && t < ntaps ? weights[t] * scale : 0.f; };
  auto hi_lo = [](float a, float c, unsigned& hi, unsigned& lo) {
    const uint16_t ha = half_bits(a), hc = half_bits(c);
    hi = unsigned(ha) | unsigned(hc) << 16;
    lo = unsigned(half_bits(a - half_value(ha))) | unsigned(half_bits(c - half_value(hc))) << 16;
  };
  const int nd = tc16_dmax(r) + 2;
  std::vector<uint4> tab(size_t(nd) * kLanesE);
  for (int d = -1; d <= tc16_dmax(r); ++d)
    for (int e7 = 0; e7 < kLanesE; ++e7) {
      const int t0 = 8 * d + e7 - 7;  // b0: B[2 tig][gid], B[2 tig + 1][gid]; b1: 8 positions on
      uint4& v = tab[size_t(d + 1) * kLanesE + e7];
      hi_lo(wv(t0), wv(t0 + 1), v.x, v.z);
      hi_lo(wv(t0 + 8), wv(t0 + 9), v.y, v.w);
    }
  Status s = cuda_status(cudaMemcpyToSymbolAsync(g_tab, tab.data(), tab.size() * sizeof(uint4), 0,
                                                 cudaMemcpyHostToDevice, st),
                         "uploading the tensor-core weight table");
  if (!s) return s;
  s = cuda_status(cudaMemcpyToSymbolAsync(g_w, weights.data(), ntaps * sizeof(float), 0, cudaMemcpyHostToDevice,
                                          st),
                  "uploading weights");
  if (!s) return s;
  const size_t bytes = tc16_smem(r);
  auto kh = sep_pass_tc16_kernel<true>;
  auto kv = sep_pass_tc16_kernel<false>;
  if (!(s = allow_smem(kh, bytes, true)) || !(s = allow_smem(kv, bytes, true))) return s;
  if (axes & 1)
    kh<<<tall_grid((W + kTA - 1) / kTA, (H + kTL - 1) / kTL), kThreads, bytes, st>>>(h_in, h_out, W, H, b, r, unscale);
  if (axes & 2)
    kv<<<tall_grid((W + kTL - 1) / kTL, (H + kTA - 1) / kTA), kThreads, bytes, st>>>(v_in, v_out, W, H, b, r, unscale);
  launched = true;
  return cuda_status(cudaGetLastError(), "launching conv1d (two passes, tensor cores 2xFP16)");
}

}  // namespace gpublur::cuda
