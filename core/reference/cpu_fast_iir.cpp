// The cpu backend's schedule for Iir1d passes (iir): the reference's function (passes/iir1d.cpp: each term's causal
// and anticausal recursions from closed-form border states, summed) in float64 over batches of lines laid out
// position-major (cpu_fast_lines.hpp), every recursion stepping all of a batch's values at once (vectorised), where
// the reference walks one value of a line at a time through std::complex (docs/performance.md, "The cpu backend's
// box cascades and iir").
#include <complex>
#include <vector>

#include "core/iir.hpp"
#include "core/reference/cpu_fast.hpp"
#include "core/reference/cpu_fast_lines.hpp"

namespace gpublur {
namespace {

// One term over n positions of vec values: out += Re(c (U + V)), U's state in (ur, ui), V's in (vr, vi), both
// started from the states outside the line that passes/iir1d.cpp derives for each border.
GPUBLUR_SIMD_CLONES void iir_term(const double* x, double* out, size_t n, size_t vec, std::complex<double> p,
                                  std::complex<double> c, Border b, double* ur, double* ui, double* vr, double* vi) {
  using cd = std::complex<double>;
  const double pr = p.real(), pi = p.imag(), cr = c.real(), ci = c.imag();
  // U[-1] = edge x[0] + same B + other F, V[N-1] = p (edge x[N-1] + same F + other B) (core/iir.hpp).
  const IirBorderForm f = iir_border_form(p, int(n), b);
  if (b == Border::Clamp) {
    const cd ku = f.edge, kv = p * f.edge;
    const double* first = x;
    const double* last = x + (n - 1) * vec;
    for (size_t v = 0; v < vec; ++v) {
      ur[v] = ku.real() * first[v], ui[v] = ku.imag() * first[v];
      vr[v] = kv.real() * last[v], vi[v] = kv.imag() * last[v];
    }
  } else {
    std::fill(ur, ur + vec, 0.0), std::fill(ui, ui + vec, 0.0);
    std::fill(vr, vr + vec, 0.0), std::fill(vi, vi + vec, 0.0);
  }
  if (b == Border::Wrap || b == Border::Mirror) {
    // F = sum_j p^j x[j] into (vr, vi), B = sum_j p^j x[N-1-j] into (ur, ui), by Horner's rule from either end.
    for (size_t j = n; j-- > 0;) {
      const double* xj = x + j * vec;
      for (size_t v = 0; v < vec; ++v) {
        const double r = xj[v] + pr * vr[v] - pi * vi[v];
        vi[v] = pr * vi[v] + pi * vr[v], vr[v] = r;
      }
    }
    for (size_t j = 0; j < n; ++j) {
      const double* xj = x + j * vec;
      for (size_t v = 0; v < vec; ++v) {
        const double r = xj[v] + pr * ur[v] - pi * ui[v];
        ui[v] = pr * ui[v] + pi * ur[v], ur[v] = r;
      }
    }
    const cd uf = f.other, ub = f.same, vf = p * f.same, vb = p * f.other;
    for (size_t v = 0; v < vec; ++v) {
      const cd F(vr[v], vi[v]), B(ur[v], ui[v]), u = uf * F + ub * B, w = vf * F + vb * B;
      ur[v] = u.real(), ui[v] = u.imag(), vr[v] = w.real(), vi[v] = w.imag();
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const double* xi = x + i * vec;
    double* o = out + i * vec;
    for (size_t v = 0; v < vec; ++v) {
      const double r = xi[v] + pr * ur[v] - pi * ui[v];
      ui[v] = pr * ui[v] + pi * ur[v], ur[v] = r;
      o[v] += cr * ur[v] - ci * ui[v];
    }
  }
  for (size_t i = n; i-- > 0;) {
    const double* xi = x + i * vec;
    double* o = out + i * vec;
    for (size_t v = 0; v < vec; ++v) {
      o[v] += cr * vr[v] - ci * vi[v];
      const double sr = xi[v] + vr[v], si = vi[v];
      vr[v] = pr * sr - pi * si, vi[v] = pr * si + pi * sr;
    }
  }
}

}  // namespace

void cpu_fast_iir(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const std::vector<IirTerm> terms = iir_terms_from_taps(pass.taps);
  for_fast_lines(src, dst, pass.axis, 0, pass.border, 4, threads, [&](LineBuffers& buf, size_t len, size_t vec) {
    std::fill(buf.b.begin(), buf.b.begin() + ptrdiff_t(len * vec), 0.0);
    for (const IirTerm& t : terms)
      iir_term(buf.a.data(), buf.b.data(), len, vec, t.p, t.c, pass.border, buf.lane[0].data(), buf.lane[1].data(),
               buf.lane[2].data(), buf.lane[3].data());
    return static_cast<const double*>(buf.b.data());
  });
}

}  // namespace gpublur
