// The column pass of three boxes as a walk down the column, with no halo (box1d.cu runs it where plan_walk finds it
// cheaper than the segments of box_cascade.cuh: large widths on large images). Causally, boxes of widths w_k are
// (1 / prod w) I^3 D_w1 D_w2 D_w3 with D_w x[j] = x[j] - x[j - w] and I a running sum, and the differences commute
// with the sums: y, a sparse filter of the border-extended column with (m1 + 1)(m2 + 1) taps (m1 boxes of width wl,
// m2 of wu; coefficients +-1, +-2, +-3), summed three times. The three sums run in float64 and stay bounded (I^k y is a
// partial cascade, at most the product of k widths times the largest input), so nothing drifts down the column.
//
// A block takes a strip of kWalkFloats floats (64 bytes) of every row and walks positions -lead .. H - 1 + R of the
// border-extended column (out[i] is the causal result at i + R) in steps of kWalkStep rows: the rows of a step land
// in a ring of the last ring_rows positions (the next step's loads in flight while this one computes), each thread
// sums kWalkRT consecutive rows of one float, and one thread a float chains the row groups' end states. Mirror and
// wrap walk from -R (lead R; positions before the walk read as zeros). Where the extension is one value c (clamp:
// the first row, zero: 0) the walk starts at row 0 (lead 0) from the sums of a column that was c forever, which are
// exact: y = 0 (the taps sum to zero), so the first two sums are 0 and the third the boxes' unnormalised output c
// prod w; the ring starts as c. That skips R of the H + 2R walked rows (docs/performance.md, "The walk from row 0":
// box 4096^2 RGBA sigma 200 0.514 -> 0.497 ms on an H200). docs/performance.md, "Box columns as a walk" (H200, box
// 4096^2 RGBA at sigma 200 0.648 -> 0.597-0.605 ms; the column pass alone in the microbenchmark 0.320 against the
// segments' 0.400) and "Box columns as a cascade walk" (loads without a modulo, stores without a per-row test:
// 0.594-0.595 -> 0.556-0.559).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "gpu/cuda/passes/box_common.cuh"

namespace gpublur::cuda {

constexpr int kWalkFloats = 16;                           // a strip: a half warp of floats a row group
constexpr int kWalkThreads = 256;
constexpr int kWalkGroups = kWalkThreads / kWalkFloats;  // row groups a step
// Rows a thread a step: odd, so the two half warps' rows fall in different banks; 15 measured 10-12% faster than 9,
// 21 slower at sigma 200 (one block an SM) in the microbenchmark.
constexpr int kWalkRT = 15;
constexpr int kWalkStep = kWalkGroups * kWalkRT;
// Ring rows repeated past its end: a thread's RT rows and the 2-row spread of a pair of taps (BoxWalkTaps).
constexpr int kWalkRep = kWalkRT + 2;

// Three boxes of integer widths, at most two distinct: m1 of wl, 3 - m1 of wu = wl + 2 (Kovesi's; m1 = 3: all wl).
struct WalkWidths {
  int m1 = 0, wl = 0, wu = 0;
};
inline bool walk_widths(const BoxWidths& bw, WalkWidths& out) {
  if (bw.n != 3) return false;
  int lo = bw.w[0], hi = bw.w[0];
  for (int i = 0; i < 3; ++i) {
    if (bw.frac[i] > 0.0f) return false;
    lo = bw.w[i] < lo ? bw.w[i] : lo;
    hi = bw.w[i] > hi ? bw.w[i] : hi;
  }
  if (hi != lo && hi != lo + 2) return false;  // Kovesi's two widths (BoxWalkTaps pairs their taps)
  int m1 = 0;
  for (int i = 0; i < 3; ++i) {
    if (bw.w[i] != lo && bw.w[i] != hi) return false;
    m1 += bw.w[i] == lo ? 1 : 0;
  }
  out.m1 = m1, out.wl = lo, out.wu = hi;
  return true;
}
// prod w of the three boxes, m1 of width wl and the rest wu (exact in float64): the boxes' unnormalised gain.
__host__ __device__ inline double walk_prod(int m1, int wl, int wu) {
  double prod = 1.0;
  for (int i = 0; i < 3; ++i) prod *= i < m1 ? wl : wu;
  return prod;
}
// 1 / prod w: the three sums' scale.
inline double walk_scale(const WalkWidths& w) { return 1.0 / walk_prod(w.m1, w.wl, w.wu); }
// The walk's blocks for rows of rowf floats: a strip of kWalkFloats each (box1d.cu's launch and plan_walk's cost).
inline long long walk_blocks(long long rowf) { return (rowf + kWalkFloats - 1) / kWalkFloats; }
// Calls f(std::integral_constant<int, M1>) for w.m1, the compile-time taps of BoxWalkTaps<M1, 3 - M1> (m1 is 1 to 3:
// the smaller width is among the three).
template <typename F>
decltype(auto) with_walk_m1(const WalkWidths& w, F&& f) {
  if (w.m1 == 3) return f(std::integral_constant<int, 3>());
  if (w.m1 == 2) return f(std::integral_constant<int, 2>());
  return f(std::integral_constant<int, 1>());
}

// The ring: every tap's distance (at most the widths' sum) and two steps, plus kWalkRep rows repeated past its end
// (so that a thread's rows of a run of taps from any position are contiguous); then the row groups' states.
inline int walk_ring_rows(const WalkWidths& w) { return w.m1 * w.wl + (3 - w.m1) * w.wu + 2 * kWalkStep + 1; }
inline size_t walk_smem_bytes(int ring_rows) {
  return size_t(ring_rows + kWalkRep) * kWalkFloats * sizeof(float) +
         size_t(kWalkGroups) * kWalkFloats * 3 * sizeof(double);
}

// The walk's lead (walk_columns): 0 where every position before the column holds one value (clamp, zero), else R.
__host__ __device__ inline int walk_lead(Border b, int R) { return b == Border::Clamp || b == Border::Zero ? 0 : R; }

// The taps' coefficients (1 - z^wl)^M1 (1 - z^wu)^M2, tap i * (M2 + 1) + j at distance i * wl + j * wu.
template <int M1, int M2>
struct WalkCoefs {
  int v[(M1 + 1) * (M2 + 1)];
  __host__ __device__ constexpr WalkCoefs() : v() {
    int b1[M1 + 1] = {}, b2[M2 + 1] = {};
    for (int i = 0; i <= M1; ++i) b1[i] = i == 0 ? 1 : b1[i - 1] * (M1 - i + 1) / i;
    for (int j = 0; j <= M2; ++j) b2[j] = j == 0 ? 1 : b2[j - 1] * (M2 - j + 1) / j;
    for (int i = 0; i <= M1; ++i)
      for (int j = 0; j <= M2; ++j) v[i * (M2 + 1) + j] = ((i + j) & 1 ? -1 : 1) * b1[i] * b2[j];
  }
};

// The binomial weights of a walk with NI sums, as compile-time tables (computed at run time, their loops and
// float64 divisions made the walk 2x slower on an H200): chain[k][j] = C(RT + k - j - 1, k - j) for j < k (a group of
// RT rows takes the states A before it to A_k + sum_j chain[k][j] A_j + e_k), out[r][k] = C(r + NI - 1 - k,
// NI - 1 - k) (row r of a group is its local sum plus sum_k out[r][k] A_k).
__host__ __device__ constexpr long long walk_binom(int n, int k) {
  long long b = 1;
  for (int i = 0; i < k; ++i) b = b * (n - i) / (i + 1);
  return b;
}
template <int NI, int RT>
struct WalkBinoms {
  double chain[NI][NI];
  double out[RT][NI];
  __host__ __device__ constexpr WalkBinoms() : chain(), out() {
    for (int k = 0; k < NI; ++k)
      for (int j = 0; j < NI; ++j) chain[k][j] = j < k ? double(walk_binom(RT + k - j - 1, k - j)) : 0.0;
    for (int r = 0; r < RT; ++r)
      for (int k = 0; k < NI; ++k) out[r][k] = double(walk_binom(r + NI - 1 - k, NI - 1 - k));
  }
};

// Three integer boxes: y = D_wl^M1 D_wu^M2 x (integer coefficients: exact in float64), summed three times. With
// wu = wl + 2 tap (i, j) lies at distance k wl + 2 j (k = i + j), so the taps of one k are a run of RT + 2 (jhi - jlo)
// consecutive rows: each row of a run is read and converted to float64 once (64 conversions a thread's 15 rows
// instead of 90 for two Kovesi widths; the conversions run on XU, the walk's busiest pipe: docs/performance.md,
// "The column walk's profile").
template <int M1, int M2>
struct BoxWalkTaps {
  static_assert(M1 + M2 == 3, "three boxes (walk_widths)");
  static constexpr int NI = 3;  // running sums
  int wl = 0, wu = 0;           // wu = wl + 2 (walk_widths)
  // The last sum's value on a constant column of 1: the boxes' unnormalised output, prod w (exact).
  __host__ __device__ double constant_sum() const { return walk_prod(M1, wl, wu); }
  // y[r] for the thread's rows r = 0 .. kWalkRT - 1 from ring slot base (its float c).
#pragma nv_exec_check_disable
  template <typename FP>
  __host__ __device__ __forceinline__ void rows(FP ring, int base, int RL, int c, double (&y)[kWalkRT]) const {
#pragma unroll
    for (int r = 0; r < kWalkRT; ++r) y[r] = 0;
    add_run<0>(ring, base, RL, c, y);
  }

 private:
#pragma nv_exec_check_disable
  template <int K, typename FP>
  __host__ __device__ __forceinline__ void add_run(FP ring, int base, int RL, int c, double (&y)[kWalkRT]) const {
    constexpr int S = kWalkFloats, RT = kWalkRT, JLO = K > M1 ? K - M1 : 0, JHI = K < M2 ? K : M2;
    constexpr int N = RT + 2 * (JHI - JLO);
    static_assert(N <= kWalkRep, "a run fits the ring's repeated rows");
    constexpr WalkCoefs<M1, M2> kc;
    int v = base - (K * wl + 2 * JHI);  // the run's first row: its farthest tap's row 0
    v = v < 0 ? v + RL : v;
    double e[N];
#pragma unroll
    for (int q = 0; q < N; ++q) e[q] = double(float(ring[(v + q) * S + c]));
#pragma unroll
    for (int r = 0; r < RT; ++r)
#pragma unroll
      for (int j = JLO; j <= JHI; ++j) {
        const int coef = kc.v[(K - j) * (M2 + 1) + j];
        const double d = e[r + 2 * (JHI - j)];
        if (coef == 1)
          y[r] += d;
        else if (coef == -1)
          y[r] -= d;
        else
          y[r] = fma(double(coef), d, y[r]);
      }
    if constexpr (K < M1 + M2) add_run<K + 1>(ring, base, RL, c, y);
  }
};

// One block's walk of a strip of H rows (Block: DeviceBlock or the tests' emulated block). ring / st: shared memory
// (walk_smem_bytes; FP / DP anything indexable and offsettable, as the tests' race-checking pointers). issue(off, p,
// q): start loading floats 4q .. 4q + 3 of the strip's border-extended row p (-R <= p < H + R, or -1 with lead 0; never
// others; positions before -R read as the ring's zeros) into ring + off; wait(): every issued load landed. store(row,
// c, v): output row 0 <= row < H of the strip's float c. lead: R, or 0 where every position before the column holds
// row -1's value (clamp, zero). taps: the sparse filter (BoxWalkTaps; Taps::NI running sums), inv: walk_scale.
// Each thread computes its rows' y first and then sums them (the walk pass at 4096^2 RGBA sigma 200 0.304 -> 0.294 ms
// on an H200 against each row's taps and sums together). Integral's five real boxes as 36 float64 taps on the same walk
// measured 1.5-1.8x slower than its segments (docs/performance.md, "Integral's columns as a walk").
#pragma nv_exec_check_disable
template <class Block, class Taps, typename FP, typename DP, typename Issue, typename Wait, typename Store>
__host__ __device__ void walk_columns(FP ring, DP st, int RL, int H, int R, int lead, const Taps& taps, double inv,
                                      Issue issue, Wait wait, Store store) {
  constexpr int RT = kWalkRT, T = kWalkStep, S = kWalkFloats, NT = kWalkThreads, NI = Taps::NI;
  constexpr WalkBinoms<NI, RT> kb;
  const int tid = Block::tid(), c = tid % S, g = tid / S;
  double C[NI] = {};  // the chain's state before the step (threads of group 0, one a float)
  if (lead == 0) {
    // Row -1's value c into the last slot, then every other slot c (the ring's positions before 0; step 0's loads
    // come after the barrier below); the constant column's sums are (0, 0, c prod w).
    if (tid < S / 4) issue((RL - 1) * S + tid * 4, -1, tid);
    wait();
    Block::sync();
    const float cv = float(ring[(RL - 1) * S + c]);
    for (int i = tid; i < (RL + kWalkRep) * S; i += NT)
      if (i / S != RL - 1) ring[i] = float(ring[(RL - 1) * S + i % S]);
    if (g == 0) C[NI - 1] = double(cv) * taps.constant_sum();
  } else {
    for (int i = tid; i < (RL + kWalkRep) * S; i += NT) ring[i] = 0.0f;
  }
  Block::sync();
  const int nsteps = (H + R + lead + T - 1) / T;
  // Step s's rows: positions -lead + s T + r at slot (s T + r) mod RL, the first kWalkRep slots also past the end. A
  // thread loads the same rows r of every step (load_step is called for s = 0, 1, 2, ...): their positions and slots
  // advance by T, so no load divides (in the microbenchmark a modulo by RL per load was 11% of the walk's instructions
  // and 2-6% of its time: docs/performance.md, "Box columns as a cascade walk").
  constexpr int NL = T * (S / 4), LPT = (NL + NT - 1) / NT;
  int lp[LPT], lslot[LPT];
#pragma unroll
  for (int j = 0; j < LPT; ++j) lp[j] = -lead + (tid + j * NT) / (S / 4), lslot[j] = (tid + j * NT) / (S / 4);
  const auto load_step = [&](int) {
#pragma unroll
    for (int j = 0; j < LPT; ++j) {
      const int i = tid + j * NT, q = i % (S / 4), p = lp[j], slot = lslot[j];
      if (i < NL && p < H + R) {  // past the walk: never read
        issue(slot * S + q * 4, p, q);
        if (slot < kWalkRep) issue((slot + RL) * S + q * 4, p, q);
      }
      lp[j] = p + T;
      lslot[j] = slot + T >= RL ? slot + T - RL : slot + T;
    }
  };
  load_step(0);
  // This thread's first slot of step s, (s T + g RT) mod RL, advanced by T a step as the loads' (g RT < T < RL).
  int base = g * RT;
  for (int s = 0; s < nsteps; ++s, base = base + T >= RL ? base + T - RL : base + T) {
    wait();
    Block::sync();  // step s's rows landed; everyone is done with step s - 1 (its slots may be reused)
    if (s + 1 < nsteps) load_step(s + 1);
    double L[RT];  // y, then its NI-th local sum
    taps.rows(ring, base, RL, c, L);
    double l[NI] = {};
#pragma unroll
    for (int r = 0; r < RT; ++r) {
      l[0] += L[r];
#pragma unroll
      for (int k = 1; k < NI; ++k) l[k] += l[k - 1];
      L[r] = l[NI - 1];
    }
    const int e = (g * S + c) * NI;
#pragma unroll
    for (int k = 0; k < NI; ++k) st[e + k] = l[k];
    Block::sync();
    if (g == 0) {
      // A group of RT rows takes the states A_k before it (k = 0: the first sum) to A_k + sum_{j<k} C(RT + k - j - 1,
      // k - j) A_j + e_k; each group's slot gets the state before it.
      for (int grp = 0; grp < kWalkGroups; ++grp) {
        const int f = (grp * S + c) * NI;
        double nx[NI];
#pragma unroll
        for (int k = 0; k < NI; ++k) {
          double v = C[k] + double(st[f + k]);
#pragma unroll
          for (int j = 0; j < k; ++j) v += kb.chain[k][j] * C[j];
          nx[k] = v;
        }
#pragma unroll
        for (int k = 0; k < NI; ++k) st[f + k] = C[k], C[k] = nx[k];
      }
    }
    Block::sync();
    double A[NI];
#pragma unroll
    for (int k = 0; k < NI; ++k) A[k] = st[e + k];
    const int row0 = s * T + g * RT - R - lead;
    const auto out = [&](int r) {
      // Row r of the group: its local sum plus sum_k C(r + NI - 1 - k, NI - 1 - k) A_k.
      double v = L[r];
#pragma unroll
      for (int k = 0; k < NI; ++k) v += kb.out[r][k] * A[k];
      return float(v * inv);
    };
    if (row0 >= 0 && row0 + RT <= H) {  // every step but those at the column's ends: no test a row
#pragma unroll
      for (int r = 0; r < RT; ++r) store(row0 + r, c, out(r));
    } else {
#pragma unroll
      for (int r = 0; r < RT; ++r)
        if (row0 + r >= 0 && row0 + r < H) store(row0 + r, c, out(r));
    }
  }
}

// Whether the walk can run a column pass of H rows, rowf floats across (a whole number of float4: rows start 16-byte
// aligned), its ring, and its cost in the units of box_cascade.cuh's AxisPlan::cost (a float4 column's cascade
// positions, weighted): kWalkWeight a walked row. First fitted as 4.8 on the unpaired taps (docs/performance.md, "Box
// columns as a walk"), 4.3 with the taps paired (call 155). Refitted after the column strips' loads at fixed strides
// made the segments 7-13% faster (docs/performance.md, box, "The walk refitted after the strips' loads"; H200 calls
// 349-350, each path forced, 1 / 2 / 4 channels, 1024^2-4096^2, 1920x1080, 3000^2, clamp and mirror, sigma 12-200):
// the segments are now faster up to sigma 64 (at 4096^2 RGBA by 3-9%) and the walk from sigma 80-100 on (11-13% at
// 100), which weight 4.85 with the thin grid's factor below reproduces in every case measured but three (1024^2 two
// channels at sigma 200 and 2048^2 RGBA mirror at 100 keep the segments, 7.7% and 3.7% slower; 4096^2 two channels at
// 80 takes the walk, 0.1% slower).
constexpr double kWalkWeight = 4.85;
struct WalkPlan {
  WalkWidths w;
  int ring_rows = 0;  // 0: no walk
  size_t smem = 0;
  double cost = 0;
  bool whole_sm = false;  // the ring takes more than two blocks an SM allow: one block an SM
};
// Whether a possible walk w runs instead of the segments (seg: they fit, at seg_cost): box1d.cu's plan_col_walk
// and the plan tests decide by this one rule.
inline bool walk_cheaper(const WalkPlan& w, bool seg, double seg_cost) { return !seg || w.cost < seg_cost; }
// lead: walk_lead (the rows walked are H + R + lead); sms: the device's SMs (0: not counted). Under two blocks an SM
// the walk's blocks no longer hide each other's latency, so its cost a column grows there: by (2 sms / blocks)^(1/4)
// (calls 349-350: 2048^2 one channel, 128 blocks, the segments 8-10% faster at sigma 100 and the walk 7% at 200; the
// square root, fitted to calls 155 and 160, gave it the segments at 200 with the weight above).
inline bool plan_walk(int H, long long rowf, const BoxWidths& bw, int lead, size_t budget, int sms, WalkPlan& out) {
  WalkPlan p;
  if (rowf % 4 != 0 || !walk_widths(bw, p.w)) return false;
  p.ring_rows = walk_ring_rows(p.w);
  p.smem = walk_smem_bytes(p.ring_rows);
  if (p.smem > budget) return false;
  const long long blocks = walk_blocks(rowf);
  const double fill = sms > 0 && blocks < 2LL * sms ? std::sqrt(std::sqrt(2.0 * sms / double(blocks))) : 1.0;
  p.cost = kWalkWeight * double(H + bw.reach + lead) * fill;
  out = p;
  return true;
}

// plan_walk at two blocks an SM (budget `shared`), else at one (`whole`, the opt-in maximum) where the ring outgrows
// two (box sigma 250 and up: 134 KB at 250, 230 KB at 500), at the same cost. One block an SM walks a row about 1.5x
// slower (4096^2 RGBA sigma 300: 0.405 ms for 4995 rows against 0.25 for 4695 at two, sigma 200), which the segments
// it replaces outweigh in every case measured but RGBA at sigma 250 on the largest images (H200, the walk forced
// against the segments, docs/performance.md "The walk at one block an SM beyond sigma 200"): box 4096^2 RGBA
// 1.412-1.419 -> 0.825-0.829 ms at sigma 400, 1.640-1.643 -> 0.921 at 500, 0.686-0.689 -> 0.660-0.663 at 300; 2048^2
// and 1024^2, one and two channels 1-12% faster at 250-300 and 33-47% at 400-500; 4096^2 RGBA at 250 1.6% slower,
// 3840x2160 8.1%, 3000^2 3.2% (no cost weight separates those from 300, where the same sizes gain 2-9%).
inline bool plan_walk_fit(int H, long long rowf, const BoxWidths& bw, int lead, size_t shared, size_t whole, int sms,
                          WalkPlan& out) {
  if (!plan_walk(H, rowf, bw, lead, std::max(shared, whole), sms, out)) return false;
  out.whole_sm = out.smem > shared;
  return true;
}

}  // namespace gpublur::cuda
