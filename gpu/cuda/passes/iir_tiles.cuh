// Iir1d's tile schedule (passes/iir1d.cu; docs/performance.md "CUDA tiles" under iir): every value line (one
// channel of a column, or of a row) is cut into tiles of T positions and a thread runs one (line, tile); the
// threads of a warp take neighbouring lines, so for columns each load and store is a warp's 128 contiguous
// bytes of one row. Three kernels, each one thread per item:
//   1. sums (line, tile): the tile's first-order sums from zero states, per term: U at its last position
//      (U[i] = x[i] + p U[i-1]) and W at its first (W[i] = x[i] + p W[i+1]), into the aggregates (float2).
//   2. chain (line, term, direction): the tiles' sums chained in float64 (U_before(j+1) = p^len U_before(j) +
//      sum(j), likewise backwards), from the border states for clamp and zero; wrap and mirror chain from zero
//      (the chains end at the border sums B and F) and (2b, a fourth kernel) add the closed-form border states
//      in as p^a U[-1] and p^(N - b) W[N] (as iir_scan.cuh's phase 2d). The aggregates become each tile's true
//      states: U[a-1] and W[b].
//   3. final (line, tile): reruns the tile's sums from its true states, both directions interleaved in registers,
//      and writes the outputs (sum_t Re(c_t (U_t + W_t)) - Re(sum_t c_t) x).
// One read for the sums, one read and one write for the outputs, and the aggregates (2 k float2 per tile: a
// quarter of the image's bytes at T = 32 and two terms, written, read and written, read): 1.5 copies' worth of
// bytes per axis against the segment scan's 1, in exchange for full 128-byte lines and thousands of short
// threads instead of a column strip's scattered 16-byte pieces at two blocks per SM. Columns of large images
// run tiles of T = 64 (kIirColTile): half the aggregates' traffic; their sums and outputs go a half tile at a
// time, with a third aggregate per term (the upper half's anticausal sum) that the outputs' lower half starts
// from (column pass 0.370 -> 0.331 ms at 4096^2 RGBA on an H100). Host-callable per thread
// (tests/cuda/test_cuda_iir_tiles_emulated.cu).
#pragma once
#include <cstddef>
#include <type_traits>

#include "gpu/cuda/passes/iir_line.cuh"

namespace gpublur::cuda {

constexpr int kIirTile = 32;
// Columns' tiles (IirTilePlan::tile): twice as long halves the aggregates' traffic (written by the sums, read and
// written by the chains, read by the outputs: a quarter of the image's bytes per pass at 32 positions and two
// terms).
constexpr int kIirColTile = 64;
constexpr long long kIirColTileMinItems = 1LL << 18;  // (line, tile) items: 2048^2 RGBA and up

// Where value q of line l lives: (l / div) * outer + l % div + q * step. Columns: lines are the row's values
// (div = rowv, outer = 0, step = rowv). Rows: lines are (row, channel) (div = ch, outer = rowv, step = ch).
struct IirTilePlan {
  int n = 0, lines = 0, k = 0, ntiles = 0, tile = kIirTile;
  // Aggregates per tile and line: 2 k; long tiles 3 k (the upper halves' sums). A field set by iir_tile_plan: derived
  // in agg() it changed the chains' code (123 -> 98 registers), iir 1-2% slower (H100, measurements call 14).
  int nagg = 0;
  int div = 1;
  size_t outer = 0, step = 0;
  GPUBLUR_HD size_t at(int l, int q) const {
    return size_t(l / div) * outer + size_t(l % div) + size_t(q) * step;
  }
  GPUBLUR_HD int len(int j) const { return j + 1 < ntiles ? tile : n - (ntiles - 1) * tile; }
  // The same where the kernel knows the tile (TL == tile): measured, the runtime form took the 32-position
  // tiles' outputs kernel from 128 to 151 registers (one block per SM) and the column pass 0.370 -> 0.431 ms.
  template <int TL>
  GPUBLUR_HD int len_of(int j) const { return j + 1 < ntiles ? TL : n - (ntiles - 1) * TL; }
  // Aggregate s of tile j and line l: s < k the causal sum of term s, k <= s < 2 k the anticausal sum of term
  // s - k (both chained into true states), 2 k <= s (long tiles) term s - 2 k's anticausal sum of the tile's
  // upper half from zero.
  GPUBLUR_HD size_t agg(int j, int s, int l) const {
    return (size_t(j) * size_t(nagg) + size_t(s)) * size_t(lines) + size_t(l);
  }
  size_t agg_bytes() const { return size_t(ntiles) * size_t(nagg) * size_t(lines) * 2 * sizeof(float); }
  // The scratch: the aggregates, then the chains' ends (2 k per line, float64 complex; wrap and mirror).
  size_t ends_offset() const { return (agg_bytes() + 15) / 16 * 16; }
  size_t scratch_bytes() const { return ends_offset() + size_t(2 * k) * size_t(lines) * sizeof(Cplx); }
  GPUBLUR_HD long long items() const { return (long long)lines * ntiles; }
};

inline IirTilePlan iir_tile_plan(bool rows, int w, int h, int ch, int k, int tile = kIirTile) {
  IirTilePlan P;
  const int rowv = w * ch;
  P.k = k, P.tile = tile, P.nagg = (tile > kIirTile ? 3 : 2) * k;
  if (rows) {
    P.n = w, P.lines = h * ch, P.div = ch, P.outer = size_t(rowv), P.step = size_t(ch);
  } else {
    P.n = h, P.lines = rowv, P.div = rowv, P.outer = 0, P.step = size_t(rowv);
  }
  P.ntiles = (P.n + tile - 1) / tile;
  return P;
}

// One step of term t's first-order sums, s = x + p s (R1: term 1 real): the sums, and the outputs' both directions
// where they run the sums' recursions (iir_tile_final_body, iir_2d.cuh iir2d_line, iir_rows.cuh iir_half_tile).
template <bool R1>
GPUBLUR_HD void iir_sum_step(int t, float xq, float pr, float pi, float& sr, float& si) {
  if (R1 && t == 1) {
    sr = xq + pr * sr;
    return;
  }
  const float r = xq + pr * sr - pi * si;
  si = pr * si + pi * sr, sr = r;
}
// y + Re(c s) for term t (R1: term 1 real, its imaginary parts 0), as two fused steps.
template <bool R1>
GPUBLUR_HD float iir_add_re_c(int t, float cr, float ci, float sr, float si, float y) {
  return R1 && t == 1 ? y + cr * sr : y + cr * sr - ci * si;
}

// The first-order sums of n positions from zero, one sweep each way, interleaved (two chains in flight).
#pragma nv_exec_check_disable
template <bool FULL, int N>
GPUBLUR_HD void iir_sweep_sums(const float (&xs)[N], int n, float pr, float pi, float& ur, float& ui, float& wr,
                               float& wi) {
  ur = ui = wr = wi = 0.0f;
#pragma unroll
  for (int q = 0; q < N; ++q) {
    if (FULL || q < n) {
      const float r = xs[q] + pr * ur - pi * ui;
      ui = pr * ui + pi * ur, ur = r;
    }
    const int qb = N - 1 - q;
    if (FULL || qb < n) {
      const float r = xs[qb] + pr * wr - pi * wi;
      wi = pr * wi + pi * wr, wr = r;
    }
  }
}
// 1. The tile's sums from zero states (float32: from zero they stay within min(T, 1 / (1 - |p|)) of the inputs).
// FULL: a whole tile (every tile but a line's last), its steps unpredicated (measured: the per-step guards of
// the general form cost more instructions than the recursion itself). x: the tile's first value, step apart;
// the sums go to agg[base + s * sstride], s < k causal (U at the last position), k <= s < 2 k anticausal (W at
// the first), and for long tiles 2 k <= s the upper half's anticausal sum.
#pragma nv_exec_check_disable
template <int KT, bool FULL, int TL, typename XP, typename AP>
GPUBLUR_HD void iir_tile_sums_at(XP x, size_t step, int cnt, AP agg, size_t base, size_t sstride,
                                 const IirCoeffs& co) {
  if constexpr (TL == kIirTile) {
    float xs[TL];
#pragma unroll
    for (int q = 0; q < TL; ++q) xs[q] = (FULL || q < cnt) ? float(x[size_t(q) * step]) : 0.0f;
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (t >= co.k) continue;
      float ur, ui, wr, wi;
      iir_sweep_sums<FULL>(xs, cnt, float(co.pr[t]), float(co.pi[t]), ur, ui, wr, wi);
      agg[base + size_t(t) * sstride] = float2{ur, ui};
      agg[base + size_t(co.k + t) * sstride] = float2{wr, wi};
    }
  } else {
    // Long tiles a half at a time (a thread holds half the tile: the whole tile took 168 registers), the halves'
    // sums joined in float64: U = p^n_hi U_lo + U_hi, W = W_lo + p^(T/2) W_hi; W_hi is the third aggregate.
    constexpr int H = TL / 2;
    float xs[H], lo[KT][4], hi[KT][4];
#pragma unroll 1
    for (int half = 0; half < 2; ++half) {
      const int q0 = half * H, n = FULL ? H : cnt - q0;
#pragma unroll
      for (int q = 0; q < H; ++q) xs[q] = (FULL || q0 + q < cnt) ? float(x[size_t(q0 + q) * step]) : 0.0f;
#pragma unroll
      for (int t = 0; t < KT; ++t) {
        if (t >= co.k) continue;
        float s[4];
        iir_sweep_sums<FULL>(xs, n, float(co.pr[t]), float(co.pi[t]), s[0], s[1], s[2], s[3]);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          if (half == 0) lo[t][e] = s[e];  // (not (half ? hi : lo)[t][e]: a runtime-chosen array lives in memory)
          else hi[t][e] = s[e];
        }
      }
    }
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (t >= co.k) continue;
      const int nhi = FULL ? H : cnt > H ? cnt - H : 0;
      const Cplx ph{co.phr[t], co.phi[t]}, pn = FULL ? ph : cpow(Cplx{co.pr[t], co.pi[t]}, nhi);
      const Cplx U = cadd(cmul(pn, Cplx{lo[t][0], lo[t][1]}), Cplx{hi[t][0], hi[t][1]});
      const Cplx W = cadd(Cplx{lo[t][2], lo[t][3]}, cmul(ph, Cplx{hi[t][2], hi[t][3]}));
      agg[base + size_t(t) * sstride] = float2{float(U.re), float(U.im)};
      agg[base + size_t(co.k + t) * sstride] = float2{float(W.re), float(W.im)};
      agg[base + size_t(2 * co.k + t) * sstride] = float2{hi[t][2], hi[t][3]};
    }
  }
}
#pragma nv_exec_check_disable
template <int KT, bool FULL, int TL, typename AP>
GPUBLUR_HD void iir_tile_sums_body(const float* src, AP agg, const IirTilePlan& P, const IirCoeffs& co, int l, int j) {
  iir_tile_sums_at<KT, FULL, TL>(src + P.at(l, j * TL), P.step, FULL ? TL : P.template len_of<TL>(j), agg,
                                 P.agg(j, 0, l), size_t(P.lines), co);
}
#pragma nv_exec_check_disable
template <int KT, int TL, typename AP>
GPUBLUR_HD void iir_tile_sums(const float* src, AP agg, const IirTilePlan& P, const IirCoeffs& co, int l, int j) {
  if (P.template len_of<TL>(j) == TL) iir_tile_sums_body<KT, true, TL>(src, agg, P, co, l, j);
  else iir_tile_sums_body<KT, false, TL>(src, agg, P, co, l, j);
}

// 2. One chain: line l, sequence s (s < k: term s's causal chain, tiles in order; s >= k: term s - k's
// anticausal chain, tiles backwards), in float64; its aggregates become the tiles' true states (U[a-1], W[b]).
// Clamp and zero start from the border state; wrap and mirror from zero, the chain then ending at the border sum
// (causal B = sum p^j x[N-1-j], anticausal F = sum p^j x[j]) that goes to ends[s * lines + l] for step 2b.
struct IirNoAdd {
  GPUBLUR_HD float2 operator()(int, int) const { return float2{0.0f, 0.0f}; }
};
struct IirNoChunk {
  GPUBLUR_HD void operator()(int) const {}
};
constexpr int kIirChainAhead = 16;  // the loads do not depend on the chain: a chunk of them in flight at once
// The chain's hooks: x0(back), the line's first (back: last) value for clamp's border state; add(j, e), a float2
// added to tile j's (the chunk's e-th) aggregate before it joins the chain, and chunk(k0), called by every thread
// once per chunk of kIirChainAhead tiles, after the chunk's own loads are issued (the 2D tiles' columns, iir_2d.cuh:
// the rows' states staged in shared memory). An inactive thread (a block's lines past the plan's) only calls chunk.
#pragma nv_exec_check_disable
template <typename AP, typename EP, typename X0, typename ADD, typename CHUNK = IirNoChunk>
GPUBLUR_HD void iir_tile_chain_with(AP agg, EP ends, const IirTilePlan& P, const IirBorder& b, const IirCoeffs& co,
                                    int l, int s, X0 x0, ADD add, CHUNK chunk = {}, bool active = true) {
  const bool back = s >= P.k;
  const int t = back ? s - P.k : s, last = P.ntiles - 1;
  const Cplx p{co.pr[t], co.pi[t]}, pT = cpow(p, P.tile), pLast = cpow(p, P.len(last));
  Cplx z{0.0, 0.0};
  if (active && b.mode == Border::Clamp) z = iir_clamp_state(b, t, double(x0(back)));
  constexpr int kAhead = kIirChainAhead;
  for (int k0 = 0; k0 < P.ntiles; k0 += kAhead) {
    float2 v[kAhead];
#pragma unroll
    for (int e = 0; e < kAhead; ++e) {
      const int k = k0 + e, j = back ? last - k : k;
      v[e] = active && k < P.ntiles ? float2(agg[P.agg(j, s, l)]) : float2{0.0f, 0.0f};
    }
    chunk(k0);  // (after the chunk's own loads are issued: the two wait together)
    if (!active) continue;
    if constexpr (!std::is_same_v<ADD, IirNoAdd>) {
#pragma unroll
      for (int e = 0; e < kAhead; ++e) {
        const int k = k0 + e, j = back ? last - k : k;
        if (k < P.ntiles) {
          const float2 a = add(j, e);
          v[e].x += a.x, v[e].y += a.y;
        }
      }
    }
#pragma unroll
    for (int e = 0; e < kAhead; ++e) {
      const int k = k0 + e, j = back ? last - k : k;
      if (k < P.ntiles) {
        agg[P.agg(j, s, l)] = float2{float(z.re), float(z.im)};
        const Cplx f = j == last ? pLast : pT;
        z = Cplx{f.re * z.re - f.im * z.im + double(v[e].x), f.re * z.im + f.im * z.re + double(v[e].y)};
      }
    }
  }
  if (active && iir_periodic(b)) ends[size_t(s) * size_t(P.lines) + size_t(l)] = z;
}
#pragma nv_exec_check_disable
template <typename AP, typename EP>
GPUBLUR_HD void iir_tile_chain(const float* src, AP agg, EP ends, const IirTilePlan& P, const IirBorder& b,
                               const IirCoeffs& co, int l, int s) {
  iir_tile_chain_with(
      agg, ends, P, b, co, l, s, [&](bool back) { return src[P.at(l, back ? P.n - 1 : 0)]; }, IirNoAdd{});
}

// 2b (wrap and mirror): the border states from B and F (iir_periodic_states), added in as U[a-1] += p^a U[-1]
// (tile j starts at a = j T) and W[b] += p^(N-b) W[N] (it ends at b = min(N, (j+1) T)): the recursion is linear.
#pragma nv_exec_check_disable
template <typename AP, typename EP>
GPUBLUR_HD void iir_tile_borders(AP agg, EP ends, const IirTilePlan& P, const IirBorder& b, const IirCoeffs& co, int l,
                                 int s) {
  const bool back = s >= P.k;
  const int t = back ? s - P.k : s, last = P.ntiles - 1;
  const Cplx p{co.pr[t], co.pi[t]}, pT = cpow(p, P.tile), pLast = cpow(p, P.len(last));
  const Cplx B = ends[size_t(t) * size_t(P.lines) + size_t(l)], F = ends[size_t(P.k + t) * size_t(P.lines) + size_t(l)];
  Cplx u0, wn;
  iir_periodic_states(b, t, B, F, u0, wn);
  const Cplx z0 = back ? wn : u0;
  Cplx pw{1.0, 0.0};  // p^a (causal, from the first tile) or p^(N-b) (anticausal, from the last)
  for (int k = 0; k <= last; ++k) {
    const int j = back ? last - k : k;
    const size_t i = P.agg(j, s, l);
    const float2 v = agg[i];
    const Cplx add = cmul(pw, z0);
    agg[i] = float2{float(double(v.x) + add.re), float(double(v.y) + add.im)};
    pw = cmul(pw, back ? (j == last ? pLast : pT) : pT);
  }
}

// 3. The tile's outputs from its true states U[a-1] and W[b]: both directions run the sums' own recursions (U[i] =
// x[i] + p U[i-1], W[i] = x[i] + p W[i+1]) and each output is sum_t Re(c_t (U_t[i] + W_t[i])) - Re(sum_t c_t) x[i]
// (the filter's terms are c U and c V = c (W - x)): as the 2D tiles' iir2d_line, fewer operations a value than
// running u = c U and v = c V. H200 (call 330), medians: iir 1024^2 RGBA 0.0440 -> 0.0427 ms, one channel 4096^2
// 0.1422 -> 0.1336, two channels 2048^2 0.0774 -> 0.0732, Deriche the same or up to 4% faster (docs/performance.md,
// iir, "The 1D paths' outputs from the plain sums"). R1: term 1 real.
struct IirNoExtra {
  GPUBLUR_HD void operator()(int, float) const {}
};
// Re(sum_t c_t) over the terms that run.
template <int KT>
GPUBLUR_HD float iir_csum(const IirCoeffs& co) {
  float s = 0.0f;
#pragma unroll
  for (int t = 0; t < KT; ++t)
    if (KT < kMaxIirTerms || t < co.k) s += co.fcr[t];
  return s;
}
// extra(q, y): each output also goes there (the x/y pair's shared tile).
#pragma nv_exec_check_disable
template <int KT, bool R1, bool FULL, typename AP, typename Extra = IirNoExtra>
GPUBLUR_HD void iir_tile_final_body(const float* src, float* dst, AP agg, const IirTilePlan& P, const IirCoeffs& co,
                                    int l, int j, Extra extra = {}) {
  const int cnt = FULL ? kIirTile : P.template len_of<kIirTile>(j);
  const size_t at = P.at(l, j * kIirTile);
  float xs[kIirTile], ys[kIirTile];
#pragma unroll
  for (int q = 0; q < kIirTile; ++q) xs[q] = (FULL || q < cnt) ? src[at + size_t(q) * P.step] : 0.0f, ys[q] = 0.0f;
#pragma unroll
  for (int t = 0; t < KT; ++t) {
    if (t >= co.k) continue;
    const float pr = co.fpr[t], pi = co.fpi[t], cr = co.fcr[t], ci = co.fci[t];
    const float2 U = agg[P.agg(j, t, l)], W = agg[P.agg(j, P.k + t, l)];
    float ur = U.x, ui = U.y, wr = W.x, wi = W.y;
#pragma unroll
    for (int q = 0; q < kIirTile; ++q) {
      if (FULL || q < cnt) {
        iir_sum_step<R1>(t, xs[q], pr, pi, ur, ui);
        ys[q] = iir_add_re_c<R1>(t, cr, ci, ur, ui, ys[q]);
      }
      const int qb = kIirTile - 1 - q;
      if (FULL || qb < cnt) {
        iir_sum_step<R1>(t, xs[qb], pr, pi, wr, wi);
        ys[qb] = iir_add_re_c<R1>(t, cr, ci, wr, wi, ys[qb]);
      }
    }
  }
  const float csum = iir_csum<KT>(co);
#pragma unroll
  for (int q = 0; q < kIirTile; ++q)
    if (FULL || q < cnt) {
      const float y = ys[q] - csum * xs[q];
      dst[at + size_t(q) * P.step] = y, extra(q, y);
    }
}
// The same for long tiles (kIirColTile), a half tile at a time, so that a thread holds half a tile's inputs and
// outputs (the whole-tile form of 64 positions took 255 registers, one block per SM, and ran slower than tiles
// of 32). The lower half first: its anticausal start is W[H] = Hs + p^e W[b], Hs the upper half's anticausal sum
// from zero (the sums' third aggregate), e the upper half's length; its causal sweep ends at the upper half's
// causal start.
#pragma nv_exec_check_disable
template <int KT, bool R1, bool FULL, int TL, typename AP>
GPUBLUR_HD void iir_tile_final_halves(const float* src, float* dst, AP agg, const IirTilePlan& P, const IirCoeffs& co,
                                      int l, int j) {
  constexpr int H = TL / 2;
  const int cnt = FULL ? TL : P.template len_of<TL>(j);
  const size_t at = P.at(l, j * TL);
  const float csum = iir_csum<KT>(co);
  float xs[H], ys[H], ur[KT], ui[KT];
#pragma unroll 1  // (unrolled, the compiler issued both halves' loads at once: up to 254 registers)
  for (int half = 0; half < 2; ++half) {
    const int q0 = half * H;
#pragma unroll
    for (int q = 0; q < H; ++q) {
      xs[q] = (FULL || q0 + q < cnt) ? src[at + size_t(q0 + q) * P.step] : 0.0f;
      ys[q] = 0.0f;
    }
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (t >= co.k) continue;
      const float pr = co.fpr[t], pi = co.fpi[t], cr = co.fcr[t], ci = co.fci[t];
      const float2 W = agg[P.agg(j, P.k + t, l)];
      float wr = W.x, wi = W.y;  // this half's anticausal start
      if (half == 0) {
        const float2 U = agg[P.agg(j, t, l)], Hs = agg[P.agg(j, 2 * P.k + t, l)];
        ur[t] = U.x, ui[t] = U.y;
        const Cplx pe = FULL ? Cplx{co.phr[t], co.phi[t]} : cpow(Cplx{co.pr[t], co.pi[t]}, cnt > H ? cnt - H : 0);
        const Cplx z = cadd(Cplx{double(Hs.x), double(Hs.y)}, cmul(pe, Cplx{double(W.x), double(W.y)}));
        wr = float(z.re), wi = float(z.im);
      }
#pragma unroll
      for (int q = 0; q < H; ++q) {
        if (FULL || q0 + q < cnt) {
          iir_sum_step<R1>(t, xs[q], pr, pi, ur[t], ui[t]);
          ys[q] = iir_add_re_c<R1>(t, cr, ci, ur[t], ui[t], ys[q]);
        }
        const int qb = H - 1 - q;
        if (FULL || q0 + qb < cnt) {
          iir_sum_step<R1>(t, xs[qb], pr, pi, wr, wi);
          ys[qb] = iir_add_re_c<R1>(t, cr, ci, wr, wi, ys[qb]);
        }
      }
    }
#pragma unroll
    for (int q = 0; q < H; ++q)
      if (FULL || q0 + q < cnt) dst[at + size_t(q0 + q) * P.step] = ys[q] - csum * xs[q];
  }
}
#pragma nv_exec_check_disable
template <int KT, bool R1, int TL, typename AP>
GPUBLUR_HD void iir_tile_final(const float* src, float* dst, AP agg, const IirTilePlan& P, const IirCoeffs& co,
                               int l, int j) {
  const bool full = P.template len_of<TL>(j) == TL;
  if constexpr (TL > kIirTile) {
    if (full) iir_tile_final_halves<KT, R1, true, TL>(src, dst, agg, P, co, l, j);
    else iir_tile_final_halves<KT, R1, false, TL>(src, dst, agg, P, co, l, j);
  } else {
    if (full) iir_tile_final_body<KT, R1, true>(src, dst, agg, P, co, l, j);
    else iir_tile_final_body<KT, R1, false>(src, dst, agg, P, co, l, j);
  }
}

// The x/y pair (core's iir_pair: rows then columns through an intermediate nothing else reads), with the
// columns' first kernel folded into the rows' last: a block takes kIirTile rows of the image x one tile of the
// rows pass (a kIirTile x kIirTile pixel square, ch values each), thread t the row line (row r = t / ch, channel
// t % ch) for the rows' outputs, which also go to a shared tile; after a barrier thread t takes the column line
// (x = t / ch, channel t % ch) and makes the columns' sums of that square (the column tile is the block's rows)
// from the shared tile. The column pass then runs its chains and outputs only: one read of the intermediate
// image fewer (a third of the column pass's bytes).
// The shared tile: kIirTile rows of kIirTile * ch floats at a pitch of (kIirTile + 1) * ch, so that both the row
// threads of a step (rows t / ch, channels t % ch: a column of the tile) and the column threads (a row, values t)
// hit distinct banks (a pitch of kIirTile * ch + 1 put the row threads' stores 4-way on 8 banks at ch = 4).
GPUBLUR_HD int iir_pair_pitch(int ch) { return (kIirTile + 1) * ch; }
GPUBLUR_HD size_t iir_pair_smem_bytes(int ch) { return size_t(kIirTile) * size_t(iir_pair_pitch(ch)) * sizeof(float); }

// Where the rows' outputs of one row line go in the shared tile: value q at sm[base + q * ch].
template <typename SP>
struct IirPairTileStore {
  SP sm;
  int base, ch;
#pragma nv_exec_check_disable
  GPUBLUR_HD void operator()(int q, float v) const { sm[base + q * ch] = v; }
};

// Phase 1 of the pair's block (rb, j): thread t's rows-pass outputs (P: the rows pass's plan, lines (row, channel)).
#pragma nv_exec_check_disable
template <int KT, bool R1, typename AP, typename SP>
GPUBLUR_HD void iir_pair_rows_final(const float* src, float* mid, AP agg, SP sm, const IirTilePlan& P,
                                    const IirCoeffs& co, int ch, int rb, int j, int t) {
  const int r = t / ch, c = t - r * ch, row = rb * kIirTile + r, pitch = iir_pair_pitch(ch);
  if (row * ch >= P.lines) return;
  const int l = row * ch + c;
  const IirPairTileStore<SP> extra{sm, r * pitch + c, ch};
  if (P.template len_of<kIirTile>(j) == kIirTile)
    iir_tile_final_body<KT, R1, true>(src, mid, agg, P, co, l, j, extra);
  else
    iir_tile_final_body<KT, R1, false>(src, mid, agg, P, co, l, j, extra);
}

// Phase 2 of the pair's block (rb, j): thread t's column sums for column tile rb (Pc: the column pass's plan).
#pragma nv_exec_check_disable
template <int KT, typename AP, typename SP>
GPUBLUR_HD void iir_pair_col_sums(SP sm, AP aggc, const IirTilePlan& Pc, const IirCoeffs& co, int ch, int rb, int j,
                                  int t) {
  const int xq = t / ch, c = t - xq * ch, lc = (j * kIirTile + xq) * ch + c, pitch = iir_pair_pitch(ch);
  if (lc >= Pc.lines) return;
  const int cnt = Pc.template len_of<kIirTile>(rb);
  const size_t base = Pc.agg(rb, 0, lc), sstride = size_t(Pc.lines);
  if (cnt == kIirTile)
    iir_tile_sums_at<KT, true, kIirTile>(sm + (xq * ch + c), size_t(pitch), cnt, aggc, base, sstride, co);
  else
    iir_tile_sums_at<KT, false, kIirTile>(sm + (xq * ch + c), size_t(pitch), cnt, aggc, base, sstride, co);
}

}  // namespace gpublur::cuda
