#include "core/fft.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gpublur {

bool fft_good_size(long long n, FftSizes sizes) {
  if (n < 1) return false;
  if (sizes == FftSizes::PowerOfTwo) return (n & (n - 1)) == 0;
  for (int f : {2, 3, 5, 7})
    while (n % f == 0) n /= f;
  return n == 1;
}

int fft_size_at_least(int n, FftSizes sizes) {
  long long m = n < 1 ? 1 : n;
  while (!fft_good_size(m, sizes)) ++m;  // 7-smooth numbers are dense: a few steps
  return int(m);
}

FftLine fft_line(int n, int radius, Border b, FftSizes sizes) {
  FftLine l;
  if (b == Border::Wrap && fft_good_size(n, sizes)) {
    l.n_fft = n;
    return l;
  }
  l.ext = radius;
  l.n_fft = fft_size_at_least(n + 2 * radius, sizes);
  return l;
}

std::vector<std::complex<double>> fft_kernel_spectrum(const std::vector<float>& taps, int n_fft) {
  const long long N = n_fft;
  const int r = int(taps.size() / 2);
  const double pi = std::acos(-1.0);
  std::vector<double> c(static_cast<size_t>(N)), s(static_cast<size_t>(N));  // cos, sin of 2 pi m / N
  for (long long m = 0; m < N; ++m) {
    c[size_t(m)] = std::cos(2.0 * pi * double(m) / double(N));
    s[size_t(m)] = std::sin(2.0 * pi * double(m) / double(N));
  }
  std::vector<std::complex<double>> g(static_cast<size_t>(N));
  for (long long j = 0; j < N; ++j) {
    double re = 0, im = 0;
    for (int k = -r; k <= r; ++k) {
      long long m = (j * k) % N;
      if (m < 0) m += N;
      re += double(taps[size_t(k + r)]) * c[size_t(m)];
      im += double(taps[size_t(k + r)]) * s[size_t(m)];
    }
    g[size_t(j)] = {re / double(N), im / double(N)};
  }
  return g;
}

std::vector<double> fft_clamp_tails(const std::vector<float>& taps) {
  const int r = int(taps.size() / 2);
  std::vector<double> t(size_t(2 * r), 0.0);
  double left = 0, right = 0;
  for (int x = r - 1; x >= 0; --x) left += double(taps[size_t(r - 1 - x)]), t[size_t(x)] = left;
  for (int d = r - 1; d >= 0; --d) right += double(taps[size_t(r + 1 + d)]), t[size_t(r + d)] = right;
  return t;
}

int sep_fft_min_radius() {
  if (const char* env = std::getenv("GPUBLUR_SEP_FFT_MIN_RADIUS"); env && *env) return std::max(0, std::atoi(env));
  // Measured on an H100 (docs/performance.md, "gauss-sep -> fft crossover"): gauss-sep's fastest path ends at
  // radius 300 (tensor cores, 2.23 ms at 4096^2 RGBA vs fft 6.56 ms through cuFFT); at radius 600 its per-pixel
  // path takes 36.1 ms against fft's 7.32 ms (1024^2: 2.30 vs 0.76 ms). Every backend hands over here; CUDA's
  // own FFT segments are faster from radius 42 (24 for one channel), where its pass table runs Conv1d passes as
  // FftConv1d (gpu/cuda SepTuning::fft_min_radius, the same function within float rounding).
  return 301;
}

}  // namespace gpublur
