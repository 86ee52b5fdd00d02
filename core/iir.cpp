#include "core/iir.hpp"

#include <cmath>

namespace gpublur {
namespace {

using cd = std::complex<double>;

// van Vliet, Young, Verbeek (1998), table 1: 3rd-order poles for sigma 2, L2 norm (z^-1 domain: 1/d are the
// poles of the causal part).
const cd kYvvD[3] = {cd(1.40098, 1.00236), cd(1.40098, -1.00236), cd(1.85132, 0)};

// Variance of the causal+anticausal cascade with poles d^(1/q): sum_i 2 d / (d - 1)^2.
double yvv_var(double q) {
  double v = 0;
  for (const cd& d : kYvvD) {
    const cd e = std::pow(d, 1.0 / q);
    v += (2.0 * e / ((e - 1.0) * (e - 1.0))).real();
  }
  return v;
}

// Bisection for an increasing f: the x in [lo, hi] with f(x) = target.
template <class F>
double solve_increasing(F f, double target, double lo, double hi) {
  for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

void yvv_poles(double sigma, cd p[3]) {
  const double q = solve_increasing(yvv_var, sigma * sigma, 0.02, 10 * sigma + 10);
  for (int i = 0; i < 3; ++i) p[i] = 1.0 / std::pow(kYvvD[i], 1.0 / q);
}

// Deriche (1993), the Gaussian's 4th-order approximation for scale 1.
constexpr double kA0 = 1.680, kA1 = 3.735, kB0 = 1.783, kW0 = 0.6318;
constexpr double kC0 = -0.6803, kC1 = -0.2598, kB1 = 1.723, kW1 = 1.997;

std::vector<IirTerm> deriche_at(double s) {
  std::vector<IirTerm> t = {{std::exp(cd(-kB0, kW0) / s), cd(kA0, -kA1)}, {std::exp(cd(-kB1, kW1) / s), cd(kC0, -kC1)}};
  const double sum = iir_sum(t);
  for (IirTerm& x : t) x.c /= sum;
  return t;
}

}  // namespace

double iir_sum(const std::vector<IirTerm>& t) {
  double s = 0;  // sum over n in Z of p^|n| = (1 + p) / (1 - p)
  for (const IirTerm& x : t) s += (x.c * (1.0 + x.p) / (1.0 - x.p)).real();
  return s;
}

double iir_variance(const std::vector<IirTerm>& t) {
  double m2 = 0;  // sum over n in Z of n^2 p^|n| = 2 p (1 + p) / (1 - p)^3
  for (const IirTerm& x : t) m2 += (x.c * 2.0 * x.p * (1.0 + x.p) / std::pow(1.0 - x.p, 3)).real();
  return m2 / iir_sum(t);
}

double iir_response(const std::vector<IirTerm>& t, long n) {
  double g = 0;
  for (const IirTerm& x : t) g += (x.c * std::pow(x.p, double(std::labs(n)))).real();
  return g;
}

int iir_reach(const std::vector<IirTerm>& t, double tol) {
  const double g0 = iir_response(t, 0);
  double amp = 0, r = 0;
  for (const IirTerm& x : t) amp += std::abs(x.c), r = std::max(r, std::abs(x.p));
  if (r <= 0 || amp <= tol * g0) return 1;
  return int(std::ceil(std::log(tol * g0 / amp) / std::log(r)));
}

std::vector<IirTerm> yvv_terms(double sigma) {
  cd p[3];
  yvv_poles(sigma, p);
  const cd b = (1.0 - p[0]) * (1.0 - p[1]) * (1.0 - p[2]);
  // g[n] = sum_i c_i p_i^n (n >= 0), c_i = b^2 p_i^2 / (prod_{j != i} (p_i - p_j) prod_j (1 - p_i p_j)): the
  // residues of b^2 z^(n+2) / (prod (z - p_j) prod (1 - p_j z)) inside the unit circle.
  cd c[3];
  for (int i = 0; i < 3; ++i) {
    cd den = 1.0;
    for (int j = 0; j < 3; ++j) den *= (j != i ? p[i] - p[j] : cd(1.0)) * (1.0 - p[i] * p[j]);
    c[i] = b * b * p[i] * p[i] / den;
  }
  // p[1] = conj(p[0]), c[1] = conj(c[0]): the pair is 2 Re(c_0 p_0^n).
  return {{p[0], 2.0 * c[0]}, {cd(p[2].real(), 0), cd(c[2].real(), 0)}};
}

std::vector<IirTerm> deriche_terms(double sigma) {
  const double s = solve_increasing([](double x) { return iir_variance(deriche_at(x)); }, sigma * sigma, 1e-3,
                                    4 * sigma + 10);
  return deriche_at(s);
}

std::vector<float> iir_taps(const std::vector<IirTerm>& t) {
  // The poles go through the float vector first (GCC 12 at -O2 was seen to drop a double -> float -> double
  // round trip inside a std::complex constructor), then the weights are fitted to the float poles.
  std::vector<float> taps;
  for (const IirTerm& x : t) taps.insert(taps.end(), {float(x.p.real()), float(x.p.imag()), 0.0f, 0.0f});
  std::vector<IirTerm> r = iir_terms_from_taps(taps);
  for (size_t k = 0; k < r.size(); ++k) r[k].c = t[k].c;
  const double sum = iir_sum(r);
  for (size_t k = 0; k < r.size(); ++k) {
    taps[4 * k + 2] = float(r[k].c.real() / sum);
    taps[4 * k + 3] = float(r[k].c.imag() / sum);
  }
  return taps;
}

std::vector<IirTerm> iir_terms_from_taps(const std::vector<float>& taps) {
  std::vector<IirTerm> t;
  for (size_t i = 0; i + 3 < taps.size(); i += 4) t.push_back({cd(taps[i], taps[i + 1]), cd(taps[i + 2], taps[i + 3])});
  return t;
}

YvvCascade yvv_cascade(double sigma) {
  cd p[3];
  yvv_poles(sigma, p);
  YvvCascade f;
  // prod (1 - p_i z^-1) = 1 - a1 z^-1 - a2 z^-2 - a3 z^-3
  const double a1 = (p[0] + p[1] + p[2]).real(), a2 = -(p[0] * p[1] + p[0] * p[2] + p[1] * p[2]).real(),
               a3 = (p[0] * p[1] * p[2]).real();
  f.a[0] = a1, f.a[1] = a2, f.a[2] = a3;
  f.b = 1 - a1 - a2 - a3;
  // Triggs and Sdika (2006), eq. (15)
  const double s = 1.0 / ((1 + a1 - a2 + a3) * (1 - a1 - a2 - a3) * (1 + a2 + (a1 - a3) * a3));
  const double M[3][3] = {
      {-a3 * a1 + 1 - a3 * a3 - a2, (a3 + a1) * (a2 + a3 * a1), a3 * (a1 + a3 * a2)},
      {a1 + a3 * a2, -(a2 - 1) * (a2 + a3 * a1), -(a3 * a1 + a3 * a3 + a2 - 1) * a3},
      {a3 * a1 + a2 + a1 * a1 - a2 * a2, a1 * a2 + a3 * a2 * a2 - a1 * a3 * a3 - a3 * a3 * a3 - a3 * a2 + a3,
       a3 * (a1 + a3 * a2)}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) f.M[i][j] = s * M[i][j];
  return f;
}

std::vector<double> yvv_cascade_clamp(const YvvCascade& f, const std::vector<double>& x) {
  const long n = long(x.size());
  const double a1 = f.a[0], a2 = f.a[1], a3 = f.a[2], b = f.b;
  std::vector<double> w(size_t(n) + 3);  // w[i + 3] = w(i), w(-3..-1) the steady state
  w[0] = w[1] = w[2] = x[0];
  for (long i = 0; i < n; ++i) w[size_t(i + 3)] = b * x[size_t(i)] + a1 * w[size_t(i + 2)] + a2 * w[size_t(i + 1)] + a3 * w[size_t(i)];
  const double u = x[size_t(n - 1)];  // the continuation's steady state
  const double d[3] = {w[size_t(n + 2)] - u, w[size_t(n + 1)] - u, w[size_t(n)] - u};  // w'(N-1), w'(N-2), w'(N-3)
  double yn[3];  // y(N-1), y(N), y(N+1)
  for (int i = 0; i < 3; ++i) yn[i] = u + b * (f.M[i][0] * d[0] + f.M[i][1] * d[1] + f.M[i][2] * d[2]);
  std::vector<double> out(static_cast<size_t>(n));
  double y1 = yn[0], y2 = yn[1], y3 = yn[2];  // y(i+1), y(i+2), y(i+3)
  out[size_t(n - 1)] = y1;
  for (long i = n - 2; i >= 0; --i) {
    const double v = b * w[size_t(i + 3)] + a1 * y1 + a2 * y2 + a3 * y3;
    out[size_t(i)] = v;
    y3 = y2, y2 = y1, y1 = v;
  }
  return out;
}

IirBorderForm iir_border_form(cd p, int n, Border b) {
  IirBorderForm f{0.0, 0.0, 0.0};
  const cd pn = std::pow(p, double(n));
  if (b == Border::Clamp) {
    f.edge = 1.0 / (1.0 - p);
  } else if (b == Border::Wrap) {
    f.same = 1.0 / (1.0 - pn);
  } else if (b == Border::Mirror) {
    const cd d = 1.0 - pn * pn;
    f.same = pn / d, f.other = 1.0 / d;
  }
  return f;
}

}  // namespace gpublur
