// The CUDA fft (passes/fft_conv1d.cu). On the host, no device needed: its index math (passes/fft_layout.hpp:
// gather, cuFFT's advanced layout, the bins' order, scatter, chunks with padding lines) with float64 DFTs that
// follow cuFFT's R2C / C2R definitions standing in for the library, against the CPU reference's Conv1d: rows
// and columns, 1, 2, 4 device channels, every border, wrap natively on 7-smooth lengths, radii beyond the line,
// asymmetric taps; the same for the overlap-save segments' layout and Stockham schedule (passes/fft_segments.hpp)
// and their thread mapping. On a device: the fft method against gauss-sep's CPU reference within 1e-5 (every
// border, 1-4 channels, odd sizes, radius beyond the image, a 4096-wide image at sigma 400) on both paths
// (segments, cuFFT), skipping without one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <complex>
#include <map>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/fft.hpp"
#include "core/reference/pass_table.hpp"
#include "cuda/cuda_test_util.hpp"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/fft_layout.hpp"
#include "gpu/cuda/passes/fft_segments.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur::testing {
namespace {

using cd = std::complex<double>;
using cuda::FftLayout;

// One FftConv1d pass emulated on the host: the kernels' index math, float64 DFTs with cuFFT's semantics
// (element m of transform b at b * dist + m * stride; R2C keeps bins 0..N/2; C2R assumes Hermitian symmetry,
// unnormalised).
Image emulate(const Image& src, int axis, const std::vector<float>& taps, Border border, int batch_lines) {
  FftLayout l;
  l.axis = axis, l.width = src.width, l.height = src.height, l.channels = src.channels, l.border = border;
  const FftLine fl = cuda::cufft_line(l.n(), int(taps.size() / 2), border);
  l.n_fft = fl.n_fft, l.ext = fl.ext, l.batch_lines = batch_lines;
  const int N = l.n_fft, B = l.transforms();
  const std::vector<cd> g = fft_kernel_spectrum(taps, N);
  const double pi = std::acos(-1.0);
  Image out(src.width, src.height, src.channels);
  for (float& v : out.data) v = NAN;
  std::vector<float> real(l.real_count());
  std::vector<cd> spec(l.complex_count());
  for (l.line0 = 0; l.line0 < l.lines(); l.line0 += l.batch_lines) {
    for (size_t i = 0; i < real.size(); ++i) real[i] = l.gather(src.data.data(), i);
    for (int b = 0; b < B; ++b)  // R2C
      for (int j = 0; j < l.bins(); ++j) {
        cd acc = 0;
        for (int m = 0; m < N; ++m)
          acc += double(real[size_t(b) * l.real_dist() + size_t(m) * l.stride()]) *
                 std::polar(1.0, -2.0 * pi * double(j) * m / N);
        spec[size_t(b) * l.complex_dist() + size_t(j) * l.stride()] = acc;
      }
    for (size_t i = 0; i < spec.size(); ++i) spec[i] *= g[size_t(l.bin_of(i))];  // the multiply kernel
    for (int b = 0; b < B; ++b)  // C2R
      for (int m = 0; m < N; ++m) {
        double acc = 0;
        for (int j = 0; j < N; ++j) {
          const cd y = j < l.bins() ? spec[size_t(b) * l.complex_dist() + size_t(j) * l.stride()]
                                    : std::conj(spec[size_t(b) * l.complex_dist() + size_t(N - j) * l.stride()]);
          acc += (y * std::polar(1.0, 2.0 * pi * double(j) * m / N)).real();
        }
        real[size_t(b) * l.real_dist() + size_t(m) * l.stride()] = float(acc);
      }
    for (size_t k = 0; k < l.scatter_count(); ++k) {
      size_t img = 0, buf = 0;
      if (l.scatter(k, img, buf)) out.data[img] = real[buf];
    }
  }
  return out;
}

// The CPU reference's Conv1d of one pass along `axis`.
Image conv1d_reference(const Image& src, int axis, const std::vector<float>& taps, Border b) {
  Program prog;
  Pass p;
  p.op = Op::Conv1d, p.axis = axis, p.border = b, p.taps = taps, p.src = 0, p.dst = 1;
  prog.passes = {p};
  Image want;
  EXPECT_TRUE(run_program_cpu(prog, src, want, 1).ok());
  return want;
}

// Every axis, channel count (1, 2, 4), border and case (w, h, r) with random taps in [0, 1) (from rng) and a
// random image (seeds from seed on): emulate(src, axis, taps, border, case, note) against the CPU reference's
// Conv1d, within 1e-5; note may add to the failure message. Returns the worst error.
template <typename Case, typename Emulate>
double emulated_vs_reference(std::mt19937& rng, uint32_t seed, const std::vector<Case>& cases, Emulate emulate) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  double worst = 0;
  for (int axis : {0, 1})
    for (int c : {1, 2, 4})
      for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
        for (const Case& k : cases) {
          std::vector<float> taps(size_t(2 * k.r + 1));
          for (float& t : taps) t = u(rng);
          const Image src = random_image(k.w, k.h, c, seed++);
          std::string note;
          const Image got = emulate(src, axis, taps, b, k, note);
          const double err = max_abs_diff(got, conv1d_reference(src, axis, taps, b));
          EXPECT_LE(err, 1e-5) << "axis " << axis << " c " << c << " " << border_name(b) << " " << k.w << "x" << k.h
                               << " r " << k.r << note;
          worst = std::max(worst, err);
        }
  return worst;
}

TEST(CudaFftEmulated, IndexMathMatchesConv1dReference) {
  std::mt19937 rng(3);
  struct Case {
    int w, h, r, batch_lines;
  };
  // 7-smooth and prime lengths (wrap natively or extended), radii beyond the line, chunks of 2 lines over odd
  // line counts (the last chunk padded with a zero line).
  const std::vector<Case> cases = {{1, 1, 1, 1}, {12, 5, 2, 2}, {11, 7, 9, 3}, {6, 10, 20, 10}, {13, 3, 4, 2}};
  const double worst = emulated_vs_reference(
      rng, 1, cases,
      [](const Image& src, int axis, const std::vector<float>& taps, Border b, const Case& k, std::string&) {
        return emulate(src, axis, taps, b, std::min(k.batch_lines, axis == 0 ? k.h : k.w));
      });
  std::printf("[ fft ] emulated CUDA fft index math vs conv1d reference: worst %.3g\n", worst);
}

// The segments' transform of one complex stream in float64: fft_segments.hpp's Stockham passes (sign S).
void stockham(std::vector<cd>& a, int log2m, int S) {
  const int M = 1 << log2m;
  const double pi = std::acos(-1.0);
  std::vector<cd> b(a.size());
  for (int p = 0; p < cuda::seg_passes(log2m); ++p) {
    const int R = cuda::seg_radix(log2m, p), Ns = cuda::seg_ns(log2m, p);
    for (int j = 0; j < M / R; ++j) {
      const int k = j & (Ns - 1), base = (j / Ns) * Ns * R + k;
      cd v[8];
      for (int q = 0; q < R; ++q) v[q] = a[size_t(j + q * (M / R))] * std::polar(1.0, S * 2.0 * pi * q * k / (Ns * R));
      for (int q = 0; q < R; ++q) {
        cd x = 0;
        for (int m = 0; m < R; ++m) x += v[m] * std::polar(1.0, S * 2.0 * pi * q * m / R);
        b[size_t(base + q * Ns)] = x;
      }
    }
    a.swap(b);
  }
}

// One FftConv1d pass as the segments kernel computes it: segment s of a line holds the border-extended positions
// s L - r + i as complex numbers (channels in pairs; one-channel lines in pairs), forward, times the M bins,
// inverse, outputs r..r+L-1. An unpadded line: positions 0 .. M - 1 loaded with fft_unpadded_load's border (zeros
// past the line for clamp and zero), outputs 0 .. n - 1, plus clamp's constants times fft_clamp_tails.
Image emulate_segments(const Image& src, int axis, const std::vector<float>& taps, Border border,
                       cuda::FftSegPlan& p) {
  const int n = axis == 0 ? src.width : src.height, lines = axis == 0 ? src.height : src.width, C = src.channels;
  const int r = int(taps.size() / 2), nb = axis == 0 ? 1 : C == 4 ? 2 : 4;
  Image out(src.width, src.height, C);
  for (float& v : out.data) v = NAN;
  if (!cuda::plan_fft_segments(n, r, nb, C == 4 ? 16 : 8, 227 * 1024, p, border)) return out;
  const int M = p.m, K = C == 4 ? 2 : 1, LPE = C == 1 ? 2 : 1;  // complex streams per line, lines per stream
  const int shift = p.shift();
  const std::vector<cd> g = fft_kernel_spectrum(taps, M);
  const std::vector<double> tails = fft_clamp_tails(taps);
  auto at = [&](int ln, int x) { return size_t(axis == 0 ? ln * src.width + x : x * src.width + ln) * size_t(C); };
  // Value c of the stream part `part` (0 real, 1 imaginary) of stream k at image line ln0 (+1 for paired lines).
  auto slot = [&](int ln0, int k, int part, int& ln, int& c) {
    ln = ln0 + (LPE == 2 ? part : 0), c = LPE == 2 ? 0 : 2 * k + part;
    return ln < lines;
  };
  for (int ln0 = 0; ln0 < lines; ln0 += LPE)
    for (int seg = 0; seg < p.nseg; ++seg) {
      std::vector<std::vector<cd>> z(size_t(K), std::vector<cd>(size_t(M), cd{}));
      for (int i = 0; i < M; ++i) {
        const int pos = seg * p.len - shift + i;
        const int x = remap_index(pos, n, p.unpadded ? fft_unpadded_load(border) : border);
        if (x < 0) continue;
        for (int k = 0; k < K; ++k) {
          double part[2] = {0, 0};
          for (int q = 0; q < 2; ++q) {
            int ln = 0, c = 0;
            if (slot(ln0, k, q, ln, c) && c < C) part[q] = src.data[at(ln, x) + size_t(c)];
          }
          z[size_t(k)][size_t(i)] = {part[0], part[1]};
        }
      }
      for (auto& a : z) {
        stockham(a, p.log2m, -1);
        for (int i = 0; i < M; ++i) a[size_t(i)] *= g[size_t(i)];
        stockham(a, p.log2m, 1);
      }
      for (int i = shift; i < shift + p.len; ++i) {
        const int x = seg * p.len + i - shift;
        if (x >= n) break;
        for (int k = 0; k < K; ++k)
          for (int q = 0; q < 2; ++q) {
            int ln = 0, c = 0;
            const cd v = z[size_t(k)][size_t(i)];
            if (!slot(ln0, k, q, ln, c) || c >= C) continue;
            double y = q ? v.imag() : v.real();
            if (p.unpadded && border == Border::Clamp) {
              if (x < r) y += tails[size_t(x)] * src.data[at(ln, 0) + size_t(c)];
              if (n - 1 - x < r) y += tails[size_t(r + n - 1 - x)] * src.data[at(ln, n - 1) + size_t(c)];
            }
            out.data[at(ln, x) + size_t(c)] = float(y);
          }
      }
    }
  return out;
}

TEST(CudaFftEmulated, SegmentsMatchConv1dReference) {
  std::mt19937 rng(5);
  struct Case {
    int w, h, r;
  };
  // One and several segments (M 256 .. 1024), radii beyond the line, every border, odd line counts (one-channel
  // lines go in pairs); unpadded lines where they cost less (core's fft_unpadded_fits): clamp and zero at 300 and
  // radius 130 (one M of 512 against two), 37 at 400, 700 at 200; wrap at 256 (M = n) and mirror at 128 (M = 2n).
  const std::vector<Case> cases = {{1, 1, 1},    {700, 3, 9},  {3, 700, 9},   {300, 2, 130}, {37, 5, 400},
                                   {5, 600, 60}, {700, 2, 200}, {256, 3, 100}, {128, 3, 100}};
  std::set<int> lengths, counts;
  std::map<Border, int> unpadded;
  const double worst = emulated_vs_reference(
      rng, 41, cases,
      [&](const Image& src, int axis, const std::vector<float>& taps, Border b, const Case& k, std::string& note) {
        cuda::FftSegPlan plan;
        Image got = emulate_segments(src, axis, taps, b, plan);
        EXPECT_GT(plan.m, 0) << k.w << "x" << k.h << " r " << k.r;
        lengths.insert(plan.m), counts.insert(plan.nseg);
        if (plan.unpadded) ++unpadded[b];
        note = " M " + std::to_string(plan.m) + " segments " + std::to_string(plan.nseg) +
               (plan.unpadded ? " unpadded" : "");
        return got;
      });
  EXPECT_GE(lengths.size(), 3u) << "the cases should reach several transform lengths";
  EXPECT_GT(*counts.rbegin(), 1) << "the cases should reach several segments per line";
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    EXPECT_GE(unpadded[b], 3) << border_name(b) << ": the cases should reach unpadded lines";
  std::printf("[ fft ] emulated segments vs conv1d reference: worst %.3g (unpadded: clamp %d, mirror %d, wrap %d, "
              "zero %d)\n",
              worst, unpadded[Border::Clamp], unpadded[Border::Mirror], unpadded[Border::Wrap], unpadded[Border::Zero]);
}

// Every pass's butterflies, over the block's threads, are each taken exactly once (both thread mappings).
TEST(CudaFftEmulated, SegmentButterfliesCoverEachOnce) {
  for (int lg = cuda::kSegMinLog2; lg <= cuda::kSegMaxLog2; ++lg)
    for (int nb : {1, 2, 4}) {
      const int M = 1 << lg, T = nb * M / 8;
      if (T > 1024) continue;
      for (int p = 0; p < cuda::seg_passes(lg); ++p)
        for (bool fast : {false, true}) {
          const int R = cuda::seg_radix(lg, p);
          std::vector<int> hits(size_t(nb * M / R), 0);
          for (int t = 0; t < T; ++t)
            for (int u = 0; u < 8 / R; ++u) {
              int line = -1, j = -1;
              cuda::seg_butterfly(M, nb, R, fast, t, u, line, j);
              ASSERT_TRUE(line >= 0 && line < nb && j >= 0 && j < M / R);
              ++hits[size_t(line * (M / R) + j)];
            }
          for (int h : hits) ASSERT_EQ(h, 1) << "M " << M << " nb " << nb << " pass " << p;
        }
      EXPECT_EQ(cuda::seg_ns(lg, cuda::seg_passes(lg) - 1) * cuda::seg_radix(lg, cuda::seg_passes(lg) - 1), M);
    }
}

// The run-time loading of cuFFT (no device needed): wherever the toolkit's library is installed it loads with
// every entry point; elsewhere the fft method fails with the reason this prints.
TEST(CudaFftEmulated, CufftLoadsWhereInstalled) {
  std::string why;
  const bool loaded = cuda::cufft_loaded(&why);
  std::FILE* f = std::fopen("/usr/local/cuda/lib64/libcufft.so.12", "rb");
  if (!f && !loaded) GTEST_SKIP() << "no cuFFT installed here: " << why;
  if (f) std::fclose(f);
  EXPECT_TRUE(loaded) << why;
}

// fft on the device against gauss-sep's CPU reference (the same sampled Gaussian).
double fft_vs_gauss_sep(Backend& b, double sigma, const std::string& border, const Image& src, std::string& path) {
  Image want, got;
  if (Status s = reference_run(make_plan("gauss-sep", sigma, border), src, want); !s) {
    ADD_FAILURE() << s.error;
    return INFINITY;
  }
  double ms = 0;
  RunInfo info;
  Status s = b.upload(src, ms);
  if (s) s = cuda_fill_output(b, std::numeric_limits<float>::quiet_NaN());
  if (s) s = b.run(make_plan("fft", sigma, border), info);
  if (s) s = b.download(got, ms);
  path = info.path;
  if (!s) {
    ADD_FAILURE() << s.error;
    return INFINITY;
  }
  return max_abs_diff(got, want);
}

// Both paths: the segments (the default where they fit) and cuFFT's (GPUBLUR_CUDA_FFT=cufft).
class CudaFftPath : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { setenv("GPUBLUR_CUDA_FFT", GetParam(), 1); }
  void TearDown() override { unsetenv("GPUBLUR_CUDA_FFT"); }
};
INSTANTIATE_TEST_SUITE_P(Paths, CudaFftPath, ::testing::Values("segments", "cufft"));

TEST_P(CudaFftPath, EqualsGaussSepOnDevice) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(b);
  const std::string want_path = std::string(GetParam()) == "cufft" ? "cufft-" : "fft-segments-";
  const std::vector<std::pair<int, int>> sizes =
      small_mode() ? std::vector<std::pair<int, int>>{{1, 1}, {7, 3}, {61, 37}, {64, 48}}
                   : std::vector<std::pair<int, int>>{{1, 1}, {7, 3}, {301, 37}, {37, 300}, {64, 48}, {1023, 517}};
  uint32_t seed = 21;
  double worst = 0;
  for (const char* border : {"clamp", "mirror", "wrap", "zero"})
    for (int c = 1; c <= 4; ++c)
      for (auto [w, h] : sizes)
        for (double sigma : {2.0, 20.0, 100.0}) {
          std::string path;
          const double err = fft_vs_gauss_sep(*b, sigma, border, random_image(w, h, c, seed++), path);
          EXPECT_LE(err, 1e-5) << w << "x" << h << "x" << c << " " << border << " sigma " << sigma << " path " << path;
          EXPECT_EQ(path.find(want_path), 0u) << path;
          worst = std::max(worst, err);
        }
  // Unpadded lines (fft_segments.hpp): 1024-wide rows at radius 600 take one M of 2048 (clamp, zero, mirror; padded:
  // two) or of 1024 (wrap); the 24-tall columns one of 1024 for clamp and zero.
  for (const char* border : {"clamp", "zero", "mirror", "wrap"})
    for (int c = 1; c <= 4; ++c) {
      std::string path;
      const double err = fft_vs_gauss_sep(*b, 200.0, border, random_image(1024, 24, c, seed++), path);
      EXPECT_LE(err, 1e-5) << "1024x24x" << c << " " << border << " sigma 200 path " << path;
      EXPECT_EQ(path.find(want_path), 0u) << path;
      if (want_path == "fft-segments-") EXPECT_NE(path.find("-unpadded"), std::string::npos) << border << " " << path;
      worst = std::max(worst, err);
    }
  if (!small_mode()) {  // a 4096-wide line with the largest default kernel (r 1200, N 6561)
    std::string path;
    const double err = fft_vs_gauss_sep(*b, 400.0, "mirror", random_image(4096, 64, 4, seed++), path);
    EXPECT_LE(err, 1e-5) << "4096x64x4 sigma 400 path " << path;
    EXPECT_EQ(path.find(want_path), 0u) << path;
    worst = std::max(worst, err);
  }
  std::printf("[ fft ] CUDA fft (%s) vs gauss-sep reference: worst max abs %.3g\n", GetParam(), worst);
}

}  // namespace
}  // namespace gpublur::testing
