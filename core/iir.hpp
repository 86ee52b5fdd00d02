// Recursive (IIR) Gaussians: the coefficients of the Young-van Vliet (3rd order) and Deriche (4th order)
// filters from a sigma, in the one form every backend runs (op Iir1d, core/program.hpp): the symmetric
// impulse response as a sum of complex exponentials
//     g[n] = sum_k Re(c_k p_k^|n|),  |p_k| < 1,
// i.e. per term a causal first-order recursion U[n] = x[n] + p U[n-1] and an anticausal one
// V[n] = p (x[n+1] + V[n+1]), y = sum_k Re(c_k (U + V)). Both filters have exactly this form: Deriche's is a
// sum of two damped (co)sines by construction; Young-van Vliet's cascade b^2 / (A(z) A(1/z)) with the three
// poles p_i of A is, by partial fractions, c_3 p_3^|n| + 2 Re(c_1 p_1^|n|) (the pair as one complex term).
// First-order terms make every border mode exact with no margin: a term's state before the line is a
// geometric sum of the border-extended signal, in closed form for clamp and zero and from one sweep over
// the line for wrap and mirror (periodic extensions). The classic cascade with Triggs and Sdika's right-border
// matrix is kept here (yvv_cascade_*) as an independent check of the same function (tests/core/test_iir.cpp).
#pragma once
#include <complex>
#include <vector>

#include "core/border.hpp"

namespace gpublur {

struct IirTerm {
  std::complex<double> p, c;
};
// A real term: pole and weight with no imaginary part (Young-van Vliet's third pole). Its recursions keep exactly
// zero imaginary parts, so the GPU backends run it on real parts only (CUDA's REAL1, GL's REAL_MASK).
inline bool iir_term_real(const IirTerm& t) { return t.p.imag() == 0.0 && t.c.imag() == 0.0; }

// A term's states beyond a line of n values, as linear forms in the line (the closed forms of
// core/reference/passes/iir1d.cpp), so that every backend takes the same float64 numbers from here:
//   U[-1] = edge x[0]   + same B + other F,      W[N] = edge x[N-1] + same F + other B      (V[N-1] = p W[N])
// with B = sum_j p^j x[N-1-j] and F = sum_j p^j x[j], the line's zero-start sums each way. Clamp: edge 1 / (1-p);
// wrap: same 1 / (1-p^N); mirror: same p^N / (1-p^2N), other 1 / (1-p^2N); every other coefficient (and zero's) 0.
struct IirBorderForm {
  std::complex<double> edge, same, other;
};
IirBorderForm iir_border_form(std::complex<double> p, int n, Border b);

// Young-van Vliet 3rd order with the L2-optimal poles of van Vliet, Young and Verbeek (1998) for sigma 2,
// scaled as d^(1/q) with q chosen so that the filter's variance is exactly sigma^2. Two terms (the complex
// pair, the real pole).
std::vector<IirTerm> yvv_terms(double sigma);
// Deriche (1993) 4th order: h(n) = (a0 cos(w0 n/s) + a1 sin(w0 n/s)) e^(-b0 n/s) + (c0 cos .. + c1 sin ..)
// e^(-b1 n/s), symmetric, normalised to unit sum, with the scale s chosen so that the variance is sigma^2.
std::vector<IirTerm> deriche_terms(double sigma);

double iir_sum(const std::vector<IirTerm>& t);       // sum_n g[n] over all integers
double iir_variance(const std::vector<IirTerm>& t);  // sum_n n^2 g[n] / sum_n g[n]
double iir_response(const std::vector<IirTerm>& t, long n);  // g[n]
// Smallest n >= 0 with |g[m]| <= tol * g[0] for every m >= n (bounded by the terms' envelopes).
int iir_reach(const std::vector<IirTerm>& t, double tol);

// The terms as Pass::taps: per term p.re, p.im, c.re, c.im in float32. The poles are rounded first and the
// weights then rescaled in float64 so that the float poles' filter has unit sum (a constant stays constant).
std::vector<float> iir_taps(const std::vector<IirTerm>& t);
std::vector<IirTerm> iir_terms_from_taps(const std::vector<float>& taps);

// The classic Young-van Vliet cascade for the same sigma (yvv_terms' poles): causal w[n] = b x[n] + a1 w[n-1]
// + a2 w[n-2] + a3 w[n-3], then anticausal y[n] = b w[n] + a1 y[n+1] + a2 y[n+2] + a3 y[n+3].
struct YvvCascade {
  double b = 0, a[3] = {0, 0, 0};
  double M[3][3] = {};  // Triggs-Sdika (2006): [y'(N-1), y'(N), y'(N+1)] = b M [w'(N-1), w'(N-2), w'(N-3)]
};
YvvCascade yvv_cascade(double sigma);
// The cascade on a line with the clamp border: steady-state causal start (w = x[0] before the line) and
// Triggs-Sdika's right border (the line continued by x[N-1] forever), ' being the deviation from x[N-1].
std::vector<double> yvv_cascade_clamp(const YvvCascade& f, const std::vector<double>& x);

}  // namespace gpublur
