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

namespace {

using cd = std::complex<double>;

long long smallest_factor(long long m) {
  for (long long f = 2; f * f <= m; ++f)
    if (m % f == 0) return f;
  return m;
}

// X[b] = sum_m x[m * stride] w^(b m), w = exp(+2 pi i / M), by mixed-radix decimation in time (a prime factor p
// costs M p). W holds exp(+2 pi i x / T) for x in [0, T); M divides T and tstep = T / M, so every twiddle is an
// exact-angle table entry.
void dft_plus(const cd* x, long long stride, cd* X, long long M, long long tstep, const std::vector<cd>& W) {
  if (M == 1) {
    X[0] = x[0];
    return;
  }
  const long long p = smallest_factor(M), q = M / p;
  for (long long m1 = 0; m1 < p; ++m1) dft_plus(x + m1 * stride, stride * p, X + m1 * q, q, tstep * p, W);
  if (p == 2) {  // the usual case, as a plain butterfly
    for (long long b1 = 0; b1 < q; ++b1) {
      const cd a = X[b1], b = W[size_t(b1 * tstep)] * X[q + b1];
      X[b1] = a + b, X[b1 + q] = a - b;
    }
    return;
  }
  cd small[8];
  std::vector<cd> big(p > 8 ? size_t(p) : 0);
  cd* t = p > 8 ? big.data() : small;
  for (long long b1 = 0; b1 < q; ++b1) {
    for (long long m1 = 0; m1 < p; ++m1) t[m1] = W[size_t((b1 * m1 % M) * tstep)] * X[m1 * q + b1];
    for (long long b2 = 0; b2 < p; ++b2) {
      cd s = 0;
      for (long long m1 = 0; m1 < p; ++m1) s += W[size_t((b2 * m1 % p) * q * tstep)] * t[m1];
      X[b1 + q * b2] = s;
    }
  }
}

// exp(+2 pi i x / n) at the exact angle (0 <= x < n).
cd unit_root(long long x, long long n) {
  const double t = 2.0 * std::acos(-1.0) * double(x) / double(n);
  return {std::cos(t), std::sin(t)};
}

}  // namespace

// G[a + P b] = (1/N) sum_k taps[k + r] w_N^(a k) w_M^(b k) for M dividing N and P = N / M: one M-point transform
// of the taps twiddled by w_N^(a k) (folded mod M) for each of the P residues a. With M the least divisor of N that
// is at least the kernel's length this costs about N log M instead of the direct N (2r + 1). The twiddles w_N^e come
// from two tables of about sqrt(N) exact angles (one product, within an ulp or two) and the residues go in batches
// whose outputs are written together (a table of N angles read at random and G's stride-P writes, one residue at a
// time, took 58-68 s against 24.5 for N = 2^28 on the 2-core build machine).
std::vector<std::complex<double>> fft_kernel_spectrum(const std::vector<float>& taps, int n_fft) {
  const long long N = n_fft, r = (long long)(taps.size() / 2), L = 2 * r + 1;
  long long M = N;
  for (long long d = 1; d * d <= N; ++d)
    if (N % d == 0) {
      if (d >= L && d < M) M = d;
      if (N / d >= L && N / d < M) M = N / d;
    }
  const long long P = N / M;
  std::vector<cd> WM(static_cast<size_t>(M));  // w_M's powers, conjugate-symmetric: the transforms' twiddles
  for (long long x = 0; x <= M / 2; ++x) {
    WM[size_t(x)] = unit_root(x, M);
    if (x > 0) WM[size_t(M - x)] = std::conj(WM[size_t(x)]);
  }
  long long S = 1;  // w_N^e = hi[e / S] lo[e % S]
  while (S * S < N) ++S;
  std::vector<cd> lo(static_cast<size_t>(S)), hi(static_cast<size_t>(N / S + 1));
  for (long long x = 0; x < S; ++x) lo[size_t(x)] = unit_root(x, N);
  for (long long x = 0; x * S < N; ++x) hi[size_t(x)] = unit_root(x * S, N);
  const long long B = std::min<long long>(P, 16);  // residues a batch
  std::vector<cd> h(static_cast<size_t>(M)), H(static_cast<size_t>(B * M));
  std::vector<cd> g(static_cast<size_t>(N));
  for (long long a0 = 0; a0 < P; a0 += B) {
    const long long nb = std::min(B, P - a0);
    for (long long i = 0; i < nb; ++i) {
      const long long a = a0 + i;
      std::fill(h.begin(), h.end(), cd(0));
      for (long long k = -r; k <= r; ++k) {
        long long e = (a * k) % N, f = k % M;
        e += e < 0 ? N : 0, f += f < 0 ? M : 0;
        const cd w = e == 0 ? cd(1) : hi[size_t(e / S)] * lo[size_t(e % S)];
        h[size_t(f)] += double(taps[size_t(k + r)]) * w;
      }
      dft_plus(h.data(), 1, H.data() + i * M, M, 1, WM);
    }
    for (long long b = 0; b < M; ++b)
      for (long long i = 0; i < nb; ++i) g[size_t(a0 + i + P * b)] = H[size_t(i * M + b)] / double(N);
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
