// The diffusion method's defining properties: one step is the 5-point stencil with the border read as the
// border mode says; N steps are the convolution of the border-extended image with the N-step kernel (every
// border mode); N steps have per-axis variance 2 c N (the sigma mapping); and the premise of the CUDA
// schedule: the primitive's steps run on the border's extension (core/border.hpp stencil_extension) without
// any border reads equal its steps with border reads.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/border.hpp"
#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "tests/core/f64_reference.hpp"
#include "tests/core/impulse.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur {
namespace {

using testing::f64_border;
using testing::random_image;

const char* kBorders[] = {"clamp", "mirror", "wrap", "zero"};

Plan diffusion_plan(const std::map<std::string, std::string>& given) {
  Plan p;
  const Status s = resolve_plan("diffusion", given, p);
  EXPECT_TRUE(s.ok()) << s.error;
  return p;
}

TEST(Diffusion, OneStepIsTheFivePointStencil) {
  for (const char* border : kBorders)
    for (int c = 1; c <= 4; ++c) {
      const Image src = random_image(7, 5, c, 40 + c);
      const double rate = 0.15;
      const Plan plan = diffusion_plan({{"iterations", "1"}, {"rate", "0.15"}, {"border", border}});
      Image got;
      ASSERT_TRUE(reference_run(plan, src, got).ok());
      auto at = [&](int x, int y, int k) {
        const int xx = f64_border(x, src.width, border), yy = f64_border(y, src.height, border);
        return xx < 0 || yy < 0 ? 0.0 : double(src.at(xx, yy, k));
      };
      double worst = 0;
      for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x)
          for (int k = 0; k < c; ++k) {
            const double u = at(x, y, k);
            const double want = u + rate * (at(x - 1, y, k) + at(x + 1, y, k) + at(x, y - 1, k) + at(x, y + 1, k) - 4 * u);
            worst = std::max(worst, std::fabs(double(got.at(x, y, k)) - want));
          }
      EXPECT_LE(worst, 1e-6) << border << " channels " << c;  // the output is float32
    }
}

// Variances add: N steps of rate c spread an impulse to per-axis variance 2 c N, and the plan says so.
TEST(Diffusion, ImpulseVarianceIsTwoCN) {
  const int steps = 20;
  const Plan plan = diffusion_plan({{"iterations", std::to_string(steps)}, {"rate", "0.2"}, {"border", "zero"}});
  const testing::ImpulseMoments m = testing::impulse_moments(plan, 121);
  const double want = 2 * double(0.2f) * steps;
  EXPECT_NEAR(m.sum, 1.0, 1e-5);
  EXPECT_NEAR(m.var_x, want, 1e-4);
  EXPECT_NEAR(m.var_y, want, 1e-4);
  EXPECT_NEAR(plan.effective_sigma * plan.effective_sigma, want, 1e-9);
}

// From --sigma: the fewest steps at rate 0.2, then the rate that gives sigma exactly; either parameter given,
// the other follows.
TEST(Diffusion, SigmaMapping) {
  Plan p = diffusion_plan({{"sigma", "3"}});
  EXPECT_EQ(p.param("iterations"), "23");  // ceil(9 / 2 / 0.2) = ceil(22.5)
  EXPECT_NEAR(p.effective_sigma, 3.0, 1e-6);
  EXPECT_LE(std::stod(p.param("rate")), 0.2);
  p = diffusion_plan({{"sigma", "3"}, {"iterations", "90"}});
  EXPECT_NEAR(std::stod(p.param("rate")), 0.05, 1e-7);
  EXPECT_EQ(diffusion_plan({{"iterations", "4"}, {"rate", "0.2"}}).param("rate"), "0.2");  // not 0.200000003
  p = diffusion_plan({{"sigma", "3"}, {"rate", "0.25"}});
  EXPECT_EQ(p.param("iterations"), "18");
  Plan bad;
  Status s = resolve_plan("diffusion", {{"sigma", "3"}, {"iterations", "10"}}, bad);
  EXPECT_NE(s.error.find("at least 18"), std::string::npos) << s.error;
  s = resolve_plan("diffusion", {{"sigma", "500"}}, bad);
  EXPECT_NE(s.error.find("does not grow with sigma"), std::string::npos) << s.error;
}

// The N-step kernel: N steps on an impulse, float64, no border in reach.
std::vector<double> step_kernel(int steps, double rate) {
  const int n = 2 * steps + 3;
  std::vector<double> u(size_t(n) * n, 0.0), next(u.size(), 0.0);
  u[size_t(n / 2) * n + n / 2] = 1.0;
  for (int s = 0; s < steps; ++s) {
    for (int y = 1; y < n - 1; ++y)
      for (int x = 1; x < n - 1; ++x) {
        const size_t i = size_t(y) * n + x;
        next[i] = u[i] + rate * (u[i - 1] + u[i + 1] + u[i - n] + u[i + n] - 4 * u[i]);
      }
    u.swap(next);
  }
  std::vector<double> k(size_t(2 * steps + 1) * (2 * steps + 1));
  for (int y = 0; y <= 2 * steps; ++y)
    for (int x = 0; x <= 2 * steps; ++x) k[size_t(y) * (2 * steps + 1) + x] = u[size_t(y + 1) * n + x + 1];
  return k;
}

// The method blurs the border-extended image with the N-step kernel, like every other method: exactly for
// mirror and wrap, through a padded domain for clamp and zero (padding 40 < N at 100 steps: the tail bound).
TEST(Diffusion, BlursTheBorderExtendedImage) {
  const Image src = random_image(23, 11, 2, 9);
  for (int steps : {12, 100})
    for (const char* border : kBorders) {
      const Plan plan = diffusion_plan({{"iterations", std::to_string(steps)}, {"rate", "0.2"}, {"border", border}});
      Image got;
      ASSERT_TRUE(reference_run(plan, src, got).ok());
      const std::vector<double> k = step_kernel(steps, double(0.2f));
      const int r = steps, kw = 2 * r + 1;
      double worst = 0;
      for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x)
          for (int c = 0; c < src.channels; ++c) {
            double want = 0;
            for (int dy = -r; dy <= r; ++dy) {
              const int yy = f64_border(y + dy, src.height, border);
              if (yy < 0) continue;
              for (int dx = -r; dx <= r; ++dx) {
                const int xx = f64_border(x + dx, src.width, border);
                if (xx >= 0) want += k[size_t(dy + r) * kw + dx + r] * src.at(xx, yy, c);
              }
            }
            worst = std::max(worst, std::fabs(double(got.at(x, y, c)) - want));
          }
      EXPECT_LE(worst, 1e-6) << border << " steps " << steps;
    }
}

// A plan of the bare primitive: one Diffusion pass from the input to the output, border read every step.
Plan primitive_plan(Border b, int steps, float rate) {
  Plan plan = diffusion_plan({{"iterations", "1"}, {"rate", "0.1"}});
  Pass pass;
  pass.op = Op::Diffusion;
  pass.border = b;
  pass.taps = {rate};
  pass.widths = {steps};
  plan.program = Program();
  plan.program.passes = {pass};
  return plan;
}

// The primitive's N steps on the extension (built once, then iterated as if the image went on for ever) equal
// its N steps with border reads, for every border mode: what lets the CUDA tiles skip per-step border handling.
TEST(Diffusion, StepsOnTheBorderExtensionEqualBorderReads) {
  const int w = 9, h = 6, steps = 14;
  const double rate = 0.21;
  for (const char* name : kBorders) {
    Border b = Border::Clamp;
    ASSERT_TRUE(parse_border(name, b));
    const Image src = random_image(w, h, 1, 7);
    const Plan plan = primitive_plan(b, steps, float(rate));
    ASSERT_TRUE(validate_program(plan.program).ok());
    Image want;
    ASSERT_TRUE(reference_run(plan, src, want).ok());
    const int m = steps, W = w + 2 * m, H = h + 2 * m;
    std::vector<double> u(size_t(W) * H), next(u.size());
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        float sx = 0, sy = 0;
        const int ix = stencil_extension(x - m, w, b, sx), iy = stencil_extension(y - m, h, b, sy);
        u[size_t(y) * W + x] = double(sx) * sy * src.at(ix, iy, 0);
      }
    for (int k = 1; k <= steps; ++k) {  // cells [k, size - k) stay exact after step k
      for (int y = k; y < H - k; ++y)
        for (int x = k; x < W - k; ++x) {
          const size_t i = size_t(y) * W + x;
          next[i] = u[i] + double(float(rate)) * (u[i - 1] + u[i + 1] + u[i - W] + u[i + W] - 4 * u[i]);
        }
      u.swap(next);
    }
    double worst = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        worst = std::max(worst, std::fabs(u[size_t(y + m) * W + x + m] - double(want.at(x, y, 0))));
    EXPECT_LE(worst, 1e-6) << name;  // float32 output of the reference
  }
}

TEST(Diffusion, ConstantStaysConstantExceptZeroBorder) {
  Image src(13, 8, 3);
  for (float& v : src.data) v = 0.625f;
  for (const char* border : {"clamp", "mirror", "wrap"}) {
    Image got;
    ASSERT_TRUE(reference_run(diffusion_plan({{"sigma", "2"}, {"border", border}}), src, got).ok());
    for (float v : got.data) ASSERT_NEAR(v, 0.625f, 1e-6) << border;
  }
  Image got;
  ASSERT_TRUE(reference_run(diffusion_plan({{"sigma", "2"}, {"border", "zero"}}), src, got).ok());
  EXPECT_LT(got.at(0, 0, 0), 0.6f);  // heat leaks out through a zero border
}

}  // namespace
}  // namespace gpublur

namespace gpublur {
namespace {

// Clamp and zero step the padding N times whatever the image: where that alone passes 1e10 cell updates the plan
// warns (a 2 x 2 image at sigma 200 ran about 40 minutes on the cpu backend with nothing said); mirror and wrap, which
// step the image alone, and small sigmas do not.
TEST(Diffusion, PaddingThatCostsMinutesIsWarnedOf) {
  Plan p;
  ASSERT_TRUE(resolve_plan("diffusion", {{"sigma", "100"}}, p).ok());
  ASSERT_TRUE(p.details.count("warning"));
  EXPECT_NE(p.details.at("warning").find("padded by 603 pixels a side 25000 times"), std::string::npos)
      << p.details.at("warning");
  EXPECT_TRUE(plan_warns_of_cost(p));
  ASSERT_TRUE(resolve_plan("diffusion", {{"sigma", "100"}, {"border", "zero"}}, p).ok());
  EXPECT_TRUE(p.details.count("warning"));
  ASSERT_TRUE(resolve_plan("diffusion", {{"sigma", "100"}, {"border", "mirror"}}, p).ok());
  EXPECT_FALSE(p.details.count("warning"));
  ASSERT_TRUE(resolve_plan("diffusion", {{"sigma", "12"}}, p).ok());
  EXPECT_FALSE(p.details.count("warning"));
  // The sigma it names is the one that runs: --iterations and --rate set it here (it named --sigma's default, 2).
  ASSERT_TRUE(resolve_plan("diffusion", {{"iterations", "16000"}, {"rate", "0.25"}}, p).ok());
  ASSERT_TRUE(p.details.count("warning"));
  EXPECT_NE(p.details.at("warning").find("diffusion at sigma 89.44"), std::string::npos) << p.details.at("warning");
}

}  // namespace
}  // namespace gpublur
