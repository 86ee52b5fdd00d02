// The kawase method's defining properties: a pass is the mean of its four bilinear samples at
// (x +- (k + 1/2), y +- (k + 1/2)) (sampled here by a general bilinear interpolation of the border-extended
// image); per axis a pass adds the variance k^2 + k + 1/2 and passes add up; the sigma schedule; --offsets.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

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
  Plan p = kawase_plan({{"sigma", "3"}});
  EXPECT_EQ(p.param("offsets"), "0,1,2");  // 0.5 + 2.5 + 6.5 = 9.5, closest to 9
  EXPECT_EQ(p.param("passes"), "3");
  p = kawase_plan({{"sigma", "12"}});
  EXPECT_EQ(p.param("offsets"), "0,1,2,3,4,5,6,5");  // 115.5 + 30.5 = 146, closest to 144
  EXPECT_NEAR(p.effective_sigma, std::sqrt(146.0), 1e-9);
  p = kawase_plan({{"sigma", "12"}, {"passes", "3"}});
  EXPECT_EQ(p.param("offsets"), "0,1,11");  // 3 + 132.5
  p = kawase_plan({{"offsets", " 4,0"}});
  EXPECT_EQ(p.param("offsets"), "4,0");
  Plan bad;
  Status s = resolve_plan("kawase", {{"offsets", "1,2"}, {"passes", "3"}}, bad);
  EXPECT_NE(s.error.find("does not match"), std::string::npos) << s.error;
  s = resolve_plan("kawase", {{"offsets", "1,x"}}, bad);
  EXPECT_NE(s.error.find("comma-separated list of integers"), std::string::npos) << s.error;
  s = resolve_plan("kawase", {{"offsets", "1,-2"}}, bad);
  EXPECT_NE(s.error.find("outside [0, 4096]"), std::string::npos) << s.error;
}

}  // namespace
}  // namespace gpublur
