// The x/y pair of an iir plan (core's iir_pair: rows then columns, one filter and border) for RGBA images as 2D
// tiles (iir1d.cu's launch_iir1d_pair; docs/performance.md, iir, "Two designs measured on the H200"), after Nehab,
// Maximo, Lima and Hoppe (GPU-efficient recursive filtering, 2011). The image is cut into tiles of kIir2dTile x
// kIir2dTile pixels; no intermediate image is written:
//   1. sums (a block a tile): the tile read once; each row line's sums from zero (U at its last position, W at its
//      first: iir_tiles.cuh's aggregates, into the rows plan's), and the column aggregates of the rows' output from
//      zero states. Those need no row filtering of the tile: column sums are linear, so they are the tile-local row
//      filter (from zero) of the column sums of the raw values, 2 k complex vectors of a row each per channel.
//   2. the row chains (iir_tiles.cuh's chain and border kernels on the rows plan): the row aggregates become each
//      tile's true incoming states.
//   3. the column aggregates corrected for those states (iir2d_fix_*): the row filter's response to a row's states
//      is Re(a_x s) at column x (a_x = c p^(x+1) for the causal state, c p^(n-x) for the anticausal), so a column
//      aggregate with weights w_r over the tile's rows changes by Re(a_x) sum_r w_r Re(s_r) - Im(a_x) sum_r w_r
//      Im(s_r): a block's weighted sums of its 64 rows' states, then one update a column line. For clamp, the
//      rows' true outputs of the first and last image rows first (iir2d_edge: the column chains' border states).
//   4. the column chains (the tile chain and border kernels on the columns plan).
//   5. outputs (a block a tile): the tile read again, its rows filtered in shared memory from their true states,
//      then its columns, each output stored from registers.
// Bytes: two reads and one write of the image and both axes' aggregates (2 k float2 per 64-position line tile),
// about 4 image transfers against the separate passes' 5.6. Host-callable per thread (tests/cuda emulates them).
#pragma once
#include <cstddef>

#include "gpu/cuda/passes/iir_tiles.cuh"

namespace gpublur::cuda {

constexpr int kIir2dTile = 64;                          // pixels a tile side
constexpr int kIir2dThreads = 256;                      // a tile's row lines (64 rows x 4 channels), likewise columns
constexpr int kIir2dPitch = kIir2dTile * 4 + 4;         // floats a tile row in shared memory: both kinds of line
                                                        // conflict-free (lanes 8 rows x 4 channels or 8 x 4)
constexpr int kIir2dZ = 2 * 2 * kMaxIirTerms;           // column vectors a channel: (term, kind) x (re, im)
constexpr int kIir2dZPitch = kIir2dThreads + 4;         // floats a vector: a warp's 8 vectors x 4 channels on 32 banks
constexpr size_t kIir2dSmem = size_t(kIir2dTile) * kIir2dPitch * sizeof(float);

// The two tile plans (iir_tiles.cuh: rows and columns in tiles of kIir2dTile, 2 k aggregates a tile: U and W) and the
// tile grid. RGBA only.
struct Iir2dPlan {
  int w = 0, h = 0, tx = 0, ty = 0;
  IirTilePlan Pr, Pc;
  GPUBLUR_HD int nx(int x) const { return x + 1 < tx ? kIir2dTile : w - (tx - 1) * kIir2dTile; }
  GPUBLUR_HD int ny(int y) const { return y + 1 < ty ? kIir2dTile : h - (ty - 1) * kIir2dTile; }
  // The scratch: the rows' aggregates and ends, the columns', then the clamp border rows (2 x w x 4 floats).
  size_t col_offset() const { return (Pr.scratch_bytes() + 255) / 256 * 256; }
  size_t edge_offset() const { return col_offset() + (Pc.scratch_bytes() + 255) / 256 * 256; }
  size_t scratch_bytes() const { return edge_offset() + size_t(2) * size_t(w) * 4 * sizeof(float); }
};

// Where the 2D tiles ran faster than whole rows and column tiles (H200, docs/performance.md, twentieth session):
// Young-van Vliet (term 1 real) at 4096^2 RGBA (0.417-0.424 against 0.459-0.466 ms); not at 2048^2 (0.140 against
// 0.128) or 1024^2, nor Deriche at 4096^2 (0.484-0.496 against 0.473-0.489).
constexpr long long kIir2dMinPixels = 4096LL * 4096;
inline bool iir2d_measured_faster(int w, int h, const IirCoeffs& co) {
  return co.k == 2 && iir_term1_real(co) && (long long)w * h >= kIir2dMinPixels;
}

inline Iir2dPlan iir2d_plan(int w, int h, int k) {
  Iir2dPlan P;
  P.w = w, P.h = h, P.tx = (w + kIir2dTile - 1) / kIir2dTile, P.ty = (h + kIir2dTile - 1) / kIir2dTile;
  P.Pr = iir_tile_plan(true, w, h, 4, k, kIir2dTile);
  P.Pc = iir_tile_plan(false, w, h, 4, k, kIir2dTile);
  P.Pr.nagg = P.Pc.nagg = 2 * k;
  return P;
}

// One line of n <= kIir2dTile values x(i), its outputs out(i, y), from the scaled states u0 = c U[a-1] (causal)
// and v0 = c p W[b] (anticausal) of each term (zero for the tile-local filter): iir_tile_final_halves' arithmetic,
// a half of 32 at a time (the lower half's anticausal start by a state-only sweep over the upper half).
#pragma nv_exec_check_disable
template <int KT, bool R1, bool FULL, typename LD, typename ST>
GPUBLUR_HD void iir2d_line(LD x, ST out, int n, const float (&u0r)[KT], const float (&u0i)[KT], const float (&v0r)[KT],
                           const float (&v0i)[KT], const IirCoeffs& co) {
  constexpr int H = kIir2dTile / 2;
  float ur[KT], ui[KT], lr[KT], li[KT];  // causal state; the lower half's anticausal start
  // The coefficients as values (the lambdas below capture them, not the kernel parameter: a captured reference to it
  // put a copy in local memory).
  float pr[KT], pi[KT], cr[KT], ci[KT];
#pragma unroll
  for (int t = 0; t < KT; ++t) {
    ur[t] = u0r[t], ui[t] = u0i[t], lr[t] = v0r[t], li[t] = v0i[t];
    pr[t] = co.fpr[t], pi[t] = co.fpi[t], cr[t] = co.fcr[t], ci[t] = co.fci[t];
  }
  const int k = co.k;
  // One step of each direction for every term: causal u[i] = c x[i] + p u[i-1] (returns the terms' sum), and
  // anticausal y[i] += Re(v[i]), v[i-1] = p (c x[i] + v[i]) (returns the terms' Re(v[i])).
  const auto causal = [&](float xq) {
    float y = 0.0f;
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (KT == kMaxIirTerms && t >= k) continue;
      if (R1 && t == 1) {
        ur[t] = cr[t] * xq + pr[t] * ur[t];
      } else {
        const float r = cr[t] * xq + pr[t] * ur[t] - pi[t] * ui[t];
        ui[t] = ci[t] * xq + pr[t] * ui[t] + pi[t] * ur[t], ur[t] = r;
      }
      y += ur[t];
    }
    return y;
  };
  const auto anticausal = [&](float xq, float (&vr)[KT], float (&vi)[KT]) {
    float y = 0.0f;
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (KT == kMaxIirTerms && t >= k) continue;
      y += vr[t];
      if (R1 && t == 1) {
        vr[t] = pr[t] * (cr[t] * xq + vr[t]);
      } else {
        const float sr = cr[t] * xq + vr[t], si = ci[t] * xq + vi[t];
        vr[t] = pr[t] * sr - pi[t] * si, vi[t] = pr[t] * si + pi[t] * sr;
      }
    }
    return y;
  };
  if constexpr (FULL) {
    // Quarters of Q: the anticausal states at each quarter's top from one state-only sweep down from the tile's
    // top (a thread then holds Q outputs, not H: at H the kernel spilled at 80 registers).
    constexpr int Q = kIir2dTile / 4;
    float sr[3][KT], si[3][KT];  // the states at the tops of quarters 2, 1, 0
#pragma unroll
    for (int qq = 3; qq >= 1; --qq) {
#pragma unroll 8
      for (int d = Q - 1; d >= 0; --d) anticausal(x(qq * Q + d), lr, li);
#pragma unroll
      for (int t = 0; t < KT; ++t) sr[3 - qq][t] = lr[t], si[3 - qq][t] = li[t];
    }
#pragma unroll 1
    for (int qq = 0; qq < 4; ++qq) {
      const int q0 = qq * Q;
      float ys[Q], vr[KT], vi[KT];
#pragma unroll
      for (int t = 0; t < KT; ++t) {  // (the selects by a run-time quarter: no array indexed at run time)
        vr[t] = qq == 3 ? v0r[t] : qq == 2 ? sr[0][t] : qq == 1 ? sr[1][t] : sr[2][t];
        vi[t] = qq == 3 ? v0i[t] : qq == 2 ? si[0][t] : qq == 1 ? si[1][t] : si[2][t];
      }
#pragma unroll
      for (int q = 0; q < Q; ++q) ys[q] = causal(x(q0 + q));
#pragma unroll
      for (int q = Q - 1; q >= 0; --q) ys[q] += anticausal(x(q0 + q), vr, vi);
#pragma unroll
      for (int q = 0; q < Q; ++q) out(q0 + q, ys[q]);
    }
  } else {  // a tile at the image's right or bottom edge: plain loops (its registers are the full tile's)
    const int n_hi = n > H ? n - H : 0;
    for (int d = n_hi - 1; d >= 0; --d) anticausal(x(H + d), lr, li);
    float ys[H];
    for (int half = 0; half < 2; ++half) {
      const int q0 = half * H, m = half ? n_hi : (n < H ? n : H);
      float vr[KT], vi[KT];
#pragma unroll
      for (int t = 0; t < KT; ++t) vr[t] = half ? v0r[t] : lr[t], vi[t] = half ? v0i[t] : li[t];
#pragma unroll 1
      for (int q = 0; q < m; ++q) ys[q] = causal(x(q0 + q));
#pragma unroll 1
      for (int q = m - 1; q >= 0; --q) ys[q] += anticausal(x(q0 + q), vr, vi);
#pragma unroll 1
      for (int q = 0; q < m; ++q) out(q0 + q, ys[q]);
    }
  }
}
// R1: term 1 real (Young-van Vliet's real pole: two operations a step where a complex term takes four).
template <int KT, bool R1, typename LD, typename ST>
GPUBLUR_HD void iir2d_line_any(LD x, ST out, int n, const float (&u0r)[KT], const float (&u0i)[KT],
                               const float (&v0r)[KT], const float (&v0i)[KT], const IirCoeffs& co) {
  if (n == kIir2dTile) iir2d_line<KT, R1, true>(x, out, n, u0r, u0i, v0r, v0i, co);
  else iir2d_line<KT, R1, false>(x, out, n, u0r, u0i, v0r, v0i, co);
}

// The scaled states of line l of tile j from its true states in plan P's aggregates: u0 = c U, v0 = c p W.
#pragma nv_exec_check_disable
template <int KT, typename AP>
GPUBLUR_HD void iir2d_states(AP agg, const IirTilePlan& P, int j, int l, const IirCoeffs& co, float (&u0r)[KT],
                             float (&u0i)[KT], float (&v0r)[KT], float (&v0i)[KT]) {
#pragma unroll
  for (int t = 0; t < KT; ++t) {
    u0r[t] = u0i[t] = v0r[t] = v0i[t] = 0.0f;
    if (KT == kMaxIirTerms && t >= co.k) continue;  // (KT < kMaxIirTerms: exactly KT terms)
    const float2 U = agg[long(P.agg(j, t, l))], W = agg[long(P.agg(j, co.k + t, l))];
    const Cplx c{co.cr[t], co.ci[t]}, cp = cmul(c, Cplx{co.pr[t], co.pi[t]});
    const Cplx cu = cmul(c, Cplx{double(U.x), double(U.y)}), cv = cmul(cp, Cplx{double(W.x), double(W.y)});
    u0r[t] = float(cu.re), u0i[t] = float(cu.im), v0r[t] = float(cv.re), v0i[t] = float(cv.im);
  }
}

// A line's sums from zero over n values x(i): U = sum p^(n-1-i) x_i and W = sum p^i x_i of each term, as
// recursions (U = p U + x forwards, W = p W + x backwards, in one loop: register operands only; weighted sums with
// the powers from memory were a load a product, 3.3x slower in the prototype).
#pragma nv_exec_check_disable
template <int KT, bool R1, int N, typename LD>
GPUBLUR_HD void iir2d_sums_n(LD x, int n, const IirCoeffs& co, float (&u)[KT][2], float (&w)[KT][2]) {
#pragma unroll
  for (int t = 0; t < KT; ++t) u[t][0] = u[t][1] = w[t][0] = w[t][1] = 0.0f;
#pragma unroll 8
  for (int i = 0; i < (N > 0 ? N : n); ++i) {
    const float a = x(i), b = x((N > 0 ? N : n) - 1 - i);
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (KT == kMaxIirTerms && t >= co.k) continue;  // (KT < kMaxIirTerms: exactly KT terms)
      const float pr = co.fpr[t], pi = co.fpi[t];
      if (R1 && t == 1) {
        u[t][0] = a + pr * u[t][0], w[t][0] = b + pr * w[t][0];
        continue;
      }
      const float r = a + pr * u[t][0] - pi * u[t][1];
      u[t][1] = pr * u[t][1] + pi * u[t][0], u[t][0] = r;
      const float q = b + pr * w[t][0] - pi * w[t][1];
      w[t][1] = pr * w[t][1] + pi * w[t][0], w[t][0] = q;
    }
  }
}
template <int KT, bool R1, typename LD>
GPUBLUR_HD void iir2d_sums(LD x, int n, const IirCoeffs& co, float (&u)[KT][2], float (&w)[KT][2]) {
  if (n == kIir2dTile) iir2d_sums_n<KT, R1, kIir2dTile>(x, n, co, u, w);
  else iir2d_sums_n<KT, R1, 0>(x, n, co, u, w);
}

// Stage 1, phase 1 (thread tid of tile (x, y); s: the tile in shared memory, value (row r, pixel q, channel c) at
// s[r * kIir2dPitch + q * 4 + c]): the row line (r, c) = (tid / 4, tid % 4)'s sums into the rows' aggregates, and
// the column line (q, c)'s sums of the raw values, returned in zu / zw for phase 2.
#pragma nv_exec_check_disable
template <int KT, bool R1, typename SP, typename AP>
GPUBLUR_HD void iir2d_s1_sums(int tid, SP s, AP aggr, const Iir2dPlan& P, const IirCoeffs& co, int x, int y,
                              float (&zu)[KT][2], float (&zw)[KT][2]) {
  const int nx = P.nx(x), ny = P.ny(y), a = tid >> 2, c = tid & 3;
  if (a < ny) {
    float u[KT][2], w[KT][2];
    iir2d_sums<KT, R1>([&](int i) { return float(s[long(a * kIir2dPitch + i * 4 + c)]); }, nx, co, u, w);
    const int l = (y * kIir2dTile + a) * 4 + c;
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (KT == kMaxIirTerms && t >= co.k) continue;  // (KT < kMaxIirTerms: exactly KT terms)
      aggr[long(P.Pr.agg(x, t, l))] = float2{u[t][0], u[t][1]};
      aggr[long(P.Pr.agg(x, co.k + t, l))] = float2{w[t][0], w[t][1]};
    }
  }
  if (a < nx) iir2d_sums<KT, R1>([&](int i) { return float(s[long(i * kIir2dPitch + a * 4 + c)]); }, ny, co, zu, zw);
}
// Phase 2 (after a barrier: the tile is read): the column sums to shared memory over the tile, vector
// ((kind) * 2 + part) of line tid at s[vec * kIir2dZPitch + tid]; kind t (U of term t) or k + t (W).
#pragma nv_exec_check_disable
template <int KT, typename SP>
GPUBLUR_HD void iir2d_s1_zstore(int tid, SP s, const IirCoeffs& co, const float (&zu)[KT][2],
                                const float (&zw)[KT][2]) {
#pragma unroll
  for (int t = 0; t < KT; ++t) {
    if (KT == kMaxIirTerms && t >= co.k) continue;  // (KT < kMaxIirTerms: exactly KT terms)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      s[long((t * 2 + e) * kIir2dZPitch + tid)] = zu[t][e];
      s[long(((co.k + t) * 2 + e) * kIir2dZPitch + tid)] = zw[t][e];
    }
  }
}
// Phase 3: the tile-local row filter from zero along each vector (its nx positions), 2 x 4 k x 4 threads.
#pragma nv_exec_check_disable
template <int KT, typename SP>
GPUBLUR_HD void iir2d_s1_zfilter(int tid, SP s, const Iir2dPlan& P, const IirCoeffs& co, int x) {
  // Thread tid < 16 k: the causal sweep of vector (tid / 4) % 4k, channel tid % 4, or (tid >= 16 k) its anticausal
  // sweep: the two directions at once, their outputs apart (causal at kIir2dZ, anticausal at 2 kIir2dZ vectors).
  const int nv = 4 * co.k * 4;
  if (tid >= 2 * nv) return;
  const bool anti = tid >= nv;
  const int w = anti ? tid - nv : tid, v = w >> 2, c = w & 3, n = P.nx(x);
  const long in = long(v * kIir2dZPitch + c), out = long(((anti ? 2 : 1) * kIir2dZ + v) * kIir2dZPitch + c);
  float ur[KT], ui[KT];
#pragma unroll
  for (int t = 0; t < KT; ++t) ur[t] = ui[t] = 0.0f;
  if (!anti) {
#pragma unroll 8
    for (int i = 0; i < n; ++i) {  // causal: u[i] = c x[i] + p u[i-1]
      const float xq = s[in + i * 4];
      float y = 0.0f;
#pragma unroll
      for (int t = 0; t < KT; ++t) {
        if (KT == kMaxIirTerms && t >= co.k) continue;  // (KT < kMaxIirTerms: exactly KT terms)
        const float r = co.fcr[t] * xq + co.fpr[t] * ur[t] - co.fpi[t] * ui[t];
        ui[t] = co.fci[t] * xq + co.fpr[t] * ui[t] + co.fpi[t] * ur[t], ur[t] = r;
        y += ur[t];
      }
      s[out + i * 4] = y;
    }
    return;
  }
#pragma unroll 8
  for (int i = n - 1; i >= 0; --i) {  // anticausal: y[i] = Re(v[i]), v[i-1] = p (c x[i] + v[i])
    const float xq = s[in + i * 4];
    float y = 0.0f;
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (KT == kMaxIirTerms && t >= co.k) continue;
      y += ur[t];
      const float sr = co.fcr[t] * xq + ur[t], si = co.fci[t] * xq + ui[t];
      ur[t] = co.fpr[t] * sr - co.fpi[t] * si, ui[t] = co.fpr[t] * si + co.fpi[t] * sr;
    }
    s[out + i * 4] = y;
  }
}
// Phase 4: the column line (q, c) = (tid / 4, tid % 4)'s aggregates (from zero row states) into the columns' plan.
#pragma nv_exec_check_disable
template <int KT, typename SP, typename AP>
GPUBLUR_HD void iir2d_s1_colagg(int tid, SP s, AP aggc, const Iir2dPlan& P, const IirCoeffs& co, int x, int y) {
  const int q = tid >> 2, c = tid & 3;
  if (q >= P.nx(x)) return;
  const int l = (x * kIir2dTile + q) * 4 + c;
  for (int kind = 0; kind < 2 * co.k; ++kind) {
    const float re = float(s[long((kIir2dZ + kind * 2) * kIir2dZPitch + tid)]) +
                     float(s[long((2 * kIir2dZ + kind * 2) * kIir2dZPitch + tid)]);
    const float im = float(s[long((kIir2dZ + kind * 2 + 1) * kIir2dZPitch + tid)]) +
                     float(s[long((2 * kIir2dZ + kind * 2 + 1) * kIir2dZPitch + tid)]);
    aggc[long(P.Pc.agg(y, kind, l))] = float2{re, im};
  }
}

// For clamp: the rows' true outputs of image row e ? h - 1 : 0, tile x, channel c (edge[e * w * 4 + pixel * 4 + c]),
// from the chained row aggregates: the column chains' border states.
#pragma nv_exec_check_disable
template <int KT, bool R1, typename AP, typename EP>
GPUBLUR_HD void iir2d_edge(const float* src, AP aggr, EP edge, const Iir2dPlan& P, const IirCoeffs& co, int e, int c,
                           int x) {
  const int row = e ? P.h - 1 : 0, l = row * 4 + c;
  float u0r[KT], u0i[KT], v0r[KT], v0i[KT];
  iir2d_states<KT>(aggr, P.Pr, x, l, co, u0r, u0i, v0r, v0i);
  const float* in = src + (size_t(row) * size_t(P.w) + size_t(x) * kIir2dTile) * 4 + c;
  const long out = long(size_t(e) * size_t(P.w) * 4 + size_t(x) * kIir2dTile * 4 + size_t(c));
  iir2d_line_any<KT, R1>([&](int i) { return in[i * 4]; }, [&](int i, float yv) { edge[out + i * 4] = yv; }, P.nx(x),
                         u0r,
                     u0i, v0r, v0i, co);
}

// Stage 3, phase 1 (tile (x, y)): sum i (of 4 x (2 k)^2 x 2) over the tile's rows r of w_r s_r: channel i % 4,
// then part (re / im of the row state), the row's sequence (term t causal, k + t anticausal), the column's kind
// (term t' U: weights p'^(ny-1-r); k + t' W: p'^r). Into sums[i] (float64 complex).
struct Iir2dFixIndex {
  int c, part, rs, ck;
  GPUBLUR_HD Iir2dFixIndex(int i, int k) {
    c = i & 3, i >>= 2;
    part = i & 1, i >>= 1;
    rs = i % (2 * k), ck = i / (2 * k);
  }
  GPUBLUR_HD static int count(int k) { return 4 * 2 * (2 * k) * (2 * k); }
  GPUBLUR_HD static int at(int c, int part, int rs, int ck, int k) { return ((ck * 2 * k + rs) * 2 + part) * 4 + c; }
};
// The block's row states first (iir2d_fix_stage: thread i copies state i of the tile's 64 rows x 4 channels x 2 k
// sequences, st[(rs * 64 + r) * 4 + c], coalesced), then the sums from shared memory.
#pragma nv_exec_check_disable
template <typename AP, typename TP>
GPUBLUR_HD void iir2d_fix_stage(int i, AP aggr, TP st, const Iir2dPlan& P, const IirCoeffs& co, int x, int y) {
  const int per = kIir2dTile * 4, rs = i / per, rc = i % per;
  if (rs >= 2 * co.k || rc / 4 >= P.ny(y)) return;
  const float2 v = aggr[long(P.Pr.agg(x, rs, y * kIir2dTile * 4 + rc))];
  st[long(i)] = v;
}
// The powers p^j of each term, j <= kIir2dTile, made in float64 and rounded once (the fix kernel copies them to
// shared memory: its threads index them by their column).
struct Iir2dPowers {
  float2 p[kMaxIirTerms][kIir2dTile + 1];
};
inline Iir2dPowers iir2d_powers(const IirCoeffs& co) {
  Iir2dPowers pw{};
  for (int t = 0; t < co.k && t < kMaxIirTerms; ++t)
    for (int j = 0; j <= kIir2dTile; ++j) {
      const Cplx z = cpow(Cplx{co.pr[t], co.pi[t]}, j);
      pw.p[t][j] = float2{float(z.re), float(z.im)};
    }
  return pw;
}
GPUBLUR_HD float2 cmulf(float2 a, float2 b) { return float2{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x}; }

// Phase 2: sum i into sums[i] (float32: the corrections join float32 aggregates). pw: p^j of term t at
// pw[t * (kIir2dTile + 1) + j].
#pragma nv_exec_check_disable
template <typename TP, typename SP, typename WP>
GPUBLUR_HD void iir2d_fix_sums(int i, TP st, SP sums, WP pw, const Iir2dPlan& P, const IirCoeffs& co, int y) {
  if (i >= Iir2dFixIndex::count(co.k)) return;
  const Iir2dFixIndex f(i, co.k);
  const int ny = P.ny(y), tc = f.ck % co.k;
  const bool u = f.ck < co.k;
  float2 acc{0.0f, 0.0f};
  for (int j = 0; j < ny; ++j) {  // w = p^j at row j (W) or ny - 1 - j (U)
    const int r = u ? ny - 1 - j : j;
    const float2 sv = st[long((f.rs * kIir2dTile + r) * 4 + f.c)], w = pw[long(tc * (kIir2dTile + 1) + j)];
    const float v = f.part ? sv.y : sv.x;
    acc.x += w.x * v, acc.y += w.y * v;
  }
  sums[long(i)] = acc;
}
// Phase 3: column line (q, c) = (tid / 4, tid % 4): each kind's aggregate += sum over the row sequences of Re(a_q)
// S_re - Im(a_q) S_im, a_q = c p^(q+1) (causal) or c p^(nx-q) (anticausal).
#pragma nv_exec_check_disable
template <int KT, typename AP, typename SP, typename WP>
GPUBLUR_HD void iir2d_fix_apply(int tid, AP aggc, SP sums, WP pw, const Iir2dPlan& P, const IirCoeffs& co, int x,
                                int y) {
  const int nx = P.nx(x), q = tid >> 2, c = tid & 3, k = co.k;
  if (q >= nx) return;
  const int l = (x * kIir2dTile + q) * 4 + c;
  float2 add[2 * KT];  // (KT a constant: registers, where a run-time bound put the array in local memory)
#pragma unroll
  for (int ck = 0; ck < 2 * KT; ++ck) add[ck] = float2{0.0f, 0.0f};
#pragma unroll
  for (int rs = 0; rs < 2 * KT; ++rs) {
    if (rs >= 2 * k) continue;
    const int t = rs % k;
    const float2 pe = pw[long(t * (kIir2dTile + 1) + (rs < k ? q + 1 : nx - q))];
    const float2 a = cmulf(float2{co.fcr[t], co.fci[t]}, pe);
#pragma unroll
    for (int ck = 0; ck < 2 * KT; ++ck) {
      if (ck >= 2 * k) continue;
      const float2 sre = sums[long(Iir2dFixIndex::at(c, 0, rs, ck, k))];
      const float2 sim = sums[long(Iir2dFixIndex::at(c, 1, rs, ck, k))];
      add[ck].x += a.x * sre.x - a.y * sim.x, add[ck].y += a.x * sre.y - a.y * sim.y;
    }
  }
#pragma unroll
  for (int ck = 0; ck < 2 * KT; ++ck) {
    if (ck >= 2 * k) continue;
    const size_t i = P.Pc.agg(y, ck, l);
    const float2 v = aggc[long(i)];
    aggc[long(i)] = float2{v.x + add[ck].x, v.y + add[ck].y};
  }
}

// Stage 5, rows: row line (r, c) = (tid / 4, tid % 4) of tile (x, y) in place in shared memory from its true states.
#pragma nv_exec_check_disable
template <int KT, bool R1, typename SP, typename AP>
GPUBLUR_HD void iir2d_s5_rows(int tid, SP s, AP aggr, const Iir2dPlan& P, const IirCoeffs& co, int x, int y) {
  const int r = tid >> 2, c = tid & 3;
  if (r >= P.ny(y)) return;
  float u0r[KT], u0i[KT], v0r[KT], v0i[KT];
  iir2d_states<KT>(aggr, P.Pr, x, (y * kIir2dTile + r) * 4 + c, co, u0r, u0i, v0r, v0i);
  const long base = long(r * kIir2dPitch + c);
  iir2d_line_any<KT, R1>([&](int i) { return float(s[base + i * 4]); }, [&](int i, float v) { s[base + i * 4] = v; },
                     P.nx(x), u0r, u0i, v0r, v0i, co);
}
// Stage 5, columns: column line (q, c) from its true states, each output stored to the image.
#pragma nv_exec_check_disable
template <int KT, bool R1, typename SP, typename AP>
GPUBLUR_HD void iir2d_s5_cols(int tid, SP s, float* dst, AP aggc, const Iir2dPlan& P, const IirCoeffs& co, int x,
                              int y) {
  const int q = tid >> 2, c = tid & 3;
  if (q >= P.nx(x)) return;
  float u0r[KT], u0i[KT], v0r[KT], v0i[KT];
  iir2d_states<KT>(aggc, P.Pc, y, (x * kIir2dTile + q) * 4 + c, co, u0r, u0i, v0r, v0i);
  const long base = long(q * 4 + c);
  float* out = dst + (size_t(y) * kIir2dTile * size_t(P.w) + size_t(x) * kIir2dTile + size_t(q)) * 4 + c;
  const size_t row = size_t(P.w) * 4;
  iir2d_line_any<KT, R1>([&](int i) { return float(s[base + i * kIir2dPitch]); },
                     [&](int i, float v) { out[size_t(i) * row] = v; }, P.ny(y), u0r, u0i, v0r, v0i, co);
}

}  // namespace gpublur::cuda
