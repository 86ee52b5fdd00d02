// iir1d: dst(n) = sum_k Re(c_k (U_k[n] + V_k[n])) along the axis, U[n] = x[n] + p U[n-1] (causal, m >= 0)
// and V[n] = p (x[n+1] + V[n+1]) (anticausal, m >= 1), on the infinitely border-extended line x. Each term's
// state outside the line is a geometric sum of the extension, in closed form (core/iir.hpp iir_border_form, the
// one place every backend takes them from):
//   U[-1] = sum_{m>=1} p^(m-1) x[-m],   V[N-1] = sum_{m>=1} p^m x[N-1+m]
//   clamp   U[-1] = x[0] / (1-p),                 V[N-1] = p x[N-1] / (1-p)
//   zero    0,                                    0
//   wrap    B / (1-p^N),                          p F / (1-p^N)
//   mirror  (F + p^N B) / (1-p^2N),               p (B + p^N F) / (1-p^2N)
// with F = sum_{j<N} p^j x[j] and B = sum_{j<N} p^j x[N-1-j] (period N for wrap, 2N for the half-sample
// mirror, whose period is the line then the line reversed). Everything in float64 with the pass's float taps.
#include <complex>

#include "core/iir.hpp"
#include "core/reference/pass_table.hpp"

namespace gpublur {

namespace {

using cd = std::complex<double>;

// One line x[0..n) (stride `st` in `in`), one term, added into out (same stride).
void iir_term_line(const double* in, double* out, int n, size_t st, cd p, cd c, Border b) {
  auto x = [&](int i) { return in[size_t(i) * st]; };
  cd B = 0, F = 0;  // the zero-start sums each way (wrap and mirror's borders take them)
  if (b == Border::Wrap || b == Border::Mirror) {
    for (int j = n - 1; j >= 0; --j) F = x(j) + p * F;
    for (int j = 0; j < n; ++j) B = x(j) + p * B;
  }
  const IirBorderForm f = iir_border_form(p, n, b);
  const cd u0 = f.edge * x(0) + f.same * B + f.other * F;          // U[-1]
  const cd v0 = p * (f.edge * x(n - 1) + f.same * F + f.other * B);  // V[N-1] = p W[N]
  cd u = u0;
  for (int i = 0; i < n; ++i) {
    u = x(i) + p * u;
    out[size_t(i) * st] += (c * u).real();
  }
  cd v = v0;
  for (int i = n - 1; i >= 0; --i) {
    out[size_t(i) * st] += (c * v).real();
    v = p * (x(i) + v);
  }
}

}  // namespace

Status cpu_iir1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const std::vector<IirTerm> terms = iir_terms_from_taps(pass.taps);
  for_line_batches(src, dst, pass.axis, 0, pass.border, threads, [&](LineBatch& lb) {
    const size_t V = size_t(lb.vec);
    std::vector<double> out(lb.buf.size(), 0.0);
    for (size_t v = 0; v < V; ++v)
      for (const IirTerm& t : terms) iir_term_line(lb.buf.data() + v, out.data() + v, lb.n, V, t.p, t.c, pass.border);
    return out;
  });
  return Status::success();
}

}  // namespace gpublur
