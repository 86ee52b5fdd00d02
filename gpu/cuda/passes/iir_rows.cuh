// Iir1d along rows with whole rows in shared memory (passes/iir1d.cu; docs/performance.md "Whole rows in
// shared memory" under iir): one kernel per pass that reads the image once and writes it once, where the tile
// schedule (iir_tiles.cuh) reads it twice and moves its aggregates through global memory three times more.
// A block holds `rows` whole rows; thread (r, j, c) = (r * ntiles + j) * ch + c runs tile j (kIirTile positions)
// of line (row r, channel c), as the tile schedule's threads do, in four phases a barrier apart:
//   1. sums: the tile's first-order sums from zero states (as weighted sums) into the block's aggregates;
//   2. chains: a group of lanes (a warp or a quarter of one) per (line, term, direction) chains its tiles in
//      float64, a few tiles per lane, as an inclusive scan over the lanes with one multiplier (host-made
//      constants, IirRowsChain), plus the border state (clamp, zero) or, for wrap and mirror, the closed-form
//      border states of the two directions' totals (a first scan, a barrier, then the second); the aggregates
//      become the tiles' true states U[a-1] and W[b];
//   3. outputs: each tile rerun from its true states, a half tile at a time, written over its inputs;
// with the row's load before (cp.async) and its store after. The row's values sit a tile to kIirTile * ch
// floats plus ch of padding (the x/y pair's pitch): the threads of a warp are (tile, channel) pairs, and at
// position q of their tiles they hit banks ch * tile + channel + ch * q, all distinct.
// Written against a block policy (device_block.cuh) and pointer types, so that tests/cuda runs the same phases on
// the host with an emulated block and race-checking shared memory.
#pragma once
#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "gpu/cuda/passes/iir_tiles.cuh"

namespace gpublur::cuda {

struct IirRowsPlan {
  int n = 0, ch = 1, k = 0;  // positions per row, channels, terms
  int ntiles = 0, rows = 1;  // tiles per line, rows per block
  int nth = 0;               // threads per block: rows * ntiles * ch rounded up to whole warps
  int lanes = 32;            // lanes per chain (a power of two <= 32): a warp runs 32 / lanes chains at once
  int pitch = 0;             // floats per tile in shared memory
  int astride = 0;           // aggregates per (line, sequence): ntiles, padded (banks: iir_rows_plan)
  size_t row_floats = 0, agg_off = 0, ends_off = 0, bytes = 0;
  GPUBLUR_HD int len(int j) const { return j + 1 < ntiles ? kIirTile : n - (ntiles - 1) * kIirTile; }
  GPUBLUR_HD int chains(int rows_here) const { return rows_here * ch * 2 * k; }
  GPUBLUR_HD int per_lane() const { return (ntiles + lanes - 1) / lanes; }  // a chain's elements per lane
  // Value q of channel c of the block's row r in shared memory.
  GPUBLUR_HD size_t at(int r, int c, int q) const {
    return size_t(r) * row_floats + size_t(q / kIirTile) * size_t(pitch) + size_t(q % kIirTile) * size_t(ch) +
           size_t(c);
  }
  // Aggregate of sequence s of tile j of line l = r ch + c: s < k term s causal, k <= s < 2 k term s - k
  // anticausal (the chains' sequences), 2 k <= s < 3 k the anticausal sum of term s - 2 k over the tile's upper
  // half (iir_tile_sums_weighted).
  GPUBLUR_HD size_t agg(int l, int s, int j) const {
    return (size_t(l) * size_t(3 * k) + size_t(s)) * size_t(astride) + size_t(j);
  }
};

// Most threads of a block (CUDA's limit) and the block the plan aims for: enough rows to fill 256 threads (H100,
// against 512 and 128: 1024^2 RGBA 0.0535 / 0.0559 / 0.0528 ms, 4096^2 two channels 0.306 / 0.323 / 0.307; rows
// wider than that take one row a block).
constexpr int kIirRowsMaxThreads = 1024;
constexpr int kIirRowsAimThreads = 256;

// The plan for rows of w positions, ch channels, k terms, h rows, with at most `budget` bytes of shared memory
// per block; false where one row does not fit (more than kIirRowsMaxThreads threads or the budget).
inline bool iir_rows_plan(int w, int h, int ch, int k, size_t budget, IirRowsPlan& P) {
  if (w <= 0 || h <= 0 || ch < 1 || ch > 4 || k < 1) return false;
  P = IirRowsPlan{};
  P.n = w, P.ch = ch, P.k = k, P.ntiles = (w + kIirTile - 1) / kIirTile, P.pitch = (kIirTile + 1) * ch;
  const int per_row = P.ntiles * ch;
  if (per_row > kIirRowsMaxThreads) return false;
  P.row_floats = size_t(P.ntiles) * size_t(P.pitch);
  // The threads of a warp (tiles j, channels c) touch aggregate (c 3k + s) astride + j, float2: with 3 k astride
  // = 4 (mod 8) float2s the channels' runs fall 16 banks apart (two wavefronts, the least for 64-bit accesses),
  // where astride = ntiles (a multiple of 32 tiles) put all four channels on the same 16 banks.
  P.astride = P.ntiles;
  for (int a = P.ntiles; a < P.ntiles + 8; ++a)
    if ((3 * k * a) % 8 == 4) {
      P.astride = a;
      break;
    }
  for (int rows = std::max(1, std::min(h, kIirRowsAimThreads / per_row)); rows >= 1; --rows) {
    P.rows = rows;
    P.nth = (rows * per_row + 31) / 32 * 32;
    P.agg_off = (size_t(rows) * P.row_floats * sizeof(float) + 15) / 16 * 16;
    P.ends_off = P.agg_off + size_t(rows) * size_t(ch) * size_t(3 * k) * size_t(P.astride) * 2 * sizeof(float);
    P.ends_off = (P.ends_off + 15) / 16 * 16;
    P.bytes = P.ends_off + size_t(P.chains(rows)) * sizeof(Cplx);
    // The chains' groups (iir_rows_chains): the phase takes as long as its rounds (every warp waits for the last
    // chain). A warp a chain (32 lanes) where that is one round, as for 4096-wide rows (16 chains, 16 warps); else
    // four a warp, as for 1024-wide RGBA (32 chains, 8 warps; H200 rows pass 0.0280 -> 0.0246 ms, where 16 lanes
    // took 0.0270). The kernels come in these two forms (iir1d.cu); the emulation runs 16 too.
    P.lanes = P.chains(rows) > P.nth / 32 ? 8 : 32;
    if (P.bytes <= budget) return true;
  }
  return false;
}

// Whether term t runs in a phase instantiated for KT terms: KT < kMaxIirTerms means exactly KT (the caller
// dispatches co.k == KT: no test at run time), KT == kMaxIirTerms any co.k up to it.
template <int KT>
GPUBLUR_HD bool iir_term_on(int t, const IirCoeffs& co) {
  return KT < kMaxIirTerms || t < co.k;
}

// Thread tid's item: the block's row r, tile j, channel c; false for the threads past the block's rows_here rows.
// CH == P.ch, a constant (division by a constant; no division at all for the usual one row a block: a run-time
// integer division is some 25 instructions a thread, per phase).
template <int CH>
GPUBLUR_HD bool iir_rows_item(const IirRowsPlan& P, int tid, int rows_here, int& r, int& j, int& c) {
  const int per_row = P.ntiles * CH;
  if (tid >= rows_here * per_row) return false;
  r = P.rows == 1 ? 0 : tid / per_row;
  const int rem = tid - r * per_row;
  j = rem / CH, c = rem - j * CH;
  return true;
}

// The powers p^j of each term, j < kIirTile, rounded to float: the sums' weights. A kernel parameter, so that
// every weight is an operand from the constant bank.
struct IirPowers {
  float re[kMaxIirTerms][kIirTile], im[kMaxIirTerms][kIirTile];
};
inline IirPowers iir_powers(const IirCoeffs& co) {
  IirPowers pw{};
  for (int t = 0; t < co.k && t < kMaxIirTerms; ++t) {
    Cplx z{1.0, 0.0};
    for (int j = 0; j < kIirTile; ++j) {
      pw.re[t][j] = float(z.re), pw.im[t][j] = float(z.im);
      z = cmul(z, Cplx{co.pr[t], co.pi[t]});
    }
  }
  return pw;
}

// 1. The tile's sums from zero states as weighted sums, U = sum p^(cnt-1-q) x_q at its last position and
// W = sum p^q x_q at its first (the recursions U[i] = x[i] + p U[i-1], W[i] = x[i] + p W[i+1] from zero, as
// iir_tile_sums_at, in independent FMAs: half its operations and no dependent chain), and the upper half's
// anticausal sum H = sum_{q >= kIirTile / 2} p^(q - kIirTile / 2) x_q (W = W_lower + p^(kIirTile / 2) H), from which
// the outputs start their lower half (iir_tile_final_inplace). REAL1: term 1 real.
#pragma nv_exec_check_disable
template <int KT, bool REAL1, bool FULL, typename XP, typename AP>
GPUBLUR_HD void iir_tile_sums_weighted(XP x, size_t step, int cnt, AP agg, size_t base, size_t sstride,
                                       const IirCoeffs& co, const IirPowers& pw) {
  constexpr int kH = kIirTile / 2;
  float ur[KT], ui[KT], wr[KT], wi[KT], hr[KT], hi[KT];
#pragma unroll
  for (int t = 0; t < KT; ++t) ur[t] = ui[t] = wr[t] = wi[t] = hr[t] = hi[t] = 0.0f;
#pragma unroll
  for (int q = 0; q < kIirTile; ++q) {
    if (!FULL && q >= cnt) continue;
    const float xq = x[long(size_t(q) * step)];
    const int e = FULL ? kIirTile - 1 - q : cnt - 1 - q;
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (!iir_term_on<KT>(t, co)) continue;
      const bool real = REAL1 && t == 1;
      ur[t] += pw.re[t][e] * xq;
      if (!real) ui[t] += pw.im[t][e] * xq;
      if (q < kH) {
        wr[t] += pw.re[t][q] * xq;
        if (!real) wi[t] += pw.im[t][q] * xq;
      } else {
        hr[t] += pw.re[t][q - kH] * xq;
        if (!real) hi[t] += pw.im[t][q - kH] * xq;
      }
    }
  }
#pragma unroll
  for (int t = 0; t < KT; ++t) {
    if (!iir_term_on<KT>(t, co)) continue;
    const float pr = pw.re[t][kH], pi = pw.im[t][kH];
    agg[long(base + size_t(t) * sstride)] = float2{ur[t], ui[t]};
    const float2 w{wr[t] + pr * hr[t] - pi * hi[t], wi[t] + pr * hi[t] + pi * hr[t]};  // W_lower + p^kH H
    agg[long(base + size_t(co.k + t) * sstride)] = w;
    agg[long(base + size_t(2 * co.k + t) * sstride)] = float2{hr[t], hi[t]};
  }
}

// Thread tid's tile, if any: body(x, cnt, base, full) with its first value x (CH == P.ch apart: a constant, so
// the tile's values are immediate offsets from one address), its length, its aggregates' base (sequence s at
// base + s P.astride) and whether it is whole (an integral_constant: whole tiles run without per-step tests).
#pragma nv_exec_check_disable
template <int CH, typename SP, typename Body>
GPUBLUR_HD void iir_rows_tile(int tid, SP s, const IirRowsPlan& P, int rows_here, Body body) {
  int r, j, c;
  if (!iir_rows_item<CH>(P, tid, rows_here, r, j, c)) return;
  constexpr int kPitch = (kIirTile + 1) * CH;  // P.pitch as a constant
  const auto x = s + long(size_t(r) * P.row_floats + size_t(j) * kPitch + size_t(c));
  const int cnt = P.len(j);
  const size_t base = P.agg(r * CH + c, 0, j);
  if (cnt == kIirTile) body(x, cnt, base, std::true_type{});
  else body(x, cnt, base, std::false_type{});
}

#pragma nv_exec_check_disable
template <int KT, int CH, bool REAL1, typename SP, typename AP>
GPUBLUR_HD void iir_rows_sums(int tid, SP s, AP agg, const IirRowsPlan& P, const IirCoeffs& co, const IirPowers& pw,
                              int rows_here) {
  iir_rows_tile<CH>(tid, s, P, rows_here, [&](auto x, int cnt, size_t base, auto full) {
    iir_tile_sums_weighted<KT, REAL1, decltype(full)::value>(x, size_t(CH), cnt, agg, base, size_t(P.astride), co,
                                                             pw);
  });
}

#pragma nv_exec_check_disable
template <typename Blk>
GPUBLUR_HD Cplx iir_shfl_up(Cplx v, int o, int width) {
  return Cplx{Blk::shfl_up(v.re, o, width), Blk::shfl_up(v.im, o, width)};
}

// The chains' constants per term, float64, made on the host (iir_rows_chain) so that the chains, a latency-bound
// phase every warp of a block waits for, run no powers and no divisions: p^kIirTile and p^len(last tile), the
// scan's lane multipliers Q^(2^i) with Q = p^(kIirTile m) (m tiles a lane) and pLast / p^kIirTile (the border
// states' coefficients come in the IirBorder, also made on the host).
struct IirRowsChain {
  Cplx pT[kMaxIirTerms], pLast[kMaxIirTerms], q[kMaxIirTerms][5], lead[kMaxIirTerms];
};
inline IirRowsChain iir_rows_chain(const IirRowsPlan& P, const IirCoeffs& co) {
  IirRowsChain C{};
  const int m = P.per_lane();
  for (int t = 0; t < co.k && t < kMaxIirTerms; ++t) {
    const Cplx p{co.pr[t], co.pi[t]};
    C.pT[t] = cpow(p, kIirTile), C.pLast[t] = cpow(p, P.len(P.ntiles - 1));
    C.q[t][0] = cpow(C.pT[t], m);
    for (int i = 1; i < 5; ++i) C.q[t][i] = cmul(C.q[t][i - 1], C.q[t][i - 1]);
    C.lead[t] = cdiv(C.pLast[t], C.pT[t]);
  }
  return C;
}

// 2. The chains: a warp runs G = 32 / L chains at once (L = P.lanes lanes a chain), one per group of L lanes (warp w
// takes chains w G + g, then those nwarps G further on: chain i is line i / 2k, sequence i % 2k); lane sl of a group
// its elements sl m .. sl m + m - 1 (m = P.per_lane()) in the chain's order (tiles forwards, or backwards for the
// anticausal sequences). Every element but the last tile multiplies by p^kIirTile, so the lanes' sums from zero
// scan with the one multiplier Q = p^(kIirTile m) (the last tile's own multiplier only reaches what follows it: the
// causal chain's end, and in the anticausal order the initial state, which enters separately as Q^sl z0). ends:
// the chains' totals from zero (wrap and mirror: B and F of each term). Every thread of the block calls it (a
// barrier inside for wrap and mirror). Groups of fewer lanes let a block with more chains than warps run them in one
// round (iir_rows_plan picks L; L == P.lanes, a constant here and a kernel of its own, iir1d.cu). edge(l, back):
// line l's first (back: last) value, clamp's border value. The column blocks (iir_cols_block.cuh) run the same
// chains on a plan of one-channel lines.
#pragma nv_exec_check_disable
template <typename Blk, int L, typename EDGE, typename AP, typename EP>
GPUBLUR_HD void iir_block_chains(EDGE edge, AP agg, EP ends, const IirRowsPlan& P, const IirBorder& b,
                                 const IirCoeffs& co, const IirRowsChain& C, int rows_here) {
  constexpr int G = 32 / L;  // (a constant: the scan's loops unrolled, its multipliers immediate operands)
  const int lane = Blk::tid() & 31, warp = Blk::tid() >> 5, nwarps = Blk::nth() >> 5;
  const int sl = lane & (L - 1), grp = lane / L;
  const int nchains = P.chains(rows_here), m = (P.ntiles + L - 1) / L, last = P.ntiles - 1, k2 = 2 * P.k;
  const bool periodic = iir_periodic(b);
  const int e0 = sl * m, e1 = e0 + m < P.ntiles ? e0 + m : P.ntiles;  // the lane's elements [e0, e1)
  for (int pass = periodic ? 0 : 1; pass < 2; ++pass) {
    if (pass == 1 && periodic) Blk::sync();  // both directions' totals are in ends
    // The same trip count in every lane of a warp (shuffles); a group past the last chain runs chain 0's indices
    // and neither loads nor stores.
    for (int c0 = warp * G; c0 < nchains; c0 += nwarps * G) {
      const bool on = c0 + grp < nchains;
      const int ci = on ? c0 + grp : 0;
      const int l = ci / k2, sq = ci - l * k2;
      const bool back = sq >= P.k;
      const int t = back ? sq - P.k : sq;
      const Cplx pT = C.pT[t], pLast = C.pLast[t];
      // The lane's sum from zero over its elements (Horner; the last tile's own multiplier where it is the first
      // element, anticausal, cannot matter from zero).
      Cplx A{0.0, 0.0};
      if (on)
        for (int e = e0; e < e1; ++e) {
          const float2 v = agg[long(P.agg(l, sq, back ? last - e : e))];
          A = cadd(cmul(pT, A), Cplx{double(v.x), double(v.y)});
        }
      // Inclusive scan over the group's lanes with the uniform lane multiplier: A_sl += Q^o A_(sl-o).
      for (int i = 0, o = 1; o < L; ++i, o <<= 1) {
        const Cplx A2 = iir_shfl_up<Blk>(A, o, L);
        if (sl >= o) A = cadd(A, cmul(C.q[t][i], A2));
      }
      Cplx z = iir_shfl_up<Blk>(A, 1, L);  // the state before the lane's first element, from zero
      if (sl == 0) z = Cplx{0.0, 0.0};
      if (!on) continue;
      if (pass == 0) {  // the chain's end from zero: walked on by the lane holding the last element
        if (e0 <= last && last < e1) {
          for (int e = e0; e < e1; ++e) {
            const float2 v = agg[long(P.agg(l, sq, back ? last - e : e))];
            z = cadd(cmul(e == (back ? 0 : last) ? pLast : pT, z), Cplx{double(v.x), double(v.y)});
          }
          ends[ci] = z;
        }
        continue;
      }
      if (b.mode != Border::Zero) {  // plus the initial state's share: z0 times the product of the multipliers before
        Cplx z0;
        if (b.mode == Border::Clamp) {
          z0 = iir_clamp_state(b, t, double(edge(l, back)));
        } else {
          Cplx u0, wn;
          iir_periodic_states(b, t, ends[l * k2 + t], ends[l * k2 + P.k + t], u0, wn);
          z0 = back ? wn : u0;
        }
        // Q^sl (causal), or pLast pT^(sl m - 1) = (pLast / pT) Q^sl (anticausal, sl >= 1), by the bits of sl.
        Cplx g{1.0, 0.0};
        for (int i = 0; (1 << i) < L; ++i)
          if (sl >> i & 1) g = cmul(g, C.q[t][i]);
        if (back && sl > 0) g = cmul(g, C.lead[t]);
        z = cadd(z, cmul(g, z0));
      }
      for (int e = e0; e < e1; ++e) {
        const size_t at = P.agg(l, sq, back ? last - e : e);
        const float2 v = agg[long(at)];
        agg[long(at)] = float2{float(z.re), float(z.im)};
        z = cadd(cmul(e == (back ? 0 : last) ? pLast : pT, z), Cplx{double(v.x), double(v.y)});  // the tile's own
      }
    }
  }
}

// The whole rows' chains: clamp's border values from the block's rows.
#pragma nv_exec_check_disable
template <typename Blk, int L, typename SP, typename AP, typename EP>
GPUBLUR_HD void iir_rows_chains(SP s, AP agg, EP ends, const IirRowsPlan& P, const IirBorder& b, const IirCoeffs& co,
                                const IirRowsChain& C, int rows_here) {
  const auto edge = [&](int l, bool back) {
    const int r = l / P.ch, c = l - r * P.ch;
    return float(s[long(P.at(r, c, back ? P.n - 1 : 0))]);
  };
  iir_block_chains<Blk, L>(edge, agg, ends, P, b, co, C, rows_here);
}

// 3. The tile's outputs from its true states (as iir_tile_final_body: the sums' recursions U and W, each output
// sum_t Re(c_t (U_t + W_t)) - Re(sum_t c_t) x), written over its inputs, a half tile at a time so that only 16
// outputs stay in registers (64 registers a thread: two 512-thread blocks per SM; whole tiles spilled): the lower
// half's anticausal sweep starts from W[kIirTile / 2] = H + p^(cnt - kIirTile / 2) W[b] (the sums' upper-half sum
// and the tile's true end state), the upper half's causal sweep from where the lower half's ended. REAL1: term 1
// real (its imaginary parts are 0; two operations a step where a complex term takes four).
#pragma nv_exec_check_disable
template <int KT, bool REAL1, bool FULL, typename XP>
GPUBLUR_HD void iir_half_tile(XP x, size_t step, int q0, int cnt, float* ur, float* ui, float* wr, float* wi,
                              const IirCoeffs& co) {
  constexpr int kH = kIirTile / 2;
  const float *pr = co.fpr, *pi = co.fpi, *cr = co.fcr, *ci = co.fci;  // (zero past co.k)
  const float csum = iir_csum<KT>(co);
  float ys[kH];
#pragma unroll
  for (int d = 0; d < kH; ++d) {  // causal: U[i] = x[i] + p U[i-1], y[i] = sum_t Re(c U[i]) - Re(sum c) x[i]
    ys[d] = 0.0f;
    if (FULL || q0 + d < cnt) {
      const float xq = x[long(size_t(q0 + d) * step)];
      ys[d] = -csum * xq;
#pragma unroll
      for (int t = 0; t < KT; ++t) {
        if (!iir_term_on<KT>(t, co)) continue;
        iir_sum_step<REAL1>(t, xq, pr[t], pi[t], ur[t], ui[t]);
        ys[d] = iir_add_re_c<REAL1>(t, cr[t], ci[t], ur[t], ui[t], ys[d]);
      }
    }
  }
#pragma unroll
  for (int d = kH - 1; d >= 0; --d) {  // anticausal: W[i] = x[i] + p W[i+1], y[i] += Re(c W[i])
    if (FULL || q0 + d < cnt) {
      const float xq = x[long(size_t(q0 + d) * step)];
#pragma unroll
      for (int t = 0; t < KT; ++t) {
        if (!iir_term_on<KT>(t, co)) continue;
        iir_sum_step<REAL1>(t, xq, pr[t], pi[t], wr[t], wi[t]);
        ys[d] = iir_add_re_c<REAL1>(t, cr[t], ci[t], wr[t], wi[t], ys[d]);
      }
    }
  }
#pragma unroll
  for (int d = 0; d < kH; ++d)
    if (FULL || q0 + d < cnt) x[long(size_t(q0 + d) * step)] = ys[d];
}

#pragma nv_exec_check_disable
template <int KT, bool REAL1, bool FULL, typename XP, typename AP>
GPUBLUR_HD void iir_tile_final_inplace(XP x, size_t step, int cnt, AP agg, size_t base, size_t sstride,
                                       const IirCoeffs& co, const IirPowers& pw) {
  constexpr int kH = kIirTile / 2;
  float ur[KT], ui[KT], wr[KT], wi[KT], lr[KT], li[KT];  // causal, upper half's and lower half's anticausal
#pragma unroll
  for (int t = 0; t < KT; ++t) {
    ur[t] = ui[t] = wr[t] = wi[t] = lr[t] = li[t] = 0.0f;
    if (!iir_term_on<KT>(t, co)) continue;
    const float2 U = agg[long(base + size_t(t) * sstride)], W = agg[long(base + size_t(co.k + t) * sstride)];
    ur[t] = U.x, ui[t] = U.y, wr[t] = W.x, wi[t] = W.y;
    lr[t] = W.x, li[t] = W.y;  // W[kH]: the state the lower half's anticausal sweep starts from
    if (FULL || cnt > kH) {
      const float2 Hs = agg[long(base + size_t(2 * co.k + t) * sstride)];
      const int e = FULL ? kIirTile - kH : cnt - kH;
      const float er = pw.re[t][e], ei = pw.im[t][e];
      lr[t] = Hs.x + er * W.x - ei * W.y, li[t] = Hs.y + er * W.y + ei * W.x;
    }
  }
  iir_half_tile<KT, REAL1, FULL>(x, step, 0, cnt, ur, ui, lr, li, co);
  if (FULL || cnt > kH) iir_half_tile<KT, REAL1, FULL>(x, step, kH, cnt, ur, ui, wr, wi, co);
}

#pragma nv_exec_check_disable
template <int KT, int CH, bool REAL1, typename SP, typename AP>
GPUBLUR_HD void iir_rows_final(int tid, SP s, AP agg, const IirRowsPlan& P, const IirCoeffs& co, const IirPowers& pw,
                               int rows_here) {
  iir_rows_tile<CH>(tid, s, P, rows_here, [&](auto x, int cnt, size_t base, auto full) {
    iir_tile_final_inplace<KT, REAL1, decltype(full)::value>(x, size_t(CH), cnt, agg, base, size_t(P.astride), co,
                                                             pw);
  });
}

}  // namespace gpublur::cuda
