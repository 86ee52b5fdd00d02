// The GL backend's own FFT. The overlap-save segments (gpu/gl/passes/fft_segments.hpp, shaders/fft_segments.comp):
// their plan, Stockham schedule, twiddle-table indices and thread mapping emulated on the host in float64 against
// a direct convolution (every M up to 2048, which llvmpipe's 32 KiB cannot run), then on the device against
// gauss-sep's reference for every border, 1-4 channels, odd sizes, several segments per line, radii beyond the
// line, both radix schedules and both column mappings. The line forms (shaders/fft_conv1d.comp): the bare
// transforms against a direct DFT in float64 and their round trip, in shared memory and in the storage-buffer
// form; the fft method against gauss-sep within 1e-5 for every border, 1-4 channels, odd sizes, power-of-two
// sizes (wrap runs natively), radii beyond the image, lines longer than shared memory holds, and as the
// fallback where no segment fits.
#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/border.hpp"
#include "core/fft.hpp"
#include "gpu/gl/gl_context.hpp"
#include "gpu/gl/gl_fft.hpp"
#include "gpu/gl/passes/fft_segments.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

using cd = std::complex<double>;

// Line l's element i as its two complex numbers (x + i y, z + i w).
cd at(const std::vector<float>& d, int n, int l, int i, int k) {
  const size_t o = (size_t(l) * size_t(n) + size_t(i)) * 4 + size_t(2 * k);
  return {d[o], d[o + 1]};
}

// The segments' transform of one complex line in float64, as the shader schedules it: radix, Ns and the twiddle
// table's entry q (j mod Ns) M / (Ns R) (conjugated for S = +1) per pass, outputs at (j - k) R + k + q Ns.
void stockham(std::vector<cd>& a, int log2m, int elems, int S, const std::vector<cd>& table) {
  const int M = 1 << log2m;
  const double pi = std::acos(-1.0);
  std::vector<cd> b(a.size());
  for (int p = 0; p < glfft::seg_passes(log2m, elems); ++p) {
    const int R = glfft::seg_radix(log2m, elems, p), Ns = glfft::seg_ns(log2m, elems, p);
    for (int j = 0; j < M / R; ++j) {
      const int k = j & (Ns - 1), base = (j - k) * R + k;
      cd v[8];
      for (int q = 0; q < R; ++q) {
        const cd w = table[size_t(q * k * (M / (Ns * R)))];
        v[q] = a[size_t(j + q * (M / R))] * (S > 0 ? std::conj(w) : w);
      }
      for (int q = 0; q < R; ++q) {
        cd x = 0;
        for (int m = 0; m < R; ++m) x += v[m] * std::polar(1.0, S * 2.0 * pi * q * m / R);
        b[size_t(base + q * Ns)] = x;
      }
    }
    a.swap(b);
  }
}

TEST(GlFftSegmentsEmulated, MatchDirectConvolution) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double pi = std::acos(-1.0);
  struct Case {
    int n, r;
  };
  // One and several segments, M 256 .. 2048 (r 600 and 900 only fit 2048), radii beyond the line; unpadded lines
  // (core's fft_unpadded_fits): clamp and zero at 300 and r 130, 37 at r 400, 1024 at r 600 (one M of 512, 512,
  // 2048), mirror and wrap at 1024 and r 600 (one M of 2048, of 1024).
  const std::vector<Case> cases = {{1, 1},    {700, 9}, {300, 130}, {37, 400},
                                   {3000, 700}, {5, 900}, {1000, 0}, {1024, 600}};
  std::set<int> lengths;
  std::map<Border, int> unpadded;
  double worst = 0;
  for (int elems : {8, 4})
    for (Border b : kBorders)
      for (const Case& c : cases) {
        glfft::SegPlan p;
        const int nb = 1;
        ASSERT_TRUE(glfft::plan_segments(c.n, c.r, &nb, 1, elems, 48 << 10, 1024, p, b)) << c.n << " r " << c.r;
        lengths.insert(p.m);
        if (p.unpadded) ++unpadded[b];
        std::vector<cd> line(size_t(c.n)), table(size_t(p.m));
        for (cd& x : line) x = {u(rng), u(rng)};
        std::vector<double> taps(size_t(2 * c.r + 1));
        std::vector<float> ftaps(taps.size());
        for (size_t i = 0; i < taps.size(); ++i) ftaps[i] = float(taps[i] = u(rng));
        for (int m = 0; m < p.m; ++m) table[size_t(m)] = std::polar(1.0, -2.0 * pi * m / p.m);
        const std::vector<cd> g = fft_kernel_spectrum(ftaps, p.m);
        std::vector<cd> got(size_t(c.n), cd(NAN, NAN));
        for (int seg = 0; seg < p.nseg; ++seg) {
          std::vector<cd> z(size_t(p.m));
          const int shift = p.shift();  // unpadded: the line alone, zeros past it, then clamp's constants
          for (int i = 0; i < p.m; ++i) {
            const int pos = seg * p.len - shift + i;
            const int x = remap_index(pos, c.n, p.unpadded ? fft_unpadded_load(b) : b);
            z[size_t(i)] = x < 0 ? cd{} : line[size_t(x)];
          }
          stockham(z, p.log2m, elems, -1, table);
          for (int i = 0; i < p.m; ++i) z[size_t(i)] *= g[size_t(i)];
          stockham(z, p.log2m, elems, 1, table);
          for (int i = shift; i < shift + p.len && seg * p.len + i - shift < c.n; ++i)
            got[size_t(seg * p.len + i - shift)] = z[size_t(i)];
        }
        if (p.unpadded && b == Border::Clamp) {
          const std::vector<double> tails = fft_clamp_tails(ftaps);
          for (int x = 0; x < c.n; ++x) {
            if (x < c.r) got[size_t(x)] += tails[size_t(x)] * line[0];
            if (c.n - 1 - x < c.r) got[size_t(x)] += tails[size_t(c.r + c.n - 1 - x)] * line[size_t(c.n - 1)];
          }
        }
        double err = 0;
        for (int x = 0; x < c.n; ++x) {
          cd want = 0;
          for (int k = -c.r; k <= c.r; ++k) {
            const int y = remap_index(x + k, c.n, b);
            if (y >= 0) want += double(ftaps[size_t(k + c.r)]) * line[size_t(y)];
          }
          const double d = std::abs(want - got[size_t(x)]);
          err = std::max(err, std::isnan(d) ? INFINITY : d);
        }
        EXPECT_LE(err, 1e-9) << "E " << elems << " " << border_name(b) << " n " << c.n << " r " << c.r << " M "
                             << p.m << " x" << p.nseg;
        worst = std::max(worst, err);
      }
  EXPECT_EQ(lengths, (std::set<int>{256, 512, 1024, 2048}));
  for (Border b : kBorders) EXPECT_GE(unpadded[b], 2) << border_name(b) << ": the cases should reach unpadded lines";
  std::printf("[ fft ] emulated GL fft segments vs direct convolution: worst %.3g (unpadded: clamp %d, mirror %d, "
              "wrap %d, zero %d)\n",
              worst, unpadded[Border::Clamp], unpadded[Border::Mirror], unpadded[Border::Wrap], unpadded[Border::Zero]);
}

// Every pass's butterflies (invocation t, u < E / R) cover each (line, j) of the group once, in both mappings.
TEST(GlFftSegmentsEmulated, ThreadMappingCoversEveryButterflyOnce) {
  for (int elems : {8, 4})
    for (int nb : {1, 2})
      for (int lg = glfft::kSegMinLog2; lg <= glfft::kSegMaxLog2; ++lg)
        for (int p = 0; p < glfft::seg_passes(lg, elems); ++p)
          for (bool lines_fast : {false, true}) {
            const int M = 1 << lg, R = glfft::seg_radix(lg, elems, p), T = nb * M / elems;
            std::set<std::pair<int, int>> seen;
            for (int t = 0; t < T; ++t)
              for (int u = 0; u < elems / R; ++u) {  // the shader's butterfly()
                const int b = t + u * T;
                const int line = lines_fast ? b % nb : b / (M / R), j = lines_fast ? b / nb : b % (M / R);
                EXPECT_TRUE(line < nb && j < M / R && seen.insert({line, j}).second);
              }
            EXPECT_EQ(int(seen.size()), nb * M / R);
          }
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
  // 1x1; odd sizes; power-of-two sizes (the line forms wrap natively, also with a kernel longer than the line);
  // radius beyond the image (sigma 20: r 60 on 37x21). Both forms: the segments (the default where one fits) and
  // the line forms.
  const std::vector<Size> sizes = {{1, 1}, {5, 3}, {37, 21}, {64, 16}, {203, 117}};
  double worst = 0;
  for (const char* form : {"segments", "line"}) {
    ScopedEnv env("GPUBLUR_GL_FFT_FORM", form);
    uint32_t seed = 11;
    for (Border b : kBorders)
      for (int c = 1; c <= 4; ++c)
        for (const Size& sz : sizes)
          for (const char* sigma : {"1.5", "20"}) {
            SCOPED_TRACE(::testing::Message() << form << " " << border_name(b) << " " << sz.w << "x" << sz.h << "x"
                                              << c << " sigma " << sigma);
            std::string path;
            const double e = fft_vs_gauss_sep(*be, {{"sigma", sigma}, {"border", border_name(b)}},
                                              random_image(sz.w, sz.h, c, seed++), &path);
            EXPECT_LE(e, 1e-5);
            EXPECT_EQ(path.rfind(std::string(form) == "segments" ? "fft-segments-" : "fft-shared", 0), 0u) << path;
            worst = std::max(worst, e);
          }
  }
  std::printf("[ fft ] GL fft vs gauss-sep reference: worst max abs %.3g\n", worst);
}

// The segments' own cases: several segments per line on both axes (M 256 .. 1024 on llvmpipe), radii beyond
// the line, odd line counts.
TEST(GlFftMethod, SegmentsEqualGaussSep) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  struct Case {
    int w, h;
    const char* sigma;
    const char* radius;    // "" : 3 sigma
    const char* want;      // the path's start
    const char* unpadded;  // the same for the borders in `borders`, whose unpadded lines cost less ("": as want)
    const char* borders = "clamp zero";
  };
  const std::vector<Case> cases = {
      {700, 9, "3", "", "fft-segments-rows-256x3+fft-segments-cols-256", ""},  // rows: 3 segments of 238
      {9, 701, "3", "", "fft-segments-rows-256+fft-segments-cols-256x3", ""},  // columns: 3 segments, 9 columns
      {300, 5, "43", "130", "fft-segments-rows-512x2",                         // M 512: 8 + 8 + 8 passes
       "fft-segments-rows-512-unpadded+fft-segments-cols-256-unpadded"},      // 430 and 135 positions
      {37, 5, "100", "400", "fft-segments-rows-1024+",                         // radius far beyond the line
       "fft-segments-rows-512-unpadded+fft-segments-cols-512-unpadded"},
      {1500, 3, "3", "", "fft-segments-rows-256x7+", ""},
      {128, 3, "34", "100", "fft-segments-rows-512+", "fft-segments-rows-256-unpadded+",  // mirror: M = 2n
       "clamp zero mirror"},
      {256, 3, "34", "100", "fft-segments-rows-512+", "fft-segments-rows-256-unpadded+", "wrap"},  // wrap: M = n
  };
  uint32_t seed = 5;
  double worst = 0;
  {
    for (Border b : kBorders)
      for (int c = 1; c <= 4; ++c)
        for (const Case& k : cases) {
          SCOPED_TRACE(::testing::Message() << border_name(b) << " " << k.w << "x" << k.h << "x" << c << " sigma "
                                            << k.sigma << " radius " << k.radius);
          std::map<std::string, std::string> params = {{"sigma", k.sigma}, {"border", border_name(b)}};
          if (*k.radius) params["radius"] = k.radius;
          std::string path;
          const double e = fft_vs_gauss_sep(*be, params, random_image(k.w, k.h, c, seed++), &path);
          EXPECT_LE(e, 1e-5);
          const bool unpad = *k.unpadded && std::string(k.borders).find(border_name(b)) != std::string::npos;
          EXPECT_EQ(path.rfind(unpad ? k.unpadded : k.want, 0), 0u) << path;
          worst = std::max(worst, e);
        }
  }
  std::printf("[ fft ] GL fft segments vs gauss-sep reference: worst max abs %.3g\n", worst);
}

// Where no segment fits (radius 1100: no M up to 2048 leaves an output), the line forms run; forcing the segments
// there fails with an error rather than running something else.
TEST(GlFftMethod, LineFormsWhereNoSegmentFits) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const Image src = random_image(41, 6, 4, 3);
  const std::map<std::string, std::string> params = {{"sigma", "400"}, {"radius", "1100"}, {"border", "mirror"}};
  std::string path;
  EXPECT_LE(fft_vs_gauss_sep(*be, params, src, &path), 1e-5);
  EXPECT_TRUE(path.rfind("fft-shared", 0) == 0 || path.rfind("fft-global", 0) == 0) << path;
  ScopedEnv env("GPUBLUR_GL_FFT_FORM", "segments");
  Image got;
  EXPECT_FALSE(gl_run(*be, make_plan("fft", params), src, got).ok());
}

// A three-channel image's fourth texel channel is 0, as on CUDA: fft pairs B with it (b + i a), and the 1 that GL's
// float upload pads with carried its rounding into B (values near 1e-30 through sigma 40: B off by up to 1.2e-7
// where R and G were exact to float rounding of their own size).
TEST(GlFftMethod, ThreeChannelsCarryNoPhantomAlpha) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  Image src = random_image(97, 3, 3, 29);
  for (float& v : src.data) v *= 1e-30f;
  for (const char* form : {"segments", "line"}) {
    ScopedEnv env("GPUBLUR_GL_FFT_FORM", form);
    for (Border b : kBorders) {
      SCOPED_TRACE(::testing::Message() << form << " " << border_name(b));
      const std::map<std::string, std::string> params = {{"sigma", "40"}, {"border", border_name(b)}};
      Image want, got;
      ASSERT_TRUE(reference_run(make_plan("gauss-sep", params), src, want).ok());
      ASSERT_TRUE(gl_run(*be, make_plan("fft", params), src, got).ok());
      double worst[3] = {0, 0, 0};
      for (size_t i = 0; i < got.data.size(); ++i)
        worst[i % 3] = std::max(worst[i % 3], double(std::fabs(got.data[i] - want.data[i])));
      for (int c = 0; c < 3; ++c) EXPECT_LE(worst[c], 1e-35) << "channel " << c;
    }
  }
}

TEST(GlFftMethod, LongLinesAndStorageBufferForm) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  uint32_t seed = 99;
  ScopedEnv form("GPUBLUR_GL_FFT_FORM", "line");
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
