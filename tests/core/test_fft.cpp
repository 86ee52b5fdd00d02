// core/fft.hpp, the numbers every backend's FftConv1d uses: transform sizes, the line layout (extension by the
// radius, wrap natively) and the kernel's spectrum. The defining property: the unnormalised inverse DFT of
// DFT(extended line) x spectrum, cropped, is the direct convolution on the border-extended line (gauss-sep's
// Conv1d), for every border mode, both size families, radii beyond the line, asymmetric taps. And the fft
// recipe applies exactly gauss-sep's taps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <complex>
#include <random>
#include <vector>

#include "core/fft.hpp"
#include "core/gauss.hpp"
#include "core/plan.hpp"

namespace gpublur {
namespace {

using cd = std::complex<double>;

TEST(Fft, SizeFamilies) {
  EXPECT_TRUE(fft_good_size(1, FftSizes::PowerOfTwo));
  EXPECT_TRUE(fft_good_size(4096, FftSizes::PowerOfTwo));
  EXPECT_FALSE(fft_good_size(4095, FftSizes::PowerOfTwo));
  EXPECT_TRUE(fft_good_size(2 * 3 * 5 * 7 * 7, FftSizes::Smooth7));
  EXPECT_FALSE(fft_good_size(11, FftSizes::Smooth7));
  EXPECT_EQ(fft_size_at_least(4097, FftSizes::PowerOfTwo), 8192);
  EXPECT_EQ(fft_size_at_least(6496, FftSizes::Smooth7), 6561);  // 3^8: 4096 + 2 * 1200 pixels
  EXPECT_EQ(fft_size_at_least(11, FftSizes::Smooth7), 12);
  // Wrap natively on good lengths only; everything else extended by the radius.
  const FftLine w = fft_line(64, 100, Border::Wrap, FftSizes::PowerOfTwo);
  EXPECT_EQ(w.n_fft, 64);
  EXPECT_EQ(w.ext, 0);
  const FftLine c = fft_line(64, 100, Border::Clamp, FftSizes::PowerOfTwo);
  EXPECT_EQ(c.n_fft, 512);
  EXPECT_EQ(c.ext, 100);
  EXPECT_EQ(fft_line(63, 3, Border::Wrap, FftSizes::PowerOfTwo).n_fft, 128);
  EXPECT_EQ(fft_line(63, 3, Border::Wrap, FftSizes::Smooth7).n_fft, 63);
}

// out(x) = sum_k taps[k + r] line(remap(x + k)), float64.
std::vector<double> direct(const std::vector<double>& line, const std::vector<float>& taps, Border b) {
  const int n = int(line.size()), r = int(taps.size() / 2);
  std::vector<double> out(size_t(n), 0.0);
  for (int x = 0; x < n; ++x)
    for (int k = -r; k <= r; ++k) {
      const int i = remap_index(x + k, n, b);
      if (i >= 0) out[size_t(x)] += double(taps[size_t(k + r)]) * line[size_t(i)];
    }
  return out;
}

// core/fft.hpp's recipe for a line, with a float64 direct DFT standing in for the device transforms.
std::vector<double> by_dft(const std::vector<double>& line, const std::vector<float>& taps, Border b, FftSizes sz) {
  const int n = int(line.size()), r = int(taps.size() / 2);
  const FftLine fl = fft_line(n, r, b, sz);
  const int N = fl.n_fft;
  std::vector<double> e(static_cast<size_t>(N), 0.0);
  for (int i = 0; i < n + 2 * fl.ext; ++i) {
    const int src = remap_index(i - fl.ext, n, b);
    e[size_t(i)] = src < 0 ? 0.0 : line[size_t(src)];
  }
  const double pi = std::acos(-1.0);
  std::vector<cd> X(static_cast<size_t>(N));
  for (int j = 0; j < N; ++j)
    for (int m = 0; m < N; ++m) X[size_t(j)] += e[size_t(m)] * std::polar(1.0, -2.0 * pi * double(j) * m / N);
  const std::vector<cd> g = fft_kernel_spectrum(taps, N);
  std::vector<double> out(static_cast<size_t>(n));
  for (int x = 0; x < n; ++x) {
    cd y = 0;
    const int m = x + fl.ext;
    for (int j = 0; j < N; ++j) y += X[size_t(j)] * g[size_t(j)] * std::polar(1.0, 2.0 * pi * double(j) * m / N);
    out[size_t(x)] = y.real();
  }
  return out;
}

// fft_kernel_spectrum's transforms against the defining sum, in float64: transform lengths of every kind (powers of
// two, 7-smooth, prime, shorter than the kernel so that taps fold), asymmetric taps.
TEST(Fft, SpectrumIsTheDefiningSum) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double pi = std::acos(-1.0);
  for (int N : {1, 2, 3, 7, 12, 41, 64, 97, 210, 1000, 1024, 2401, 6561})
    for (int r : {0, 1, 5, 40, 300}) {
      std::vector<float> taps(size_t(2 * r + 1));
      for (float& t : taps) t = float(u(rng));
      const std::vector<cd> g = fft_kernel_spectrum(taps, N);
      ASSERT_EQ(g.size(), size_t(N));
      double worst = 0;
      for (int j = 0; j < N; ++j) {
        long double re = 0, im = 0;
        for (int k = -r; k <= r; ++k) {
          const long long m = ((long long)j * k % N + N) % N;
          re += (long double)taps[size_t(k + r)] * std::cos(2.0 * pi * double(m) / N);
          im += (long double)taps[size_t(k + r)] * std::sin(2.0 * pi * double(m) / N);
        }
        worst = std::max(worst, std::abs(g[size_t(j)] - cd(double(re), double(im)) / double(N)));
      }
      EXPECT_LT(worst, 1e-13) << "N " << N << " r " << r;
    }
}

TEST(Fft, SpectrumTimesExtendedLineIsTheDirectConvolution) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (FftSizes sz : {FftSizes::PowerOfTwo, FftSizes::Smooth7})
    for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
      for (int n : {1, 5, 16, 21})
        for (int r : {1, 3, 40}) {
          std::vector<float> taps(size_t(2 * r + 1));
          for (float& t : taps) t = float(u(rng));  // asymmetric: checks the correlation's direction
          std::vector<double> line(static_cast<size_t>(n));
          for (double& v : line) v = u(rng);
          const std::vector<double> want = direct(line, taps, b), got = by_dft(line, taps, b, sz);
          for (int x = 0; x < n; ++x)
            ASSERT_NEAR(got[size_t(x)], want[size_t(x)], 1e-9)
                << border_name(b) << " n " << n << " r " << r << " x " << x
                << (sz == FftSizes::Smooth7 ? " smooth7" : "");
        }
}

// Unpadded lines (fft_clamp_tails): the line alone, zeros past it, through a transform of any N >= n + r (less
// than the padded n + 2r), is the zero border's result; adding x[0] and x[n - 1] times the tails gives clamp's.
TEST(Fft, UnpaddedLineAndClampTails) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double pi = std::acos(-1.0);
  for (int n : {1, 5, 21, 40})
    for (int r : {1, 3, 30}) {
      std::vector<float> taps(size_t(2 * r + 1));
      for (float& t : taps) t = float(u(rng));  // asymmetric
      std::vector<double> line(static_cast<size_t>(n));
      for (double& v : line) v = u(rng);
      const int N = n + r;  // the least that keeps every output's window off the line's far end
      const std::vector<cd> g = fft_kernel_spectrum(taps, N);
      std::vector<cd> X(static_cast<size_t>(N));
      for (int j = 0; j < N; ++j)
        for (int m = 0; m < n; ++m) X[size_t(j)] += line[size_t(m)] * std::polar(1.0, -2.0 * pi * double(j) * m / N);
      const std::vector<double> tails = fft_clamp_tails(taps), zero = direct(line, taps, Border::Zero),
                                clamp = direct(line, taps, Border::Clamp);
      ASSERT_EQ(tails.size(), size_t(2 * r));
      int reached = 0;  // the positions the constants reach, as the backends' passes count them
      for (int x = 0; x < n; ++x) reached += x < r || n - 1 - x < r;
      ASSERT_EQ(fft_clamp_tail_positions(n, r), reached) << "n " << n << " r " << r;
      for (int x = 0; x < n; ++x) {
        cd y = 0;
        for (int j = 0; j < N; ++j) y += X[size_t(j)] * g[size_t(j)] * std::polar(1.0, 2.0 * pi * double(j) * x / N);
        ASSERT_NEAR(y.real(), zero[size_t(x)], 1e-9) << "n " << n << " r " << r << " x " << x;
        double c = y.real();
        if (x < r) c += line[0] * tails[size_t(x)];
        if (n - 1 - x < r) c += line[size_t(n - 1)] * tails[size_t(r + n - 1 - x)];
        ASSERT_NEAR(c, clamp[size_t(x)], 1e-9) << "n " << n << " r " << r << " x " << x;
      }
    }
}

TEST(Fft, RecipeAppliesGaussSepTaps) {
  for (const char* radius : {"", "700"}) {
    std::map<std::string, std::string> given = {{"sigma", "37.5"}, {"border", "mirror"}};
    if (*radius) given["radius"] = radius;
    Plan fft, sep;
    ASSERT_TRUE(resolve_plan("fft", given, fft).ok());
    ASSERT_TRUE(resolve_plan("gauss-sep", given, sep).ok());
    ASSERT_EQ(fft.program.passes.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(fft.program.passes[i].op, Op::FftConv1d);
      EXPECT_EQ(fft.program.passes[i].axis, int(i));
      EXPECT_EQ(fft.program.passes[i].border, Border::Mirror);
      EXPECT_EQ(fft.program.passes[i].taps, sep.program.passes[i].taps);
    }
    EXPECT_EQ(fft.radius, sep.radius);
    EXPECT_EQ(fft.params.at("radius"), sep.params.at("radius"));
    EXPECT_DOUBLE_EQ(fft.effective_sigma, sep.effective_sigma);
    EXPECT_EQ(fft.tolerance, 1e-5);
  }
}

// Issue 9 point 4's mechanism: gauss-sep hands its passes over to FftConv1d from a radius on (301 by default,
// the measured crossover), keeping its taps; the fragment form (a GL schedule the user names) never hands over.
TEST(Fft, GaussSepHandOver) {
  auto op_of = [](const char* sigma, const char* impl) {
    Plan p;
    EXPECT_TRUE(resolve_plan("gauss-sep", {{"sigma", sigma}, {"impl", impl}}, p).ok());
    return p.program.passes.at(0).op;
  };
  const char* old = std::getenv("GPUBLUR_SEP_FFT_MIN_RADIUS");
  const std::string saved = old ? old : "";
  unsetenv("GPUBLUR_SEP_FFT_MIN_RADIUS");
  EXPECT_EQ(op_of("100", "compute"), Op::Conv1d);     // r 300: tensor cores on CUDA, faster than fft
  EXPECT_EQ(op_of("100.34", "compute"), Op::FftConv1d);  // r 302
  EXPECT_EQ(op_of("400", "compute"), Op::FftConv1d);
  EXPECT_EQ(op_of("400", "fragment"), Op::Conv1d);
  Plan big;
  ASSERT_TRUE(resolve_plan("gauss-sep", {{"sigma", "200"}}, big).ok());
  EXPECT_NE(big.details["schedule"].find("fft"), std::string::npos);  // the report says so
  setenv("GPUBLUR_SEP_FFT_MIN_RADIUS", "30", 1);
  EXPECT_EQ(op_of("9.5", "compute"), Op::Conv1d);  // r 29
  EXPECT_EQ(op_of("10", "compute"), Op::FftConv1d);  // r 30
  EXPECT_EQ(op_of("10", "fragment"), Op::Conv1d);
  Plan fft, sep;
  ASSERT_TRUE(resolve_plan("gauss-sep", {{"sigma", "10"}}, sep).ok());
  ASSERT_TRUE(resolve_plan("fft", {{"sigma", "10"}}, fft).ok());
  EXPECT_EQ(sep.program.passes.at(1).taps, fft.program.passes.at(1).taps);
  if (old)
    setenv("GPUBLUR_SEP_FFT_MIN_RADIUS", saved.c_str(), 1);
  else
    unsetenv("GPUBLUR_SEP_FFT_MIN_RADIUS");
}

}  // namespace
}  // namespace gpublur
