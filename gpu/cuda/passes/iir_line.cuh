// Iir1d on one value line (one channel of one row or column), the arithmetic of
// core/reference/passes/iir1d.cpp in float64 (H100: FP64 at half the FP32 rate, and the recursion is not
// where the time goes; in float32 a pole 0.995 from 1 (sigma 200) biases a term's steady state by ~eps/(1-|p|)
// ~ 1e-5 relative, before the terms' cancellation). Host and device: tests/cuda emulate the kernel's lines on
// the host. The line is x[base + i step], i < n, of `in`; `out` gets the result at the same places (its first
// sweep stores the causal sum there as float, the second adds the anticausal one).
#pragma once
#include <cuda_runtime.h>

#include "core/border.hpp"
#include "core/iir.hpp"
#include "core/program.hpp"

namespace gpublur::cuda {

struct IirCoeffs {
  int k = 0;  // terms
  double pr[kMaxIirTerms], pi[kMaxIirTerms], cr[kMaxIirTerms], ci[kMaxIirTerms];
  // The same rounded to float (the float32 sweeps take them as operands from the kernel's parameters, in no
  // registers).
  float fpr[kMaxIirTerms], fpi[kMaxIirTerms], fcr[kMaxIirTerms], fci[kMaxIirTerms];
  double phr[kMaxIirTerms], phi[kMaxIirTerms];    // p^(kIirColTile / 2): the long column tiles' half
};
// An Iir1d pass's terms (core/iir.hpp, from its taps) as the kernels take them (passes/iir1d.cu).
Status iir_coeffs(const std::vector<float>& taps, IirCoeffs& co);

// Whether term 1 is a real pole with a real weight (Young-van Vliet's third pole): the scan's phases and the
// whole-rows kernel then run it in real arithmetic (about a third of a complex term's work). Such a term's
// imaginary parts are exactly 0, so the result is the same; the kernels take it as a template flag (REAL1).
inline bool iir_term1_real(const IirCoeffs& co) {
  return co.k >= 2 && iir_term_real(IirTerm{{co.pr[1], co.pi[1]}, {co.cr[1], co.ci[1]}});
}

struct Cplx {
  double re, im;
};
GPUBLUR_HD Cplx cadd(Cplx a, Cplx b) { return {a.re + b.re, a.im + b.im}; }
GPUBLUR_HD Cplx cmul(Cplx a, Cplx b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
GPUBLUR_HD Cplx cdiv(Cplx a, Cplx b) {
  const double d = b.re * b.re + b.im * b.im;
  return {(a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d};
}
// p^n by squaring (n >= 1).
GPUBLUR_HD Cplx cpow(Cplx p, int n) {
  Cplx r{1.0, 0.0};
  while (n > 0) {
    if (n & 1) r = cmul(r, p);
    p = cmul(p, p);
    n >>= 1;
  }
  return r;
}

// A pass's border as the kernels take it: its mode and each term's closed-form coefficients for the pass's line
// length, made on the host by core/iir.hpp's iir_border_form (the one source every backend takes them from):
//   U[-1] = edge x[0] + same B + other F,   W[N] = edge x[N-1] + same F + other B   (V[N-1] = p W[N])
// with B = sum_j p^j x[N-1-j] and F = sum_j p^j x[j] (wrap and mirror; clamp has edge only, zero nothing).
struct IirBorder {
  Border mode = Border::Clamp;
  Cplx edge[kMaxIirTerms], same[kMaxIirTerms], other[kMaxIirTerms];
};
inline IirBorder iir_border(const IirCoeffs& co, int n, Border mode) {
  IirBorder b{};
  b.mode = mode;
  for (int t = 0; t < co.k && t < kMaxIirTerms; ++t) {
    const IirBorderForm f = iir_border_form({co.pr[t], co.pi[t]}, n, mode);
    b.edge[t] = {f.edge.real(), f.edge.imag()};
    b.same[t] = {f.same.real(), f.same.imag()};
    b.other[t] = {f.other.real(), f.other.imag()};
  }
  return b;
}
GPUBLUR_HD bool iir_periodic(const IirBorder& b) { return b.mode == Border::Wrap || b.mode == Border::Mirror; }
// Term t's periodic border states from the line's sums B and F (wrap and mirror).
GPUBLUR_HD void iir_periodic_states(const IirBorder& b, int t, Cplx B, Cplx F, Cplx& u0, Cplx& wn) {
  u0 = cadd(cmul(b.same[t], B), cmul(b.other[t], F));
  wn = cadd(cmul(b.same[t], F), cmul(b.other[t], B));
}
// Term t's clamp state from the line's end value xe: U[-1] (xe = x[0]) or W[N] (xe = x[N-1]).
GPUBLUR_HD Cplx iir_clamp_state(const IirBorder& b, int t, double xe) {
  return Cplx{b.edge[t].re * xe, b.edge[t].im * xe};
}

// Calls body(i, x[i]) for i = 0..n-1 (or n-1..0 when backward), loading kIirChunk values ahead into
// registers: the loads do not depend on the recursion, so a thread keeps a chunk of them in flight (with few
// threads per SM, memory latency and not bandwidth would bound one load per step).
constexpr int kIirChunk = 16;
// With `aux` (the anticausal sweep: the causal sums) its values at the same places come as a third argument.
template <typename Body>
GPUBLUR_HD void iir_sweep(const float* __restrict__ in, const float* aux, size_t base, size_t step, int n,
                          bool backward, Body body) {
  for (int c0 = 0; c0 < n; c0 += kIirChunk) {
    float xs[kIirChunk], as[kIirChunk];
#pragma unroll
    for (int j = 0; j < kIirChunk; ++j) {
      const size_t a = base + size_t(backward ? n - 1 - (c0 + j) : c0 + j) * step;
      xs[j] = c0 + j < n ? in[a] : 0.0f;
      as[j] = aux && c0 + j < n ? aux[a] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < kIirChunk; ++j)
      if (c0 + j < n) body(backward ? n - 1 - (c0 + j) : c0 + j, double(xs[j]), double(as[j]));
  }
}

GPUBLUR_HD void iir_value_line(const float* __restrict__ in, float* out, size_t base, size_t step,
                               int n, const IirBorder& b, const IirCoeffs& co) {
  constexpr int K = kMaxIirTerms;
  const int k = co.k;
  Cplx u[K], v[K];  // U[-1], V[N-1] (then the running states)
#pragma unroll
  for (int t = 0; t < K; ++t) u[t] = v[t] = Cplx{0.0, 0.0};
  if (b.mode == Border::Clamp) {
    const double x0 = in[base], xn = in[base + size_t(n - 1) * step];
#pragma unroll
    for (int t = 0; t < K; ++t) {
      if (t < k) {  // a guard, not a break: the arrays keep compile-time indices (registers)
        u[t] = iir_clamp_state(b, t, x0);
        v[t] = cmul(Cplx{co.pr[t], co.pi[t]}, iir_clamp_state(b, t, xn));  // V[N-1] = p W[N]
      }
    }
  } else if (iir_periodic(b)) {
    Cplx F[K], B[K];  // F = sum_j p^j x[j] (backward sweep), B = sum_j p^j x[N-1-j] (forward sweep)
#pragma unroll
    for (int t = 0; t < K; ++t) F[t] = B[t] = Cplx{0.0, 0.0};
    iir_sweep(in, nullptr, base, step, n, true, [&](int, double x, double) {
#pragma unroll
      for (int t = 0; t < K; ++t)
        if (t < k) F[t] = Cplx{x + co.pr[t] * F[t].re - co.pi[t] * F[t].im, co.pr[t] * F[t].im + co.pi[t] * F[t].re};
    });
    iir_sweep(in, nullptr, base, step, n, false, [&](int, double x, double) {
#pragma unroll
      for (int t = 0; t < K; ++t)
        if (t < k) B[t] = Cplx{x + co.pr[t] * B[t].re - co.pi[t] * B[t].im, co.pr[t] * B[t].im + co.pi[t] * B[t].re};
    });
#pragma unroll
    for (int t = 0; t < K; ++t) {
      if (t < k) {
        Cplx wn;
        iir_periodic_states(b, t, B[t], F[t], u[t], wn);
        v[t] = cmul(Cplx{co.pr[t], co.pi[t]}, wn);  // V[N-1] = p W[N]
      }
    }
  }
  // Causal: U[i] = x[i] + p U[i-1]; out[i] = sum Re(c U[i]).
  iir_sweep(in, nullptr, base, step, n, false, [&](int i, double x, double) {
    double acc = 0.0;
#pragma unroll
    for (int t = 0; t < K; ++t) {
      if (t < k) {
        u[t] = Cplx{x + co.pr[t] * u[t].re - co.pi[t] * u[t].im, co.pr[t] * u[t].im + co.pi[t] * u[t].re};
        acc += co.cr[t] * u[t].re - co.ci[t] * u[t].im;
      }
    }
    out[base + size_t(i) * step] = float(acc);
  });
  // Anticausal: out[i] += sum Re(c V[i]); V[i-1] = p (x[i] + V[i]). The causal sums are read back a chunk
  // ahead too (this thread wrote them, no other thread touches the line; a chunk is loaded before it is stored).
  iir_sweep(in, out, base, step, n, true, [&](int i, double x, double causal) {
    double acc = causal;
#pragma unroll
    for (int t = 0; t < K; ++t) {
      if (t < k) {
        acc += co.cr[t] * v[t].re - co.ci[t] * v[t].im;
        const Cplx s{x + v[t].re, v[t].im};
        v[t] = Cplx{co.pr[t] * s.re - co.pi[t] * s.im, co.pr[t] * s.im + co.pi[t] * s.re};
      }
    }
    out[base + size_t(i) * step] = float(acc);
  });
}

// The value line `line` of a w x h image of `ch` interleaved channels along `axis`: axis 0: line = row * ch + c
// (elements ch apart), axis 1: line = value column (elements w * ch apart). Lines: h * ch or w * ch.
GPUBLUR_HD void iir_line_place(int axis, int w, int h, int ch, int line, size_t& base, size_t& step, int& n) {
  const size_t rowv = size_t(w) * size_t(ch);
  if (axis == 0) {
    base = size_t(line / ch) * rowv + size_t(line % ch), step = size_t(ch), n = w;
  } else {
    base = size_t(line), step = rowv, n = h;
  }
}

}  // namespace gpublur::cuda
