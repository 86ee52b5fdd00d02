// The kawase method's defining properties: a pass is the mean of its four bilinear samples at
// (x +- (k + 1/2), y +- (k + 1/2)) (sampled here by a general bilinear interpolation of the border-extended
// image); per axis a pass adds the variance k^2 + k + 1/2 and passes add up; the sigma schedule; --offsets;
// the working resolution chosen from sigma (--downsample F by default) and the offsets at it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "core/methods/kawase_dual.hpp"
#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "tests/core/f64_reference.hpp"
#include "tests/core/impulse.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur {
namespace {

using testing::f64_bilinear;
using testing::f64_border;
using testing::random_image;

Plan kawase_plan(const std::map<std::string, std::string>& given) {
  Plan p;
  const Status s = resolve_plan("kawase", given, p);
  EXPECT_TRUE(s.ok()) << s.error;
  return p;
}

TEST(Kawase, OnePassIsTheMeanOfItsFourBilinearSamples) {
  for (const char* border : {"clamp", "mirror", "wrap", "zero"})
    for (int c = 1; c <= 4; ++c)
      for (int k : {0, 1, 3}) {
        const Image src = random_image(11, 6, c, 90 + c);
        Image got;
        ASSERT_TRUE(reference_run(kawase_plan({{"offsets", std::to_string(k)}, {"border", border}}), src, got).ok());
        const double o = k + 0.5;
        double worst = 0;
        for (int y = 0; y < src.height; ++y)
          for (int x = 0; x < src.width; ++x)
            for (int ch = 0; ch < c; ++ch) {
              const double want = 0.25 * (f64_bilinear(src, x - o, y - o, ch, border) + f64_bilinear(src, x + o, y - o, ch, border) +
                                          f64_bilinear(src, x - o, y + o, ch, border) + f64_bilinear(src, x + o, y + o, ch, border));
              worst = std::max(worst, std::fabs(double(got.at(x, y, ch)) - want));
            }
        EXPECT_LE(worst, 1e-6) << border << " c " << c << " k " << k;
      }
}

TEST(Kawase, PassVariancesAdd) {
  const Plan plan = kawase_plan({{"offsets", "0,1,2,2,3"}, {"border", "zero"}});
  const testing::ImpulseMoments m = testing::impulse_moments(plan, 81);
  const double want = 0.5 + 2.5 + 6.5 + 6.5 + 12.5;  // k^2 + k + 1/2 per pass
  EXPECT_NEAR(m.sum, 1.0, 1e-6);
  EXPECT_NEAR(m.var_x, want, 1e-4);
  EXPECT_NEAR(m.var_y, want, 1e-4);
  EXPECT_NEAR(plan.effective_sigma, std::sqrt(want), 1e-9);
}

TEST(Kawase, SigmaScheduleAndOffsets) {
  Plan p = kawase_plan({{"sigma", "3"}});  // full resolution by default at sigma 3
  EXPECT_EQ(p.param("offsets"), "0,1,2");  // 0.5 + 2.5 + 6.5 = 9.5, closest to 9
  EXPECT_EQ(p.param("passes"), "3");
  EXPECT_EQ(p.param("levels"), "");  // --impl dual's: none here, as dual's offsets are "" (it read 0, outside 1..16)
  p = kawase_plan({{"sigma", "12"}, {"downsample", "1"}});
  EXPECT_EQ(p.param("offsets"), "0,1,2,3,4,5,6,5");  // 115.5 + 30.5 = 146, closest to 144
  EXPECT_NEAR(p.effective_sigma, std::sqrt(146.0), 1e-9);
  p = kawase_plan({{"sigma", "12"}, {"passes", "3"}});
  EXPECT_EQ(p.param("offsets"), "0,1,11");  // 3 + 132.5
  p = kawase_plan({{"offsets", " 4,0"}});
  EXPECT_EQ(p.param("offsets"), "4,0");
  Plan bad;
  Status s = resolve_plan("kawase", {{"offsets", "1,2"}, {"passes", "3"}}, bad);
  EXPECT_NE(s.error.find("does not match"), std::string::npos) << s.error;
  // More offsets than --passes allows (64): the report would state passes outside the registry's range.
  std::string many = "1";
  for (int i = 1; i < 65; ++i) many += ",1";
  s = resolve_plan("kawase", {{"offsets", many}}, bad);
  EXPECT_NE(s.error.find("65 passes, at most 64"), std::string::npos) << s.error;
  EXPECT_TRUE(resolve_plan("kawase", {{"offsets", many.substr(2)}}, bad).ok());
  s = resolve_plan("kawase", {{"offsets", "1,x"}}, bad);
  EXPECT_NE(s.error.find("comma-separated list of integers"), std::string::npos) << s.error;
  s = resolve_plan("kawase", {{"offsets", "1,-2"}}, bad);
  EXPECT_NE(s.error.find("outside [0, 4096]"), std::string::npos) << s.error;
  // A value past long long's range is named as given (read back as an integer it wrapped to -9223372036854775808).
  s = resolve_plan("kawase", {{"passes", "9999999999999999999"}}, bad);
  EXPECT_NE(s.error.find("--passes 9999999999999999999 is outside [1, 64]"), std::string::npos) << s.error;
  s = resolve_plan("kawase", {{"offsets", "1,9999999999999999999"}}, bad);
  EXPECT_NE(s.error.find("--offsets: 9999999999999999999 is outside"), std::string::npos) << s.error;
}

int count_ops(const Plan& p, Op op) {
  return int(std::count_if(p.program.passes.begin(), p.program.passes.end(), [&](const Pass& q) { return q.op == op; }));
}

// By default the passes run at 1/F resolution, F the largest of 2, 4, 8 with sigma / F >= 3: F x F box down
// (log2 F Down2 passes), the Kawase passes on images of divisor F, log2 F Up2 passes; the report names F.
TEST(Kawase, WorkingResolutionFromSigma) {
  const std::map<double, int> want = {{0.5, 1}, {3, 1},  {5.9, 1},  {6, 2},  {11.9, 2},
                                      {12, 4},  {23.9, 4}, {24, 8}, {48, 8}, {200, 8}};
  for (const auto& [sigma, F] : want) {
    const Plan p = kawase_plan({{"sigma", std::to_string(sigma)}});
    EXPECT_EQ(p.param("downsample"), std::to_string(F)) << sigma;
    EXPECT_EQ(p.details.at("downsample"), std::to_string(F)) << sigma;
    EXPECT_EQ(p.details.at("downsample_choice"), "from sigma") << sigma;
    const int L = F == 8 ? 3 : F == 4 ? 2 : F == 2 ? 1 : 0;
    EXPECT_EQ(count_ops(p, Op::Down2), L) << sigma;
    EXPECT_EQ(count_ops(p, Op::Up2), L) << sigma;
    for (const Pass& q : p.program.passes)
      if (q.op == Op::Kawase) EXPECT_EQ(p.program.images[size_t(q.dst)].divisor, q.dst == 1 ? 1 : F) << sigma;
    if (F > 1) {
      EXPECT_EQ(p.details.at("method_resolution").rfind("1/" + std::to_string(F) + " per axis", 0), 0u);
      // The passes blur by about 3 small pixels or more (sigma / F >= 3 less the resampling's share).
      EXPECT_GE(std::stod(p.details.at("method_effective_sigma")), 2.8) << sigma;
    }
  }
}

// Where the variance left fits an offset exactly, float rounding does not turn it into passes of 0: sigma 7 is
// F = 2 and 12 small pixels^2, 0,1,2 (9.5) and offset 1 for the rest (2.5), not 0,0,0,0,0,0,1,2.
TEST(Kawase, AnOffsetThatFitsExactlyIsTaken) {
  EXPECT_EQ(kawase_plan({{"sigma", "7"}}).param("offsets"), "0,1,1,2");
  // Just below, offset 1 does not fit the rest (2.4986 < 2.5) and the rule fills it with passes of 0.
  EXPECT_EQ(kawase_plan({{"sigma", "6.999"}}).param("offsets"), "0,0,0,0,0,0,1,2");
}

// --downsample 1 is the article's full-resolution program, the same passes as before the automatic choice.
TEST(Kawase, ExplicitDownsampleOneIsFullResolution) {
  Plan p = kawase_plan({{"sigma", "48"}, {"downsample", "1"}});
  EXPECT_EQ(p.param("offsets"), "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,3");
  EXPECT_EQ(p.program.passes.size(), 20u);
  EXPECT_EQ(count_ops(p, Op::Kawase), 20);
  EXPECT_EQ(p.details.at("downsample"), "1");
  EXPECT_EQ(p.details.at("downsample_choice"), "given");
  for (const ImageDecl& d : p.program.images) EXPECT_EQ(d.divisor, 1);
  // The offsets --passes and --offsets name run at full resolution unless --downsample is given.
  for (const auto& given : std::vector<std::map<std::string, std::string>>{
           {{"sigma", "48"}, {"passes", "4"}}, {{"sigma", "48"}, {"offsets", "0,1,2,3"}}}) {
    p = kawase_plan(given);
    EXPECT_EQ(p.param("downsample"), "1");
    EXPECT_EQ(count_ops(p, Op::Down2), 0);
    EXPECT_EQ(p.program.passes.size(), 4u);
    EXPECT_EQ(p.details.at("downsample_choice"), "by its parameters");  // it said "from sigma"
  }
  p = kawase_plan({{"sigma", "48"}, {"passes", "4"}, {"downsample", "4"}});
  EXPECT_EQ(count_ops(p, Op::Down2), 2);
  EXPECT_EQ(p.param("passes"), "4");  // the article's rising offsets and a last one, at 1/4 resolution
  EXPECT_EQ(p.param("offsets").rfind("0,1,2,", 0), 0u) << p.param("offsets");
}

TEST(Kawase, ExplicitDownsampleIsHonoured) {
  for (const char* F : {"2", "4", "8"}) {
    const Plan p = kawase_plan({{"sigma", "48"}, {"downsample", F}});
    EXPECT_EQ(p.param("downsample"), F);
    EXPECT_EQ(p.details.at("downsample"), F);
    EXPECT_EQ(p.details.at("downsample_choice"), "given");
    EXPECT_EQ(count_ops(p, Op::Down2), F[0] == '2' ? 1 : F[0] == '4' ? 2 : 3);
    EXPECT_NEAR(p.effective_sigma, 48, 0.01 * 48) << F;
  }
  Plan bad;
  const Status s = resolve_plan("kawase", {{"sigma", "3"}, {"downsample", "8"}}, bad);
  EXPECT_NE(s.error.find("--sigma must be at least"), std::string::npos) << s.error;
}

// At a reduced resolution the rising offsets that fit are followed by the largest that fit the rest: within
// 1/4 small pixel^2 of the target (a 0 pass, the finest step, adds 1/2), so |effective^2 - sigma^2| is about
// F^2 / 4 at most (a little more where downsample's correction keeps the neighbour closer in sigma). Relative to
// sigma that is about F^2 / (8 sigma^2): 1.4% just above each switch of F (sigma / F = 3, about 9 small
// pixels^2), under 1% from sigma / F = 3.6 on.
TEST(Kawase, AutomaticPlanKeepsTheEffectiveSigma) {
  double worst = 0, worst_wide = 0;
  for (double sigma = 6; sigma <= 400; sigma *= 1.01) {
    const Plan p = kawase_plan({{"sigma", std::to_string(sigma)}});
    const double s = std::stod(p.param("sigma")), F = std::stod(p.param("downsample"));
    EXPECT_GT(F, 1) << sigma;
    EXPECT_LE(std::fabs(p.effective_sigma * p.effective_sigma - s * s), 0.26 * F * F) << sigma;
    const double rel = std::fabs(p.effective_sigma / s - 1);
    worst = std::max(worst, rel);
    if (s / F >= 3.6) worst_wide = std::max(worst_wide, rel);
  }
  EXPECT_LE(worst, 0.015);
  EXPECT_LE(worst_wide, 0.01);
  std::printf("[ measured ] kawase's automatic plan: effective sigma within %.2f%% of sigma 6-400, %.2f%% where "
              "sigma / F >= 3.6\n", 100 * worst, 100 * worst_wide);
  // The sigmas: 12 at 1/4 resolution (offsets 0,0,1,1,1: 8.5 small pixels^2 for 8.69), 48 at 1/8.
  Plan p = kawase_plan({{"sigma", "12"}});
  EXPECT_EQ(p.param("offsets"), "0,0,1,1,1");
  EXPECT_NEAR(p.effective_sigma, std::sqrt(16 * 8.5 + 5), 1e-9);  // (F^2 - 1) / 3 = 5 from the resampling
  p = kawase_plan({{"sigma", "48"}});
  EXPECT_NEAR(p.effective_sigma, 48, 0.005 * 48);
}

// --impl dual makes its own levels: no automatic working resolution, the same plan as with --downsample 1.
TEST(Kawase, DualIsUnchanged) {
  for (const char* sigma : {"3", "12", "48", "200"}) {
    const Plan a = kawase_plan({{"sigma", sigma}, {"impl", "dual"}});
    const Plan b = kawase_plan({{"sigma", sigma}, {"impl", "dual"}, {"downsample", "1"}});
    EXPECT_EQ(a.param("downsample"), "1");
    EXPECT_EQ(count_ops(a, Op::Down2), 0);
    EXPECT_EQ(a.param("levels"), std::to_string(dual_levels_for_sigma(std::stod(sigma))));
    EXPECT_EQ(a.details.at("program"), b.details.at("program"));
    EXPECT_EQ(a.effective_sigma, b.effective_sigma);
  }
}

// The downsampled programs run on images smaller than F (1 x 1, 7 x 3): each image at least 1 x 1, finite
// output, the mean of a constant image kept.
TEST(Kawase, AutomaticPlanOnTinyImages) {
  for (const char* sigma : {"6", "12", "48"})
    for (const char* border : {"clamp", "mirror", "wrap", "zero"})
      for (auto [w, h] : {std::pair<int, int>{1, 1}, {7, 3}, {3, 9}}) {
        const Plan p = kawase_plan({{"sigma", sigma}, {"border", border}});
        Image src = random_image(w, h, 2, 7);
        for (float& v : src.data) v = 0.25f;
        Image got;
        ASSERT_TRUE(reference_run(p, src, got).ok()) << sigma << " " << border;
        ASSERT_EQ(got.width, w);
        ASSERT_EQ(got.height, h);
        for (float v : got.data) {
          ASSERT_TRUE(std::isfinite(v));
          // zero border: the image's own weight only; otherwise a constant stays constant
          if (std::string(border) == "zero") EXPECT_LE(v, 0.25f + 1e-6f);
          else EXPECT_NEAR(v, 0.25f, 1e-6f) << sigma << " " << border << " " << w << "x" << h;
        }
      }
}

}  // namespace
}  // namespace gpublur
