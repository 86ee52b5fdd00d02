// Box1d's block-level core (passes/box1d.cu): the cascade of boxes on lines held in shared memory, and the host
// planning of chunks, segments and shared memory. The device code is written against a block policy
// (thread index, barrier, warp shuffle) and pointer types, so that tests/cuda can run the same code on the host
// with an emulated block (threads and barriers) and race-checking pointers; the kernels use DeviceBlock and
// plain pointers.
//
// Real widths (Integral1d, the integral method; BoxWidths::frac > 0): the box is the odd integer box plus its
// two end pixels weighted frac, over the real width; the integer window is the same chunked running sum one
// position on, the ends are read directly (the seed's interpolated prefix sums, rearranged so that nothing
// long is differenced in float32).
// One box on a line (cascade_lines): thread items are chunks of S (odd: conflict-free banks) consecutive outputs. The
// window sum at a chunk's first output comes from the float32 totals of the whole chunks it covers plus the first w mod
// S values of one chunk: as the difference of two entries of the totals' float64 exclusive prefix (scan_chunks), or,
// where every box covers at most kDirectChunks chunks (DIRECT), summed directly in float32 with no prefix, no scan and
// one barrier less per box. The chunk's later outputs follow by a plain float32 running sum (win += in(j + w) - in(j)).
// So no float32 sum runs longer than one chunk (S <= 33 steps) or kDirectChunks chunk totals, and the long prefix is
// float64: within 8e-7 of the float64 reference for values in [0, 1] (emulated on the CPU for 1..8 boxes of widths
// 1..4097; Kahan compensation, dropped for its 12 extra FADDs per RGBA step, gave 5.4e-7; 4096- to 16384-wide rows
// started directly from up to 30 totals, 6e-7). Each box's outputs replace its inputs in place, shifted to start at
// position 0 (output j = mean of inputs j .. j + w - 1): chunks go in rounds of one item per thread, in the order
// (chunk, line), so a round reads only positions at or after its chunks' starts, which earlier rounds never write; one
// barrier per round separates its reads from its writes. Chunk totals for the next box come from the registers holding
// the outputs.
#pragma once
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <type_traits>

#include "gpu/cuda/passes/box_common.cuh"
#include "gpu/cuda/passes/device_block.cuh"

namespace gpublur::cuda {

// Most consecutive outputs per thread (registers), odd.
template <typename V> constexpr int box_smax();
template <> constexpr int box_smax<float>() { return 33; }
template <> constexpr int box_smax<float2>() { return 25; }
template <> constexpr int box_smax<float4>() { return 21; }

template <typename V>
__host__ __device__ __forceinline__ V vsub(const V& a, const V& b) {
  V r;
#pragma unroll
  for (int c = 0; c < VecInfo<V>::K; ++c) vset(r, c, vget(a, c) - vget(b, c));
  return r;
}

template <typename V>
__host__ __device__ __forceinline__ V vscale(const V& a, float s) {
  V r;
#pragma unroll
  for (int c = 0; c < VecInfo<V>::K; ++c) vset(r, c, vget(a, c) * s);
  return r;
}

// a * s + b (one FFMA a component on the device).
template <typename V>
__host__ __device__ __forceinline__ V vmuladd(const V& a, float s, const V& b) {
  V r;
#pragma unroll
  for (int c = 0; c < VecInfo<V>::K; ++c) vset(r, c, vget(a, c) * s + vget(b, c));
  return r;
}

// Whether scan_chunks runs as a block scan over groups of chunks (nseq a power of two up to a warp: the line
// and column passes) and so needs its warp totals after the prefixes (smem_layout reserves them).
__host__ __device__ constexpr bool group_scan(int nseq) { return nseq <= 32 && (nseq & (nseq - 1)) == 0; }
constexpr int kScanMaxWarps = 8;  // box1d's line kernels run 256 threads
// The prefixes' stride per chunk in doubles: odd, so that the window starts' float64 loads (a chunk per lane, all
// lanes at the same sequence) hit distinct banks; at nseq = 4 or 8 (RGBA rows, 32-byte column strips) they ran
// 4-way conflicted.
__host__ __device__ constexpr int base_stride(int nseq) { return nseq | 1; }

// base[c * bs + q] = sum of tot[c' * nseq + q] for c' < c, c = 0..nin (float64), for the nseq sequences q
// (bs = base_stride(nseq)).
// Group scan (group_scan(nseq)): thread t takes sequence t % nseq and an odd number E of consecutive chunks (odd:
// the threads of a warp hit distinct banks), sums them in float64, and a warp shuffle scan plus the warp totals
// (wt, one barrier) give each group its start; every warp works and nothing is bank-conflicted (the loop below,
// a warp per sequence over contiguous lane ranges, ran 32-way conflicted with half the warps idle at a barrier:
// 23% of the rows kernel's time on an H100). Otherwise: few long sequences a warp each, many short ones a thread
// each, no barrier.
#pragma nv_exec_check_disable
template <typename Blk, typename FP, typename DP>
__host__ __device__ __forceinline__ void scan_chunks(FP tot, DP base, DP wt, int nin, int nseq) {
  const int tid = Blk::tid(), nth = Blk::nth(), lane = tid & 31, warp = tid >> 5, nwarps = nth >> 5;
  const int bs = base_stride(nseq);
  if (group_scan(nseq) && nth % 32 == 0 && nwarps <= kScanMaxWarps) {
    const int G = nth / nseq, q = tid % nseq, g = tid / nseq;
    const int E = ((nin + G - 1) / G) | 1;
    const int c0 = min(nin, g * E), c1 = min(nin, c0 + E);
    double local = 0.0;
    for (int c = c0; c < c1; ++c) local += double(float(tot[c * nseq + q]));
    double incl = local;
    for (int o = nseq; o < 32; o <<= 1) {
      const double y = Blk::shfl_up(incl, o);
      if (lane >= o) incl += y;
    }
    if (lane >= 32 - nseq) wt[warp * nseq + q] = incl;
    Blk::sync();
    double acc = incl - local;
    for (int w = 0; w < warp; ++w) acc += double(wt[w * nseq + q]);
    for (int c = c0; c < c1; ++c) {
      base[c * bs + q] = acc;
      acc += double(float(tot[c * nseq + q]));
    }
    if (g == G - 1) base[nin * bs + q] = acc;
  } else if (nin > 32 && nseq <= 4 * nwarps) {
    const int E = (nin + 31) / 32;
    for (int q0 = 0; q0 < nseq; q0 += nwarps) {  // the same trip count in every warp (shuffles)
      const int q = q0 + warp;
      const bool on = q < nseq;
      const int c0 = on ? min(nin, lane * E) : 0, c1 = on ? min(nin, c0 + E) : 0;
      double local = 0.0;
      for (int c = c0; c < c1; ++c) local += double(float(tot[c * nseq + q]));
      double incl = local;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const double y = Blk::shfl_up(incl, o);
        if (lane >= o) incl += y;
      }
      double acc = incl - local;
      for (int c = c0; c < c1; ++c) {
        base[c * bs + q] = acc;
        acc += double(float(tot[c * nseq + q]));
      }
      if (on && lane == 31) base[nin * bs + q] = incl;
    }
  } else {
    for (int q = tid; q < nseq; q += nth) {
      double acc = 0.0;
      for (int c = 0; c < nin; ++c) {
        base[c * bs + q] = acc;
        acc += double(float(tot[c * nseq + q]));
      }
      base[nin * bs + q] = acc;
    }
  }
}

// The most whole chunks a DIRECT window start sums (at most 30 * 21 + 20 values in float32 on float4 lines, 30 * 33
// + 32 on narrower ones). scan_chunks, its barrier and the prefix differences were a quarter of the rows kernel's
// instructions at sigma 12 (H100, ncu source counters); without them box 4096^2 RGBA ran 14% faster at sigma 3-48
// (6 chunks) and 5% at sigma 100 (12; integral 12%). A runtime branch between the two forms made the prefix form
// 6-9% slower, so DIRECT is a template parameter. With each chunk's totals read as one vector (tot_load) the direct
// sums are cheap enough to take up to 30 chunks, where 12 (float4 lines) and 15 (one or two floats) were the most that
// paid while they read conflicted scalars (24 had made sigma 200 7% slower): on an H200 box 4096^2 RGBA 0.495 -> 0.462
// ms at sigma 200 (19 chunks), 0.503 -> 0.456 at 150, integral 0.973 -> 0.812 at 200 (14) and 1.53 -> 1.26 at 300;
// one channel box 4096^2 sigma 200 8% faster than at 15, two channels 8% (docs/performance.md, box, "Window starts
// from up to 30 chunks" and "Narrow lines from up to 30 chunks too"). The host emulation's 4096-wide rows stay within
// 4.2e-7 of the float64 reference at 30 chunks (box sigma 320), float rows within 7.2e-7 (28 chunks of 27).
constexpr int kDirectChunks = 30;

// Whether every box of bw starts its windows from at most kDirectChunks chunk totals of S positions.
inline bool direct_starts(const BoxWidths& bw, int S) {
  for (int i = 0; i < bw.n; ++i)
    if (bw.w[i] / S > kDirectChunks) return false;
  return true;
}

// A chunk's K totals of line l, tot[i .. i + K) with i = c * nseq + l * K. As K scalar accesses, a warp's chunks
// (4 K bytes apart) hit one bank in K: 4-way conflicts for float4 lines, which were a fifth to a quarter of the line
// kernels' shared-memory wavefronts where the window starts sum totals directly (box sigma 48, integral sigma 12-48
// on an H200, Nsight Compute). VEC, with a plain pointer (the kernels; smem_layout aligns tot to 16 bytes): one K-wide
// access instead. The window starts' loads and the totals' stores take it under DIRECT only: where the starts are
// scanned (scan_chunks reads the totals a sequence at a time), vector stores measured 1-2% slower (box and integral
// 4096^2 RGBA at sigma 200; docs/performance.md "Chunk totals as vectors").
#pragma nv_exec_check_disable
template <bool VEC, typename V, typename FP>
__host__ __device__ __forceinline__ V tot_load(FP tot, int i) {
  if constexpr (VEC && std::is_same_v<FP, float*>) {
    return *reinterpret_cast<const V*>(tot + i);
  } else {
    V v;
#pragma unroll
    for (int q = 0; q < VecInfo<V>::K; ++q) vset(v, q, float(tot[i + q]));
    return v;
  }
}
#pragma nv_exec_check_disable
template <bool VEC, typename V, typename FP>
__host__ __device__ __forceinline__ void tot_store(FP tot, int i, const V& v) {
  if constexpr (VEC && std::is_same_v<FP, float*>) {
    *reinterpret_cast<V*>(tot + i) = v;
  } else {
#pragma unroll
    for (int q = 0; q < VecInfo<V>::K; ++q) tot[i + q] = vget(v, q);
  }
}

struct NoStore {
  template <typename V>
  __host__ __device__ void operator()(int, int, const V&) const {}
};

// The cascade on nl lines in shared memory: line l's position q at s[l * ls + q * ps], q in [0, len). After box
// i, positions [0, len - sum_{<=i} (w - 1)) hold its outputs; after the last, [0, len - 2R) the result, which
// goes back into shared memory (LAST_TO_SMEM, followed by a barrier) or to store(line, position, value).
// base / tot: float64 prefixes and float32 chunk totals, (ceil(len / S) + 1) * nl * K and ceil(len / S) * nl * K
// entries. The caller has loaded s and synchronised. Every thread of the block calls it.
// DIRECT: direct_starts(bw, S) holds; base is not used (smem_layout without prefixes).
// EXACT: S == SMAX, one round per box, and every line has SMAX positions after len that may be read and
// overwritten (zeroed by the loads). Then a chunk's loops run all SMAX steps with no per-step test (a short last
// chunk computes values past its end into those positions and leaves them out of its total): the tests,
// branches and reconvergence of the general loops were a third of the rows kernel's instructions (H100, ncu).
#pragma nv_exec_check_disable
template <typename Blk, typename V, int SMAX, bool LAST_TO_SMEM, bool EXACT = false, bool DIRECT = false,
          typename VP, typename DP, typename FP, typename Store>
__host__ __device__ __forceinline__ void cascade_lines(VP s, int nl, int ls, int ps, int len, const BoxWidths& bw,
                                                       int S, DP base, FP tot, Store store) {
  constexpr int K = VecInfo<V>::K;
  if (EXACT) S = SMAX;  // a constant: the divisions by S below become multiplications
  const int tid = Blk::tid(), nth = Blk::nth(), nseq = nl * K, bs = base_stride(nseq);
  const DP wt = base + ((len + S - 1) / S + 1) * bs;  // scan_chunks' warp totals (smem_layout's reserve)
  // One round per box (every item in one thread at once: the usual case, chunks are chosen for it): a thread
  // keeps the same item in every box, and its registers already hold the values leaving its window (its own
  // outputs of the box before), so they are not read back.
  const bool one_round = EXACT || nl * ((len - (bw.span(0) - 1) + S - 1) / S) <= nth;
  // Whether step k of a chunk of cnt positions is computed (EXACT: always; see above).
  const auto step = [](int k, int cnt) { return EXACT || k < cnt; };
  // A chunk's total over its first cnt values (EXACT's short last chunk).
  const auto head_sum = [](const V* v, int cnt) {
    V t = vzero<V>();
#pragma unroll
    for (int k = 0; k < SMAX; ++k)
      if (k < cnt) t = vadd(t, v[k]);
    return t;
  };
  V vals[SMAX];
  {  // The first box's chunk totals, from shared memory (later boxes' come from registers).
    const int nin = (len + S - 1) / S;
    for (int i = tid; i < nl * nin; i += nth) {
      const int l = i % nl, c = i / nl;
      const auto in = s + l * ls;
      const int q0 = c * S, cnt = min(S, len - q0);
      V t = vzero<V>();
      if (one_round && i == tid) {
#pragma unroll
        for (int k = 0; k < SMAX; ++k)
          if (step(k, cnt)) {
            vals[k] = V(in[(q0 + k) * ps]);
            t = vadd(t, vals[k]);
          }
        if (EXACT && cnt < SMAX) t = head_sum(vals, cnt);
      } else {
        for (int k = 0; k < cnt; ++k) t = vadd(t, V(in[(q0 + k) * ps]));
      }
      tot_store<DIRECT>(tot, c * nseq + l * K, t);
    }
  }
  for (int st = 0; st < bw.n; ++st) {
    // A fractional box (Integral1d): output j = (sum of inputs j + 1 .. j + w + e (in(j) + in(j + w + 1))) / wreal.
    const int w = bw.w[st], len_out = len - (bw.span(st) - 1);
    const float e = bw.frac[st];
    const bool fr = e > 0.0f;
    const int nin = (len + S - 1) / S, nout = (len_out + S - 1) / S;
    const bool last = st + 1 == bw.n;
    Blk::sync();  // this box's inputs and chunk totals are in place
    if (!DIRECT) {
      scan_chunks<Blk>(tot, base, wt, nin, nseq);
      Blk::sync();
    }
    const int m = w / S, r = w - m * S;
    const float inv = 1.0f / bw.wreal[st], einv = e * inv;  // wreal == w for plain boxes
    for (int i0 = 0; i0 < nl * nout; i0 += nth) {  // rounds: the same trip count in every thread
      const int i = i0 + tid;
      const bool active = i < nl * nout;
      const int l = active ? i % nl : 0, c = active ? i / nl : 0;
      const auto in = s + l * ls;
      const int j0 = c * S, cnt = active ? min(S, len_out - j0) : 0;
      V tsum = vzero<V>();
      if (active) {
        if (!one_round) {
#pragma unroll
          for (int k = 0; k < SMAX; ++k)
            if (k < cnt) vals[k] = V(in[(j0 + k) * ps]);  // the values leaving the window
        }
        // Window sum at j0: inputs j0 .. j0 + w - 1 = chunks c .. c + m - 1 and r values of chunk c + m.
        V part = vzero<V>();
        for (int k = 0; k < r; ++k) part = vadd(part, V(in[((c + m) * S + k) * ps]));
        V win;
        if (DIRECT) {
          win = part;
          for (int cc = c; cc < c + m; ++cc) win = vadd(win, tot_load<true, V>(tot, cc * nseq + l * K));
        } else {
          const auto b1 = base + ((c + m) * bs + l * K);
          const auto b0 = base + (c * bs + l * K);
#pragma unroll
          for (int q = 0; q < K; ++q) vset(win, q, float((double(b1[q]) - double(b0[q])) + double(vget(part, q))));
        }
        // The steps carry the window's mean, not its sum: each is one subtraction and one FFMA a component instead
        // of a subtraction, an addition and a multiplication (the error of inv telescopes: inv's rounding times the
        // mean's change over the chunk).
        if (fr) {
          // The window one position on (j0 + 1 .. j0 + w); the ends are read directly, and vals[k + 1] leaves.
          V mean = vscale(vadd(win, vsub(V(in[(j0 + w) * ps]), vals[0])), inv);
#pragma unroll
          for (int k = 0; k < SMAX; ++k)
            if (step(k, cnt)) {
              const V right = V(in[(j0 + k + w + 1) * ps]);
              const V o = vmuladd(vadd(vals[k], right), einv, mean);
              if (step(k + 1, cnt) && k + 1 < SMAX)
                mean = vmuladd(vsub(right, vals[k + 1 < SMAX ? k + 1 : k]), inv, mean);
              vals[k] = o;
              tsum = vadd(tsum, o);
            }
        } else {
          V mean = vscale(win, inv);
#pragma unroll
          for (int k = 0; k < SMAX; ++k)
            if (step(k, cnt)) {
              const V o = mean;
              if (step(k + 1, cnt) && k + 1 < SMAX) mean = vmuladd(vsub(V(in[(j0 + k + w) * ps]), vals[k]), inv, mean);
              vals[k] = o;
              tsum = vadd(tsum, o);
            }
        }
        if (EXACT && cnt < SMAX) tsum = head_sum(vals, cnt);
      }
      if (!last || LAST_TO_SMEM) {
        Blk::sync();  // every read of the positions this round writes is done
        if (active) {
#pragma unroll
          for (int k = 0; k < SMAX; ++k)
            if (step(k, cnt)) in[(j0 + k) * ps] = vals[k];
          if (!last) tot_store<DIRECT>(tot, c * nseq + l * K, tsum);
        }
      } else if (active) {
#pragma unroll
        for (int k = 0; k < SMAX; ++k)
          if (k < cnt) store(l, j0 + k, vals[k]);
      }
    }
    len = len_out;
  }
  if (LAST_TO_SMEM) Blk::sync();
}

// ---- host planning -------------------------------------------------------------------------------------

// passes/box1d.cu: one cascade (fractional ends included) along one axis with box1d's line schedules (whole
// lines or segments in shared memory, the moving-average kernel where they do not fit), and the scratch that
// fallback needs. `name` prefixes the path ("box1d", "integral1d").
size_t box_lines_scratch(const BoxWidths& bw, int axis, const DevImage& src);
Status launch_box_lines(const BoxWidths& bw, int axis, Border b, const DevImage& src, const DevImage& dst,
                        void* scratch, size_t scratch_bytes, cudaStream_t s, std::string& path,
                        const std::string& name);

// Shared memory of a block: the lines, then the float64 prefixes (and scan_chunks' warp totals; none for
// cascade_lines' DIRECT form), then the float32 totals.
struct SmemLayout {
  size_t base_off = 0, tot_off = 0, bytes = 0;
};
inline SmemLayout smem_layout(size_t values_bytes, int len, int S, int nl, int K, bool prefixes = true) {
  const size_t nin = size_t((len + S - 1) / S);
  SmemLayout L;
  L.base_off = (values_bytes + 15) / 16 * 16;
  const size_t nseq = size_t(nl) * size_t(K);
  const size_t nbase =
      prefixes ? (nin + 1) * size_t(base_stride(int(nseq))) + (group_scan(int(nseq)) ? kScanMaxWarps * nseq : 0) : 0;
  L.tot_off = L.base_off + (nbase * sizeof(double) + 15) / 16 * 16;  // 16-byte aligned: tot_load / tot_store
  L.bytes = L.tot_off + nin * size_t(nl) * size_t(K) * sizeof(float);
  return L;
}

// The smallest odd S <= smax that needs no more rounds of nth threads than smax does, for `items_of(S)`
// thread items.
template <typename F>
int choose_chunk(int smax_v, int nth, F items_of) {
  const long long rounds = (items_of(smax_v) + nth - 1) / nth;
  for (int S = 1; S < smax_v; S += 2)
    if (items_of(S) <= rounds * nth) return S;
  return smax_v;
}

// How a line pass runs: segments of seg_len outputs (nseg per line), each loaded with its halo of R on both
// sides; chunk S; shared memory.
struct LinePlan {
  int seg_len = 0, nseg = 0, S = 0;
  bool exact = false;  // cascade_lines' EXACT form: S one of kExactChunks, one round, SMAX padding positions
  bool direct = false;  // cascade_lines' DIRECT form (either form): direct_starts, no float64 prefixes
  SmemLayout smem;
};

// The chunk sizes box1d.cu compiles the EXACT form for (float4 lines). A one-round cascade's time follows its
// chunk (the steps each thread runs per box), not its positions: 4096-wide RGBA rows cost the same at sigma 100
// (4694 positions) as at 200 (5294), both in chunks of 21. 19 takes box sigma 100's and integral sigma 48-100's
// rows out of 21: rows pass 0.266 -> 0.252 ms (box sigma 100), 0.329 -> 0.306 and 0.360 -> 0.331 (integral 48,
// 100) on an H100.
constexpr int kExactChunks[] = {5, 9, 13, 17, 19, 21};

// Thread items (chunks of S x lines) of the first box on nl lines of len loaded positions: the most of any box
// (each box shortens the line), so one round per box where this is at most the block's threads (as
// cascade_lines decides).
inline long long first_box_items(int len, const BoxWidths& bw, int nl, int S) {
  return (long long)nl * ((len - (bw.span(0) - 1) + S - 1) / S);
}

// The EXACT form for a line pass of len loaded positions, nl lines, whose general chunk is S: the smallest listed
// chunk >= S with one round per box (0: none).
inline int exact_chunk(int len, const BoxWidths& bw, int nl, int nth, int S) {
  for (const int e : kExactChunks)
    if (e >= S && first_box_items(len, bw, nl, e) <= nth) return e;
  return 0;
}

// n: line length; nl: lines per block; vbytes, K: one value and its components; nth threads per block. The
// fewest segments whose block fits `budget` bytes (one_round: and takes one round of chunks per box), segments
// no shorter than min_seg (or the line); false when none does.
inline bool plan_lines(int n, const BoxWidths& bw, int nl, size_t vbytes, int K, int smax_v, int nth, size_t budget,
                       int min_seg, bool exact_ok, LinePlan& out, bool one_round = false) {
  int prev = -1;
  for (int nseg = 1;; ++nseg) {
    const int seg_len = (n + nseg - 1) / nseg;
    if (seg_len == prev) continue;
    prev = seg_len;
    if (nseg > 1 && seg_len < std::min(std::max(1, min_seg), n)) return false;
    const int len = seg_len + 2 * bw.reach;
    const int S = choose_chunk(smax_v, nth, [&](int s) { return first_box_items(len, bw, nl, s); });
    if (const int e = exact_ok ? exact_chunk(len, bw, nl, nth, S) : 0) {
      const bool direct = direct_starts(bw, e);
      const SmemLayout L = smem_layout(size_t(len + e) * size_t(nl) * vbytes, len, e, nl, K, !direct);
      if (L.bytes <= budget) {
        out.seg_len = seg_len, out.nseg = nseg, out.S = e, out.exact = true, out.direct = direct, out.smem = L;
        return true;
      }
    }
    const bool direct = direct_starts(bw, S);
    const SmemLayout L = smem_layout(size_t(len) * size_t(nl) * vbytes, len, S, nl, K, !direct);
    if (L.bytes <= budget && (!one_round || first_box_items(len, bw, nl, S) <= nth)) {
      out.seg_len = seg_len, out.nseg = nseg, out.S = S, out.exact = false, out.direct = direct, out.smem = L;
      return true;
    }
    if (seg_len == 1) return false;
  }
}

// Positions a block's cascade goes over for a line of len loaded positions: the load, then every box's outputs
// (each box shortens the line by its span - 1). What a line pass costs on chip grows with this, halo included.
inline long long cascade_positions(int len, const BoxWidths& bw) {
  long long p = len;
  for (int i = 0; i < bw.n; ++i) p += (len -= bw.span(i) - 1);
  return p;
}

// Shared memory a line pass may take per block (box1d.cu reads them from the device; tests give an H100's).
struct LineBudgets {
  size_t shared = 0;  // at two blocks per SM (half an SM less the 1 KiB reserved per block), or BoxTuning's
  size_t whole = 0;   // at one block per SM (the opt-in maximum); 0: not an option
  size_t quarter = 0;  // at four blocks per SM (kQuarterThreads blocks, plan_lines_quarter); 0: not an option
  size_t eighth = 0;   // rows at eight blocks per SM (kEighthThreads blocks, plan_rows_lines); 0: not an option
  int min_segment = 64;
  int sms = 0;  // the device's SMs (plan_lines_quarter's wave_factor); 0: not counted
};

// A line pass: lines per block (rows: 1; columns: the strip's value columns), segments, and whether the block
// takes more than the two-per-SM budget (one block per SM).
struct AxisPlan {
  LinePlan lines;
  int nl = 0;
  int nth = 0;  // threads a block
  bool whole_sm = false;
  double cost = 0;  // segments x cascade_positions, weighted as below
  bool packed = false;  // rows of one or two channels as float4 lines of 4 / K rows (plan_rows_packed)
};

// A candidate lines-per-block for plan_axis_lines, and what one position costs there relative to the others.
struct StripOption {
  int nl = 1;
  double weight = 1.0;
};

// Column strips of 128, 64, 32 and 16 bytes per row for values V (K floats). Weights per position, measured on
// an H100 (4096^2 RGBA box, each strip forced by GPUBLUR_CUDA_BOX_STRIP, and the column pass's own time from
// GPUBLUR_PASS_TIMES; docs/performance.md "Wider column strips"): 14.2-14.3 ns per thousand cascade positions at
// 128 bytes (whole 128-byte lines per load and store), 14.5-15.0 at 64, 17.6-18.7 at 32 (whole 32-byte
// sectors only), and 1.75x the 32-byte cost at 16 (half sectors; measured earlier at sigma 200).
template <int K>
inline std::initializer_list<StripOption> column_strips() {
  static constexpr int per16 = 4 / K;  // values per 16 bytes
  static const std::initializer_list<StripOption> opts = {
      {8 * per16, 1.0}, {4 * per16, 1.06}, {2 * per16, 1.26}, {1 * per16, 2.2}};
  return opts;
}

// The cheapest of: every strip width in opts (lines per block) at the shared budget, then at the whole-SM one,
// each with its fewest segments and with its fewest of one round per box (more segments, no 1.33 below).
// A column line plus its halo 2R can outgrow the two-per-SM budget at a wide strip (2 float4 columns: 32 B per
// position, at R 1550 even a 64-row segment needs 125 KB of 113) while a narrower strip, or one block per SM,
// holds it. Cost: segments x positions the cascade goes over x the option's weight; x 1.33 where a box takes
// more than one round of chunks (the general loops with per-step tests: measured 20 against 15 ns per thousand
// positions, 64-byte strips, H100); x whole_sm_weight at one block per SM (its loads no longer overlap another block's
// cascade). Ties go to the earlier candidate. False: none fits (the moving-average kernel, global memory, is the last
// resort).
// The weight was 2 for every cascade (load and math in series at worst; never measured). On an H200
// (docs/performance.md "Columns at one block an SM: the weight measured"), integral RGBA with every line pass at the
// one-block budget against the plans, the columns' one-block plans (32-byte strips in 1-2 segments against 16-byte
// strips or 4-5 segments) took 1.09-1.40x the time a unit of unweighted cost took at two blocks: 4096^2 sigma 400 1.884
// -> 1.774 ms, 500 2.196 -> 1.938, 2048^2 0.569 -> 0.508 and 0.675 -> 0.561, sigma 300 within 1%, 4096^2 sigma 250 16%
// slower (a cost ratio of 1.18). So real widths (integral) weigh 1.25: one-block columns from sigma 300, RGBA 1.6-17%
// faster at sigma 300-500 on 1024^2-4096^2, one channel 5-10% at 400-500 (0.5-2.5% slower at 300). Integer widths
// (box) keep 2: at 1.25 only small grids changed plans (sigma 400-500), and measured both ways, 1024^2 one channel
// 7.5% faster at 400 but 20% slower at 500 (one-block segments for the one-block walk), 512^2 two channels 35% slower
// at 500.
inline double whole_sm_weight(const BoxWidths& bw) {
  for (int i = 0; i < bw.n; ++i)
    if (bw.frac[i] > 0.0f) return 1.25;
  return 2.0;
}
inline bool plan_axis_lines(int n, const BoxWidths& bw, std::initializer_list<StripOption> opts, size_t vbytes,
                            int K, int smax_v, int nth, const LineBudgets& lim, bool exact_ok, AxisPlan& out) {
  bool found = false;
  for (const bool whole : {false, true}) {
    const size_t budget = whole ? lim.whole : lim.shared;
    if (budget == 0 || (whole && lim.whole <= lim.shared)) continue;
    for (const StripOption& o : opts)
      for (const bool one_round_only : {false, true}) {
        LinePlan p;
        if (!plan_lines(n, bw, o.nl, vbytes, K, smax_v, nth, budget, lim.min_segment, exact_ok, p, one_round_only))
          break;  // the one-round search cannot succeed where the unrestricted one failed
        const int len = p.seg_len + 2 * bw.reach;
        const bool one_round = first_box_items(len, bw, o.nl, p.S) <= nth;
        const double cost = double(p.nseg) * double(cascade_positions(len, bw)) * o.weight *
                            (one_round ? 1.0 : 1.33) * (whole ? whole_sm_weight(bw) : 1.0);
        if (!found || cost < out.cost) {
          out.lines = p, out.nl = o.nl, out.nth = nth, out.whole_sm = whole && p.smem.bytes > lim.shared;
          out.cost = cost;
          found = true;
        }
        if (one_round) break;  // the one-round search would find this same plan
      }
  }
  return found;
}

// A line pass may also run in blocks of kQuarterThreads at four an SM, each with a quarter of its shared memory
// (more segments, so more halo): the two-per-SM kernels' loads and cascade (each about a copy's time at sigma 3-12)
// overlap only 60-70%, and four blocks an SM overlap them better. Each of opts is weighed at both shapes, the quarter
// plan's positions at kQuarterWeight: it wins where its halo and narrower strips add under 5%. Measured on an H200
// (docs/performance.md, box, "Rows in quarter blocks" and "Columns in quarter blocks"):
//  - rows (4096-wide RGBA rows then in two segments; narrower rows whole): RGBA box 4096^2 2-6% faster at sigma
//    3-48 (rows pass 0.188 -> 0.176 ms at sigma 3-12, 0.219 -> 0.195 at 48), 2048^2 and 1024^2 4-18% at sigma
//    3-100; one channel 4096^2 8-20%, two 2-7%, 1024^2 10-36%; integral likewise; slower where the halo grows (RGBA
//    4096^2 sigma 100: 6.8% more cascade positions and chunks of 21 against 19, box +1%; sigma 200: rows +24%).
//  - columns (4096^2 sigma 3: 13 segments of 128-byte strips against 7, cost 1.014x before the weight): RGBA box
//    4096^2 0.333 -> 0.323 ms, integral 0.452 -> 0.434; forced at sigma 12 (64-byte strips, 1.060x) box no faster,
//    integral 2.4%; at 48 (1.155x) box 6% slower, at 100-200 slower still.
// The two shapes are also weighed by wave_factor: a grid that is all resident at once waits for its busiest SM. The
// quarter plan's columns at 2048^2 one channel (448 blocks against 256 on 132 SMs: 4 on the busiest against 2, 1.18
// against 1.03) measured 6% slower, at 1024^2 (128 blocks against 64: half the SMs idle) 7% faster.
// The rows' quarter blocks run five an SM where their registers allow it without spills (rows_blocks_per_sm); the
// plans here, wave_factor included, still count four.
constexpr int kQuarterThreads = 128;
constexpr double kQuarterWeight = 0.95;
// Rows also in blocks of kEighthThreads at eight an SM, an eighth of its shared memory each, where the quarter plan is
// chosen and the eighth takes the same segments in one round of chunks (the same positions: short rows, whole in
// either). Measured on an H200 (docs/performance.md, "Rows in eighth blocks"): RGBA 1024^2 box 7-10% faster at sigma
// 3-48, integral 7-9%; one and two channels at 768^2-1024^2 up to 25%; nothing slower. Where the eighth needs more
// segments than the quarter it was measured either way (4096^2 RGBA box 1.4% faster at sigma 12, integral 5.7%
// slower): those stay quarter.
constexpr int kEighthThreads = 64;

// Plan p's blocks for `across` lines side by side (rows: the image's height; columns: its values across) on
// lim.sms SMs, where they are all resident at once: the busiest SM's blocks over the mean. 1 where they take more
// than one wave (the SMs that finish early take the next blocks), or where not counted.
inline double wave_factor(const AxisPlan& p, long long across, const LineBudgets& lim) {
  if (across <= 0 || lim.sms <= 0) return 1.0;
  const long long blocks = (across + p.nl - 1) / p.nl * p.lines.nseg;
  const int per_sm = p.nth == kEighthThreads ? 8 : p.nth == kQuarterThreads ? 4 : p.whole_sm ? 1 : 2;
  if (blocks > (long long)lim.sms * per_sm) return 1.0;
  return double((blocks + lim.sms - 1) / lim.sms) * lim.sms / double(blocks);
}

inline bool plan_lines_quarter(int n, long long across, const BoxWidths& bw, std::initializer_list<StripOption> opts,
                               size_t vbytes, int K, int smax_v, int nth, const LineBudgets& lim, bool exact_ok,
                               AxisPlan& out) {
  bool found = plan_axis_lines(n, bw, opts, vbytes, K, smax_v, nth, lim, exact_ok, out);
  if (lim.quarter == 0) return found;
  LineBudgets q = lim;
  q.shared = lim.quarter, q.whole = 0;
  for (const StripOption& o : opts) {
    AxisPlan p;
    if (plan_axis_lines(n, bw, {{o.nl, o.weight * kQuarterWeight}}, vbytes, K, smax_v, kQuarterThreads, q, exact_ok,
                        p) &&
        (!found || p.cost * wave_factor(p, across, lim) < out.cost * wave_factor(out, across, lim))) {
      out = p;
      found = true;
    }
  }
  return found;
}

// Rows: one line per block, `across` rows; a quarter plan moves to eighth blocks where those take the same segments
// in one round (kEighthThreads).
inline bool plan_rows_lines(int n, long long across, const BoxWidths& bw, size_t vbytes, int K, int smax_v, int nth,
                            const LineBudgets& lim, bool exact_ok, AxisPlan& out) {
  if (!plan_lines_quarter(n, across, bw, {{1, 1.0}}, vbytes, K, smax_v, nth, lim, exact_ok, out)) return false;
  if (lim.eighth == 0 || out.nth != kQuarterThreads) return true;
  LineBudgets e = lim;
  e.shared = lim.eighth, e.whole = 0;
  AxisPlan p;
  if (plan_axis_lines(n, bw, {{1, kQuarterWeight}}, vbytes, K, smax_v, kEighthThreads, e, exact_ok, p) &&
      p.lines.nseg == out.lines.nseg &&
      first_box_items(p.lines.seg_len + 2 * bw.reach, bw, 1, p.lines.S) <= kEighthThreads)
    out = p;
  return true;
}

// The rows kernels' blocks an SM (box1d.cu's launch bounds; plan_rows_packed counts its waves by them) for nth threads,
// values of K floats, chunks up to smax. Quarter blocks at five an SM (at most 96 registers) where that spills nothing
// (not float4 chunks of 19 or 21): Nsight Compute found the line kernels latency-bound at four (16 warps an SM;
// docs/performance.md, "Their kernels' profile"). On an H200 (4096^2 RGBA) box 2.0% faster at sigma 3 and 2.7% at 12,
// integral 4.0% at 3 (3.04-3.09 -> 2.96-2.97x copy) and 3.1% at 12; two channels 5-7%; 2048^2 1-3% ("Quarter rows at
// five an SM"). The columns' quarter blocks stay at four: at five (their float4 chunks of 21 spill) sigma 3 ran 4-6%
// slower. Chunks of 5 (short rows) fit three full blocks an SM (box1d.cu box_rows_kernel).
constexpr int rows_blocks_per_sm(int nth, int K, int smax) {
  return nth == kEighthThreads ? 8 : nth == kQuarterThreads ? (K == 4 && smax >= 19 ? 4 : 5) : smax <= 5 ? 3 : 2;
}

// Rows of values of K = 1 or 2 floats (vbytes, smax_v: theirs) as float4 lines of P = 4 / K rows each (box1d.cu
// box_rows_packed_kernel): the same cascade on a quarter or half of the lines, each doing four or two rows' work for
// about the per-line cost of one (nth: the full blocks' threads, as plan_rows_lines). force: 1 packed wherever a plan
// fits, 0 never, -1 where the packed plan takes no more segments than the plain one and its grid fills at least 3/4
// of its last wave of blocks (H200, box and integral, one and two channels, 1024^2 to 8192x2048, sigma 3-200, each
// forced: docs/performance.md "Rows of one and two channels packed"). More segments repeat more halo (one channel
// 4096^2 at sigma 3-12: 11% slower packed in two segments than plain whole rows); a quarter of the blocks can leave
// the SMs short of work (one channel 1920x1080: 270 blocks at two an SM, 6-34% slower; 1024^2: 256, 11-22%).
inline bool plan_rows_packed(int n, int H, const BoxWidths& bw, size_t vbytes, int K, int smax_v, int nth,
                             const LineBudgets& lim, bool exact_ok, int force, AxisPlan& out) {
  const long long groups = (H + 4 / K - 1) / (4 / K);
  AxisPlan plain, packed;
  const bool has_packed =
      force != 0 && plan_rows_lines(n, groups, bw, 16, 4, box_smax<float4>(), nth, lim, true, packed);
  bool take = has_packed && force == 1;
  const bool has_plain = !take && plan_rows_lines(n, H, bw, vbytes, K, smax_v, nth, lim, exact_ok, plain);
  if (has_packed && !take && force < 0) {
    const int smax = packed.lines.exact ? packed.lines.S : box_smax<float4>();
    const double per_sm = packed.whole_sm ? 1 : rows_blocks_per_sm(packed.nth, 4, smax);
    const double waves = double(groups * packed.lines.nseg) / (std::max(1, lim.sms) * per_sm);
    take = !has_plain || (packed.lines.nseg <= plain.lines.nseg && (lim.sms <= 0 || waves / std::ceil(waves) >= 0.75));
  }
  if (take) {
    out = packed;
    out.packed = true;
    return true;
  }
  if (has_plain) out = plain;
  return has_plain;
}

}  // namespace gpublur::cuda
