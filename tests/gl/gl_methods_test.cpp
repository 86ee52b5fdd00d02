// GL-specific schedule coverage of the tap primitives against the CPU reference: the forms only some radii,
// hints or GPUBLUR_GL_* knobs select (the registry-driven test runs every method x backend x border x
// channels with the defaults). Random images, outputs poisoned with NaN before each download; channels vary
// with the border so that every border meets every channel count across the cases.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/gauss.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

struct Case {
  int w, h;
  double sigma;
};

int channels_for(Border b, size_t k) { return 1 + int((size_t(b) + k) % 4); }

// A separable pair (Conv1d x then y, the same taps) in each of its forms: two passes (the default on GPUs
// beyond small images; on llvmpipe with the register window off), the register window (llvmpipe's default:
// lines of 8 texels, as long as the radius, odd, radius 0, non-symmetric-size images, runs that overlap their
// neighbour), fused (the GPUs' default on small images up to radius 9; forced with GPUBLUR_GL_FUSED_MAX_RADIUS,
// including radii where the fused tile takes its smaller heights), sliding strips
// (GPUBLUR_GL_SLIDE*) and the fragment ping-pong (hint). 5x9 at sigma 130 (radius 390) needs several
// shared-memory rounds in both compute passes; the FFT hand-over is moved out of reach so that radius stays on
// the convolution.
TEST(GlConvSchedules, SeparablePairForms) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  struct Form {
    const char* path;
    const char* impl;
    std::vector<std::pair<const char*, const char*>> env;
    std::vector<Case> cases;
  };
  const std::vector<Case> wide = {{1, 1, 1}, {45, 70, 1.5}, {67, 41, 3}, {300, 77, 5}, {5, 9, 130}, {7, 3, 20}};
  std::vector<Form> forms = {
      {"conv1d-two-pass", "compute",
       {{"GPUBLUR_SEP_FFT_MIN_RADIUS", "100000"}, {"GPUBLUR_GL_WINDOW_MAX_RADIUS", "-1"},
        {"GPUBLUR_GL_SEP_FFT_MIN_RADIUS", "0"}, {"GPUBLUR_GL_FUSED_MAX_RADIUS", "-1"}},
       wide},
      // Radius 11 (sigma 3.5) takes the smallest fused tile height on llvmpipe's 32 KiB.
      {"conv1d-fused", "compute", {{"GPUBLUR_GL_FUSED_MAX_RADIUS", "24"}},
       {{1, 1, 1}, {45, 70, 1.5}, {300, 77, 3.5}, {7, 3, 3}, {512, 259, 2.67}, {512, 259, 1.5}, {64, 40, 2.67}}},
      {"conv1d-sliding", "compute",
       {{"GPUBLUR_GL_SLIDE_MAX_RADIUS", "99"}, {"GPUBLUR_GL_SLIDE", "16x8x64"}, {"GPUBLUR_GL_FUSED_MAX_RADIUS", "-1"}},
       {{1, 1, 1}, {45, 70, 1.5}, {67, 41, 3}}},
      {"conv1d-fragment", "fragment", {{"GPUBLUR_SEP_FFT_MIN_RADIUS", "100000"}}, wide},
  };
  // The register window (llvmpipe's default, the GPUs' below the FFT segments beyond small images). Radius 3 on 8 x 8
  // (one step per line on llvmpipe; on GPUs lines shorter than a run), radius 9 on a 9-wide line (the window reaches
  // r outside at both ends), runs that overlap the last one (300, 600), radius 36 on a 37-high image; the knob raised
  // so that radius 60 (sigma 20) is in reach, the fused form (GPUs, small images) and the FFT hand-over (GPUs from
  // radius 24) out of the way. Then the GPUs' three shapes forced on llvmpipe too (GPUBLUR_GL_WINDOW_SHAPE: runs of
  // one step of 16, two and four of 8), and two steps of 16.
  const std::vector<Case> windows = {{8, 8, 1},     {9, 13, 3},     {45, 70, 1.5}, {67, 41, 3},
                                     {300, 77, 5}, {600, 37, 12}, {70, 61, 20}};
  const std::vector<std::pair<const char*, const char*>> window_env = {
      {"GPUBLUR_GL_WINDOW_MAX_RADIUS", "60"}, {"GPUBLUR_GL_FUSED_MAX_RADIUS", "-1"},
      {"GPUBLUR_SEP_FFT_MIN_RADIUS", "100000"}, {"GPUBLUR_GL_SEP_FFT_MIN_RADIUS", "0"}};
  forms.push_back({"conv1d-window", "compute", window_env, windows});
  for (const char* shape : {"128x1x16", "128x2x8", "64x4x8", "32x2x16"}) {
    auto env = window_env;
    env.push_back({"GPUBLUR_GL_WINDOW_SHAPE", shape});
    forms.push_back({"conv1d-window", "compute", env,
                     {{16, 16, 1}, {45, 70, 1.5}, {67, 41, 3}, {300, 77, 5}, {70, 61, 7}}});
  }
  uint32_t seed = 100;
  for (const Form& f : forms) {
    ScopedEnv env;
    for (const auto& [k, v] : f.env) env.set(k, v);
    double worst = 0;
    for (Border border : kBorders)
      for (size_t k = 0; k < f.cases.size(); ++k) {
        const Case& c = f.cases[k];
        const int ch = channels_for(border, k);
        SCOPED_TRACE(::testing::Message() << f.path << " " << border_name(border) << " " << c.w << "x" << c.h << "x"
                                          << ch << " sigma " << c.sigma);
        const Plan plan = make_plan("gauss-sep", {{"sigma", std::to_string(c.sigma)},
                                                  {"border", border_name(border)}, {"impl", f.impl}});
        worst = std::max(worst, expect_matches_reference(*be, plan, random_image(c.w, c.h, ch, seed++), f.path));
      }
    std::printf("[ measured ] separable pair, %s: max abs error %.3g\n", f.path, worst);
  }
}

// gauss-sep's wide kernels: on a GPU the register window up to radius 39 / 30 / 24 for one / two / three or four
// channels (window_max_radius), beyond as FftConv1d's segments (from sep_fft_min_radius_gl(), radius 24); on llvmpipe
// the register window.
TEST(GlConvSchedules, WideKernelsTakeTheSegments) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const bool llvmpipe = on_llvmpipe(*be);
  uint32_t seed = 170;
  double worst = 0;
  for (Border border : kBorders)
    for (double sigma : {7.0, 8.0, 11.0, 20.0}) {  // radius 21, 24, 33, 60
      const int ch = channels_for(border, size_t(sigma)), r = int(std::ceil(3 * sigma));
      SCOPED_TRACE(::testing::Message() << border_name(border) << " sigma " << sigma << " channels " << ch);
      const Plan plan = make_plan("gauss-sep", {{"sigma", std::to_string(sigma)}, {"border", border_name(border)}});
      // Rows of 300: two segments of 256 at radius 24 and 33, one of 512 at 60; columns of 77: one of 256.
      const int window_max = ch == 1 ? 39 : ch == 2 ? 30 : 24;
      const std::string want = llvmpipe || r <= window_max ? "conv1d-window"
                               : sigma < 20.0 ? "fft-segments-rows-256x2+fft-segments-cols-256"
                                              : "fft-segments-rows-512+fft-segments-cols-256";
      worst = std::max(worst, expect_matches_reference(*be, plan, random_image(300, 77, ch, seed++), want));
    }
  std::printf("[ measured ] gauss-sep wide kernels: max abs error %.3g\n", worst);
}

// A fused pair whose source is an intermediate image: the textures are pooled by lifetime, and the pair's output
// must not take its source's texture (the source dies at the pair's first pass, the output is born at its
// second; one dispatch runs both). Copy -> fused pair -> copy, every border; the pair forced fused (on the GPUs
// a small image is fused by default).
TEST(GlConvSchedules, FusedPairFromAnIntermediate) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  ScopedEnv env("GPUBLUR_GL_FUSED_MAX_RADIUS", "24");
  uint32_t seed = 190;
  for (Border border : kBorders) {
    const Plan g = make_plan("gauss-sep", {{"sigma", "2.5"}, {"border", border_name(border)}});
    Program prog;
    const int a = prog.add_image({}), b = prog.add_image({}), c = prog.add_image({});
    Pass x = g.program.passes[0], y = g.program.passes[1];
    x.src = a, x.dst = b, y.src = b, y.dst = c;
    prog.passes = {make_pass(Op::Copy, 0, a, 0, border), x, y, make_pass(Op::Copy, c, 1, 0, border)};
    ASSERT_TRUE(separable_pair(prog, 1));
    SCOPED_TRACE(border_name(border));
    expect_matches_reference(*be, program_plan(prog, border), random_image(67, 45, 4, seed++),
                             "copy+conv1d-fused");  // (each form once)
  }
}

// A separable pair whose taps are not symmetric (a rank-one kernel file can give such): the register window's
// unfolded sums on llvmpipe, the GPUs' fused (small radius) and two-pass forms elsewhere.
TEST(GlConvSchedules, AsymmetricSeparablePair) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const bool llvmpipe = on_llvmpipe(*be);
  uint32_t seed = 150;
  double worst = 0;
  for (Border border : kBorders)
    for (int r : {3, 11}) {
      std::vector<double> w(size_t(2 * r + 1));
      double sum = 0;
      for (size_t k = 0; k < w.size(); ++k) sum += w[k] = 1.0 + double(k) + 0.5 * double(k % 3);
      Pass pass = make_pass(Op::Conv1d, 0, 0, 0, border);
      for (double v : w) pass.taps.push_back(float(v / sum));
      Program prog;
      const int mid = prog.add_image({});
      Pass a = pass, b = pass;
      a.dst = mid, b.src = mid, b.dst = 1, b.axis = 1;
      prog.passes = {a, b};
      ASSERT_TRUE(separable_pair(prog, 0));
      const int ch = channels_for(border, size_t(r));
      SCOPED_TRACE(::testing::Message() << border_name(border) << " r " << r << " channels " << ch);
      const Image src = random_image(53, 31, ch, seed++);
      // On a GPU the 53 x 31 image is small: radius 3 fused, 11 (beyond the fused rule) the register window.
      worst = std::max(worst, expect_matches_reference(*be, program_plan(prog, border), src,
                                                       !llvmpipe && r == 3 ? "conv1d-fused" : "conv1d-window"));
    }
  std::printf("[ measured ] asymmetric separable pair: max abs error %.3g\n", worst);
}

// Conv1d passes that are not a separable pair: one axis only, the same axis twice, y before x; compute and
// fragment forms.
TEST(GlConvSchedules, LoneConv1dPasses) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  uint32_t seed = 200;
  double worst = 0;
  for (const char* hint : {"", "fragment"})
    for (Border border : kBorders)
      for (int shape = 0; shape < 3; ++shape) {
        const std::vector<double> w = gaussian_weights(2.5, 8);
        Pass pass = make_pass(Op::Conv1d, 0, 1, 1, border);
        pass.taps.assign(w.begin(), w.end());
        pass.hint = hint;
        Program prog;
        if (shape == 0) {
          prog.passes = {pass};  // y only
        } else {
          const int mid = prog.add_image({});
          Pass a = pass, b = pass;
          a.dst = mid, b.src = mid;
          a.axis = shape == 1 ? 0 : 1;  // x then x, or y then x
          b.axis = 0;
          prog.passes = {a, b};
        }
        const int ch = channels_for(border, size_t(shape));
        SCOPED_TRACE(::testing::Message() << "hint '" << hint << "' shape " << shape << " " << border_name(border));
        worst = std::max(worst, expect_matches_reference(*be, program_plan(prog, border),
                                                         random_image(37, 29, ch, seed++),
                                                         *hint ? "conv1d-fragment" : "conv1d"));
      }
  std::printf("[ measured ] lone conv1d passes: max abs error %.3g\n", worst);
}

// The tuning variants measured on NVIDIA (docs/performance.md, GL) stay exact: conv1d.comp with 8 outputs per
// invocation (GPUBLUR_GL_SEP_PER=8: other tile shapes, taps padded to 8, several load rounds at sigma 12 on
// llvmpipe's 32 KiB), NVIDIA's unroll pragma in every shader (GPUBLUR_GL_UNROLL=1, ignored elsewhere), other
// shared-memory budgets (GPUBLUR_GL_SHARED_LIMIT), bilinear1d's compile-time taps, the sliding strips with 4 rows
// per step, conv2d with 8 outputs per invocation (GPUBLUR_GL_2D_PER) and constant outer trip counts
// (GPUBLUR_GL_OUTER), both round forms of conv1d.comp (GPUBLUR_GL_SEP_ROUNDS).
TEST(GlConvSchedules, TuningVariantsMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  // The variants are of the GPUs' forms, which gauss-sep takes on llvmpipe only with the register window off.
  ScopedEnv no_window("GPUBLUR_GL_WINDOW_MAX_RADIUS", "-1");
  const std::vector<const char*> names = {"GPUBLUR_GL_SEP_PER",          "GPUBLUR_GL_UNROLL",
                                          "GPUBLUR_GL_FUSED_MAX_RADIUS", "GPUBLUR_GL_SHARED_LIMIT",
                                          "GPUBLUR_GL_LINEAR_CONST_TAPS", "GPUBLUR_GL_SLIDE_MAX_RADIUS",
                                          "GPUBLUR_GL_SLIDE",            "GPUBLUR_GL_2D_PER",
                                          "GPUBLUR_GL_OUTER",            "GPUBLUR_GL_SEP_ROUNDS"};
  // Values per config, in the order of `names` ("" = unset).
  const std::vector<std::vector<const char*>> configs = {
      {"8", "1", "-1", "", "1", "-1", "", "8", "", "balanced"},
      {"8", "0", "9", "16384", "", "", "", "", "const", "balanced"},
      {"4", "1", "24", "49152", "", "-1", "", "8", "", "plain"},
      {"", "", "", "", "", "99", "8x4", "", "", ""}};
  uint32_t seed = 300;
  for (const auto& cfg : configs) {
    ScopedEnv env;
    std::string label;
    for (size_t k = 0; k < names.size(); ++k) {
      env.set(names[k], cfg[k]);
      label += std::string(" ") + names[k] + "=" + cfg[k];
    }
    double worst = 0;
    for (Border border : kBorders) {
      for (const Case& c : std::vector<Case>{{1, 1, 1}, {45, 70, 1.5}, {300, 37, 5}, {37, 150, 12}, {21, 19, 3}}) {
        const int ch = 1 + (int(border) + 1) % 4;
        for (const char* method : {"gauss-sep", "gauss-linear", "gauss-2d"}) {
          const std::string m = method;
          if (m == "gauss-linear" && c.sigma > 5) continue;  // llvmpipe time
          // The sliding 8x4 shape: the separable pair at the small radii only (llvmpipe time).
          if (std::string(cfg[6]) == "8x4" && (m != "gauss-sep" || c.sigma > 5)) continue;
          // conv2d: small cases, only in the configs that change its shader (GPUBLUR_GL_2D_PER).
          if (m == "gauss-2d" && (c.sigma > 5 || c.w * c.h > 5000 || !*cfg[7])) continue;
          SCOPED_TRACE(::testing::Message() << method << label << " " << border_name(border) << " " << c.w << "x"
                                            << c.h << "x" << ch << " sigma " << c.sigma);
          std::map<std::string, std::string> params{{"sigma", std::to_string(c.sigma)},
                                                    {"border", border_name(border)}};
          if (m == "gauss-linear") params["interp"] = "hardware";
          const Plan plan = make_plan(method, params);
          const double bound = m == "gauss-linear" ? 2.0 / 256.0 : 1e-5;
          worst = std::max(worst, expect_matches_reference(*be, plan, random_image(c.w, c.h, ch, seed++), "", bound));
        }
      }
    }
    std::printf("[ measured ]%s: max abs error %.3g\n", label.c_str(), worst);
  }
}

// conv2d on llvmpipe splits the kernel rows over dispatches (its loop limit) with a running-sum texture:
// radius 192 on a 7x3 image (every tap far outside it), radius 48, a 1x1 image.
TEST(GlConvSchedules, Conv2dKernelRowSplits) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  uint32_t seed = 400;
  double worst = 0;
  for (Border border : kBorders)
    for (size_t k = 0; k < 3; ++k) {
      const Case c = std::vector<Case>{{7, 3, 64}, {31, 17, 16}, {1, 1, 0.5}}[k];
      const int ch = channels_for(border, k);
      SCOPED_TRACE(::testing::Message() << border_name(border) << " " << c.w << "x" << c.h << " sigma " << c.sigma);
      const Plan plan =
          make_plan("gauss-2d", {{"sigma", std::to_string(c.sigma)}, {"border", border_name(border)}});
      RunInfo info;
      double err = 0;
      const Status s = gl_error_vs_reference(*be, plan, random_image(c.w, c.h, ch, seed++), err, &info);
      ASSERT_TRUE(s.ok()) << s.error;
      EXPECT_LE(err, 1e-5);
      worst = std::max(worst, err);
      // conv2d, or conv2d-N-dispatches where llvmpipe's loop budget splits its rows.
      EXPECT_EQ(info.path.rfind("conv2d", 0), 0u) << info.path;
    }
  std::printf("[ measured ] conv2d: max abs error %.3g\n", worst);

  // Where one block of kernel rows over every column is past the budget (radius 150 on llvmpipe), the column blocks
  // are split too, each dispatch resuming the sum: a flat kernel (sigma 100) on 1x1 images, where the output is the
  // input only if every tap is summed (at radius 4096 one dispatch a row block gave 0.22 for 0.62, and 0 at sigma
  // 0.1: the loop limit cut it short). One and four channels (their tiles differ).
  for (int ch : {1, 4}) {
    const Plan plan = make_plan("gauss-2d", {{"sigma", "100"}, {"radius", "150"}});
    RunInfo info;
    double err = 0;
    const Status s = gl_error_vs_reference(*be, plan, random_image(1, 1, ch, seed++), err, &info);
    ASSERT_TRUE(s.ok()) << s.error;
    EXPECT_LE(err, 1e-5) << ch << " channels, " << info.path;
    if (on_llvmpipe(*be)) {
      EXPECT_NE(info.path.find("dispatches"), std::string::npos) << info.path;
    }
  }
}

// Bilinear taps through the sampler (wrap modes and the zero border colour for the border modes): within the
// bound of 8-bit interpolation fractions (each 1D pass may be off by up to 1/256 of the local value range;
// llvmpipe is far finer), also where the taps reach far outside a small image.
TEST(GlConvSchedules, BilinearSamplerWithinFractionBound) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  uint32_t seed = 500;
  double worst = 0;
  for (Border border : kBorders)
    for (size_t k = 0; k < 3; ++k) {
      const Case c = std::vector<Case>{{67, 41, 3}, {7, 3, 30}, {1, 1, 1}}[k];
      const int ch = channels_for(border, k);
      SCOPED_TRACE(::testing::Message() << border_name(border) << " " << c.w << "x" << c.h << " sigma " << c.sigma);
      const Plan plan = make_plan("gauss-linear", {{"sigma", std::to_string(c.sigma)},
                                                   {"border", border_name(border)}, {"interp", "hardware"}});
      worst = std::max(worst, expect_matches_reference(*be, plan, random_image(c.w, c.h, ch, seed++),
                                                       "sampler-bilinear", 2.0 / 256.0));
    }
  RecordProperty("max_abs_error", std::to_string(worst));
  std::printf("[ measured ] bilinear1d sampler on %s: max abs error %.3g (bound %.3g)\n", be->device_name().c_str(),
              worst, 2.0 / 256.0);
}

}  // namespace
}  // namespace gpublur::testing
