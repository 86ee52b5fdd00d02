// iir1d: the recursive filter along an axis (core/program.hpp Op::Iir1d; core/reference/passes/iir1d.cpp is
// the definition). Schedules (docs/performance.md "iir"), chosen by measurement on an H100:
//  - whole rows (iir_rows.cuh): rows of 1-4 channels up to 1024 tiles x channels (RGBA 8192 wide) in one kernel,
//    a block holding its rows in shared memory: one read and one write of the image. 4096^2 RGBA rows pass
//    0.203 ms against a 0.19 ms copy; iir 0.707 -> 0.568 ms with the columns below (one channel 0.415 -> 0.170).
//  - whole column lines in a block (iir_cols_block.cuh): columns of up to 1024 positions in one kernel, each thread's
//    tile in registers from its load to its store (one read and one write of the image). Where measured faster:
//    Young-van Vliet on columns 481-1024 tall (1024^2 one channel 0.023 -> 0.019 ms, RGBA 0.043 -> 0.041 on an H100).
//  - tiles (iir_tiles.cuh): taller columns, and rows whole rows do not hold. A thread per (value line, tile of 32
//    positions; columns of large images 64) in three kernels (sums, chains, outputs): a warp's loads and stores
//    are 128 contiguous bytes of a row for columns; about 1.3-1.5 copies' worth of bytes per axis, each kernel
//    at the copy's bandwidth. The x/y pair of 2-4 channels (core's iir_pair) folds the columns' sums into the
//    rows' outputs (launch_iir1d_pair) where rows run as tiles: one read of the intermediate image fewer.
//  - the 2D tiles (iir_2d.cuh): the x/y pair of RGBA images where they measured faster (on an H200 Young-van Vliet
//    from 2048^2, 4096^2 0.452 -> 0.384 ms; Deriche from 4096^2): both axes' sums from one read, both axes' outputs
//    from a second.
//  - the segment scan (iir_scan.cuh): one-channel rows too long for whole rows that its block still holds.
//  - one thread per value line (iir_line.cuh; this file's iir1d_kernel): IirTuning::lines only (the tests'
//    reference schedule; measured 1.8x slower than the scan, 3.5x the tiles).
#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "core/iir.hpp"
#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/device_block.cuh"
#include "gpu/cuda/passes/iir_2d.cuh"
#include "gpu/cuda/passes/iir_cols_block.cuh"
#include "gpu/cuda/passes/iir_line.cuh"
#include "gpu/cuda/passes/iir_rows.cuh"
#include "gpu/cuda/passes/iir_scan.cuh"
#include "gpu/cuda/passes/iir_tiles.cuh"

namespace gpublur::cuda {
namespace {

constexpr int kThreads = 64;  // small blocks: 4096 x 4 lines are only 256 blocks

// The kernels' instantiation for a filter's terms, f(KT, R1) as integral constants: exactly two terms (KT = 2), term 1
// real (R1, iir_term1_real) or not, else the general form for up to kMaxIirTerms (KT = kMaxIirTerms, R1 false).
template <typename F>
Status with_iir_form(const IirCoeffs& co, F&& f) {
  if (co.k != 2) return f(std::integral_constant<int, kMaxIirTerms>{}, std::false_type{});
  if (iir_term1_real(co)) return f(std::integral_constant<int, 2>{}, std::true_type{});
  return f(std::integral_constant<int, 2>{}, std::false_type{});
}

__global__ void __launch_bounds__(kThreads) iir1d_kernel(const float* __restrict__ src, float* __restrict__ dst,
                                                          int w, int h, int ch, int axis, IirBorder b, IirCoeffs co) {
  const int lines = axis == 0 ? h * ch : w * ch;
  const int line = int(blockIdx.x) * kThreads + int(threadIdx.x);
  if (line >= lines) return;
  size_t base = 0, step = 0;
  int n = 0;
  iir_line_place(axis, w, h, ch, line, base, step, n);
  iir_value_line(src, dst, base, step, n, b, co);
}

// The segment scan on one row: load (cp.async, 16 B where aligned), the three phases of iir_scan.cuh, store.
// 2 blocks per SM where their shared memory allows (the plan's budget).
template <int NL, int KT, bool REAL1>
__global__ void __launch_bounds__(kIirScanThreads, 2)
    iir1d_scan_kernel(const float* __restrict__ src, float* __restrict__ dst, int rowv, IirScanPlan P,
                      IirBorder b, IirCoeffs co) {
  extern __shared__ float4 smem4[];
  char* sm = reinterpret_cast<char*>(smem4);
  float* s = reinterpret_cast<float*>(sm);
  Cplx* cu = reinterpret_cast<Cplx*>(sm + P.carry_off);
  Cplx* cw = cu + size_t(P.k) * size_t(P.items());
  Cplx* ends = cw + size_t(P.k) * size_t(P.items());
  // The row: NL interleaved channels, contiguous (value q of line l at s[q * NL + l], as in the image).
  const float* in = src + size_t(blockIdx.x) * size_t(rowv);
  float* out = dst + size_t(blockIdx.x) * size_t(rowv);
  const int tid = int(threadIdx.x), nth = int(blockDim.x), total = P.n * NL;
  // 16-byte pieces where the row is aligned to them.
  const bool vec4 = rowv % 4 == 0;
  if (vec4) {
    for (int e = tid * 4; e < total; e += nth * 4)
      cp_async_pixel(reinterpret_cast<float4*>(s + e), reinterpret_cast<const float4*>(in + e), true);
  } else {
    for (int e = tid; e < total; e += nth) cp_async_pixel(s + e, in + e, true);
  }
  cp_async_wait_all();
  __syncthreads();
  iir_scan_local<NL, KT, REAL1>(tid, nth, s, cu, cw, P, co);
  __syncthreads();
  iir_scan_chunk_local<NL>(tid, cu, cw, P, co);
  __syncthreads();
  iir_scan_chain<NL>(tid, s, cu, cw, ends, P, b, co);
  __syncthreads();
  iir_scan_chunk_spread<NL>(tid, cu, cw, P, co);
  __syncthreads();
  if (iir_periodic(b)) {  // uniform over the block
    iir_scan_borders<NL>(tid, cu, cw, ends, P, b, co);
    __syncthreads();
  }
  iir_scan_final<NL, KT, REAL1>(tid, nth, s, cu, cw, P, co);
  __syncthreads();
  if (vec4) {
    for (int e = tid * 4; e < total; e += nth * 4)
      *reinterpret_cast<float4*>(out + e) = *reinterpret_cast<const float4*>(s + e);
  } else {
    for (int e = tid; e < total; e += nth) out[e] = s[e];
  }
}

// The tile schedule (iir_tiles.cuh): one thread per (line, tile) or, for the chains, per (line, term, direction).
constexpr int kTileThreads = 256;
template <int KT, int TL>
__global__ void __launch_bounds__(kTileThreads) iir1d_tile_sums_kernel(const float* __restrict__ src, float2* agg,
                                                                       IirTilePlan P, IirCoeffs co) {
  wait_for_previous_grid();
  const long long i = (long long)blockIdx.x * kTileThreads + threadIdx.x;
  if (i >= P.items()) return;
  iir_tile_sums<KT, TL>(src, agg, P, co, int(i % P.lines), int(i / P.lines));
}
__global__ void __launch_bounds__(kTileThreads) iir1d_tile_chain_kernel(const float* __restrict__ src, float2* agg,
                                                                        Cplx* ends, IirTilePlan P, IirBorder b,
                                                                        IirCoeffs co) {
  wait_for_previous_grid();
  const long long i = (long long)blockIdx.x * kTileThreads + threadIdx.x;
  if (i >= (long long)P.lines * 2 * P.k) return;
  iir_tile_chain(src, agg, ends, P, b, co, int(i % P.lines), int(i / P.lines));
}
__global__ void __launch_bounds__(kTileThreads) iir1d_tile_borders_kernel(float2* agg, const Cplx* __restrict__ ends,
                                                                          IirTilePlan P, IirBorder b, IirCoeffs co) {
  wait_for_previous_grid();
  const long long i = (long long)blockIdx.x * kTileThreads + threadIdx.x;
  if (i >= (long long)P.lines * 2 * P.k) return;
  iir_tile_borders(agg, ends, P, b, co, int(i % P.lines), int(i / P.lines));
}
// Long tiles run their outputs a half at a time (iir_tile_final_halves) held to 128 registers: two blocks per SM.
template <int KT, bool R1, int TL>
__global__ void __launch_bounds__(kTileThreads, TL > kIirTile ? 2 : 0)
    iir1d_tile_final_kernel(const float* src, float* dst, const float2* __restrict__ agg, IirTilePlan P, IirCoeffs co) {
  wait_for_previous_grid();
  const long long i = (long long)blockIdx.x * kTileThreads + threadIdx.x;
  if (i >= P.items()) return;
  iir_tile_final<KT, R1, TL>(src, dst, agg, P, co, int(i % P.lines), int(i / P.lines));
}

// A pass's kernels, one thread per item: 1. sums, 2. chains (and wrap/mirror's border states), 3. outputs. Each
// is launched dependent (PDL, cuda_common.cuh): at 1024^2 the five kernels of the pair are short enough that
// their launch gaps showed (iir 1024^2 RGBA 0.066 -> 0.060 ms on an H100).
unsigned item_blocks(long long items) { return unsigned((items + kTileThreads - 1) / kTileThreads); }
template <int KT, int TL = kIirTile>
void launch_tile_sums(const float* in, float2* agg, const IirTilePlan& P, const IirCoeffs& co, cudaStream_t s) {
  launch_dependent(iir1d_tile_sums_kernel<KT, TL>, item_blocks(P.items()), kTileThreads, 0, s, in, agg, P, co);
}
// Wrap and mirror's border states after a plan's chains (ends: the chains' end sums).
void launch_tile_borders(float2* agg, const Cplx* ends, const IirTilePlan& P, const IirBorder& b, const IirCoeffs& co,
                         cudaStream_t s) {
  if (iir_periodic(b))
    launch_dependent(iir1d_tile_borders_kernel, item_blocks((long long)P.lines * 2 * P.k), kTileThreads, 0, s, agg,
                     ends, P, b, co);
}
void launch_tile_chains(const float* in, float2* agg, Cplx* ends, const IirTilePlan& P, const IirBorder& b,
                        const IirCoeffs& co, cudaStream_t s) {
  launch_dependent(iir1d_tile_chain_kernel, item_blocks((long long)P.lines * 2 * P.k), kTileThreads, 0, s, in, agg,
                   ends, P, b, co);
  launch_tile_borders(agg, ends, P, b, co, s);
}
template <int KT, bool R1, int TL = kIirTile>
void launch_tile_final(const float* in, float* out, const float2* agg, const IirTilePlan& P, const IirCoeffs& co,
                       cudaStream_t s) {
  launch_dependent(iir1d_tile_final_kernel<KT, R1, TL>, item_blocks(P.items()), kTileThreads, 0, s, in, out, agg, P, co);
}

template <int KT, bool R1, int TL>
Status run_tiles(const DevImage& src, const DevImage& dst, const IirTilePlan& P, Border b, const IirCoeffs& co,
                 void* scratch, cudaStream_t s) {
  float2* agg = static_cast<float2*>(scratch);
  Cplx* ends = reinterpret_cast<Cplx*>(static_cast<char*>(scratch) + P.ends_offset());
  const float* in = static_cast<const float*>(src.data);
  launch_tile_sums<KT, TL>(in, agg, P, co, s);
  launch_tile_chains(in, agg, ends, P, iir_border(co, P.n, b), co, s);
  launch_tile_final<KT, R1, TL>(in, static_cast<float*>(dst.data), agg, P, co, s);
  return cuda_status(cudaGetLastError(), "launching iir1d (tiles)");
}

// The 2D tiles (iir_2d.cuh): a block a tile, x = block % tiles across, y = block / tiles across.
// A whole tile: each thread's 16 pixels are one column (q = tid % 64) every fourth row, so its copies step by fixed
// strides (one 64-bit add a copy; shared offsets immediate). The general loop below cost about 400 instructions a warp
// in index arithmetic, and both kernels that load tiles issue in 68-83% of the SMs' slots (docs/performance.md, iir,
// "The 2D tiles' loads").
__device__ __forceinline__ void iir2d_load_tile(float* s, const float* src, const Iir2dPlan& P, int x, int y) {
  const int nx = P.nx(x), ny = P.ny(y);
  const float* base = src + (size_t(y) * kIir2dTile * size_t(P.w) + size_t(x) * kIir2dTile) * 4;
  if (nx == kIir2dTile && ny == kIir2dTile) {
    constexpr int kRows = kIir2dThreads / kIir2dTile;  // rows a round
    const int q = int(threadIdx.x) % kIir2dTile, r0 = int(threadIdx.x) / kIir2dTile;
    const unsigned d = unsigned(__cvta_generic_to_shared(s + r0 * kIir2dPitch + q * 4));
    const float* g = base + (size_t(r0) * size_t(P.w) + size_t(q)) * 4;
    const size_t step = size_t(P.w) * 4 * kRows;
#pragma unroll
    for (int j = 0; j < kIir2dTile / kRows; ++j, g += step)
      cp_async_to(d + unsigned(j * kRows * kIir2dPitch * 4), reinterpret_cast<const float4*>(g));
    cp_async_wait_all();
    __syncthreads();
    return;
  }
  for (int e = int(threadIdx.x); e < kIir2dTile * kIir2dTile; e += kIir2dThreads) {
    const int r = e / kIir2dTile, q = e % kIir2dTile;
    if (r < ny && q < nx)
      cp_async_pixel(reinterpret_cast<float4*>(s + r * kIir2dPitch + q * 4),
                     reinterpret_cast<const float4*>(base + (size_t(r) * size_t(P.w) + size_t(q)) * 4), true);
  }
  cp_async_wait_all();
  __syncthreads();
}
template <int KT, bool R1>
__global__ void __launch_bounds__(kIir2dThreads, 3)
    iir2d_sums_kernel(const float* __restrict__ src, float2* aggr, float2* aggc, float* edge, float* vedge,
                      Iir2dPlan P, IirCoeffs co, bool clamp, const __grid_constant__ Iir2dPowers pw) {
  wait_for_previous_grid();
  extern __shared__ float4 smem4[];
  __shared__ float2 tab[kIir2dPowers];  // (the threads index the powers by row: from shared memory, not the bank)
  float* s = reinterpret_cast<float*>(smem4);
  const int x = int(blockIdx.x % unsigned(P.tx)), y = int(blockIdx.x / unsigned(P.tx)), tid = int(threadIdx.x);
  for (int i = tid; i < co.k * (kIir2dTile + 1); i += kIir2dThreads)
    tab[i] = pw.p[i / (kIir2dTile + 1)][i % (kIir2dTile + 1)];
  iir2d_load_tile(s, src, P, x, y);  // (its barrier covers tab)
  float ru[KT][2], rw[KT][2], zu[KT][2], zw[KT][2];
  iir2d_s1_sums<KT, R1>(tid, s, aggr, static_cast<const float2*>(tab), P, co, x, y, ru, rw, zu, zw);
  if (clamp) iir2d_s1_edges<KT, R1>(tid, s, edge, vedge, static_cast<const float2*>(tab), P, co, x, y);
  __syncthreads();
  iir2d_s1_zstore<KT>(tid, s, P, co, x, y, ru, rw, zu, zw);
  __syncthreads();
  iir2d_s1_zfilter<KT>(tid, s, P, co, x);
  iir2d_s1_vsums(tid, s, aggr, static_cast<const float2*>(tab), P, co, x, y);
  __syncthreads();
  iir2d_s1_colagg<KT>(tid, s, aggc, P, co, x, y);
}
__global__ void __launch_bounds__(kTileThreads)
    iir2d_row_chain_kernel(const float* __restrict__ src, const float* __restrict__ vedge, float2* aggr, Cplx* ends,
                           Iir2dPlan P, IirBorder b, IirCoeffs co) {
  wait_for_previous_grid();
  const long long i = (long long)blockIdx.x * kTileThreads + threadIdx.x;
  if (i >= (long long)P.Pr.lines * 2 * P.k) return;
  iir2d_row_chain(src, vedge, aggr, ends, P, b, co, int(i % P.Pr.lines), int(i / P.Pr.lines));
}
// A block a tile column x and sequence s (grid tx x 2 k): its 256 lines are the tile column's 64 pixels x 4 channels,
// so the block shares the weighted rows' states it needs, staged in shared memory 64 tiles at a time, their loads
// issued after the first chunk's own (4096^2 RGBA on the H200: 29 us; each thread loading its own 141 us, staged a
// chunk of 16 tiles at a time 47 us, after the chunk's own loads 34 us; the plain chains ran 19 us).
static_assert(kTileThreads == 4 * kIir2dTile, "a column chain block is a tile column");
template <int KT>
__global__ void __launch_bounds__(kTileThreads)
    iir2d_col_chain_kernel(const float* __restrict__ edge, const float2* __restrict__ aggr, float2* aggc, Cplx* ends,
                           Iir2dPlan P, IirBorder b, IirCoeffs co, const __grid_constant__ Iir2dPowers pw) {
  wait_for_previous_grid();
  constexpr int kStage = 4 * kIirChainAhead;  // tiles staged at once (a barrier pair for four chunks)
  __shared__ float2 st[kStage][2 * KT][2][4];  // (tile, row sequence, part, channel)
  const int x = int(blockIdx.x), s = int(blockIdx.y), tid = int(threadIdx.x), k = co.k;
  const int l = x * kTileThreads + tid, last = P.ty - 1;
  const bool back = s >= k;
  int at = 0;  // the chunk's first tile in st
  const auto chunk = [&](int k0) {
    at = k0 % kStage;
    if (at != 0) return;
    __syncthreads();  // (the previous stage's reads are done)
    constexpr int kPer = kStage * 2 * KT * 8 / kTileThreads;
    float2 v[kPer];  // (all of a thread's loads in flight before its stores)
#pragma unroll
    for (int m = 0; m < kPer; ++m) {
      const int i = tid + m * kTileThreads;
      const int c = i & 3, part = (i >> 2) & 1, rs = (i >> 3) % (2 * k), e = (i >> 3) / (2 * k), kk = k0 + e;
      if (i < kStage * 2 * k * 8 && kk <= last)
        v[m] = aggr[P.Pr.agg(x, rs, P.vline(back ? last - kk : kk, (s * 2 + part) * 4 + c))];
    }
#pragma unroll
    for (int m = 0; m < kPer; ++m) {
      const int i = tid + m * kTileThreads;
      const int c = i & 3, part = (i >> 2) & 1, rs = (i >> 3) % (2 * k), e = (i >> 3) / (2 * k);
      if (i < kStage * 2 * k * 8 && k0 + e <= last) st[e][rs][part][c] = v[m];
    }
    __syncthreads();
  };
  const auto src = [&](int e, int rs, int part, int c) { return st[at + e][rs][part][c]; };
  iir2d_col_chain<KT>(edge, aggr, aggc, ends, &pw.p[0][0], P, b, co, l, s, src, chunk, l < P.Pc.lines);
}
template <int KT, bool R1>
__global__ void __launch_bounds__(kIir2dThreads, 3)
    iir2d_outputs_kernel(const float* src, float* dst, const float2* __restrict__ aggr,
                         const float2* __restrict__ aggc, Iir2dPlan P, IirCoeffs co) {
  wait_for_previous_grid();
  extern __shared__ float4 smem4[];
  float* s = reinterpret_cast<float*>(smem4);
  const int x = int(blockIdx.x % unsigned(P.tx)), y = int(blockIdx.x / unsigned(P.tx)), tid = int(threadIdx.x);
  float2 ru[KT], rw[KT], cu[KT], cw[KT];
  iir2d_s4_raw<KT>(tid, aggr, aggc, P, co, x, y, ru, rw, cu, cw);  // (in flight with the tile's loads)
  iir2d_load_tile(s, src, P, x, y);
  iir2d_s4_rows<KT, R1>(tid, s, ru, rw, P, co, x, y);
  __syncthreads();
  iir2d_s4_cols<KT, R1>(tid, s, dst, cu, cw, P, co, x, y);
}

// The 2D tiles' kernels in order (iir_2d.cuh's steps 1-4; wrap and mirror's border states after each chain).
// Scratch: the plan's.
template <int KT, bool R1>
Status run_2d(const DevImage& src, const DevImage& dst, const Iir2dPlan& P, Border b, const IirCoeffs& co,
              void* scratch, cudaStream_t s) {
  char* base = static_cast<char*>(scratch);
  float2* aggr = reinterpret_cast<float2*>(base);
  Cplx* endsr = reinterpret_cast<Cplx*>(base + P.Pr.ends_offset());
  float2* aggc = reinterpret_cast<float2*>(base + P.col_offset());
  Cplx* endsc = reinterpret_cast<Cplx*>(base + P.col_offset() + P.Pc.ends_offset());
  float* edge = reinterpret_cast<float*>(base + P.edge_offset());
  float* vedge = reinterpret_cast<float*>(base + P.vedge_offset());
  const float* in = static_cast<const float*>(src.data);
  const unsigned tiles = unsigned(P.tx) * unsigned(P.ty);
  const Iir2dPowers pw = iir2d_powers(co);
  const IirBorder br = iir_border(co, P.Pr.n, b), bc = iir_border(co, P.Pc.n, b);  // rows' and columns' lengths
  if (Status st = allow_smem(iir2d_sums_kernel<KT, R1>, kIir2dSmem, true); !st) return st;
  auto outk = iir2d_outputs_kernel<KT, R1>;
  if (Status st = allow_smem(outk, kIir2dSmem, true); !st) return st;
  launch_dependent(iir2d_sums_kernel<KT, R1>, tiles, kIir2dThreads, kIir2dSmem, s, in, aggr, aggc, edge, vedge, P, co,
                   b == Border::Clamp, pw);
  launch_dependent(iir2d_row_chain_kernel, item_blocks((long long)P.Pr.lines * 2 * P.k), kTileThreads, 0, s, in,
                   static_cast<const float*>(vedge), aggr, endsr, P, br, co);
  launch_tile_borders(aggr, endsr, P.Pr, br, co, s);
  launch_dependent(iir2d_col_chain_kernel<KT>, dim3(unsigned(P.tx), unsigned(2 * P.k)), kTileThreads, 0, s,
                   static_cast<const float*>(edge), static_cast<const float2*>(aggr), aggc, endsc, P, bc, co, pw);
  launch_tile_borders(aggc, endsc, P.Pc, bc, co, s);
  launch_dependent(outk, tiles, kIir2dThreads, kIir2dSmem, s, in, static_cast<float*>(dst.data),
                   static_cast<const float2*>(aggr), static_cast<const float2*>(aggc), P, co);
  return cuda_status(cudaGetLastError(), "launching iir1d (x/y pair as 2D tiles)");
}

// The x/y pair's fused kernel (iir_tiles.cuh): block (rb, j) = kIirTile rows x tile j of the rows pass.
template <int KT, bool R1>
__global__ void __launch_bounds__(kIirTile * 4) iir1d_pair_final_kernel(const float* __restrict__ src, float* mid,
                                                                        const float2* __restrict__ agg, float2* aggc,
                                                                        IirTilePlan P, IirTilePlan Pc, IirCoeffs co,
                                                                        int ch) {
  wait_for_previous_grid();
  extern __shared__ float4 smem4[];
  float* sm = reinterpret_cast<float*>(smem4);
  const int rb = int(blockIdx.x % unsigned(Pc.ntiles)), j = int(blockIdx.x / unsigned(Pc.ntiles)), t = int(threadIdx.x);
  iir_pair_rows_final<KT, R1>(src, mid, agg, sm, P, co, ch, rb, j, t);
  __syncthreads();
  iir_pair_col_sums<KT>(sm, aggc, Pc, co, ch, rb, j, t);
}

// The pair: the rows pass's sums and chains, the fused kernel (rows' outputs, columns' sums), the columns'
// chains and outputs. Scratch: the rows' aggregates and ends, then the columns'.
template <int KT, bool R1>
Status run_pair(const DevImage& src, const DevImage& mid, const DevImage& dst, const IirTilePlan& P,
                const IirTilePlan& Pc, Border b, const IirCoeffs& co, void* scratch, cudaStream_t s) {
  char* base = static_cast<char*>(scratch);
  float2* agg = reinterpret_cast<float2*>(base);
  Cplx* ends = reinterpret_cast<Cplx*>(base + P.ends_offset());
  char* cbase = base + (P.scratch_bytes() + 255) / 256 * 256;
  float2* aggc = reinterpret_cast<float2*>(cbase);
  Cplx* endsc = reinterpret_cast<Cplx*>(cbase + Pc.ends_offset());
  const float* in = static_cast<const float*>(src.data);
  float* m = static_cast<float*>(mid.data);
  launch_tile_sums<KT>(in, agg, P, co, s);
  launch_tile_chains(in, agg, ends, P, iir_border(co, P.n, b), co, s);
  const int ch = src.channels;
  const unsigned blocks = unsigned((long long)Pc.ntiles * P.ntiles);
  launch_dependent(iir1d_pair_final_kernel<KT, R1>, blocks, kIirTile * ch, iir_pair_smem_bytes(ch), s, in, m, agg, aggc,
                   P, Pc, co, ch);
  launch_tile_chains(m, aggc, endsc, Pc, iir_border(co, Pc.n, b), co, s);
  launch_tile_final<KT, R1>(m, static_cast<float*>(dst.data), aggc, Pc, co, s);
  return cuda_status(cudaGetLastError(), "launching iir1d (x/y pair as tiles)");
}

// Whole rows in shared memory (iir_rows.cuh): block b takes rows b * P.rows ..; load, the three phases, store.
// 64 registers a thread (the launch bound), so two blocks of 512 threads fit an SM. REAL1: iir_term1_real.
// LANES: P.lanes, the chains' lanes (a kernel of its own for each: one kernel holding the forms of 32, 16 and 8
// lanes behind a switch ran its 4096-wide rows, which take 32, 3-4% slower; H200, docs/performance.md).
template <int KT, int CH, bool REAL1, int LANES>
__global__ void __launch_bounds__(kIirRowsMaxThreads)
    iir1d_rows_kernel(const float* __restrict__ src, float* __restrict__ dst, int h, IirRowsPlan P, IirBorder b,
                      IirCoeffs co, IirPowers pw, IirRowsChain chain) {
  wait_for_previous_grid();
  extern __shared__ float4 smem4[];
  char* sm = reinterpret_cast<char*>(smem4);
  float* s = reinterpret_cast<float*>(sm);
  float2* agg = reinterpret_cast<float2*>(sm + P.agg_off);
  Cplx* ends = reinterpret_cast<Cplx*>(sm + P.ends_off);
  const int r0 = int(blockIdx.x) * P.rows, rows_here = min(P.rows, h - r0), tid = int(threadIdx.x);
  // A pixel of 2 or 4 channels is one copy (8 or 16 bytes: the tile pitch keeps them aligned); 1 and 3 by value.
  constexpr int kVec = CH == 2 || CH == 4 ? CH : 1;
  using Piece = typename std::conditional<kVec == 4, float4,
                                          typename std::conditional<kVec == 2, float2, float>::type>::type;
  const int per_row = P.n * CH / kVec;
  // Where the warps' items (tiles x channels) are whole tiles of one row (ch 1, 2, 4 and tiles x ch a multiple of
  // 32: 4096- and 1024-wide rows), each warp loads and stores its own tiles' 4 KB: its sums start when its own
  // loads land and its stores leave after its own outputs, a warp barrier apart instead of the block's.
  const bool own = CH != 3 && (P.ntiles * CH) % 32 == 0;
  const int lane = tid & 31, w = tid >> 5;
  const int wr = own && P.rows > 1 ? (w * 32) / (P.ntiles * CH) : 0;       // the warp's row
  const int wx = own ? (w * 32 - wr * P.ntiles * CH) / CH * kIirTile : 0;  // its first pixel (a tile's first)
  // A warp's own pieces (kVec == CH: a piece is a pixel) are pixels wx + lane + 32 i, i < kPer: tile wx / 32 + i,
  // position lane. Both addresses are a base plus constant strides: the generic form below, used here before,
  // spent some 27 instructions a piece on divisions and offsets (a tenth of the kernel's instructions; H200
  // profile, docs/performance.md "Whole rows' overheads on the H200").
  constexpr int kPer = 32 / CH, kPitch = (kIirTile + 1) * CH;  // kPitch: P.pitch as a constant
  const int npix = min(P.n, wx + kPer * kIirTile) - wx - lane;     // > 32 i for the lane's pieces
  // (A 32-bit shared offset, the image offset made where used: fewer registers live across the phases; kept
  // live, the Deriche kernels spilled.)
  const int own_s = wr * int(P.row_floats) + (wx / kIirTile) * kPitch + lane * CH;
  const auto own_g = [&] { return ((size_t(r0) + size_t(wr)) * size_t(P.n) + size_t(wx + lane)) * CH; };
  // copy(r, q, c) for each piece of the general form (row r, pixel q, channel c), a share of the block's rows;
  // at(r, q, c) its offset in the image.
  const auto each_piece = [&](auto copy) {
    for (int r = 0; r < rows_here; ++r)
      for (int e = tid; e < per_row; e += P.nth) copy(r, e * kVec / CH, e * kVec % CH);
  };
  const auto at = [&](int r, int q, int c) { return ((size_t(r0) + size_t(r)) * size_t(P.n) + size_t(q)) * CH + c; };
  const auto sync = [&] {
    if (own) __syncwarp();
    else __syncthreads();
  };
  if (own) {
    if (wr < rows_here) {
#pragma unroll
      for (int i = 0; i < kPer; ++i)
        if (32 * i < npix)
          cp_async_pixel(reinterpret_cast<Piece*>(s + own_s + i * kPitch),
                         reinterpret_cast<const Piece*>(src + own_g() + size_t(i) * 32 * CH), true);
    }
  } else {
    each_piece([&](int r, int q, int c) {
      cp_async_pixel(reinterpret_cast<Piece*>(s + P.at(r, c, q)), reinterpret_cast<const Piece*>(src + at(r, q, c)),
                     true);
    });
  }
  cp_async_wait_all();
  sync();
  iir_rows_sums<KT, CH, REAL1>(tid, s, agg, P, co, pw, rows_here);
  __syncthreads();
  iir_rows_chains<DeviceBlock, LANES>(s, agg, ends, P, b, co, chain, rows_here);
  __syncthreads();
  iir_rows_final<KT, CH, REAL1>(tid, s, agg, P, co, pw, rows_here);
  sync();
  if (own) {
    if (wr < rows_here) {
#pragma unroll
      for (int i = 0; i < kPer; ++i)
        if (32 * i < npix)
          *reinterpret_cast<Piece*>(dst + own_g() + size_t(i) * 32 * CH) =
              *reinterpret_cast<const Piece*>(s + own_s + i * kPitch);
    }
  } else {
    each_piece([&](int r, int q, int c) {
      *reinterpret_cast<Piece*>(dst + at(r, q, c)) = *reinterpret_cast<const Piece*>(s + P.at(r, c, q));
    });
  }
}

template <int KT, int CH, bool REAL1>
Status run_rows_ch(const DevImage& src, const DevImage& dst, const IirRowsPlan& P, Border b, const IirCoeffs& co,
                   cudaStream_t s) {
  if (P.lanes != 32 && P.lanes != 8) return Status::fail("CUDA iir1d (whole rows): chains of 32 or 8 lanes only");
  auto k = P.lanes == 8 ? iir1d_rows_kernel<KT, CH, REAL1, 8> : iir1d_rows_kernel<KT, CH, REAL1, 32>;
  if (Status st = allow_smem(k, P.bytes, true); !st) return st;
  const unsigned blocks = unsigned((src.height + P.rows - 1) / P.rows);
  launch_dependent(k, blocks, unsigned(P.nth), P.bytes, s, static_cast<const float*>(src.data),
                   static_cast<float*>(dst.data), src.height, P, iir_border(co, P.n, b), co, iir_powers(co),
                   iir_rows_chain(P, co));
  return cuda_status(cudaGetLastError(), "launching iir1d (whole rows)");
}
template <int KT, bool REAL1>
Status run_rows_real(const DevImage& src, const DevImage& dst, const IirRowsPlan& P, Border b, const IirCoeffs& co,
                     cudaStream_t s) {
  switch (src.channels) {
    case 1: return run_rows_ch<KT, 1, REAL1>(src, dst, P, b, co, s);
    case 2: return run_rows_ch<KT, 2, REAL1>(src, dst, P, b, co, s);
    case 3: return run_rows_ch<KT, 3, REAL1>(src, dst, P, b, co, s);
    default: return run_rows_ch<KT, 4, REAL1>(src, dst, P, b, co, s);
  }
}
Status run_rows(const DevImage& src, const DevImage& dst, const IirRowsPlan& P, Border b, const IirCoeffs& co,
                cudaStream_t s) {
  return with_iir_form(co, [&](auto kt, auto r1) {
    return run_rows_real<decltype(kt)::value, decltype(r1)::value>(src, dst, P, b, co, s);
  });
}

// Columns with whole lines in a block (iir_cols_block.cuh): the tile in registers from its load to its store.
template <int KT, bool REAL1, int LANES>
__global__ void __launch_bounds__(kIirColsBlockThreads, 2)
    iir1d_cols_block_kernel(const float* src, float* dst, IirColsPlan C, IirBorder b, IirCoeffs co, IirPowers pw,
                            IirRowsChain chain) {
  wait_for_previous_grid();
  extern __shared__ float4 smem4[];
  char* sm = reinterpret_cast<char*>(smem4);
  float2* agg = reinterpret_cast<float2*>(sm + C.R.agg_off);
  Cplx* ends = reinterpret_cast<Cplx*>(sm + C.R.ends_off);
  float* edges = reinterpret_cast<float*>(sm + C.edges_off);
  const int tid = int(threadIdx.x), block = int(blockIdx.x);
  float xs[kIirTile];
  iir_cols_sums<KT, REAL1>(tid, src, xs, agg, edges, C, co, pw, block);
  __syncthreads();
  iir_cols_chains<DeviceBlock, LANES>(agg, ends, edges, C, b, co, chain, block);
  __syncthreads();
  iir_cols_final<KT, REAL1>(tid, dst, xs, agg, C, co, pw, block);
}

// The column blocks where measured faster than the column tiles (H100, session 108, calls 455-456): 3-17% for
// Young-van Vliet's terms (one real) on columns of 16-32 tiles (481-1024 tall); Deriche's (two complex) won at some
// shapes and lost 4-5% at others (1024^2 RGBA), and columns of 10 tiles or fewer lost up to 16%.
bool cols_block_measured_faster(int h, const IirCoeffs& co) {
  return co.k == 2 && iir_term1_real(co) && (h + kIirTile - 1) / kIirTile >= kIirColsBlockMinTiles;
}

bool plan_cols_block(const DevImage& img, const IirCoeffs& co, IirColsPlan& C) {
  const int mode = iir_tuning().cols_block;  // 0 never, 1 where measured faster, 2 wherever they fit
  if (mode == 0 || iir_tuning().lines || img.pad != 0 || img.f64) return false;
  if (mode == 1 && !cols_block_measured_faster(img.height, co)) return false;
  return iir_cols_plan(img.width, img.height, img.channels, co.k, C) && C.blocks() <= 0x7fffffffLL;
}

template <int KT, bool REAL1>
Status run_cols_block(const DevImage& src, const DevImage& dst, const IirColsPlan& C, Border b, const IirCoeffs& co,
                      cudaStream_t s) {
  if (C.R.lanes != 32 && C.R.lanes != 8)
    return Status::fail("CUDA iir1d (column blocks): chains of 32 or 8 lanes only");
  auto k = C.R.lanes == 8 ? iir1d_cols_block_kernel<KT, REAL1, 8> : iir1d_cols_block_kernel<KT, REAL1, 32>;
  if (Status st = allow_smem(k, C.bytes, false); !st) return st;
  launch_dependent(k, unsigned(C.blocks()), unsigned(C.R.nth), C.bytes, s, static_cast<const float*>(src.data),
                   static_cast<float*>(dst.data), C, iir_border(co, C.R.n, b), co, iir_powers(co),
                   iir_rows_chain(C.R, co));
  return cuda_status(cudaGetLastError(), "launching iir1d (column blocks)");
}

// Shared memory a block may take: two per SM (half an SM less the 1 KiB reserved per block), else the opt-in
// maximum at one per SM.
size_t half_sm_budget() { return std::min(size_t(smem_per_sm()) / 2 - 1024, size_t(max_smem_optin())); }

// The scan's shape for a one-channel row pass (NL = 1), or false where a block does not hold the row (longer
// than ~35400 values on an H100).
bool plan_scan(const DevImage& img, int k, IirScanPlan& P) {
  if (img.channels != 1) return false;
  P = iir_scan_plan(img.width, 1, k, kIirScanThreads);
  return P.bytes <= size_t(max_smem_optin());
}

// Whole rows in shared memory (iir_rows.cuh) for a rows pass: two blocks per SM where the row fits half an SM,
// else one; false where a row does not fit one block (more than 1024 tiles x channels, or the opt-in maximum).
bool plan_rows(const DevImage& img, int k, IirRowsPlan& P) {
  if (!iir_tuning().rows || iir_tuning().lines || img.pad != 0 || img.f64) return false;
  return iir_rows_plan(img.width, img.height, img.channels, k, half_sm_budget(), P) ||
         iir_rows_plan(img.width, img.height, img.channels, k, size_t(max_smem_optin()), P);
}

// Whether this axis runs the tile schedule: columns, and rows that whole rows do not take: rows of more than one
// channel (H100, 4096^2: RGBA rows 0.41 ms either way, Deriche and 1024^2 faster as tiles; one-channel rows 0.09 ms
// faster as the scan), and one-channel rows the scan cannot hold.
bool use_tiles(int axis, const DevImage& img, int k) {
  if (iir_tuning().lines || img.pad != 0 || img.f64) return false;
  if (axis == 1) return true;
  IirRowsPlan R;
  if (plan_rows(img, k, R)) return false;
  IirScanPlan P;
  return img.channels > 1 || !plan_scan(img, k, P);
}

template <int KT, bool REAL1>
Status run_scan(const DevImage& src, const DevImage& dst, const IirScanPlan& P, Border b, const IirCoeffs& co,
                cudaStream_t s) {
  const int rowv = src.width * src.channels;
  const long long blocks = src.height;
  if (blocks > 0x7fffffffLL) return Status::fail("CUDA iir1d: image too large");
  if (blocks == 0) return Status::success();
  auto k = iir1d_scan_kernel<1, KT, REAL1>;
  if (Status st = allow_smem(k, P.bytes, true); !st) return st;
  k<<<unsigned(blocks), kIirScanThreads, P.bytes, s>>>(static_cast<const float*>(src.data),
                                                       static_cast<float*>(dst.data), rowv, P,
                                                       iir_border(co, P.n, b), co);
  return cuda_status(cudaGetLastError(), "launching iir1d (segment scan)");
}

}  // namespace

IirTuning& iir_tuning() {
  static IirTuning t = [] {
    IirTuning d;
    if (const char* e = std::getenv("GPUBLUR_CUDA_IIR_PAIR"); e && *e) d.pair = std::atoi(e) != 0;
    if (const char* e = std::getenv("GPUBLUR_CUDA_IIR_ROWS"); e && *e) d.rows = std::atoi(e) != 0;
    if (const char* e = std::getenv("GPUBLUR_CUDA_IIR_COLTILE"); e && *e) d.col_tile = std::atoi(e);
    if (const char* e = std::getenv("GPUBLUR_CUDA_IIR_2D"); e && *e) d.two_d = std::atoi(e);
    if (const char* e = std::getenv("GPUBLUR_CUDA_IIR_COLS_BLOCK"); e && *e) d.cols_block = std::atoi(e);
    return d;
  }();
  return t;
}

Status iir_coeffs(const std::vector<float>& taps, IirCoeffs& co) {
  const std::vector<IirTerm> terms = iir_terms_from_taps(taps);
  if (terms.empty() || terms.size() > size_t(kMaxIirTerms)) return Status::fail("CUDA iir1d: bad term count");
  co.k = int(terms.size());
  for (int t = 0; t < kMaxIirTerms; ++t) {
    const bool on = t < co.k;
    co.pr[t] = on ? terms[size_t(t)].p.real() : 0.0;
    co.pi[t] = on ? terms[size_t(t)].p.imag() : 0.0;
    co.cr[t] = on ? terms[size_t(t)].c.real() : 0.0;
    co.ci[t] = on ? terms[size_t(t)].c.imag() : 0.0;
    co.fpr[t] = float(co.pr[t]), co.fpi[t] = float(co.pi[t]);
    co.fcr[t] = float(co.cr[t]), co.fci[t] = float(co.ci[t]);
    const Cplx ph = cpow(Cplx{co.pr[t], co.pi[t]}, kIirColTile / 2);
    co.phr[t] = ph.re, co.phi[t] = ph.im;
  }
  return Status::success();
}

// The tile plan of a pass: rows (and the pair's columns) in tiles of kIirTile; columns in tiles of kIirColTile
// where those still make enough threads to fill the GPU several times over, else kIirTile (docs/performance.md,
// iir, "Column tiles of 64").
static IirTilePlan tile_plan(int axis, const DevImage& src, int k) {
  int tile = kIirTile;
  if (axis == 1) {
    const int forced = iir_tuning().col_tile;
    const long long items = (long long)src.width * src.channels * ((src.height + kIirColTile - 1) / kIirColTile);
    tile = forced == kIirTile || forced == kIirColTile ? forced : items >= kIirColTileMinItems ? kIirColTile : kIirTile;
  }
  return iir_tile_plan(axis == 0, src.width, src.height, src.channels, k, tile);
}

size_t iir1d_scratch(const Pass& pass, const DevImage& src) {
  IirCoeffs co;
  if (!iir_coeffs(pass.taps, co).ok() || !use_tiles(pass.axis, src, co.k)) return 0;
  if (IirColsPlan C; pass.axis == 1 && plan_cols_block(src, co, C)) return 0;
  return tile_plan(pass.axis, src, co.k).scratch_bytes();
}

// The pair runs fused where both passes run as tiles (rows of 2-4 channels: the block's kIirTile * ch threads)
// and the grid fits.
bool pair_plans(const Pass& p, const DevImage& src, IirCoeffs& co, IirTilePlan& P, IirTilePlan& Pc) {
  if (!iir_tuning().pair || !iir_coeffs(p.taps, co).ok() || src.channels < 2 || src.channels > 4) return false;
  if (!use_tiles(0, src, co.k) || !use_tiles(1, src, co.k)) return false;  // (rows whole: not the pair)
  P = iir_tile_plan(true, src.width, src.height, src.channels, co.k);
  Pc = iir_tile_plan(false, src.width, src.height, src.channels, co.k);
  return (long long)Pc.ntiles * P.ntiles <= 0x7fffffffLL && P.items() <= 0x7fffffffLL * kTileThreads &&
         Pc.items() <= 0x7fffffffLL * kTileThreads;
}

// The pair as 2D tiles (iir_2d.cuh): RGBA images the grid of tiles fits, where iir2d_measured_faster says.
static bool plan_2d(const Pass& p, const DevImage& src, IirCoeffs& co, Iir2dPlan& P) {
  const int mode = iir_tuning().two_d;  // 0 never, 1 by the measured rule, 2 always (tests)
  if (!iir_tuning().pair || mode == 0 || iir_tuning().lines || src.channels != 4 || src.pad != 0 || src.f64 ||
      src.width == 0 || src.height == 0 || !iir_coeffs(p.taps, co).ok())
    return false;
  if (mode == 1 && !iir2d_measured_faster(src.width, src.height, co)) return false;
  P = iir2d_plan(src.width, src.height, co.k);
  return (long long)P.tx * P.ty <= 0x7fffffffLL && P.Pr.lines <= 0x7fffffff / (2 * kMaxIirTerms) &&
         P.Pc.lines <= 0x7fffffff / (2 * kMaxIirTerms);
}

size_t iir1d_pair_scratch(const Pass& p, const DevImage& src) {
  IirCoeffs co;
  if (Iir2dPlan P2; plan_2d(p, src, co, P2)) return P2.scratch_bytes();
  IirTilePlan P, Pc;
  if (!pair_plans(p, src, co, P, Pc)) return 0;
  return (P.scratch_bytes() + 255) / 256 * 256 + Pc.scratch_bytes();
}

Status launch_iir1d_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid, const DevImage& dst,
                         void* scratch, size_t scratch_bytes, cudaStream_t s, std::string& path) {
  if (src.pad != 0 || mid.pad != 0 || dst.pad != 0 || src.f64 || mid.f64 || dst.f64)
    return Status::fail("CUDA iir1d: padded or float64 image");
  IirCoeffs co;
  if (q.taps != p.taps || q.border != p.border) return Status::fail("CUDA iir1d: the pair's passes differ");
  if (src.width == 0 || src.height == 0) return Status::success();  // (no empty grids)
  const size_t need = iir1d_pair_scratch(p, src);
  if (scratch == nullptr || scratch_bytes < need) return Status::fail("CUDA iir1d: no scratch for the pair");
  if (Iir2dPlan P2; plan_2d(p, src, co, P2)) {
    path = "iir1d-2d-tiles";
    return with_iir_form(co, [&](auto kt, auto r1) {
      return run_2d<decltype(kt)::value, decltype(r1)::value>(src, dst, P2, p.border, co, scratch, s);
    });
  }
  IirTilePlan P, Pc;
  if (!pair_plans(p, src, co, P, Pc)) return Status::fail("CUDA iir1d: the x/y pair does not run as tiles here");
  path = "iir1d-tiles-pair";
  return with_iir_form(co, [&](auto kt, auto r1) {
    return run_pair<decltype(kt)::value, decltype(r1)::value>(src, mid, dst, P, Pc, p.border, co, scratch, s);
  });
}

Status launch_iir1d(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch, size_t scratch_bytes,
                    cudaStream_t s, std::string& path) {
  if (src.pad != 0 || dst.pad != 0 || src.f64 || dst.f64) return Status::fail("CUDA iir1d: padded or float64 image");
  IirCoeffs co;
  if (Status st = iir_coeffs(pass.taps, co); !st) return st;
  const long long lines = (long long)(pass.axis == 0 ? src.height : src.width) * src.channels;
  if (lines == 0) return Status::success();
  if (lines > 0x7fffffffLL) return Status::fail("CUDA iir1d: image too large");
  if (IirRowsPlan R; pass.axis == 0 && plan_rows(src, co.k, R)) {
    path = "iir1d-whole-rows";
    return run_rows(src, dst, R, pass.border, co, s);
  }
  if (IirColsPlan C; pass.axis == 1 && plan_cols_block(src, co, C)) {
    path = "iir1d-cols-block";
    return with_iir_form(co, [&](auto kt, auto r1) {
      return run_cols_block<decltype(kt)::value, decltype(r1)::value>(src, dst, C, pass.border, co, s);
    });
  }
  if (use_tiles(pass.axis, src, co.k)) {
    const IirTilePlan P = tile_plan(pass.axis, src, co.k);
    if (P.items() > 0x7fffffffLL * kTileThreads) return Status::fail("CUDA iir1d: image too large");
    if (scratch == nullptr || scratch_bytes < P.scratch_bytes())
      return Status::fail("CUDA iir1d: no scratch for the tiles");
    path = pass.axis == 0 ? "iir1d-tiles-rows" : "iir1d-tiles-cols";
    return with_iir_form(co, [&](auto kt, auto r1) {
      constexpr int KT = decltype(kt)::value;
      constexpr bool R1 = decltype(r1)::value;
      if (P.tile == kIirColTile) return run_tiles<KT, R1, kIirColTile>(src, dst, P, pass.border, co, scratch, s);
      return run_tiles<KT, R1, kIirTile>(src, dst, P, pass.border, co, scratch, s);
    });
  }
  IirScanPlan P;
  if (!iir_tuning().lines && pass.axis == 0 && plan_scan(src, co.k, P)) {
    path = "iir1d-scan-rows";
    if (P.bytes > half_sm_budget()) path += "-1sm";
    return with_iir_form(co, [&](auto kt, auto r1) {
      return run_scan<decltype(kt)::value, decltype(r1)::value>(src, dst, P, pass.border, co, s);
    });
  }
  const unsigned blocks = unsigned((lines + kThreads - 1) / kThreads);
  iir1d_kernel<<<blocks, kThreads, 0, s>>>(static_cast<const float*>(src.data), static_cast<float*>(dst.data),
                                          src.width, src.height, src.channels, pass.axis,
                                          iir_border(co, pass.axis == 0 ? src.width : src.height, pass.border), co);
  path = pass.axis == 0 ? "iir1d-rows" : "iir1d-cols";
  return cuda_status(cudaGetLastError(), "launching iir1d");
}

}  // namespace gpublur::cuda
