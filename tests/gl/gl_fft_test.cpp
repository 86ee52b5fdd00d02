// The GL backend's own FFT (shaders/fft_conv1d.comp): the bare transforms against a direct DFT in float64 and
// their round trip, in shared memory and in the storage-buffer form; and the fft method against gauss-sep
// (the same sampled, truncated Gaussian) within 1e-5 for every border, 1-4 channels, odd sizes, power-of-two
// sizes (wrap runs natively), radii beyond the image, lines longer than shared memory holds.
#include <glad/gl.h>

#include <complex>
#include <random>
#include <vector>

#include "gpu/gl/gl_context.hpp"
#include "gpu/gl/gl_fft.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

using cd = std::complex<double>;

// Line l's element i as its two complex numbers (x + i y, z + i w).
cd at(const std::vector<float>& d, int n, int l, int i, int k) {
  const size_t o = (size_t(l) * size_t(n) + size_t(i)) * 4 + size_t(2 * k);
  return {d[o], d[o + 1]};
}

class GlFft : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    gl_ = GlContext::create(0, error);
    GPUBLUR_GL_OR_SKIP(gl_, error);
    ASSERT_TRUE(gl_->make_current().ok());
    ctx_ = std::make_unique<GlPassContext>(false);
    ASSERT_TRUE(ctx_->init(gl_->renderer()).ok());
  }
  void TearDown() override {
    ctx_.reset();
    if (gl_) gl_->release();
  }
  std::unique_ptr<GlContext> gl_;
  std::unique_ptr<GlPassContext> ctx_;
};

TEST_F(GlFft, TransformsMatchDirectDftAndRoundTrip) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const double pi = std::acos(-1.0);
  const int lines = 3;
  for (const char* shared_max : {"", "0"}) {  // the device's choice (shared memory up to its limit), storage buffer
    ScopedEnv env("GPUBLUR_GL_FFT_SHARED_MAX", shared_max);
    for (int n : {1, 2, 4, 8, 32, 256, 4096}) {
      SCOPED_TRACE(::testing::Message() << "N " << n << " shared max '" << shared_max << "'");
      std::vector<float> x(size_t(lines) * size_t(n) * 4);
      for (float& v : x) v = u(rng);
      std::vector<float> f = x;
      ASSERT_TRUE(gl_fft_lines(*ctx_, f, n, false).ok());
      if (n <= 256) {  // direct DFT, float64
        double worst = 0;
        for (int l = 0; l < lines; ++l)
          for (int j = 0; j < n; ++j)
            for (int k = 0; k < 2; ++k) {
              cd want = 0;
              for (int m = 0; m < n; ++m) want += at(x, n, l, m, k) * std::polar(1.0, -2.0 * pi * double(j) * m / n);
              worst = std::max(worst, std::abs(want - at(f, n, l, j, k)));
            }
        // Float rounding grows like log2(N) relative to the values' magnitude (sqrt(N) for random data).
        EXPECT_LE(worst, 2e-7 * std::sqrt(double(n)) * (1 + std::log2(double(n))) + 1e-7);
      }
      std::vector<float> back = f;
      ASSERT_TRUE(gl_fft_lines(*ctx_, back, n, true).ok());
      double worst = 0;
      for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(double(back[i]) / n - double(x[i])));
      EXPECT_LE(worst, 1e-6) << "round trip";
    }
  }
}

struct Size {
  int w, h;
};

// fft on GL against the CPU reference of gauss-sep with the same sigma/radius (not fft's own reference).
double fft_vs_gauss_sep(Backend& be, const std::map<std::string, std::string>& params, const Image& src,
                        std::string* path = nullptr) {
  Image want, got;
  EXPECT_TRUE(reference_run(make_plan("gauss-sep", params), src, want).ok());
  RunInfo info;
  const Status s = gl_run(be, make_plan("fft", params), src, got, &info);
  EXPECT_TRUE(s.ok()) << s.error;
  if (path) *path = info.path;
  return s.ok() ? max_abs_diff(got, want) : INFINITY;
}

TEST(GlFftMethod, EqualsGaussSepEveryBorderAndChannelCount) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  // 1x1; odd sizes; power-of-two sizes (wrap natively, also with a kernel longer than the line); radius beyond
  // the image (sigma 20: r 60 on 37x21).
  const std::vector<Size> sizes = {{1, 1}, {5, 3}, {37, 21}, {64, 16}, {203, 117}};
  uint32_t seed = 11;
  double worst = 0;
  for (Border b : kBorders)
    for (int c = 1; c <= 4; ++c)
      for (const Size& sz : sizes)
        for (const char* sigma : {"1.5", "20"}) {
          SCOPED_TRACE(::testing::Message() << border_name(b) << " " << sz.w << "x" << sz.h << "x" << c << " sigma "
                                            << sigma);
          const double e = fft_vs_gauss_sep(*be, {{"sigma", sigma}, {"border", border_name(b)}},
                                            random_image(sz.w, sz.h, c, seed++));
          EXPECT_LE(e, 1e-5);
          worst = std::max(worst, e);
        }
  std::printf("[ fft ] GL fft vs gauss-sep reference: worst max abs %.3g\n", worst);
}

TEST(GlFftMethod, LongLinesAndStorageBufferForm) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  uint32_t seed = 99;
  // Lines longer than shared memory holds on any device (N = 8192: 128 KiB): the storage-buffer form.
  for (Border b : {Border::Clamp, Border::Wrap})
    for (const Size& sz : {Size{5000, 2}, Size{1, 4100}}) {
      SCOPED_TRACE(::testing::Message() << border_name(b) << " " << sz.w << "x" << sz.h);
      std::string path;
      EXPECT_LE(fft_vs_gauss_sep(*be, {{"sigma", "40"}, {"border", border_name(b)}},
                                 random_image(sz.w, sz.h, 4, seed++), &path),
                1e-5);
      EXPECT_NE(path.find("fft-global"), std::string::npos) << path;
    }
  // Everything through the storage-buffer form, with a radius far beyond the image.
  ScopedEnv env("GPUBLUR_GL_FFT_SHARED_MAX", "0");
  for (Border b : kBorders) {
    SCOPED_TRACE(border_name(b));
    std::string path;
    EXPECT_LE(fft_vs_gauss_sep(*be, {{"sigma", "30"}, {"radius", "200"}, {"border", border_name(b)}},
                               random_image(33, 19, 3, seed++), &path),
              1e-5);
    EXPECT_EQ(path, "fft-global");  // the steps' forms, repeats merged
  }
}

}  // namespace
}  // namespace gpublur::testing
