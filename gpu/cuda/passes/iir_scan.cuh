// Iir1d's segment-parallel block schedule (passes/iir1d.cu; docs/performance.md "iir: recursive Gaussian"):
// a block holds NL value lines of length n whole in shared memory, position-major (value q of line l at
// s[q * NL + l]: a row's interleaved channels; the product runs it on one-channel rows, iir1d.cu), and runs
// every first-order term of core/iir.hpp on them with many threads per line (Nehab et al. 2011 in its
// simplest case, one pole per recursion). Phases, one barrier apart:
//   1. local: thread items are (line, segment of L positions); each runs its segment from zero states, forwards
//      and backwards over its inputs in registers: cu = U at the segment's last position (U[i] = x[i] +
//      p U[i-1]), cw = W at its first (W[i] = x[i] + p W[i+1], so that the anticausal state V[i] = p W[i+1]).
//   2. scan: per (direction, line, term), the segments chained: U_before(g+1) = p^L U_before(g) + cu(g),
//      likewise backwards for W, in two levels (chunks of segments, then the chunks; a few barriers).
//      Clamp and zero start the chains from their border states; wrap and mirror from zero: the chains then
//      end at B = sum p^j x[N-1-j] and F = sum p^j x[j], the border sums (no extra sweeps over the line), and
//      the border states (closed forms as core/reference/passes/iir1d.cpp) are added in as p^(a_g) U[-1] and
//      p^(N - b_g) W[N] (the recursion is linear). cu, cw end as each segment's true state before it (U[a-1])
//      and after it (W[b]).
//   3. final: each item reruns its segment from its true states, its inputs held in registers: anticausal
//      backwards (its sum stored as float over the input), then causal forwards adding its own.
// Float64 states and sums throughout (iir_line.cuh says why). Written against a thread index and pointer
// types so that tests/cuda/test_cuda_iir_scan_emulated.cu runs the same phases on the host with checked
// shared-memory pointers.
#pragma once
#include <cstddef>

#include "gpu/cuda/passes/iir_line.cuh"

namespace gpublur::cuda {

// Most positions of a segment (its inputs sit in registers in phase 3); odd, so that the NL lines x 32 / NL
// segments a warp touches at once fall in distinct banks.
constexpr int kIirSegMax = 25;
constexpr int kIirScanThreads = 256;

struct IirScanPlan {
  int n = 0;     // positions per line
  int nl = 0;    // lines per block (the kernel's NL)
  int k = 0;     // terms
  int L = 0;     // segment length (odd; the last segment may be shorter)
  int nseg = 0;  // segments per line
  int chunks = 0, chunk_len = 0;  // phase 2: chunks of segments per sequence (2 NL k sequences), their length
  size_t carry_off = 0, bytes = 0;  // shared memory: values, then cu and cw (k x items complex each), ends (2 k NL)
  GPUBLUR_HD int items() const { return nl * nseg; }
  GPUBLUR_HD int seg_len(int g) const { return g + 1 < nseg ? L : n - (nseg - 1) * L; }
};

// The shortest odd segment that needs no more rounds of nth thread items than kIirSegMax does (more items:
// more threads busy in phases 1 and 3; each costs 32 B of carries per term).
inline IirScanPlan iir_scan_plan(int n, int nl, int k, int nth) {
  auto items_of = [&](int L) { return (long long)nl * ((n + L - 1) / L); };
  const long long rounds = (items_of(kIirSegMax) + nth - 1) / nth;
  IirScanPlan P;
  P.n = n, P.nl = nl, P.k = k, P.L = kIirSegMax;
  for (int L = 1; L < kIirSegMax; L += 2)
    if (items_of(L) <= rounds * nth) {
      P.L = L;
      break;
    }
  P.nseg = (n + P.L - 1) / P.L;
  const int per_seq = nth / (2 * nl * k) > 1 ? nth / (2 * nl * k) : 1;
  P.chunk_len = (P.nseg + per_seq - 1) / per_seq;
  P.chunks = (P.nseg + P.chunk_len - 1) / P.chunk_len;
  P.carry_off = (size_t(n) * size_t(nl) * sizeof(float) + 15) / 16 * 16;
  P.bytes = P.carry_off + (2 * size_t(k) * size_t(P.items()) + 2 * size_t(k) * size_t(nl)) * sizeof(Cplx);
  return P;
}



// Phases 1 and 3 run in float32 (measured on an H100, 4096^2 RGBA: iir 1.17 against 1.31 ms in float64, Deriche
// 1.27 against 1.56; max abs error 3.6e-7 against 6e-8). Phase 2's chains keep float64 (Cplx).
using IirReal = float;
struct CplxR {
  IirReal re, im;
};

// Phase 1. Every thread of the block calls it; cu / cw: k x items complex, term t of item i at t * items + i.
// From zero states a segment's sums stay within min(L, 1 / (1 - |p|)) of its inputs, so float32 loses no more
// than ~L float ulps of them here; the long chains (phase 2) run in float64.
#pragma nv_exec_check_disable
template <int NL, int KT, bool REAL1, typename SP, typename CP>
GPUBLUR_HD void iir_scan_local(int tid, int nth, SP s, CP cu, CP cw, const IirScanPlan& P, const IirCoeffs& co) {
  const int items = P.items();
  IirReal pr[KT], pi[KT];
#pragma unroll
  for (int t = 0; t < KT; ++t) pr[t] = IirReal(co.pr[t]), pi[t] = IirReal(co.pi[t]);
  for (int i = tid; i < items; i += nth) {
    const int l = i % NL, g = i / NL, a = g * P.L, cnt = P.seg_len(g);
    IirReal xs[kIirSegMax];  // loaded once, then a forward and a backward recursion over the registers
#pragma unroll
    for (int q = 0; q < kIirSegMax; ++q)
      if (q < cnt) xs[q] = IirReal(s[(a + q) * NL + l]);
    CplxR u[KT], w[KT];
#pragma unroll
    for (int t = 0; t < KT; ++t) u[t] = w[t] = CplxR{IirReal(0), IirReal(0)};
#pragma unroll
    for (int q = 0; q < kIirSegMax; ++q) {
      if (q < cnt) {
#pragma unroll
        for (int t = 0; t < KT; ++t) {
          if (REAL1 && t == 1) {  // a real pole: real arithmetic (the imaginary parts stay 0)
            u[t].re = xs[q] + pr[t] * u[t].re;
          } else if (t < co.k) {
            u[t] = CplxR{xs[q] + pr[t] * u[t].re - pi[t] * u[t].im, pr[t] * u[t].im + pi[t] * u[t].re};
          }
        }
      }
    }
#pragma unroll
    for (int q = kIirSegMax - 1; q >= 0; --q) {
      if (q < cnt) {
#pragma unroll
        for (int t = 0; t < KT; ++t) {
          if (REAL1 && t == 1) {
            w[t].re = xs[q] + pr[t] * w[t].re;
          } else if (t < co.k) {
            w[t] = CplxR{xs[q] + pr[t] * w[t].re - pi[t] * w[t].im, pr[t] * w[t].im + pi[t] * w[t].re};
          }
        }
      }
    }
#pragma unroll
    for (int t = 0; t < KT; ++t)
      if (t < co.k) {
        cu[t * items + i] = Cplx{double(u[t].re), double(u[t].im)};
        cw[t * items + i] = Cplx{double(w[t].re), double(w[t].im)};
      }
  }
}

// Phase 2 chains the segments of each sequence (direction, line, term): causal U_before(g+1) = p^L U_before(g)
// + cu(g) in segment order, anticausal W_after(g-1) = p^L W_after(g) + cw(g) backwards ("chain order": k = 0..
// nseg-1 is segment g = k, or g = nseg-1-k). Two levels so that no thread walks all nseg segments (179 at 4096
// RGBA): the sequences' segments are cut into chunks of chunk_len in chain order, one thread per (sequence,
// chunk) composes its chunk (2a), one thread per sequence chains the chunks (2b), the chunk threads spread the
// starts over their segments (2c), and for wrap and mirror add the border states in (2d). A chunk's composed
// value and then its start sit in the slot of its last segment (in chain order), whose own local value the
// spreading does not need (only the states before each segment are kept).
struct IirChunk {
  bool on = false, back = false;
  int l = 0, t = 0, k0 = 0, k1 = 0;  // line, term, chain indices [k0, k1)
};
GPUBLUR_HD int iir_seqs(int nl, int k) { return 2 * nl * k; }
template <int NL>
GPUBLUR_HD IirChunk iir_chunk_of(int tid, const IirScanPlan& P, int k) {
  IirChunk c;
  const int seqs = iir_seqs(NL, k), lanes = NL * k;
  if (tid >= seqs * P.chunks) return c;
  // Neighbouring threads take neighbouring sequences of one chunk: their slots are 16 B apart (line) or a term's
  // items apart. Neighbouring chunks of one sequence (the first mapping) sit chunk_len NL slots apart, which for
  // NL = 4 is a multiple of 32 banks: 10-way conflicts in every step of 2a, 2c and 2d.
  const int seq = tid % seqs, ck = tid / seqs;
  c.on = true, c.back = seq >= lanes;
  const int j = c.back ? seq - lanes : seq;
  c.l = j % NL, c.t = j / NL;
  c.k0 = ck * P.chunk_len;
  c.k1 = c.k0 + P.chunk_len < P.nseg ? c.k0 + P.chunk_len : P.nseg;
  return c;
}
GPUBLUR_HD int iir_seg_of(const IirChunk& c, const IirScanPlan& P, int k) { return c.back ? P.nseg - 1 - k : k; }

// What the chunk threads of 2a, 2c and 2d share: their chunk, their term's pole, the factor a segment applies
// to a state crossing it (p^L; p^(its length) for the line's last), and where segment g's carry sits.
struct IirChunkWalk {
  IirChunk c;
  Cplx p, pL, pLast;
  int items = 0, last = 0, nl = 0;
  GPUBLUR_HD int slot(int g) const { return c.t * items + g * nl + c.l; }
  GPUBLUR_HD Cplx factor(int g) const { return g < last ? pL : pLast; }
};
// False where the thread has no chunk (or an empty one).
template <int NL>
GPUBLUR_HD bool iir_chunk_walk(int tid, const IirScanPlan& P, const IirCoeffs& co, IirChunkWalk& w) {
  w.c = iir_chunk_of<NL>(tid, P, co.k);
  if (!w.c.on || w.c.k0 >= w.c.k1) return false;
  w.items = P.items(), w.last = P.nseg - 1, w.nl = NL;
  w.p = Cplx{co.pr[w.c.t], co.pi[w.c.t]}, w.pL = cpow(w.p, P.L), w.pLast = cpow(w.p, P.seg_len(w.last));
  return true;
}

// 2a: the chunk's value from a zero start into its last slot.
#pragma nv_exec_check_disable
template <int NL, typename CP>
GPUBLUR_HD void iir_scan_chunk_local(int tid, CP cu, CP cw, const IirScanPlan& P, const IirCoeffs& co) {
  IirChunkWalk w;
  if (!iir_chunk_walk<NL>(tid, P, co, w)) return;
  CP cc = w.c.back ? cw : cu;
  Cplx z{0.0, 0.0};
  int at = 0;
  for (int k = w.c.k0; k < w.c.k1; ++k) {
    const int g = iir_seg_of(w.c, P, k);
    at = w.slot(g);
    z = cadd(cmul(w.factor(g), z), Cplx(cc[at]));
  }
  cc[at] = z;
}

// 2b: threads tid < 2 NL k, one per sequence, chain the chunks: each chunk's last slot gets the chunk's start.
// Clamp and zero start from their border states (U[-1] = x[0] / (1-p), W[N] = x[N-1] / (1-p); zero: 0); wrap
// and mirror from zero, the chains then ending at the border sums (causal: B = sum p^j x[N-1-j] into
// ends[t * NL + l]; anticausal: F = sum p^j x[j] into ends[(k + t) * NL + l]).
#pragma nv_exec_check_disable
template <int NL, typename SP, typename CP>
GPUBLUR_HD void iir_scan_chain(int tid, SP s, CP cu, CP cw, CP ends, const IirScanPlan& P, const IirBorder& b,
                               const IirCoeffs& co) {
  const int lanes = NL * co.k;
  if (tid >= 2 * lanes) return;
  const bool back = tid >= lanes;
  const int j = back ? tid - lanes : tid, l = j % NL, t = j / NL, items = P.items(), last = P.nseg - 1;
  const Cplx p{co.pr[t], co.pi[t]}, pL = cpow(p, P.L), pLast = cpow(p, P.seg_len(last));
  CP cc = back ? cw : cu;
  Cplx z{0.0, 0.0};
  if (b.mode == Border::Clamp) z = iir_clamp_state(b, t, double(s[(back ? P.n - 1 : 0) * NL + l]));
  for (int k0 = 0; k0 < P.nseg; k0 += P.chunk_len) {
    const int k1 = k0 + P.chunk_len < P.nseg ? k0 + P.chunk_len : P.nseg;
    // The chunk's factor: p^L per segment, p^(last segment's length) for the line's last segment (chain index
    // nseg-1 causal, 0 anticausal).
    const bool has_last = back ? k0 == 0 : k1 == P.nseg;
    Cplx A = has_last ? pLast : Cplx{1.0, 0.0};
    if (k1 - k0 - (has_last ? 1 : 0) > 0) A = cmul(A, cpow(pL, k1 - k0 - (has_last ? 1 : 0)));
    const int gl = back ? last - (k1 - 1) : k1 - 1, at = t * items + gl * NL + l;
    const Cplx v = cc[at];
    cc[at] = z;
    z = cadd(cmul(A, z), v);
  }
  if (iir_periodic(b)) ends[(back ? co.k + t : t) * NL + l] = z;
}

// 2c: each chunk's segments get their starts from the chunk's (U[a-1] causal, W[b] anticausal).
#pragma nv_exec_check_disable
template <int NL, typename CP>
GPUBLUR_HD void iir_scan_chunk_spread(int tid, CP cu, CP cw, const IirScanPlan& P, const IirCoeffs& co) {
  IirChunkWalk w;
  if (!iir_chunk_walk<NL>(tid, P, co, w)) return;
  CP cc = w.c.back ? cw : cu;
  const int atl = w.slot(iir_seg_of(w.c, P, w.c.k1 - 1));
  Cplx z = cc[atl];
  for (int k = w.c.k0; k + 1 < w.c.k1; ++k) {
    const int g = iir_seg_of(w.c, P, k), at = w.slot(g);
    const Cplx e = cc[at];
    cc[at] = z;
    z = cadd(cmul(w.factor(g), z), e);
  }
  cc[atl] = z;
}

// 2d (wrap and mirror only; the chunk threads): the border states from B and F (iir_periodic_states), added in as
// p^(a_g) U[-1] and p^(N - b_g) W[N] (linear recursion).
#pragma nv_exec_check_disable
template <int NL, typename CP>
GPUBLUR_HD void iir_scan_borders(int tid, CP cu, CP cw, CP ends, const IirScanPlan& P, const IirBorder& b,
                                 const IirCoeffs& co) {
  IirChunkWalk w;
  if (!iir_chunk_walk<NL>(tid, P, co, w)) return;
  const IirChunk& c = w.c;
  const Cplx p = w.p;
  Cplx u0, wn;
  iir_periodic_states(b, c.t, ends[c.t * NL + c.l], ends[(co.k + c.t) * NL + c.l], u0, wn);
  const Cplx z0 = c.back ? wn : u0;
  CP cc = c.back ? cw : cu;
  // p^(a_g) causal (a_g = g L), p^(N - b_g) anticausal (b_g = min(N, (g + 1) L)), at the chunk's first segment.
  const int g0 = iir_seg_of(c, P, c.k0);
  const int e0 = c.back ? P.n - ((g0 + 1) * P.L < P.n ? (g0 + 1) * P.L : P.n) : g0 * P.L;
  Cplx pw = e0 > 0 ? cpow(p, e0) : Cplx{1.0, 0.0};
  for (int k = c.k0; k < c.k1; ++k) {
    const int g = iir_seg_of(c, P, k), at = w.slot(g);
    cc[at] = cadd(Cplx(cc[at]), cmul(pw, z0));
    pw = cmul(w.factor(g), pw);
  }
}

// Phase 3: each item's outputs over its inputs (a thread touches only its own segments' values). Each term runs
// scaled by its weight: u = c U, v = c V (u[i] = c x[i] + p u[i-1], v[i-1] = p (c x[i] + v[i])), so a term's
// output is Re(u) and its state stays within the term's gain of the inputs (U itself reaches x / (1 - |p|), 200x
// at sigma 200): in float32 the segment's <= kIirSegMax steps then cost a few float ulps of the output, as the
// true start states (float64 from phase 2) are rounded once.
#pragma nv_exec_check_disable
template <int NL, int KT, bool REAL1, typename SP, typename CP>
GPUBLUR_HD void iir_scan_final(int tid, int nth, SP s, CP cu, CP cw, const IirScanPlan& P, const IirCoeffs& co) {
  const int items = P.items();
  IirReal pr[KT], pi[KT], cr[KT], ci[KT];
#pragma unroll
  for (int t = 0; t < KT; ++t) pr[t] = IirReal(co.pr[t]), pi[t] = IirReal(co.pi[t]), cr[t] = IirReal(co.cr[t]), ci[t] = IirReal(co.ci[t]);
  for (int i = tid; i < items; i += nth) {
    const int l = i % NL, g = i / NL, a = g * P.L, cnt = P.seg_len(g);
    IirReal xs[kIirSegMax];
#pragma unroll
    for (int q = 0; q < kIirSegMax; ++q)
      if (q < cnt) xs[q] = IirReal(s[(a + q) * NL + l]);
    CplxR u[KT], v[KT];  // c U[a-1]; c V[b-1] = c p W[b]
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      u[t] = v[t] = CplxR{IirReal(0), IirReal(0)};
      if (t < co.k) {
        const Cplx c{co.cr[t], co.ci[t]};
        const Cplx cU = cmul(c, Cplx(cu[t * items + i]));
        const Cplx cV = cmul(cmul(c, Cplx{co.pr[t], co.pi[t]}), Cplx(cw[t * items + i]));
        u[t] = CplxR{IirReal(cU.re), IirReal(cU.im)}, v[t] = CplxR{IirReal(cV.re), IirReal(cV.im)};
      }
    }
    // Anticausal: y[i] gets Re(v[i]), then v[i-1] = p (c x[i] + v[i]); its sum goes over the input as float.
#pragma unroll
    for (int q = kIirSegMax - 1; q >= 0; --q) {
      if (q < cnt) {
        IirReal acc = IirReal(0);
#pragma unroll
        for (int t = 0; t < KT; ++t) {
          if (REAL1 && t == 1) {
            acc += v[t].re;
            v[t].re = pr[t] * (cr[t] * xs[q] + v[t].re);
          } else if (t < co.k) {
            acc += v[t].re;
            const CplxR sum{cr[t] * xs[q] + v[t].re, ci[t] * xs[q] + v[t].im};
            v[t] = CplxR{pr[t] * sum.re - pi[t] * sum.im, pr[t] * sum.im + pi[t] * sum.re};
          }
        }
        s[(a + q) * NL + l] = float(acc);
      }
    }
    // Causal: u[i] = c x[i] + p u[i-1]; y[i] = the two sums, each rounded to float once, added in float.
#pragma unroll
    for (int q = 0; q < kIirSegMax; ++q) {
      if (q < cnt) {
        IirReal acc = IirReal(0);
#pragma unroll
        for (int t = 0; t < KT; ++t) {
          if (REAL1 && t == 1) {
            u[t].re = cr[t] * xs[q] + pr[t] * u[t].re;
            acc += u[t].re;
          } else if (t < co.k) {
            u[t] = CplxR{cr[t] * xs[q] + pr[t] * u[t].re - pi[t] * u[t].im,
                            ci[t] * xs[q] + pr[t] * u[t].im + pi[t] * u[t].re};
            acc += u[t].re;
          }
        }
        const float anti = s[(a + q) * NL + l];
        s[(a + q) * NL + l] = anti + float(acc);
      }
    }
  }
}

}  // namespace gpublur::cuda
