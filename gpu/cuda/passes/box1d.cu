// box1d: a cascade of boxes of the odd widths w_1..w_n along an axis, on the line extended once by
// R = sum (w_i - 1) / 2 with the border mode (core/reference/passes/box1d.cpp is the definition). The cost does
// not depend on the widths: each box is a running sum.
//
// Schedule: a block holds lines in shared memory, extended by R on both sides, and runs the whole cascade
// there, so device memory sees one read and one write of the image per axis.
//  - rows (x): one row per block (a 4096-pixel RGBA row is 64 KiB); the halo is the row's own border-remapped
//    pixels, so nothing is read twice. Results are copied out of shared memory in coalesced rows. Rows run in
//    128-thread blocks at four or five an SM where that costs less (box_cascade.cuh's plan_rows_lines: 4096-wide RGBA
//    rows then in two segments with their halos; five where the registers allow it, rows_blocks_per_sm). Rows of one
//    and two channels may run four or two to a block as float4 lines (box_rows_packed_kernel).
//  - columns (y): a strip of 128, 64, 32 or 16 bytes per row (8, 4, 2 or 1 float4, or 4x as many float value
//    columns; any channel count) down the column; the box runs on each value column, independent of channels.
//    Results go straight from registers to device memory. Wide strips move whole 128-byte lines per load and
//    store but hold fewer rows per block (more segments, more halo); box_cascade.cuh's plan_axis_lines weighs
//    strips against segments with costs measured per strip width, and plan_lines_quarter the quarter blocks too
//    (4096^2 at sigma 3: 13 segments in 128-thread blocks).
//  - lines longer than the block's shared memory (BoxTuning::smem_budget, by default half an SM so that two
//    blocks share one and overlap their loads with each other's math) are cut into segments, each loaded with
//    its halo of R (from L2: neighbouring segments run in neighbouring blocks), or, where that costs less than
//    many short segments, take the opt-in maximum at one block per SM; lines whose halo fits neither run the
//    moving-average kernel (global memory, one thread per line).
//  - columns of three boxes of large widths on large images walk down the column instead (box_walk.cuh: no halo,
//    float64 running sums; plan_col_walk weighs it against the segments), at one block an SM where its ring outgrows
//    two (sigma 250 and up).
//  - the x/y pair (core's box_pair) may run as one kernel on 2D tiles with their halo (BoxTuning::
//    fused_max_radius): one read and one write of the image instead of two of each, the halo read from L2.
//
// The block-level cascade and the planning of chunks and segments: box_cascade.cuh.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "gpu/cuda/passes/box_cascade.cuh"
#include "gpu/cuda/passes/box_rows_packed.cuh"
#include "gpu/cuda/passes/box_walk.cuh"

namespace gpublur::cuda {
namespace {

constexpr int kLineThreads = 256;
// Line kernels ask L2 for the input of the block this many block indices ahead while they load their own: that
// block's loads then come from L2, and its DRAM reads overlap this block's cascade (two blocks per SM overlap
// load and math only by chance). H100, 4096^2 RGBA box: sigma 3 0.480 -> 0.465 ms, sigma 12 0.499 -> 0.482;
// 32, 48 and 66 blocks ahead measured alike, 132-200 slower (docs/performance.md, "L2 prefetch ahead").
constexpr int kPrefetchAhead = 32;
constexpr int kFusedTW = 64, kFusedTH = 32;

// Rows: block = (row, segment); positions a0 - R .. a0 + seg_len + R - 1 of the row (EXACT: then SMAX zeros,
// cascade_lines' padding; DIRECT: its window starts without prefixes). Chunks of 5 (short rows: 1024^2 at sigma
// 3-48) fit three blocks per SM in 85 registers: rows pass 0.028 -> 0.026 ms at 1024^2 RGBA sigma 3 (H100); the
// columns' chunks of 5 (one-channel images) stay at two (three measured no better there). NT: blocks of
// kLineThreads, or of kQuarterThreads at four or five an SM (where plan_lines_quarter finds them cheaper;
// box_cascade.cuh's rows_blocks_per_sm), or of kEighthThreads at eight (plan_rows_lines).
template <typename T, int SMAX, bool EXACT, bool DIRECT = false, int NT = kLineThreads>
__global__ void __launch_bounds__(NT, rows_blocks_per_sm(NT, VecInfo<T>::K, SMAX))
    box_rows_kernel(const T* __restrict__ in, T* __restrict__ out, int W, Border b, const __grid_constant__ BoxWidths bw,
                    int S, int seg_len, int nseg, unsigned base_off, unsigned tot_off, int ahead) {
  wait_for_previous_grid();  // launched dependent (PDL): nothing read or written before this
  extern __shared__ float4 smem4[];
  char* sm = reinterpret_cast<char*>(smem4);
  T* s = reinterpret_cast<T*>(sm);
  const int row = int(blockIdx.x) / nseg, seg = int(blockIdx.x) % nseg;
  const int R = bw.reach, a0 = seg * seg_len, len = seg_len + 2 * R;
  const T* src = in + size_t(row) * W;
  // Positions [lo, hi) are inside the row and load straight; the halo and the padding go through the border mode
  // (a remap per position was a seventh of the kernel's instructions).
  const int lo = min(len, max(0, R - a0)), hi = max(lo, min(len, W - a0 + R)), nin = hi - lo;
  const T* direct = src + (a0 - R + lo);
#pragma unroll 4
  for (int q = threadIdx.x; q < nin; q += blockDim.x) cp_async_pixel(s + lo + q, direct + q, true);
  if (ahead > 0 && int(blockIdx.x) + ahead < int(gridDim.x)) {  // the span block + ahead will load (kPrefetchAhead)
    const int nb = int(blockIdx.x) + ahead, a1 = (nb % nseg) * seg_len;
    const int x0 = max(0, a1 - R), x1 = min(W, a1 + seg_len + R);
    const char* p = reinterpret_cast<const char*>(in + size_t(nb / nseg) * W + x0);
    const size_t bytes = size_t(max(0, x1 - x0)) * sizeof(T);
    for (size_t o = size_t(threadIdx.x) * 128; o < bytes; o += size_t(blockDim.x) * 128) prefetch_l2(p + o);
  }
  for (int i = threadIdx.x; i < len + (EXACT ? SMAX : 0) - nin; i += blockDim.x) {
    const int q = i < lo ? i : i + nin;
    const int x = q < len ? remap_index(a0 - R + q, W, b) : -1;
    cp_async_pixel(s + q, x < 0 ? in : src + x, x >= 0);
  }
  cp_async_wait_all();
  __syncthreads();
  cascade_lines<DeviceBlock, T, SMAX, true, EXACT, DIRECT>(s, 1, 0, 1, len, bw, S,
                                                           reinterpret_cast<double*>(sm + base_off),
                                                           reinterpret_cast<float*>(sm + tot_off), NoStore{});
  T* dst = out + size_t(row) * W;
  const int n = min(seg_len, W - a0);
#pragma unroll 4
  for (int j = threadIdx.x; j < n; j += blockDim.x) dst[a0 + j] = s[j];
}

// Rows of one- and two-channel images packed into float4 lines (where box_cascade.cuh's plan_rows_packed takes them):
// block = (group of P = 4 / K rows, segment), each position of the line a float4 of the P rows' values there (K floats
// each), so the cascade is box_rows_kernel's float4 one, component by component the same function. Why: a row block's
// time goes more to its line (window starts, chunk sums, barriers) than to its bytes: float and float2 rows ran 2.3x
// and 1.7x slower a byte than RGBA rows (H200, 4096^2 box sigma 200: 0.127 / 0.180 / 0.217 ms for one / two / four
// channels); packed, 0.106 and 0.151 (docs/performance.md "Rows of one and two channels packed"). A thread serves one
// row (box_rows_packed.cuh PackedLane): 16-byte loads and stores of P positions spread over the tile, single values
// where a row is not 16-byte aligned and for the halo; rows past the image load the last one and are not stored.
template <typename E, int SMAX, bool EXACT, bool DIRECT = false, int NT = kLineThreads>
__global__ void __launch_bounds__(NT, rows_blocks_per_sm(NT, 4, SMAX))
    box_rows_packed_kernel(const E* __restrict__ in, E* __restrict__ out, int W, int H, Border b,
                           const __grid_constant__ BoxWidths bw, int S, int seg_len, int nseg, unsigned base_off,
                           unsigned tot_off, int ahead) {
  constexpr int P = 4 / VecInfo<E>::K;  // rows a block
  wait_for_previous_grid();             // launched dependent (PDL): nothing read or written before this
  extern __shared__ float4 smem4[];
  char* sm = reinterpret_cast<char*>(smem4);
  E* se = reinterpret_cast<E*>(sm);  // se[q P + r]: row r's value at position q
  const int grp = int(blockIdx.x) / nseg, seg = int(blockIdx.x) % nseg, row0 = grp * P;
  const int R = bw.reach, a0 = seg * seg_len, len = seg_len + 2 * R;
  const int lo = min(len, max(0, R - a0)), hi = max(lo, min(len, W - a0 + R)), nin = hi - lo;
  if (ahead > 0 && int(blockIdx.x) + ahead < int(gridDim.x)) {  // the spans block + ahead will load (kPrefetchAhead)
    const int nb = int(blockIdx.x) + ahead, a1 = (nb % nseg) * seg_len, r1 = (nb / nseg) * P;
    const int x0 = max(0, a1 - R), x1 = min(W, a1 + seg_len + R);
    const size_t bytes = size_t(max(0, x1 - x0)) * sizeof(E), per = (bytes + 127) / 128;
    for (size_t i = threadIdx.x; i < per * P; i += blockDim.x) {
      const int r = int(i / per);
      if (r1 + r < H) prefetch_l2(reinterpret_cast<const char*>(in + size_t(r1 + r) * W + x0) + (i % per) * 128);
    }
  }
  // Positions [lo, hi) are inside the rows: 16-byte loads (load_quads) from the first x that is a multiple of P where
  // rows start 16-byte aligned, single values (cp.async, issued first) before it and after the last whole quad; then
  // the halo and the padding through the border mode. A thread serves one row (PackedLane).
  using Lane = PackedLane<E, NT>;
  const Lane ln;
  constexpr int STEP = Lane::STEP;
  const E* row = in + size_t(min(row0 + ln.r, H - 1)) * W;
  E* mine = se + ln.r;  // position q of this thread's row: mine[q P]
  const bool quads =
      W % P == 0 && reinterpret_cast<uintptr_t>(in) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  const int x0 = a0 - R + lo, head = quads ? min(nin, (P - x0 % P) % P) : nin, nq = quads ? (nin - head) / P : 0;
  for (int k = ln.m0; k < nin - nq * P; k += STEP) {
    const int q = lo + (k < head ? k : k + nq * P);
    cp_async_pixel(mine + q * P, row + (a0 - R + q), true);
  }
  for (int k = ln.m0; k < len + (EXACT ? SMAX : 0) - nin; k += STEP) {
    const int q = k < lo ? k : k + nin;
    const int x = q < len ? remap_index(a0 - R + q, W, b) : -1;
    cp_async_pixel(mine + q * P, x < 0 ? in : row + x, x >= 0);
  }
  load_quads<E, NT>(se, lo + head, row + x0 + head, nq);
  cp_async_wait_all();
  __syncthreads();
  cascade_lines<DeviceBlock, float4, SMAX, true, EXACT, DIRECT>(smem4, 1, 0, 1, len, bw, S,
                                                                reinterpret_cast<double*>(sm + base_off),
                                                                reinterpret_cast<float*>(sm + tot_off), NoStore{});
  const int n = min(seg_len, W - a0), sh = quads ? min(n, (P - a0 % P) % P) : n, nqs = quads ? (n - sh) / P : 0;
  if (row0 + ln.r >= H) return;  // past the image (no barrier follows)
  E* dst = out + size_t(row0 + ln.r) * W + a0;
  store_quads<E, NT>(dst + sh, se, sh, nqs);
  for (int k = ln.m0; k < n - nqs * P; k += STEP) {
    const int j = k < sh ? k : k + nqs * P;
    dst[j] = mine[j * P];
  }
}

// Columns: the image as H rows of `rowv` values V; block = (strip of NL value columns, segment) (EXACT: SMAX
// zero positions after the segment; DIRECT as for rows). NT as for rows. Blocks go strip by strip, so a segment's
// halo rows come from L2 (its neighbours ran just before or after it); segment by segment (the bottom one first,
// where the rows pass's last output may still be in L2, or the top one) measured no faster (H200: box 4096^2
// 0.411 -> 0.416-0.418 ms at sigma 48).
template <typename V, int SMAX, int NL, bool EXACT, bool DIRECT = false, int NT = kLineThreads>
__global__ void __launch_bounds__(NT, NT == kQuarterThreads ? 4 : 2)
    box_cols_kernel(const V* __restrict__ in, V* __restrict__ out, int rowv, int H, Border b,
                    const __grid_constant__ BoxWidths bw, int S, int seg_len, int nseg, unsigned base_off,
                    unsigned tot_off, int ahead) {
  wait_for_previous_grid();  // launched dependent (PDL): nothing read or written before this
  extern __shared__ float4 smem4[];
  char* sm = reinterpret_cast<char*>(smem4);
  V* s = reinterpret_cast<V*>(sm);  // [position][lane]
  const int strip = int(blockIdx.x) / nseg, seg = int(blockIdx.x) % nseg;
  const int R = bw.reach, a0 = seg * seg_len, len = seg_len + 2 * R, col0 = strip * NL;
  // Positions [lo, hi) are rows of the image and load straight; the halo and the padding go through the border
  // mode.
  const int lo = min(len, max(0, R - a0)), hi = max(lo, min(len, H - a0 + R)), nin = hi - lo;
  const V* direct = in + size_t(a0 - R + lo) * rowv + col0;
  {  // A thread keeps one lane l and steps NT / NL rows at a time: a pointer add a copy, where the index arithmetic of
     // i / NL, i % NL and a 64-bit product took about 33 instructions a copy, a quarter of the kernel's (H200, ncu;
     // docs/performance.md, box, "The columns' loads at fixed strides").
    static_assert(NT % NL == 0, "a thread keeps its lane");
    constexpr int QS = NT / NL;
    const int l = int(threadIdx.x) % NL, q0 = int(threadIdx.x) / NL;
    const bool ok = col0 + l < rowv;
    const V* g = ok ? direct + size_t(q0) * rowv + l : in;
    const size_t gstep = ok ? size_t(QS) * size_t(rowv) : 0;
    unsigned d = unsigned(__cvta_generic_to_shared(s + (lo + q0) * NL + l));
#pragma unroll 4
    for (int q = q0; q < nin; q += QS, g += gstep, d += unsigned(QS * NL * sizeof(V))) cp_async_to(d, g, ok);
  }
  if (ahead > 0 && int(blockIdx.x) + ahead < int(gridDim.x)) {  // the rows of block + ahead, a request per row
    const int nb = int(blockIdx.x) + ahead, a1 = (nb % nseg) * seg_len, c1 = (nb / nseg) * NL;
    const int y0 = max(0, a1 - R), y1 = min(H, a1 + seg_len + R);
    constexpr int per = (NL * int(sizeof(V)) + 127) / 128;  // 128-byte lines per row of a strip
    for (int i = threadIdx.x; i < (y1 - y0) * per; i += blockDim.x)
      prefetch_l2(reinterpret_cast<const char*>(in + size_t(y0 + i / per) * rowv + c1) + (i % per) * 128);
  }
  for (int i = threadIdx.x; i < (len + (EXACT ? SMAX : 0) - nin) * NL; i += blockDim.x) {
    const int q0 = i / NL, q = q0 < lo ? q0 : q0 + nin, col = col0 + i % NL;
    const int y = q < len ? remap_index(a0 - R + q, H, b) : -1;
    const bool ok = y >= 0 && col < rowv;
    cp_async_pixel(s + q * NL + i % NL, ok ? in + size_t(y) * rowv + col : in, ok);
  }
  cp_async_wait_all();
  __syncthreads();
  cascade_lines<DeviceBlock, V, SMAX, false, EXACT, DIRECT>(s, NL, 1, NL, len, bw, S,
                                                            reinterpret_cast<double*>(sm + base_off),
                                reinterpret_cast<float*>(sm + tot_off), [&](int l, int j, const V& v) {
                                  const int col = col0 + l, y = a0 + j;
                                  if (col < rowv && y < H) out[size_t(y) * rowv + col] = v;
                                });
}

// Columns as a walk (box_walk.cuh): block = a strip of kWalkFloats of the rowf floats of every row. Three blocks an
// SM where the ring allows (85 registers): 9-10% faster than two at sigma 3-48 in the H200 microbenchmark; one where
// the ring needs more than half an SM (plan_walk_fit).
template <class Taps>
__global__ void __launch_bounds__(kWalkThreads, 3)
    box_walk_kernel(const float* __restrict__ in, float* __restrict__ out, int rowf, int H, Border b, int R, int RL,
                    const __grid_constant__ Taps taps, double inv) {
  wait_for_previous_grid();  // launched dependent (PDL): nothing read or written before this
  extern __shared__ float4 smem4[];
  float* ring = reinterpret_cast<float*>(smem4);
  double* st = reinterpret_cast<double*>(ring + size_t(RL + kWalkRep) * kWalkFloats);
  const int x0 = int(blockIdx.x) * kWalkFloats;
  walk_columns<DeviceBlock>(
      ring, st, RL, H, R, walk_lead(b, R), taps, inv,
      [&](int off, int p, int q) {
        const int y = remap_index(p, H, b), x = x0 + 4 * q;
        const bool ok = y >= 0 && x < rowf;  // rowf is a whole number of float4: a chunk is in or out
        cp_async_pixel(reinterpret_cast<float4*>(ring + off),
                       reinterpret_cast<const float4*>(ok ? in + size_t(y) * rowf + x : in), ok);
      },
      [] { cp_async_wait_all(); },
      [&](int row, int c, float v) {
        if (x0 + c < rowf) out[size_t(row) * rowf + x0 + c] = v;
      });
}

// The x/y pair on a 64 x 32 output tile: the (32 + 2R) x (64 + 2R) input tile, the cascade along its rows
// (outputs left in place at columns 0..63), then along its first 64 columns, stored from registers.
template <typename T, int SMAX>
__global__ void __launch_bounds__(kLineThreads)
    box_fused_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b,
                     const __grid_constant__ BoxWidths bw, int S_rows,
                     int S_cols, unsigned base_off, unsigned tot_off) {
  extern __shared__ float4 smem4[];
  char* sm = reinterpret_cast<char*>(smem4);
  T* s = reinterpret_cast<T*>(sm);
  const int R = bw.reach, rows = kFusedTH + 2 * R, cols = kFusedTW + 2 * R, pitch = cols | 1;
  const int x0 = blockIdx.x * kFusedTW, y0 = grid_row() * kFusedTH;
  if (y0 >= H) return;  // tall_grid's blocks past the image
  for (int i = threadIdx.x; i < rows * cols; i += blockDim.x) {
    const int ry = i / cols, rx = i % cols;
    const int gy = remap_index(y0 - R + ry, H, b), gx = remap_index(x0 - R + rx, W, b);
    const bool ok = gx >= 0 && gy >= 0;
    cp_async_pixel(s + ry * pitch + rx, ok ? in + size_t(gy) * W + gx : in, ok);
  }
  cp_async_wait_all();
  __syncthreads();
  double* base = reinterpret_cast<double*>(sm + base_off);
  float* tot = reinterpret_cast<float*>(sm + tot_off);
  cascade_lines<DeviceBlock, T, SMAX, true>(s, rows, pitch, 1, cols, bw, S_rows, base, tot, NoStore{});
  cascade_lines<DeviceBlock, T, SMAX, false>(s, kFusedTW, 1, pitch, rows, bw, S_cols, base, tot,
                                             [&](int l, int j, const T& v) {
                                               const int x = x0 + l, y = y0 + j;
                                               if (x < W && y < H) out[size_t(y) * W + x] = v;
                                             });
}

// Two blocks per SM (or BoxTuning::smem_budget alone), else one block per SM with the opt-in maximum; also four
// blocks per SM (plan_lines_quarter), unless the budget is set.
LineBudgets line_budgets() {
  const BoxTuning& t = box_tuning();
  const size_t optin = size_t(max_smem_optin());
  LineBudgets lim;
  lim.min_segment = t.min_segment;
  lim.shared = std::min(t.smem_budget > 0 ? size_t(t.smem_budget) : size_t(smem_per_sm()) / 2 - 1024, optin);
  lim.whole = t.smem_budget > 0 ? 0 : optin;  // a set budget is what the caller wants measured
  lim.quarter = t.smem_budget > 0 ? 0 : size_t(smem_per_sm()) / 4 - 1024;
  lim.eighth = t.smem_budget > 0 ? 0 : size_t(smem_per_sm()) / 8 - 1024;
  lim.sms = sm_count();
  if (t.quarter == 0) lim.quarter = lim.eighth = 0;
  if (t.quarter == 1 && lim.quarter > 0) lim.shared = lim.whole = 0;  // (no walk then: it takes the shared budgets)
  return lim;
}

// Lines of float4 run cascade_lines' EXACT form where the plan allows (kExactChunks, one instantiation each);
// other value types the general one. Either form DIRECT where the plan says.
template <typename T>
constexpr bool exact_lines() { return std::is_same_v<T, float4>; }

// The line kernel for plan p: make(chunk, exact, direct), each an integral_constant; the general form runs
// chunks up to SMAX, the EXACT form (EXACT_OK only) one of kExactChunks.
template <int SMAX, bool EXACT_OK, typename Make>
auto line_kernel(const LinePlan& p, Make make) {
  static_assert(sizeof(kExactChunks) / sizeof(int) == 6, "one case per EXACT chunk");
  using Y = std::true_type;
  using N = std::false_type;
  const auto pick = [&](auto s, auto exact) { return p.direct ? make(s, exact, Y{}) : make(s, exact, N{}); };
  const auto general = pick(std::integral_constant<int, SMAX>{}, N{});
  if constexpr (EXACT_OK) {
    if (p.exact) switch (p.S) {
        case 5: return pick(std::integral_constant<int, 5>{}, Y{});
        case 9: return pick(std::integral_constant<int, 9>{}, Y{});
        case 13: return pick(std::integral_constant<int, 13>{}, Y{});
        case 17: return pick(std::integral_constant<int, 17>{}, Y{});
        case 19: return pick(std::integral_constant<int, 19>{}, Y{});
        case 21: return pick(std::integral_constant<int, 21>{}, Y{});
        default: break;
      }
  }
  return general;
}

template <typename T, int NT>
auto rows_kernel_of(const LinePlan& p) {
  return line_kernel<box_smax<T>(), exact_lines<T>()>(p, [](auto s, auto exact, auto direct) {
    return box_rows_kernel<T, decltype(s)::value, decltype(exact)::value, decltype(direct)::value, NT>;
  });
}
template <typename E, int NT>
auto packed_rows_kernel_of(const LinePlan& p) {
  return line_kernel<box_smax<float4>(), true>(p, [](auto s, auto exact, auto direct) {
    return box_rows_packed_kernel<E, decltype(s)::value, decltype(exact)::value, decltype(direct)::value, NT>;
  });
}
template <typename E>
auto packed_rows_kernel(const AxisPlan& ap) {
  return ap.nth == kEighthThreads    ? packed_rows_kernel_of<E, kEighthThreads>(ap.lines)
         : ap.nth == kQuarterThreads ? packed_rows_kernel_of<E, kQuarterThreads>(ap.lines)
                                     : packed_rows_kernel_of<E, kLineThreads>(ap.lines);
}
template <typename T>
auto rows_kernel(const AxisPlan& ap) {
  return ap.nth == kEighthThreads    ? rows_kernel_of<T, kEighthThreads>(ap.lines)
         : ap.nth == kQuarterThreads ? rows_kernel_of<T, kQuarterThreads>(ap.lines)
                                     : rows_kernel_of<T, kLineThreads>(ap.lines);
}

template <typename V, int NL, int NT>
auto cols_kernel_of(const LinePlan& p) {
  return line_kernel<box_smax<V>(), exact_lines<V>()>(p, [](auto s, auto exact, auto direct) {
    return box_cols_kernel<V, decltype(s)::value, NL, decltype(exact)::value, decltype(direct)::value, NT>;
  });
}
template <typename V, int NL>
auto cols_kernel(const AxisPlan& ap) {
  return ap.nth == kQuarterThreads ? cols_kernel_of<V, NL, kQuarterThreads>(ap.lines)
                                   : cols_kernel_of<V, NL, kLineThreads>(ap.lines);
}

std::string seg_text(int nseg) { return nseg > 1 ? "-seg" + std::to_string(nseg) : ""; }
std::string sm_text(const AxisPlan& p) { return p.whole_sm ? "-1sm" : ""; }

// Rows of one and two channels may run packed, 4 / K rows a float4 line (box_cascade.cuh plan_rows_packed).
template <typename T>
constexpr int packed_rows_of() { return std::is_same_v<T, float4> ? 1 : 4 / VecInfo<T>::K; }

// Rows also weigh blocks of kQuarterThreads at four an SM and kEighthThreads at eight (box_cascade.cuh's
// plan_rows_lines), and for one and two channels the packed lines.
template <typename T>
bool plan_rows(const DevImage& img, const BoxWidths& bw, AxisPlan& p) {
  if constexpr (packed_rows_of<T>() > 1)
    return plan_rows_packed(img.width, img.height, bw, sizeof(T), VecInfo<T>::K, box_smax<T>(), kLineThreads,
                            line_budgets(), exact_lines<T>(), box_tuning().packed_rows, p);
  return plan_rows_lines(img.width, img.height, bw, sizeof(T), VecInfo<T>::K, box_smax<T>(), kLineThreads,
                         line_budgets(), exact_lines<T>(), p);
}

template <typename T>
Status run_rows_packed(const DevImage& src, const DevImage& dst, Border b, const BoxWidths& bw, const AxisPlan& ap,
                       cudaStream_t st, std::string& path) {
  const LinePlan& p = ap.lines;
  auto k = packed_rows_kernel<T>(ap);
  if (Status s = allow_smem(k, p.smem.bytes, true); !s) return s;
  const long long blocks = (long long)((src.height + packed_rows_of<T>() - 1) / packed_rows_of<T>()) * p.nseg;
  if (blocks > 0x7fffffffLL) return Status::fail("CUDA box1d: image too large");
  const cudaError_t e = launch_dependent(k, unsigned(blocks), unsigned(ap.nth), p.smem.bytes, st,
                                         static_cast<const T*>(src.data), static_cast<T*>(dst.data), src.width,
                                         src.height, b, bw, p.S, p.seg_len, p.nseg, unsigned(p.smem.base_off),
                                         unsigned(p.smem.tot_off), kPrefetchAhead);
  const char* shape = ap.nth == kEighthThreads ? "-eighth" : ap.nth == kQuarterThreads ? "-quarter" : "";
  path = std::string("box1d-rows-packed") + shape + sm_text(ap) + seg_text(p.nseg);
  return cuda_status(e, "launching box1d (packed rows)");
}

template <typename T>
Status run_rows(const DevImage& src, const DevImage& dst, Border b, const BoxWidths& bw, const AxisPlan& ap,
                cudaStream_t st, std::string& path) {
  if constexpr (packed_rows_of<T>() > 1)
    if (ap.packed) return run_rows_packed<T>(src, dst, b, bw, ap, st, path);
  const LinePlan& p = ap.lines;
  auto k = rows_kernel<T>(ap);
  if (Status s = allow_smem(k, p.smem.bytes, true); !s) return s;
  const long long blocks = (long long)src.height * p.nseg;
  if (blocks > 0x7fffffffLL) return Status::fail("CUDA box1d: image too large");
  const cudaError_t e = launch_dependent(k, unsigned(blocks), unsigned(ap.nth), p.smem.bytes, st,
                                         static_cast<const T*>(src.data), static_cast<T*>(dst.data), src.width, b, bw,
                                         p.S, p.seg_len, p.nseg, unsigned(p.smem.base_off), unsigned(p.smem.tot_off),
                                         kPrefetchAhead);
  const char* shape = ap.nth == kEighthThreads ? "-eighth" : ap.nth == kQuarterThreads ? "-quarter" : "";
  path = std::string("box1d-rows") + shape + sm_text(ap) + seg_text(p.nseg);
  return cuda_status(e, "launching box1d (rows)");
}

// Columns: float4 values where a row is a whole number of them, else floats.
bool cols_vec4(const DevImage& img) { return (size_t(img.width) * img.channels) % 4 == 0; }

// Strips of 128, 64, 32 or 16 bytes (box_cascade.cuh's column_strips weighs them); BoxTuning::strip_bytes forces
// one.
template <typename V>
bool plan_cols(const DevImage& img, const BoxWidths& bw, AxisPlan& p) {
  constexpr int K = VecInfo<V>::K;
  const int force = box_tuning().strip_bytes, n = img.height;
  const long long across = (long long)img.width * img.channels / K;  // value columns
  const LineBudgets lim = line_budgets();
  const bool ex = exact_lines<V>();
  for (const StripOption& o : column_strips<K>())
    if (force == int(o.nl * sizeof(V)))
      return plan_lines_quarter(n, across, bw, {o}, sizeof(V), K, box_smax<V>(), kLineThreads, lim, ex, p);
  return plan_lines_quarter(n, across, bw, column_strips<K>(), sizeof(V), K, box_smax<V>(), kLineThreads, lim, ex, p);
}

template <typename V, int NL>
Status run_cols_nl(const DevImage& src, const DevImage& dst, Border b, const BoxWidths& bw, const AxisPlan& ap,
                   cudaStream_t st, std::string& path) {
  const LinePlan& p = ap.lines;
  const int rowv = int(size_t(src.width) * src.channels * sizeof(float) / sizeof(V));
  const long long blocks = (long long)((rowv + NL - 1) / NL) * p.nseg;
  if (blocks > 0x7fffffffLL) return Status::fail("CUDA box1d: image too large");
  auto k = cols_kernel<V, NL>(ap);
  if (Status s = allow_smem(k, p.smem.bytes, true); !s) return s;
  // Prefetch only for strips of whole 128-byte lines: narrower strips (sigma 100+ at 4096^2) load long halos
  // from L2 already, and whole lines asked for a 32-byte strip measured 0.425 -> 0.51 ms (H100).
  const int ahead = NL * sizeof(V) >= 128 ? kPrefetchAhead : 0;
  const cudaError_t e = launch_dependent(k, unsigned(blocks), unsigned(ap.nth), p.smem.bytes, st,
                                         static_cast<const V*>(src.data), static_cast<V*>(dst.data), rowv, src.height,
                                         b, bw, p.S, p.seg_len, p.nseg, unsigned(p.smem.base_off),
                                         unsigned(p.smem.tot_off), ahead);
  path = std::string("box1d-cols") + (ap.nth == kQuarterThreads ? "-quarter" : "") +
         (NL * sizeof(V) != 32 ? "-strip" + std::to_string(NL * sizeof(V)) : "") + sm_text(ap) + seg_text(p.nseg);
  return cuda_status(e, "launching box1d (columns)");
}

template <typename V>
Status run_cols(const DevImage& src, const DevImage& dst, Border b, const BoxWidths& bw, const AxisPlan& ap,
                cudaStream_t st, std::string& path) {
  constexpr int per16 = int(16 / sizeof(V));  // the strips of column_strips
  if (ap.nl == 8 * per16) return run_cols_nl<V, 8 * per16>(src, dst, b, bw, ap, st, path);
  if (ap.nl == 4 * per16) return run_cols_nl<V, 4 * per16>(src, dst, b, bw, ap, st, path);
  if (ap.nl == 2 * per16) return run_cols_nl<V, 2 * per16>(src, dst, b, bw, ap, st, path);
  if (ap.nl == per16) return run_cols_nl<V, per16>(src, dst, b, bw, ap, st, path);
  return Status::fail("CUDA box1d: no column kernel for " + std::to_string(ap.nl) + " lines per block");
}

// The fused pair's chunks and shared memory (both cascades share the prefix / total arrays).
struct FusedPlan {
  int S_rows = 0, S_cols = 0;
  SmemLayout smem;
};

template <typename T>
bool plan_fused(const BoxWidths& bw, FusedPlan& p) {
  constexpr int K = VecInfo<T>::K;
  const int R = bw.reach, rows = kFusedTH + 2 * R, cols = kFusedTW + 2 * R, pitch = cols | 1;
  const int h1 = bw.span(0) - 1;
  p.S_rows = choose_chunk(box_smax<T>(), kLineThreads, [&](int s) { return (long long)rows * ((cols - h1 + s - 1) / s); });
  p.S_cols = choose_chunk(box_smax<T>(), kLineThreads, [&](int s) { return (long long)kFusedTW * ((rows - h1 + s - 1) / s); });
  // Both cascades share the prefix and total arrays: room for the larger of each.
  const SmemLayout a = smem_layout(0, cols, p.S_rows, rows, K), c = smem_layout(0, rows, p.S_cols, kFusedTW, K);
  p.smem.base_off = (size_t(rows) * pitch * sizeof(T) + 15) / 16 * 16;
  p.smem.tot_off = p.smem.base_off + std::max(a.tot_off - a.base_off, c.tot_off - c.base_off);
  p.smem.bytes = p.smem.tot_off + std::max(a.bytes - a.tot_off, c.bytes - c.tot_off);
  return p.smem.bytes <= size_t(max_smem_optin());
}

template <typename T>
Status run_fused(const DevImage& src, const DevImage& dst, Border b, const BoxWidths& bw, const FusedPlan& p,
                 cudaStream_t st, std::string& path) {
  auto k = box_fused_kernel<T, box_smax<T>()>;
  if (Status s = allow_smem(k, p.smem.bytes, true); !s) return s;
  const dim3 grid = tall_grid((src.width + kFusedTW - 1) / kFusedTW, (src.height + kFusedTH - 1) / kFusedTH);
  k<<<grid, kLineThreads, p.smem.bytes, st>>>(static_cast<const T*>(src.data), static_cast<T*>(dst.data), src.width,
                                              src.height, b, bw, p.S_rows, p.S_cols, unsigned(p.smem.base_off),
                                              unsigned(p.smem.tot_off));
  path = "box1d-fused-2d";
  return cuda_status(cudaGetLastError(), "launching box1d (fused x/y tiles)");
}

// The column walk where it costs less than the segments (p, when seg) or they do not fit; BoxTuning::walk forces it
// (1: wherever it applies) or never (0); a forced strip width is the segments' A/B, so no walk then.
bool plan_col_walk(const DevImage& img, const BoxWidths& bw, Border b, bool seg, const AxisPlan& p, WalkPlan& walk) {
  const BoxTuning& t = box_tuning();
  if (t.walk == 0 || (t.walk < 0 && t.strip_bytes != 0)) return false;
  WalkPlan w;
  const LineBudgets lim = line_budgets();
  if (!plan_walk_fit(img.height, (long long)img.width * img.channels, bw, walk_lead(b, bw.reach), lim.shared, lim.whole,
                     lim.sms, w))
    return false;
  if (t.walk < 0 && !walk_cheaper(w, seg, p.cost)) return false;
  walk = w;
  return true;
}

// Whether the pass runs in shared memory (and how), per channel type: segments (p) or, for columns, the walk (walk,
// ring_rows > 0; the border moves its cost, not whether it fits).
template <typename T>
bool plan_axis(const DevImage& img, int axis, const BoxWidths& bw, Border b, AxisPlan& p, WalkPlan& walk) {
  walk = WalkPlan{};
  if (box_tuning().force_global) return false;
  if (axis == 0) return plan_rows<T>(img, bw, p);
  const bool seg = cols_vec4(img) ? plan_cols<float4>(img, bw, p) : plan_cols<float>(img, bw, p);
  return plan_col_walk(img, bw, b, seg, p, walk) || seg;
}

Status run_walk(const DevImage& src, const DevImage& dst, Border b, const BoxWidths& bw, const WalkPlan& w,
                cudaStream_t st, std::string& path) {
  const int rowf = src.width * src.channels;
  const unsigned blocks = unsigned(walk_blocks(rowf));
  path = w.whole_sm ? "box1d-cols-walk-1sm" : "box1d-cols-walk";
  return with_walk_m1(w.w, [&](auto m1) -> Status {
    constexpr int M1 = decltype(m1)::value;
    using Taps = BoxWalkTaps<M1, 3 - M1>;
    auto k = box_walk_kernel<Taps>;
    if (Status s = allow_smem(k, w.smem, true); !s) return s;
    return cuda_status(launch_dependent(k, blocks, unsigned(kWalkThreads), w.smem, st,
                                        static_cast<const float*>(src.data), static_cast<float*>(dst.data), rowf,
                                        src.height, b, bw.reach, w.ring_rows, Taps{w.w.wl, w.w.wu}, walk_scale(w.w)),
                       "launching box1d (column walk)");
  });
}

// One cascade along one axis: lines in shared memory, or the moving-average kernel where they do not fit.
template <typename T>
Status run_lines(const BoxWidths& bw, int axis, Border b, const DevImage& src, const DevImage& out, void* scratch,
                 size_t scratch_bytes, cudaStream_t st, std::string& path, const std::string& name) {
  AxisPlan p;
  WalkPlan w;
  if (!plan_axis<T>(src, axis, bw, b, p, w)) {
    Status s = launch_moving_average_bw(bw, axis, b, src, out, scratch, scratch_bytes, st, path);
    path = name + (axis == 0 ? "-global-rows" : "-global-cols");
    return s;
  }
  Status s = w.ring_rows > 0 ? run_walk(src, out, b, bw, w, st, path)
             : axis == 0     ? run_rows<T>(src, out, b, bw, p, st, path)
             : cols_vec4(src) ? run_cols<float4>(src, out, b, bw, p, st, path)
                              : run_cols<float>(src, out, b, bw, p, st, path);
  if (name != "box1d" && path.rfind("box1d", 0) == 0) path = name + path.substr(5);  // box1d-rows -> integral1d-rows
  return s;
}

template <typename T>
Status run_box1d(const Pass& pass, const BoxWidths& bw, const DevImage& src, const DevImage& mid,
                 const DevImage& dst, bool pair, void* scratch, size_t scratch_bytes, cudaStream_t st,
                 std::string& path, bool& fused) {
  const BoxTuning& tune = box_tuning();
  if (pair && !tune.force_global && bw.reach <= tune.fused_max_radius) {
    FusedPlan fp;
    if (plan_fused<T>(bw, fp)) {
      fused = true;
      return run_fused<T>(src, dst, pass.border, bw, fp, st, path);
    }
  }
  const DevImage& out = pair ? mid : dst;
  return run_lines<T>(bw, pass.axis, pass.border, src, out, scratch, scratch_bytes, st, path, "box1d");
}

}  // namespace

BoxTuning& box_tuning() {
  static BoxTuning t = [] {
    BoxTuning d;
    // GPUBLUR_CUDA_BOX_FUSED=R, GPUBLUR_CUDA_BOX_SMEM=bytes, GPUBLUR_CUDA_BOX_STRIP=128|64|32|16 and
    // GPUBLUR_CUDA_BOX_WALK=1|0, GPUBLUR_CUDA_BOX_PACKED=1|0 and GPUBLUR_CUDA_BOX_QUARTER=1|0 override the defaults
    // (bench without a rebuild).
    if (const char* e = std::getenv("GPUBLUR_CUDA_BOX_FUSED"); e && *e) d.fused_max_radius = std::atoi(e);
    if (const char* e = std::getenv("GPUBLUR_CUDA_BOX_SMEM"); e && *e) d.smem_budget = std::atoi(e);
    if (const char* e = std::getenv("GPUBLUR_CUDA_BOX_STRIP"); e && *e) d.strip_bytes = std::atoi(e);
    if (const char* e = std::getenv("GPUBLUR_CUDA_BOX_WALK"); e && *e) d.walk = std::atoi(e);
    if (const char* e = std::getenv("GPUBLUR_CUDA_BOX_PACKED"); e && *e) d.packed_rows = std::atoi(e);
    if (const char* e = std::getenv("GPUBLUR_CUDA_BOX_QUARTER"); e && *e) d.quarter = std::atoi(e);
    return d;
  }();
  return t;
}

size_t box1d_scratch(const Pass& pass, const DevImage& src) {
  BoxWidths bw;
  if (!box_widths(pass.widths, "box1d", bw)) return 0;
  return box_lines_scratch(bw, pass.axis, src);
}

size_t box_lines_scratch(const BoxWidths& bw, int axis, const DevImage& src) {
  AxisPlan p;
  WalkPlan w;
  bool smem = false;
  switch (src.channels) {
    case 1: smem = plan_axis<float>(src, axis, bw, Border::Mirror, p, w); break;  // (any border: whether it fits)
    case 2: smem = plan_axis<float2>(src, axis, bw, Border::Mirror, p, w); break;
    case 4: smem = plan_axis<float4>(src, axis, bw, Border::Mirror, p, w); break;
    default: return 0;
  }
  return smem ? 0 : moving_average_scratch_bw(bw, axis, src);
}

Status launch_box_lines(const BoxWidths& bw, int axis, Border b, const DevImage& src, const DevImage& dst,
                        void* scratch, size_t scratch_bytes, cudaStream_t s, std::string& path,
                        const std::string& name) {
  switch (src.channels) {
    case 1: return run_lines<float>(bw, axis, b, src, dst, scratch, scratch_bytes, s, path, name);
    case 2: return run_lines<float2>(bw, axis, b, src, dst, scratch, scratch_bytes, s, path, name);
    case 4: return run_lines<float4>(bw, axis, b, src, dst, scratch, scratch_bytes, s, path, name);
    default: return Status::fail("CUDA " + name + ": unsupported device channel count");
  }
}

Status launch_box1d(const Pass& pass, const DevImage& src, const DevImage& mid, const DevImage& dst, bool pair,
                    void* scratch, size_t scratch_bytes, cudaStream_t s, std::string& path, bool& fused) {
  fused = false;
  BoxWidths bw;
  if (Status st = box_widths(pass.widths, "box1d", bw); !st) return st;
  switch (src.channels) {
    case 1: return run_box1d<float>(pass, bw, src, mid, dst, pair, scratch, scratch_bytes, s, path, fused);
    case 2: return run_box1d<float2>(pass, bw, src, mid, dst, pair, scratch, scratch_bytes, s, path, fused);
    case 4: return run_box1d<float4>(pass, bw, src, mid, dst, pair, scratch, scratch_bytes, s, path, fused);
    default: return Status::fail("CUDA box1d: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
