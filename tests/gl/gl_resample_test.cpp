// The GL resampling passes (gpu/gl/passes/dual.cpp, down2.cpp, up2.cpp) in every form the host picks, against
// the CPU reference. Beyond the registry test: padded images of odd and even rings, long Down2 kernels (the
// folded last level: the two-pass x / y form through a scratch texture), odd sizes (the last column and row of
// outputs cut, the dual passes' last tiles cut on both axes), every border, 1 and 4 channels, half storage; the
// fused Down2 / Up2 pairs (down2_pair.comp, up2_pair.comp: core's resample_pair) in the recipes' programs and
// the dual-down pair (dual_down_pair.comp: core's dual_pair).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/resample.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

// A case for failure messages: "clamp c4 37x23 path ...".
std::string case_name(Border b, int c, int w, int h, const std::string& path) {
  return std::string(border_name(b)) + " c" + std::to_string(c) + " " + std::to_string(w) + "x" +
         std::to_string(h) + " path " + path;
}

// Down2 (4 taps, quasi-like) -> Down2 (`long_n` taps, a smooth symmetric kernel) -> Up2 -> Up2, coarse images
// with a ring of `pad`. The downs run alone (a long second kernel does not pair), the ups as one up2-pair step.
Program resample_program(Border b, int pad, int long_n) {
  Program prog;
  const std::vector<float> quasi = {13.f / 64, 19.f / 64, 19.f / 64, 13.f / 64};
  std::vector<float> longk;
  double sum = 0;
  for (int i = 0; i < long_n; ++i) {
    longk.push_back(float(1.0 + std::cos(0.21 * (i - (long_n - 1) / 2.0))));
    sum += longk.back();
  }
  for (float& v : longk) v = float(v / sum);
  const int i2 = prog.add_image({pad, 2, false}), i4 = prog.add_image({pad, 4, false});
  const int u2 = prog.add_image({pad, 2, false});
  prog.passes = {down2_pass(quasi, b, 0, i2), down2_pass(longk, b, i2, i4), up2_pass(b, i4, u2), up2_pass(b, u2, 1)};
  return prog;
}

// Second kernels of 24 taps (the downs alone: down2 then down2-axes), 4 and 2 taps (the downs as one
// down2-pair step); the ups always pair. Padded levels: the pairs' windows remap over padded middle images.
TEST(GlResample, Down2AndUp2EqualTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const std::map<int, std::string> paths = {
      {24, "down2+down2-axes+up2-pair"}, {4, "down2-pair+up2-pair"}, {2, "down2-pair+up2-pair"}};
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (int pad : {0, 1, 2, 3})
      for (const auto& [long_n, path] : paths)
        for (int c : {1, 4}) {
          const Plan plan = program_plan(resample_program(b, pad, long_n), b);
          for (auto [w, h] : {std::pair{37, 23}, std::pair{66, 9}}) {
            const Image src = random_image(w, h, c, unsigned(7 + w + pad + c));
            RunInfo info;
            double err = 0;
            const Status s = gl_error_vs_reference(*be, plan, src, err, &info);
            ASSERT_TRUE(s.ok()) << s.error;
            const std::string what = case_name(b, c, w, h, info.path) + " pad " + std::to_string(pad);
            EXPECT_LE(err, 2e-6) << what;
            EXPECT_EQ(info.path, path) << what;
          }
        }
}

// The recipes' resampling programs with their Down2 / Up2 pairs fused (down2_pair.comp, up2_pair.comp; the
// CUDA test's cases, tests/cuda/test_cuda_resample_fused.cpp): pyramids of every analysis filter at sigmas that
// give 2 to 4 levels (the first two downs and the last two ups pair; a folded coarsest level runs alone), and
// gauss-sep --downsample 4 (a box2 Down2 pair, an Up2 pair). Every border, 1 and 4 channels, sizes that cut
// the tiles (down2-pair: 16 x 8 level-2 pixels; up2-pair: 32 x 32 fine pixels) and the
// 7 x 5 image whose coarse levels are a pixel or two. Outputs are poisoned first (gl_run), so a pixel the
// fused dispatch misses fails.
TEST(GlResample, FusedPairsEqualTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  struct Case {
    const char* method;
    const char* sigma;
    std::map<std::string, std::string> extra;
    const char* path;  // the steps' forms, each once in order of first use
  };
  const std::vector<Case> cases = {
      {"pyramid", "12", {{"down", "quasi"}}, "down2-pair+down2-axes+up2+up2-pair"},
      {"pyramid", "48", {{"down", "quasi"}}, "down2-pair+down2-axes+up2+up2-pair"},
      {"pyramid", "5", {{"down", "quasi"}, {"levels", "2"}}, "down2+down2-axes+up2-pair"},
      {"pyramid", "12", {{"down", "box4"}}, "down2-pair+down2-axes+up2+up2-pair"},
      {"pyramid", "12", {{"down", "box2"}}, "down2-pair+down2+down2-axes+up2-pair"},
      {"pyramid", "20", {{"down", "mipmap"}}, "down2-pair+down2-mipmap-box+up2+up2-pair"},
      {"gauss-sep", "12", {{"downsample", "4"}}, "down2-pair+conv1d-two-pass+up2-pair"}};
  // The working resolution's Gaussian in two passes on every device (the GPUs fuse it on small images).
  ScopedEnv no_fused("GPUBLUR_GL_FUSED_MAX_RADIUS", "-1");
  // gauss-sep's pair at the working resolution in the GPUs' form (on llvmpipe the register window would take
  // the larger sizes).
  ScopedEnv no_window("GPUBLUR_GL_WINDOW_MAX_RADIUS", "-1");
  double worst = 0;
  for (const Case& k : cases)
    for (Border b : kBorders) {
      std::map<std::string, std::string> params = k.extra;
      params["sigma"] = k.sigma;
      params["border"] = border_name(b);
      const Plan plan = make_plan(k.method, params);
      for (int c : {1, 4})
        for (auto [w, h] : {std::pair{7, 5}, std::pair{77, 45}, std::pair{203, 117}}) {
          const Image src = random_image(w, h, c, unsigned(5 + w + c));
          RunInfo info;
          double err = 0;
          const Status s = gl_error_vs_reference(*be, plan, src, err, &info);
          ASSERT_TRUE(s.ok()) << s.error;
          const std::string what = std::string(k.method) + " sigma " + k.sigma + " " + case_name(b, c, w, h, info.path);
          // The unfused passes' sums in their order: float32 rounding only, far inside the recipes' tolerances.
          EXPECT_LE(err, std::min(plan.tolerance, 2e-6)) << what;
          EXPECT_EQ(info.path, k.path) << what;  // every case's path names the pairs it runs
          worst = std::max(worst, err);
        }
    }
  std::printf("[ measured ] GL fused resampling pairs: max abs error %.3g\n", worst);
}

// A shared budget below the Down2 window (4 taps: 16 x 13 level-2 pixels, 15.2 KB; 2 taps: 16 x 8, 9.8 KB) runs
// the downs alone; the Up2 window (5.8 KB) still fits.
TEST(GlResample, Down2PairFallsBackWithoutSharedMemory) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  ScopedEnv env("GPUBLUR_GL_SHARED_LIMIT", "8192");
  const Plan plan = make_plan("pyramid", {{"sigma", "12"}, {"down", "quasi"}, {"border", "mirror"}});
  const Image src = random_image(77, 45, 4, 3u);
  expect_matches_reference(*be, plan, src, "down2+down2-axes+up2+up2-pair", 2e-6);
}

// `levels` levels down and up (dual images are unpadded).
Program dual_program(Border b, int levels) {
  Program prog;
  std::vector<int> lv = {0};
  for (int l = 1; l <= levels; ++l) lv.push_back(prog.add_image({0, 1 << l, false}));
  for (int l = 1; l < levels; ++l) lv.push_back(prog.add_image({0, 1 << (levels - l), false}));
  lv.push_back(1);
  for (int l = 0; l < levels; ++l) prog.passes.push_back(make_pass(Op::DualDown, lv[size_t(l)], lv[size_t(l + 1)], 0, b));
  for (int l = levels; l < 2 * levels; ++l)
    prog.passes.push_back(make_pass(Op::DualUp, lv[size_t(l)], lv[size_t(l + 1)], 0, b));
  return prog;
}

// dual-down (pairs from the chain's start as dual-down-pair dispatches: 16 x 8 level-2 tiles; a third alone) and
// dual-up (32 x 32 fine tiles through shared memory): odd sizes cut the last tiles and the windows'
// last cells, sizes of a few pixels make the coarse levels one or two pixels. Outputs are poisoned first
// (gl_run), so a pixel a dispatch misses fails.
TEST(GlResample, DualFilterEqualsTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const std::map<int, std::string> paths = {
      {1, "dual-down+dual-up"},
      {2, "dual-down-pair+dual-up"},
      {3, "dual-down-pair+dual-down+dual-up"},
      {4, "dual-down-pair+dual-up"}};
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (const auto& [levels, path] : paths)
      for (int c : {1, 4}) {
        const Plan plan = program_plan(dual_program(b, levels), b);
        // 700 x 400: dual-down and dual-up outputs above gpu/gl/passes/dual.cpp's small size (256^2) too.
        for (auto [w, h] : {std::pair{45, 27}, std::pair{70, 13}, std::pair{33, 34}, std::pair{203, 117},
                            std::pair{5, 3}, std::pair{700, 400}}) {
          const Image src = random_image(w, h, c, unsigned(3 + w + c + levels));
          RunInfo info;
          double err = 0;
          const Status s = gl_error_vs_reference(*be, plan, src, err, &info);
          ASSERT_TRUE(s.ok()) << s.error;
          const std::string what = case_name(b, c, w, h, info.path) + " levels " + std::to_string(levels);
          EXPECT_LE(err, 2e-6) << what;
          EXPECT_EQ(info.path, path) << what;
        }
      }
}

// A shared budget below the dual-down pair's window (15.2 KB) runs the downs alone; dual-up's window (6.4 KB)
// does not depend on the budget (within GL's 32 KB minimum).
TEST(GlResample, DualDownPairFallsBackWithoutSharedMemory) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  ScopedEnv env("GPUBLUR_GL_SHARED_LIMIT", "8192");
  const Plan plan = program_plan(dual_program(Border::Mirror, 2), Border::Mirror);
  const Image src = random_image(77, 45, 4, 3u);
  expect_matches_reference(*be, plan, src, "dual-down+dual-up", 2e-6);
}

// Full-resolution kawase passes (the sampler form, forced: llvmpipe takes the runs by default) at offsets 0, 1 and 5
// (beyond the image's short side: the border at both ends) in one program; the registry test covers the method's
// own offsets.
TEST(GlResample, KawaseEqualsTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  ScopedEnv env("GPUBLUR_GL_KAWASE_RUNS", "0");
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (int c : {1, 4}) {
      Program prog;
      const int t1 = prog.add_image({0, 1, false}), t2 = prog.add_image({0, 1, false});
      prog.passes = {make_pass(Op::Kawase, 0, t1, 0, b), make_pass(Op::Kawase, t1, t2, 0, b),
                     make_pass(Op::Kawase, t2, 1, 0, b)};
      prog.passes[0].widths = {0};
      prog.passes[1].widths = {1};
      prog.passes[2].widths = {5};
      const Plan plan = program_plan(prog, b);
      for (auto [w, h] : {std::pair{37, 9}, std::pair{64, 19}}) {
        const Image src = random_image(w, h, c, unsigned(11 + w + c));
        RunInfo info;
        double err = 0;
        const Status s = gl_error_vs_reference(*be, plan, src, err, &info);
        ASSERT_TRUE(s.ok()) << s.error;
        const std::string what = case_name(b, c, w, h, info.path);
        EXPECT_LE(err, 1e-5) << what;
        EXPECT_EQ(info.path, "kawase-sampler") << what;
      }
    }
}

// Kawase's offsets 0-3 as runs (kawase.comp KK: four outputs down a column, texelFetch with the border remap),
// forced at every size, against the reference: every border, 1..4 channels, images narrower and shorter than a run
// and a group; offset 5 keeps the sampler.
TEST(GlResample, KawaseRunsEqualTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  ScopedEnv env("GPUBLUR_GL_KAWASE_RUNS", "1");
  double worst = 0;
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (int c = 1; c <= 4; ++c) {
      Program prog;
      std::vector<int> ks = {0, 1, 2, 3, 5};
      int from = 0;
      for (size_t i = 0; i < ks.size(); ++i) {
        const int to = i + 1 == ks.size() ? 1 : prog.add_image({0, 1, false});
        prog.passes.push_back(make_pass(Op::Kawase, from, to, 0, b));
        prog.passes.back().widths = {ks[i]};
        from = to;
      }
      const Plan plan = program_plan(prog, b);
      for (auto [w, h] : {std::pair{1, 1}, std::pair{5, 3}, std::pair{37, 9}, std::pair{70, 19}}) {
        const Image src = random_image(w, h, c, unsigned(31 + w + c));
        RunInfo info;
        double err = 0;
        const Status s = gl_error_vs_reference(*be, plan, src, err, &info);
        ASSERT_TRUE(s.ok()) << s.error;
        const std::string what = case_name(b, c, w, h, info.path);
        EXPECT_LE(err, 1e-5) << what;
        worst = std::max(worst, err);
        EXPECT_NE(info.path.find("kawase-runs"), std::string::npos) << what;
        EXPECT_NE(info.path.find("kawase-sampler"), std::string::npos) << what;
      }
    }
  std::printf("[ measured ] kawase runs: max abs error %.3g\n", worst);
}

// On llvmpipe every offset takes the runs: its sampler interpolates in float at coordinates rounded in float, off
// the exact 2 x 2 means by 1.2e-4 on a 4100-wide line; the runs are exact at any width and offset.
TEST(GlResample, KawaseOnLlvmpipeIsExactAtAnyWidth) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  if (!on_llvmpipe(*be)) GTEST_SKIP() << "llvmpipe's rule; GPUs take the sampler beyond offset 3";
  for (Border b : {Border::Clamp, Border::Wrap}) {
    Program prog;
    const int t = prog.add_image({0, 1, false});
    prog.passes = {make_pass(Op::Kawase, 0, t, 0, b), make_pass(Op::Kawase, t, 1, 0, b)};
    prog.passes[0].widths = {0};
    prog.passes[1].widths = {300};
    RunInfo info;
    double err = 0;
    ASSERT_TRUE(gl_error_vs_reference(*be, program_plan(prog, b), random_image(4100, 2, 1, 77), err, &info).ok());
    EXPECT_LE(err, 1e-6) << border_name(b) << " " << info.path;
    EXPECT_EQ(info.path.find("kawase-sampler"), std::string::npos) << info.path;
  }
}

// RGBA16F storage: the folded down2's x pass still writes its RGBA32F scratch (a binding of another format
// would fail or garble); the fused pairs write half and keep their middle level in float32 shared memory.
// Input, the stored intermediates and output each round to half (relative 2^-11), the filters average, so the
// error stays below 5 * 2^-11; above 1e-6 proves the storage really is half.
TEST(GlResample, HalfStorageWithinHalfPrecision) {
  std::string error;
  Backend* be = shared_gl(true, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  for (Border b : {Border::Clamp, Border::Zero})
    for (const Program& prog : {resample_program(b, 2, 24), resample_program(b, 2, 4), dual_program(b, 2)}) {
      const Plan plan = program_plan(prog, b);
      const Image src = random_image(53, 31, 4, 17u);
      double err = 0;
      RunInfo info;
      const Status s = gl_error_vs_reference(*be, plan, src, err, &info);
      ASSERT_TRUE(s.ok()) << s.error;
      EXPECT_LE(err, 5.0 / 2048) << info.path;
      EXPECT_GT(err, 1e-6) << info.path;
    }
}

}  // namespace
}  // namespace gpublur::testing
