// The x/y pair of an iir plan (core's iir_pair: rows then columns, one filter and border) for RGBA images as 2D
// tiles (iir1d.cu's launch_iir1d_pair; docs/performance.md, iir, "Two designs measured on the H200" and "Weighted
// rows"), after Nehab, Maximo, Lima and Hoppe (GPU-efficient recursive filtering, 2011). The image is cut into tiles
// of kIir2dTile x kIir2dTile pixels; no intermediate image is written:
//   1. sums (a block a tile): the tile read once; each row line's sums from zero (U at its last position, W at its
//      first: iir_tiles.cuh's aggregates, into the rows plan's), and the column aggregates of the rows' output from
//      zero states. Those need no row filtering of the tile: column sums are linear, so they are the tile-local row
//      filter (from zero) of the column sums of the raw values, 2 k complex vectors of a row each per channel.
//      Also the sums of the tile's "weighted rows" (below) and, for clamp, the zero-state row outputs of the image's
//      first and last rows and the weighted rows' first and last values.
//   2. the row chains (iir_tiles.cuh's chain and border kernels on the rows plan): the row aggregates become each
//      tile's true incoming states. The rows plan has more lines than the image has: for each tile row, column
//      kind ck (2 k: U or W of a term) and channel, the rows weighted by Re and by Im of ck's weights w_r over the
//      tile's rows (p^(ny-1-r) for U, p^r for W). The chains are linear, so those lines' states come out as the same
//      weighted sums of the rows' true states: A = sum_r Re(w_r) s_r and B = sum_r Im(w_r) s_r.
//   3. the column chains (the tile chain and border kernels on the columns plan), each tile's column aggregate
//      corrected for the rows' states as it joins the chain: the row filter's response to a row's state s is
//      Re(a_q s) at column q (a_q = c p^(q+1) for a causal state, c p^(nx-q) for an anticausal one), so the column
//      aggregate sum_r w_r y_r changes by sum over the row sequences of (Re(a_q A), Re(a_q B)). For clamp the
//      chain's border value, the rows' true output of the first (last) image row, is its zero-state output plus
//      sum Re(a_q s) over that row's states.
//   4. outputs (a block a tile): the tile read again, its rows filtered in shared memory from their true states,
//      then its columns, each output stored from registers.
// Bytes: two reads and one write of the image and both axes' aggregates (2 k float2 per 64-position line tile;
// the weighted rows add 32 k^2 float2 a tile), about 4 image transfers against the separate passes' 5.6.
// Host-callable per thread (tests/cuda emulates them).
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
// Where the sums kernel keeps its row lines' sums in phases 2-3 (floats into the tile): after the column vectors.
constexpr int kIir2dRowSums = 3 * kIir2dZ * kIir2dZPitch;
static_assert(kIir2dRowSums + 2 * 2 * kMaxIirTerms * kIir2dTile * 4 <= kIir2dTile * kIir2dPitch, "row sums fit");

// The two tile plans (iir_tiles.cuh: rows and columns in tiles of kIir2dTile, 2 k aggregates a tile: U and W) and the
// tile grid. RGBA only. The rows plan's lines: the image's h x 4, then the weighted rows, nvt() a tile row.
struct Iir2dPlan {
  int w = 0, h = 0, tx = 0, ty = 0, k = 0;
  IirTilePlan Pr, Pc;
  GPUBLUR_HD int nx(int x) const { return x + 1 < tx ? kIir2dTile : w - (tx - 1) * kIir2dTile; }
  GPUBLUR_HD int ny(int y) const { return y + 1 < ty ? kIir2dTile : h - (ty - 1) * kIir2dTile; }
  GPUBLUR_HD int rows_lines() const { return h * 4; }
  // Weighted row v = (ck * 2 + part) * 4 + c of a tile row: column kind ck, Re (part 0) or Im of its weights, channel.
  GPUBLUR_HD int nvt() const { return 16 * k; }
  GPUBLUR_HD int vline(int y, int v) const { return rows_lines() + y * nvt() + v; }
  // The scratch: the rows' aggregates and ends, the columns', then for clamp the first and last image rows'
  // zero-state row outputs (2 x w x 4 floats) and the weighted rows' first and last values (2 x ty x nvt()).
  size_t col_offset() const { return (Pr.scratch_bytes() + 255) / 256 * 256; }
  size_t edge_offset() const { return col_offset() + (Pc.scratch_bytes() + 255) / 256 * 256; }
  size_t vedge_offset() const { return edge_offset() + size_t(2) * size_t(w) * 4 * sizeof(float); }
  size_t scratch_bytes() const { return vedge_offset() + size_t(2) * size_t(ty) * size_t(nvt()) * sizeof(float); }
};

// Where the 2D tiles ran faster than whole rows and column tiles (H200, docs/performance.md, iir, "Weighted rows"):
// Young-van Vliet (term 1 real) at 4096^2 RGBA (0.384-0.385 against 0.452-0.453 ms) and 2048^2 (0.1255 against
// 0.1271-0.1279); Deriche at 4096^2 (0.455-0.473 against 0.473-0.478), not at 2048^2 (0.144-0.146 against
// 0.136-0.137); neither at 1024^2 (0.046-0.050 against 0.044).
constexpr long long kIir2dMinPixels = 4096LL * 4096;       // two complex terms
constexpr long long kIir2dMinPixelsReal1 = 2048LL * 2048;  // a complex and a real term
inline bool iir2d_measured_faster(int w, int h, const IirCoeffs& co) {
  const long long n = (long long)w * h;
  return co.k == 2 && n >= (iir_term1_real(co) ? kIir2dMinPixelsReal1 : kIir2dMinPixels);
}

inline Iir2dPlan iir2d_plan(int w, int h, int k) {
  Iir2dPlan P;
  P.w = w, P.h = h, P.k = k, P.tx = (w + kIir2dTile - 1) / kIir2dTile, P.ty = (h + kIir2dTile - 1) / kIir2dTile;
  P.Pr = iir_tile_plan(true, w, h, 4, k, kIir2dTile);
  P.Pc = iir_tile_plan(false, w, h, 4, k, kIir2dTile);
  P.Pr.nagg = P.Pc.nagg = 2 * k;
  P.Pr.lines += P.ty * P.nvt();  // (the weighted rows: no pixels, P.Pr.at is for the image's lines only)
  return P;
}

// One line of n <= kIir2dTile values x(i), its outputs out(i, y), from the true sums' states u0 = U[a-1] (causal) and
// v0 = W[b] (anticausal) of each term (zero for the tile-local filter): a full tile a quarter of 16 at a time (the
// lower quarters' anticausal starts by a state-only sweep from the tile's end), an edge tile by halves. The filter's
// terms are c U and c (W - x): both directions run the plain sums' recursions (U[i] = x[i] + p U[i-1], W[i] = x[i] + p
// W[i+1]) and each output is sum_t Re(c_t (U_t[i] + W_t[i])) - Re(sum_t c_t) x[i]: for Young-van Vliet 18 operations a
// value where c x + p u and p (c x + v) took 19, and 5 a state-only step where 8; the kernel issue-bound, iir 4096^2
// RGBA 0.383-0.397 -> 0.363-0.368 ms on an H200 (docs/performance.md, iir, "Outputs from the plain sums"); 17 since
// the anticausal sweep starts each output from causal - Re(sum c) x ("The 2D tiles' loads").
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
  const float csum = iir_csum<KT>(co);  // x's weight, counted by both directions
  const int k = co.k;
  // One step of each direction for every term: causal U[i] from U[i-1] (returns sum_t Re(c U)), and anticausal W[i]
  // from W[i+1] (returns y0 + sum_t Re(c W)): the output is the anticausal step's, from y0 = causal - Re(sum c) x (an
  // FFMA where an FMUL and an FADD were).
  const auto causal = [&](float xq) {
    float y = 0.0f;
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (KT == kMaxIirTerms && t >= k) continue;
      iir_sum_step<R1>(t, xq, pr[t], pi[t], ur[t], ui[t]);
      y = iir_add_re_c<R1>(t, cr[t], ci[t], ur[t], ui[t], y);
    }
    return y;
  };
  const auto anticausal = [&](float xq, float (&vr)[KT], float (&vi)[KT], float y0) {
    float y = y0;
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (KT == kMaxIirTerms && t >= k) continue;
      iir_sum_step<R1>(t, xq, pr[t], pi[t], vr[t], vi[t]);
      y = iir_add_re_c<R1>(t, cr[t], ci[t], vr[t], vi[t], y);
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
      for (int d = Q - 1; d >= 0; --d) anticausal(x(qq * Q + d), lr, li, 0.0f);
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
      for (int q = Q - 1; q >= 0; --q) {
        const float xq = x(q0 + q);
        ys[q] = anticausal(xq, vr, vi, fmaf(-csum, xq, ys[q]));
      }
#pragma unroll
      for (int q = 0; q < Q; ++q) out(q0 + q, ys[q]);
    }
  } else {  // a tile at the image's right or bottom edge: plain loops (its registers are the full tile's)
    const int n_hi = n > H ? n - H : 0;
    for (int d = n_hi - 1; d >= 0; --d) anticausal(x(H + d), lr, li, 0.0f);
    float ys[H];
    for (int half = 0; half < 2; ++half) {
      const int q0 = half * H, m = half ? n_hi : (n < H ? n : H);
      float vr[KT], vi[KT];
#pragma unroll
      for (int t = 0; t < KT; ++t) vr[t] = half ? v0r[t] : lr[t], vi[t] = half ? v0i[t] : li[t];
#pragma unroll 1
      for (int q = 0; q < m; ++q) ys[q] = causal(x(q0 + q));
#pragma unroll 1
      for (int q = m - 1; q >= 0; --q) {
        const float xq = x(q0 + q);
        ys[q] = anticausal(xq, vr, vi, fmaf(-csum, xq, ys[q]));
      }
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

// Line l of tile j's true states as plan P's aggregates hold them (the outputs kernel issues these loads before its
// tile's, so their latency overlaps the tile's: 202 -> 190 us at 4096^2 on the H200). (A struct of two arrays here
// crashed nvcc's front end in the host emulation's instantiation.)
#pragma nv_exec_check_disable
template <int KT, typename AP>
GPUBLUR_HD void iir2d_raw(AP agg, const IirTilePlan& P, int j, int l, const IirCoeffs& co, float2 (&U)[KT],
                          float2 (&W)[KT]) {
#pragma unroll
  for (int t = 0; t < KT; ++t) {
    U[t] = W[t] = float2{0.0f, 0.0f};
    if (KT == kMaxIirTerms && t >= co.k) continue;  // (KT < kMaxIirTerms: exactly KT terms)
    U[t] = agg[long(P.agg(j, t, l))], W[t] = agg[long(P.agg(j, co.k + t, l))];
  }
}
// iir2d_line's states: the true sums U[a-1] and W[b] as they are.
template <int KT>
GPUBLUR_HD void iir2d_states(const float2 (&RU)[KT], const float2 (&RW)[KT], const IirCoeffs& co, float (&u0r)[KT],
                             float (&u0i)[KT], float (&v0r)[KT], float (&v0i)[KT]) {
#pragma unroll
  for (int t = 0; t < KT; ++t) {
    u0r[t] = u0i[t] = v0r[t] = v0i[t] = 0.0f;
    if (KT == kMaxIirTerms && t >= co.k) continue;
    u0r[t] = RU[t].x, u0i[t] = RU[t].y, v0r[t] = RW[t].x, v0i[t] = RW[t].y;
  }
}

// A line's sums from zero over n values x(i): U = sum p^(n-1-i) x_i and W = sum p^i x_i of each term, as
// recursions (U = p U + x forwards, W = p W + x backwards, in one loop: register operands only). The tiles at the
// image's right and bottom edges; whole tiles take iir2d_sums_tile's weighted sums.
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
      iir_sum_step<R1>(t, a, co.fpr[t], co.fpi[t], u[t][0], u[t][1]);
      iir_sum_step<R1>(t, b, co.fpr[t], co.fpi[t], w[t][0], w[t][1]);
    }
  }
}
template <int KT, bool R1, typename LD>
GPUBLUR_HD void iir2d_sums(LD x, int n, const IirCoeffs& co, float (&u)[KT][2], float (&w)[KT][2]) {
  if (n == kIir2dTile) iir2d_sums_n<KT, R1, kIir2dTile>(x, n, co, u, w);
  else iir2d_sums_n<KT, R1, 0>(x, n, co, u, w);
}

// The powers p^j of each term, j <= kIir2dTile, made in float64 and rounded once (the kernels copy them to shared
// memory: their threads index them by row or column). pw: p^j of term t at pw[t * (kIir2dTile + 1) + j].
struct Iir2dPowers {
  float2 p[kMaxIirTerms][kIir2dTile + 1];
};
constexpr int kIir2dPowers = kMaxIirTerms * (kIir2dTile + 1);
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
// Part (0 Re, 1 Im) of column kind ck's weight on row r of a tile row of ny rows: p^(ny-1-r) (U of term ck) or p^r
// (W of term ck - k).
template <typename WP>
GPUBLUR_HD float iir2d_weight(WP pw, const IirCoeffs& co, int ck, int part, int r, int ny) {
  const bool u = ck < co.k;
  const float2 v = pw[long((u ? ck : ck - co.k) * (kIir2dTile + 1) + (u ? ny - 1 - r : r))];
  return part ? v.y : v.x;
}
// The response of the row filter's outputs at column q (of nx) to row sequence rs's state: a_q = c p^(q+1) (causal,
// rs < k) or c p^(nx-q) (anticausal).
template <typename WP>
GPUBLUR_HD float2 iir2d_response(WP pw, const IirCoeffs& co, int rs, int q, int nx) {
  const int t = rs % co.k;
  return cmulf(float2{co.fcr[t], co.fci[t]}, pw[long(t * (kIir2dTile + 1) + (rs < co.k ? q + 1 : nx - q))]);
}

// A whole tile's (nx = ny = kIir2dTile) row line (a, c) and column line (a, c) sums from zero at once, as weighted
// sums: U = sum p^(63-i) x_i, W = sum p^i x_i, the powers from tab (pw's table in shared memory: one broadcast load
// of p^(63-i) and one of p^i a term and step serve both lines). Two FFMAs a complex term, direction and value, one
// load a value, where the recursions take four FFMAs and two loads: on an H200 (docs/performance.md, iir, "The 2D
// sums as weighted sums") Deriche 4096^2 RGBA 0.437-0.479 -> 0.413-0.453 ms, Young-van Vliet 0.367-0.427 ->
// 0.358-0.412. (The powers as constant-bank operands of the kernel parameter, the loop unrolled, spilled 380-1348
// bytes at the kernel's 85 registers; the prototype's, indexed at run time, were a load a product, 3.3x slower.)
#pragma nv_exec_check_disable
template <int KT, bool R1, typename SP, typename WP>
GPUBLUR_HD void iir2d_sums_tile(SP s, WP tab, int a, int c, const IirCoeffs& co, float (&ru)[KT][2],
                                float (&rw)[KT][2], float (&zu)[KT][2], float (&zw)[KT][2]) {
#pragma unroll
  for (int t = 0; t < KT; ++t)
#pragma unroll
    for (int e = 0; e < 2; ++e) ru[t][e] = rw[t][e] = zu[t][e] = zw[t][e] = 0.0f;
  const long rb = long(a * kIir2dPitch + c), cb = long(a * 4 + c);
#pragma unroll 8
  for (int i = 0; i < kIir2dTile; ++i) {
    const float xr = float(s[rb + i * 4]), xc = float(s[cb + i * kIir2dPitch]);
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (KT == kMaxIirTerms && t >= co.k) continue;  // (KT < kMaxIirTerms: exactly KT terms)
      const long tp = long(t * (kIir2dTile + 1));
      const float2 pu = tab[tp + kIir2dTile - 1 - i], pv = tab[tp + i];
      ru[t][0] += pu.x * xr, rw[t][0] += pv.x * xr, zu[t][0] += pu.x * xc, zw[t][0] += pv.x * xc;
      if (!(R1 && t == 1))  // (a real term's imaginary parts stay 0)
        ru[t][1] += pu.y * xr, rw[t][1] += pv.y * xr, zu[t][1] += pu.y * xc, zw[t][1] += pv.y * xc;
    }
  }
}

// Stage 1, phase 1 (thread tid of tile (x, y); s: the tile in shared memory, value (row r, pixel q, channel c) at
// s[r * kIir2dPitch + q * 4 + c]; tab: the powers, iir2d_sums_tile): the row line (r, c) = (tid / 4, tid % 4)'s sums
// into the rows' aggregates and ru / rw (for phase 2), and the column line (q, c)'s sums of the raw values, returned
// in zu / zw for phase 2.
#pragma nv_exec_check_disable
template <int KT, bool R1, typename SP, typename AP, typename WP>
GPUBLUR_HD void iir2d_s1_sums(int tid, SP s, AP aggr, WP tab, const Iir2dPlan& P, const IirCoeffs& co, int x, int y,
                              float (&ru)[KT][2], float (&rw)[KT][2], float (&zu)[KT][2], float (&zw)[KT][2]) {
  const int nx = P.nx(x), ny = P.ny(y), a = tid >> 2, c = tid & 3;
  const bool whole = nx == kIir2dTile && ny == kIir2dTile;
  if (whole) iir2d_sums_tile<KT, R1>(s, tab, a, c, co, ru, rw, zu, zw);
  if (a < ny) {
    if (!whole)
      iir2d_sums<KT, R1>([&](int i) { return float(s[long(a * kIir2dPitch + i * 4 + c)]); }, nx, co, ru, rw);
    const int l = (y * kIir2dTile + a) * 4 + c;
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (KT == kMaxIirTerms && t >= co.k) continue;  // (KT < kMaxIirTerms: exactly KT terms)
      aggr[long(P.Pr.agg(x, t, l))] = float2{ru[t][0], ru[t][1]};
      aggr[long(P.Pr.agg(x, co.k + t, l))] = float2{rw[t][0], rw[t][1]};
    }
  }
  if (a < nx && !whole)
    iir2d_sums<KT, R1>([&](int i) { return float(s[long(i * kIir2dPitch + a * 4 + c)]); }, ny, co, zu, zw);
}
// Phase 1 for clamp, besides: threads 0-3 (tiles of the first tile row) and 4-7 (the last) the zero-state row outputs
// of the image's first (last) row into edge[e * w * 4 + pixel * 4 + c]; threads 32 .. 32 + 2 nvt - 1 (tiles of the
// first tile column, then the last) the weighted rows' first (last) values into vedge[e * ty * nvt + y * nvt + v].
#pragma nv_exec_check_disable
template <int KT, bool R1, typename SP, typename EP, typename WP>
GPUBLUR_HD void iir2d_s1_edges(int tid, SP s, EP edge, EP vedge, WP pw, const Iir2dPlan& P, const IirCoeffs& co, int x,
                               int y) {
  const int nx = P.nx(x), ny = P.ny(y), nvt = P.nvt();
  if (tid < 8) {
    const int e = tid >> 2, c = tid & 3;
    if (e ? y != P.ty - 1 : y != 0) return;
    const float zr[KT] = {};
    const long base = long((e ? ny - 1 : 0) * kIir2dPitch + c);
    const long out = long(size_t(e) * size_t(P.w) * 4 + size_t(x) * kIir2dTile * 4 + size_t(c));
    iir2d_line_any<KT, R1>([&](int i) { return float(s[base + i * 4]); },
                           [&](int i, float v) { edge[out + i * 4] = v; }, nx, zr, zr, zr, zr, co);
    return;
  }
  const int i = tid - 32;
  if (i < 0 || i >= 2 * nvt) return;
  const int e = i / nvt, v = i % nvt, c = v & 3, part = (v >> 2) & 1, ck = v >> 3;
  if (e ? x != P.tx - 1 : x != 0) return;
  const int q = e ? nx - 1 : 0;
  float acc = 0.0f;
  for (int r = 0; r < ny; ++r)
    acc += iir2d_weight(pw, co, ck, part, r, ny) * float(s[long(r * kIir2dPitch + q * 4 + c)]);
  vedge[long(size_t(e) * size_t(P.ty) * size_t(nvt) + size_t(y) * size_t(nvt) + size_t(v))] = acc;
}
// Phase 2 (after a barrier: the tile is read): the column sums to shared memory over the tile, vector
// ((kind) * 2 + part) of line tid at s[vec * kIir2dZPitch + tid]; kind t (U of term t) or k + t (W). And the row
// line (r, c)'s sums, sequence rs (U of term rs, W of term rs - k), as a float2 at s[kIir2dRowSums + 2 ((rs *
// kIir2dTile + r) * 4 + c)].
#pragma nv_exec_check_disable
template <int KT, typename SP>
GPUBLUR_HD void iir2d_s1_zstore(int tid, SP s, const Iir2dPlan& P, const IirCoeffs& co, int x, int y,
                                const float (&ru)[KT][2], const float (&rw)[KT][2], const float (&zu)[KT][2],
                                const float (&zw)[KT][2]) {
  const int a = tid >> 2, c = tid & 3;
#pragma unroll
  for (int t = 0; t < KT; ++t) {
    if (KT == kMaxIirTerms && t >= co.k) continue;  // (KT < kMaxIirTerms: exactly KT terms)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      if (a < P.nx(x)) {
        s[long((t * 2 + e) * kIir2dZPitch + tid)] = zu[t][e];
        s[long(((co.k + t) * 2 + e) * kIir2dZPitch + tid)] = zw[t][e];
      }
      if (a < P.ny(y)) {
        s[long(kIir2dRowSums + 2 * ((t * kIir2dTile + a) * 4 + c) + e)] = ru[t][e];
        s[long(kIir2dRowSums + 2 * (((co.k + t) * kIir2dTile + a) * 4 + c) + e)] = rw[t][e];
      }
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

// Phase 3, besides the vectors' filter (threads from 32 k on): the weighted rows' sums, (weighted row v, row
// sequence rs) = sum over the tile's rows of the weight times the row's sums, into the rows' aggregates.
#pragma nv_exec_check_disable
template <typename SP, typename AP, typename WP>
GPUBLUR_HD void iir2d_s1_vsums(int tid, SP s, AP aggr, WP pw, const Iir2dPlan& P, const IirCoeffs& co, int x, int y) {
  const int first = 32 * co.k, nvt = P.nvt(), ny = P.ny(y);
  for (int i = tid - first; i >= 0 && i < nvt * 2 * co.k; i += kIir2dThreads - first) {
    const int v = i % nvt, rs = i / nvt, c = v & 3, part = (v >> 2) & 1, ck = v >> 3;
    // (iir2d_weight's index as a start and a step: the loop is two loads and two products a row)
    const bool u = ck < co.k;
    const float* wf = reinterpret_cast<const float*>(&pw[0]);
    int wi = 2 * ((u ? ck : ck - co.k) * (kIir2dTile + 1) + (u ? ny - 1 : 0)) + part;
    const int ws = u ? -2 : 2;
    long at = long(kIir2dRowSums + 2 * (rs * kIir2dTile * 4 + c));
    float ax = 0.0f, ay = 0.0f;
#pragma unroll 8
    for (int r = 0; r < ny; ++r, wi += ws, at += 8) {
      const float wv = wf[wi];
      ax += wv * float(s[at]), ay += wv * float(s[at + 1]);
    }
    aggr[long(P.Pr.agg(x, rs, P.vline(y, v)))] = float2{ax, ay};
  }
}

// Stage 2's chain of row line l (iir_tiles.cuh's chain): a weighted row's first and last values from vedge.
#pragma nv_exec_check_disable
template <typename AP, typename EP>
GPUBLUR_HD void iir2d_row_chain(const float* src, const float* vedge, AP aggr, EP ends, const Iir2dPlan& P,
                                const IirBorder& b, const IirCoeffs& co, int l, int s) {
  const IirTilePlan& Pr = P.Pr;
  const auto x0 = [&](bool back) {
    const int rl = P.rows_lines();
    if (l < rl) return src[Pr.at(l, back ? Pr.n - 1 : 0)];
    return vedge[size_t(back ? P.ty * P.nvt() : 0) + size_t(l - rl)];
  };
  iir_tile_chain_with(aggr, ends, Pr, b, co, l, s, x0, IirNoAdd{});
}
// Stage 3's chain of column line l = (pixel X, channel c), sequence (column kind) s: each tile's aggregate corrected
// for the rows' states (the weighted rows' true states, A and B); for clamp, the border value from the first (last)
// row's zero-state outputs in edge and its states. The weighted rows' states from the rows' aggregates (SRC
// Iir2dDirect) or src(e, rs, part, c) for the chunk's e-th tile (the kernel's staged copy, filled by chunk).
struct Iir2dDirect {};
#pragma nv_exec_check_disable
template <int KT, typename AP, typename RP, typename EP, typename WP, typename SRC = Iir2dDirect,
          typename CHUNK = IirNoChunk>
GPUBLUR_HD void iir2d_col_chain(const float* edge, RP aggr, AP aggc, EP ends, WP pw, const Iir2dPlan& P,
                                const IirBorder& b, const IirCoeffs& co, int l, int s, SRC src = {}, CHUNK chunk = {},
                                bool active = true) {
  const int X = l >> 2, c = l & 3, x = X / kIir2dTile, q = X % kIir2dTile, nx = P.nx(x), k = co.k;
  float2 a[2 * KT];
#pragma unroll
  for (int rs = 0; rs < 2 * KT; ++rs)
    a[rs] = active && rs < 2 * k ? iir2d_response(pw, co, rs, q, nx) : float2{0.0f, 0.0f};
  const IirTilePlan& Pr = P.Pr;
  const auto add = [&](int y, int e) {
    float2 r{0.0f, 0.0f};
#pragma unroll
    for (int rs = 0; rs < 2 * KT; ++rs) {
      if (rs >= 2 * k) continue;
      float2 A, B;
      if constexpr (std::is_same_v<SRC, Iir2dDirect>) {
        A = aggr[long(Pr.agg(x, rs, P.vline(y, (s * 2) * 4 + c)))];
        B = aggr[long(Pr.agg(x, rs, P.vline(y, (s * 2 + 1) * 4 + c)))];
      } else {
        A = src(e, rs, 0, c), B = src(e, rs, 1, c);
      }
      r.x += a[rs].x * A.x - a[rs].y * A.y, r.y += a[rs].x * B.x - a[rs].y * B.y;
    }
    return r;
  };
  const auto x0 = [&](bool back) {
    const int row = back ? P.h - 1 : 0;
    float v = edge[long(size_t(back ? P.w : 0) * 4 + size_t(l))];
#pragma unroll
    for (int rs = 0; rs < 2 * KT; ++rs) {
      if (rs >= 2 * k) continue;
      const float2 S = aggr[long(Pr.agg(x, rs, row * 4 + c))];
      v += a[rs].x * S.x - a[rs].y * S.y;
    }
    return v;
  };
  iir_tile_chain_with(aggc, ends, P.Pc, b, co, l, s, x0, add, chunk, active);
}

// Stage 4, the raw states of thread tid's row line (r, c) = (tid / 4, tid % 4) and column line (q, c) of tile (x, y).
#pragma nv_exec_check_disable
template <int KT, typename AP, typename CP>
GPUBLUR_HD void iir2d_s4_raw(int tid, AP aggr, CP aggc, const Iir2dPlan& P, const IirCoeffs& co, int x, int y,
                             float2 (&ru)[KT], float2 (&rw)[KT], float2 (&cu)[KT], float2 (&cw)[KT]) {
  const int a = tid >> 2, c = tid & 3;
  if (a < P.ny(y)) iir2d_raw(aggr, P.Pr, x, (y * kIir2dTile + a) * 4 + c, co, ru, rw);
  if (a < P.nx(x)) iir2d_raw(aggc, P.Pc, y, (x * kIir2dTile + a) * 4 + c, co, cu, cw);
}
// Stage 4, rows: row line (r, c) of tile (x, y) in place in shared memory from its true states.
#pragma nv_exec_check_disable
template <int KT, bool R1, typename SP>
GPUBLUR_HD void iir2d_s4_rows(int tid, SP s, const float2 (&ru)[KT], const float2 (&rw)[KT], const Iir2dPlan& P,
                              const IirCoeffs& co, int x, int y) {
  const int r = tid >> 2, c = tid & 3;
  if (r >= P.ny(y)) return;
  float u0r[KT], u0i[KT], v0r[KT], v0i[KT];
  iir2d_states<KT>(ru, rw, co, u0r, u0i, v0r, v0i);
  const long base = long(r * kIir2dPitch + c);
  iir2d_line_any<KT, R1>([&](int i) { return float(s[base + i * 4]); }, [&](int i, float v) { s[base + i * 4] = v; },
                         P.nx(x), u0r, u0i, v0r, v0i, co);
}
// Stage 4, columns: column line (q, c) from its true states, each output stored to the image.
#pragma nv_exec_check_disable
template <int KT, bool R1, typename SP>
GPUBLUR_HD void iir2d_s4_cols(int tid, SP s, float* dst, const float2 (&cu)[KT], const float2 (&cw)[KT],
                              const Iir2dPlan& P, const IirCoeffs& co, int x, int y) {
  const int q = tid >> 2, c = tid & 3;
  if (q >= P.nx(x)) return;
  float u0r[KT], u0i[KT], v0r[KT], v0i[KT];
  iir2d_states<KT>(cu, cw, co, u0r, u0i, v0r, v0i);
  const long base = long(q * 4 + c);
  float* out = dst + (size_t(y) * kIir2dTile * size_t(P.w) + size_t(x) * kIir2dTile + size_t(q)) * 4 + c;
  const size_t row = size_t(P.w) * 4;
  iir2d_line_any<KT, R1>([&](int i) { return float(s[base + i * kIir2dPitch]); },
                         [&](int i, float v) { out[size_t(i) * row] = v; }, P.ny(y), u0r, u0i, v0r, v0i, co);
}

}  // namespace gpublur::cuda
