// Box1d's column walk with carried tails (passes/box1d.cu's box_cols_carry_kernel): a block walks down its strip
// of columns in steps of S output rows and runs the cascade one box at a time on a ring of positions in shared
// memory. Each box keeps the last inputs its next windows need (its tail, d_i >= span_i - 1 positions) from step
// to step, so a long column is loaded once with no halo and each box's outputs are computed once: the segmented
// schedule (box_cascade.cuh's LinePlan) loads and cascades 2R extra rows per segment, 1.9x the rows at sigma
// 200 on a 4096-row image.
//
// Positions are those of the column extended by R on both sides (position q: row q - R through the border
// mode). Box i's outputs replace its inputs in place (output j at slot j, as cascade_lines does); after step t
// box i has produced its outputs up to f_i(t) = F(t) - (d_0 + .. + d_i), F(t) = D + (t + 1) S the positions
// loaded, D = sum d_i. Step t runs each box on [f_i(t - 1), f_i(t)) (step 0: from 0, in calls of at most S
// outputs), reading box i - 1's values up to f_{i-1}(t) and never past it (d_i is a multiple of the chunk, so
// cascade_lines' EXACT form reads whole chunks exactly up to there), and the last box's S outputs go to the
// image. The ring holds the tails and one step's new positions (C = D + S), or two (C = D + 2S, `ahead`: the
// next step's loads are issued before this step's cascade, into slots the step before freed, and land while it
// runs).
#pragma once
#include <algorithm>

#include "gpu/cuda/passes/box_cascade.cuh"

namespace gpublur::cuda {

// A pointer into a ring of cap values: p[i] is s[(off + i) mod cap] for off, i in [0, cap) (one conditional
// subtraction). P: the underlying pointer (the tests' race-checking pointers).
template <typename P>
struct RingPtr {
  P s;
  int off, cap;
  __host__ __device__ __forceinline__ RingPtr operator+(int d) const { return RingPtr{s, off + d, cap}; }
#pragma nv_exec_check_disable
  __host__ __device__ __forceinline__ decltype(auto) operator[](int i) const {
    int q = off + i;
    if (q >= cap) q -= cap;
    return s[q];
  }
};

// The walk's shape for one image height and cascade (box1d.cu passes it to the kernel).
struct CarryPlan {
  int S = 0;      // final outputs (rows) per step, a multiple of SC
  int SC = 0;     // chunk: one of kExactChunks (cascade_lines' EXACT form, one round per box)
  int C = 0;      // ring positions
  int steps = 0;  // ceil(H / S)
  int D = 0;      // sum of the tails
  int d[kMaxBoxes] = {};  // box i's tail: span_i - 1 rounded up to a multiple of SC
  bool ahead = false;     // C = D + 2S: the next step's loads in flight during this step
  bool direct = false;    // direct_starts(bw, SC)
};

// Box i's output front after step t (i = -1: the positions loaded).
__host__ __device__ __forceinline__ int carry_front(const CarryPlan& cp, int t, int i) {
  int f = cp.D + (t + 1) * cp.S;
  for (int k = 0; k <= i; ++k) f -= cp.d[k];
  return f;
}

// The walk on nl value lines interleaved in the ring s (position q's line l at slot (q mod C) * nl + l).
// load(q0, q1): start loading positions [q0, q1) into their slots (asynchronously: the block's copies are
// complete after wait() and a barrier). store(l, row, v): row in [0, steps * S), the caller keeps rows < H.
// base / tot as for cascade_lines, sized for lines of S + max d_i positions. Every thread of the block calls it.
#pragma nv_exec_check_disable
template <typename Blk, typename V, int SC, bool DIRECT, typename P, typename DP, typename FP, typename Load,
          typename Wait, typename Store>
__host__ __device__ __forceinline__ void carry_lines(P s, int nl, const BoxWidths& bw, const CarryPlan& cp, DP base,
                                                     FP tot, Load load, Wait wait, Store store) {
  const int n = bw.n, S = cp.S, C = cp.C;
  for (int t = 0; t < cp.steps; ++t) {
    if (!cp.ahead || t == 0) load(t == 0 ? 0 : carry_front(cp, t - 1, -1), carry_front(cp, t, -1));
    wait();
    Blk::sync();  // this step's positions are in; the previous step's reads are done
    if (cp.ahead && t + 1 < cp.steps) load(carry_front(cp, t, -1), carry_front(cp, t + 1, -1));
    for (int i = 0; i < n; ++i) {
      const int hi = carry_front(cp, t, i);
      for (int p = t == 0 ? 0 : carry_front(cp, t - 1, i); p < hi; p += S) {
        const int cnt = min(S, hi - p), len = cnt + bw.span(i) - 1;
        const RingPtr<P> r{s, (p % C) * nl, C * nl};
        if (i + 1 < n) {
          cascade_lines<Blk, V, SC, true, true, DIRECT>(r, nl, 1, nl, len, bw, SC, base, tot, NoStore{}, i, i + 1);
        } else {
          cascade_lines<Blk, V, SC, false, true, DIRECT>(
              r, nl, 1, nl, len, bw, SC, base, tot, [&](int l, int j, const V& v) { store(l, p + j, v); }, i,
              i + 1);
        }
      }
    }
    Blk::sync();  // the last box's reads are done before the next loads land in their slots
  }
}

// Positions the walk's cascade goes over on a column of n rows: the loads, then every box's outputs.
inline long long carry_positions(const CarryPlan& cp, int nboxes) {
  long long p = carry_front(cp, cp.steps - 1, -1);
  for (int i = 0; i < nboxes; ++i) p += carry_front(cp, cp.steps - 1, i);
  return p;
}

// The walk for a column of n rows in strips of nl values of vbytes (K floats), nth threads: chunk SC, S
// (0: the largest that fits), ahead or not, within `budget` bytes of shared memory (the ring, then
// smem_layout's prefixes and totals for lines of S + max d_i). False where nothing fits.
inline bool plan_carry_at(int n, const BoxWidths& bw, int nl, size_t vbytes, int K, int nth, size_t budget, int SC,
                          int S, bool ahead, CarryPlan& out, SmemLayout& smem) {
  CarryPlan cp;
  cp.SC = SC, cp.ahead = ahead, cp.direct = direct_starts(bw, SC);
  int maxd = 0;
  for (int i = 0; i < bw.n; ++i) {
    cp.d[i] = (bw.span(i) - 1 + SC - 1) / SC * SC;
    cp.D += cp.d[i];
    maxd = std::max(maxd, cp.d[i]);
  }
  const int kmax = std::min(nth / nl, (n + SC - 1) / SC);  // chunks per line: one round, no more than the column
  if (kmax < 1) return false;
  const auto fit = [&](int s, SmemLayout& L) {
    const int C = cp.D + (ahead ? 2 : 1) * s;
    L = smem_layout(size_t(C) * size_t(nl) * vbytes, s + maxd, SC, nl, K, !cp.direct);
    return L.bytes <= budget;
  };
  int k = S > 0 ? S / SC : kmax;
  if (S > 0 && (S % SC != 0 || k > kmax)) return false;
  SmemLayout L;
  while (k >= 1 && !fit(k * SC, L)) {
    if (S > 0) return false;
    --k;
  }
  if (k < 1) return false;
  cp.S = k * SC;
  cp.C = cp.D + (ahead ? 2 : 1) * cp.S;
  cp.steps = (n + cp.S - 1) / cp.S;
  out = cp, smem = L;
  return true;
}

}  // namespace gpublur::cuda
