// The recursive Gaussian's defining properties (core/iir.hpp, the Iir1d reference, the iir recipe):
// the impulse response is the stated sum of exponentials with variance sigma^2; constants stay constant under
// clamp, mirror and wrap (and zero gives the mass of the window); the clamp border equals the Young-van Vliet
// cascade with Triggs and Sdika's right-border matrix, which equals the cascade on a much longer clamp-extended
// line; wrap and mirror equal filtering the periodic (mirrored) signal on a long line.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/iir.hpp"
#include "core/plan.hpp"
#include "core/reference/reference.hpp"

namespace gpublur {
namespace {

const char* kImpls[] = {"young-van-vliet", "deriche"};

Plan iir_plan(const std::string& impl, double sigma, const std::string& border) {
  Plan plan;
  const Status s = resolve_plan("iir", {{"impl", impl}, {"sigma", std::to_string(sigma)}, {"border", border}}, plan);
  EXPECT_TRUE(s) << s.error;
  return plan;
}

// One Iir1d pass along x of a 1-row image (the whole plan on a 1-row image: its y pass is the identity).
std::vector<double> run_line(const std::vector<float>& taps, Border b, const std::vector<double>& x) {
  Plan plan;
  Pass pass;
  pass.op = Op::Iir1d;
  pass.taps = taps;
  pass.border = b;
  plan.program.passes.push_back(pass);
  Image src(int(x.size()), 1, 1), dst;
  for (size_t i = 0; i < x.size(); ++i) src.data[i] = float(x[i]);
  const Status s = reference_run(plan, src, dst, 1);
  EXPECT_TRUE(s) << s.error;
  return std::vector<double>(dst.data.begin(), dst.data.end());
}

std::vector<double> random_line(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x(static_cast<size_t>(n));
  for (double& v : x) v = float(u(rng));  // exactly representable: the float line is the same signal
  return x;
}

TEST(Iir, ImpulseResponseIsTheSumOfExponentialsWithVarianceSigmaSquared) {
  for (const char* impl : kImpls)
    for (double sigma : {0.7, 3.0, 12.0, 48.0}) {
      const Plan plan = iir_plan(impl, sigma, "zero");
      const std::vector<IirTerm> terms = iir_terms_from_taps(plan.program.passes[0].taps);
      const int R = iir_reach(terms, 1e-12);
      std::vector<double> x(size_t(2 * R + 1), 0.0);
      x[size_t(R)] = 1.0;
      const std::vector<double> y = run_line(plan.program.passes[0].taps, Border::Zero, x);
      double sum = 0, m2 = 0, worst = 0;
      for (int i = 0; i <= 2 * R; ++i) {
        const double g = y[size_t(i)], n = i - R;
        sum += g, m2 += n * n * g;
        worst = std::max(worst, std::abs(g - iir_response(terms, long(n))));
      }
      EXPECT_LE(worst, 1e-7) << impl << " sigma " << sigma;
      EXPECT_NEAR(sum, 1.0, 1e-5) << impl << " sigma " << sigma;
      EXPECT_NEAR(std::sqrt(m2 / sum), sigma, 1e-3 * sigma) << impl << " sigma " << sigma;
      EXPECT_NEAR(plan.effective_sigma, sigma, 1e-4 * sigma) << impl << " sigma " << sigma;
    }
}

TEST(Iir, ConstantsStayConstantAndZeroBorderGivesTheWindowMass) {
  const int w = 23, h = 17;
  const float c = 0.37f;
  for (const char* impl : kImpls)
    for (double sigma : {1.5, 12.0, 100.0})
      for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
        const Plan plan = iir_plan(impl, sigma, border);
        Image src(w, h, 2), dst;
        for (float& v : src.data) v = c;
        ASSERT_TRUE(reference_run(plan, src, dst, 1));
        const std::vector<IirTerm> t = iir_terms_from_taps(plan.program.passes[0].taps);
        auto mass = [&](int n, int len) {  // sum of g over the line's positions, seen from n
          double s = 0;
          for (int m = 0; m < len; ++m) s += iir_response(t, n - m);
          return s;
        };
        double worst = 0;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            const double want = std::string(border) == "zero" ? c * mass(x, w) * mass(y, h) : c;
            for (int k = 0; k < 2; ++k) worst = std::max(worst, std::abs(dst.at(x, y, k) - want));
          }
        EXPECT_LE(worst, 1e-6) << impl << " sigma " << sigma << " " << border;
      }
}

TEST(Iir, ClampEqualsTriggsSdikaCascadeAndALongClampExtendedLine) {
  for (double sigma : {3.0, 12.0, 40.0}) {
    const int n = 300;
    const std::vector<double> x = random_line(n, 7);
    const YvvCascade f = yvv_cascade(sigma);
    const std::vector<double> ts = yvv_cascade_clamp(f, x);
    // The plain cascade on the line clamp-extended by L on each side, started from steady states far out.
    const int L = int(60 * sigma) + 50;
    std::vector<double> ext(size_t(n + 2 * L));
    for (int i = 0; i < n + 2 * L; ++i) ext[size_t(i)] = x[size_t(std::min(std::max(i - L, 0), n - 1))];
    const int m = n + 2 * L;
    std::vector<double> wv(static_cast<size_t>(m)), yv(static_cast<size_t>(m));
    auto W = [&](int i) { return i < 0 ? ext[0] : wv[size_t(i)]; };
    for (int i = 0; i < m; ++i) wv[size_t(i)] = f.b * ext[size_t(i)] + f.a[0] * W(i - 1) + f.a[1] * W(i - 2) + f.a[2] * W(i - 3);
    auto Y = [&](int i) { return i >= m ? wv[size_t(m - 1)] : yv[size_t(i)]; };
    for (int i = m - 1; i >= 0; --i) yv[size_t(i)] = f.b * wv[size_t(i)] + f.a[0] * Y(i + 1) + f.a[1] * Y(i + 2) + f.a[2] * Y(i + 3);
    const Plan plan = iir_plan("young-van-vliet", sigma, "clamp");
    const std::vector<double> par = run_line(plan.program.passes[0].taps, Border::Clamp, x);
    double ts_long = 0, par_ts = 0;
    for (int i = 0; i < n; ++i) {
      ts_long = std::max(ts_long, std::abs(ts[size_t(i)] - yv[size_t(i + L)]));
      par_ts = std::max(par_ts, std::abs(par[size_t(i)] - ts[size_t(i)]));
    }
    EXPECT_LE(ts_long, 1e-9) << "Triggs-Sdika vs long line, sigma " << sigma;
    EXPECT_LE(par_ts, 2e-6) << "first-order terms vs Triggs-Sdika cascade, sigma " << sigma;
  }
}

TEST(Iir, WrapAndMirrorEqualFilteringTheExtendedSignal) {
  for (const char* impl : kImpls)
    for (double sigma : {2.0, 30.0})
      for (int n : {1, 5, 37}) {
        const std::vector<double> x = random_line(n, 11 + unsigned(n));
        const Plan plan = iir_plan(impl, sigma, "clamp");
        const std::vector<float>& taps = plan.program.passes[0].taps;
        const int L = iir_reach(iir_terms_from_taps(taps), 1e-9) + 10;
        for (Border b : {Border::Wrap, Border::Mirror}) {
          std::vector<double> ext(size_t(n + 2 * L));
          for (int i = 0; i < n + 2 * L; ++i) ext[size_t(i)] = x[size_t(remap_index(i - L, n, b))];
          const std::vector<double> want = run_line(taps, Border::Zero, ext);
          const std::vector<double> got = run_line(taps, b, x);
          double worst = 0;
          for (int i = 0; i < n; ++i) worst = std::max(worst, std::abs(got[size_t(i)] - want[size_t(i + L)]));
          EXPECT_LE(worst, 2e-6) << impl << " sigma " << sigma << " n " << n << " " << border_name(b);
        }
      }
}

// iir_border_form, the border states every backend takes: U[-1] = sum_{m>=1} p^(m-1) x[-m] and W[N] = sum_{m>=0}
// p^m x[N+m] (V[N-1] = p W[N]) summed directly over the border-extended line, for a complex pole near 1 and a real
// one, every border, a line of one value and a longer one.
TEST(Iir, BorderFormsEqualTheExtendedLinesGeometricSums) {
  using cd = std::complex<double>;
  for (cd p : {cd(0.93, 0.21), cd(0.6, 0.0)})
    for (int n : {1, 6, 29}) {
      const std::vector<double> x = random_line(n, 3 + unsigned(n));
      cd B = 0, F = 0;
      for (int j = 0; j < n; ++j) B = x[size_t(j)] + p * B;
      for (int j = n - 1; j >= 0; --j) F = x[size_t(j)] + p * F;
      for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero}) {
        const auto ext = [&](int i) {
          const int r = remap_index(i, n, b);
          return r < 0 ? 0.0 : x[size_t(r)];
        };
        cd u = 0, w = 0, q = 1;
        for (int m = 0; m < 4000; ++m, q *= p) u += q * ext(-1 - m), w += q * ext(n + m);
        const IirBorderForm f = iir_border_form(p, n, b);
        const cd got_u = f.edge * x[0] + f.same * B + f.other * F;
        const cd got_w = f.edge * x[size_t(n - 1)] + f.same * F + f.other * B;
        EXPECT_LE(std::abs(got_u - u), 1e-12 * (1 + std::abs(u))) << border_name(b) << " n " << n << " p " << p;
        EXPECT_LE(std::abs(got_w - w), 1e-12 * (1 + std::abs(w))) << border_name(b) << " n " << n << " p " << p;
      }
    }
}

}  // namespace
}  // namespace gpublur
