// The spread method's defining properties: spreading of radius R (nine weights, two float64 summed-area
// tables, / R^4) equals the direct float64 convolution of the border-extended image with the 2D tent
// (R - |dx|)(R - |dy|) / R^4 (triangle of base 2R per axis), for every border mode and channel count and for
// radii beyond the image; the tent's variance is (R^2 - 1) / 6 per axis and --sigma picks the nearest R; and
// the float64 double integration keeps its error at float32 rounding on large images.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "core/methods/recipe.hpp"
#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "core/spread_fold.hpp"
#include "tests/core/f64_reference.hpp"
#include "tests/core/impulse.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur {
namespace {

using testing::max_abs_error;
using testing::random_image;

Plan spread_plan(const std::map<std::string, std::string>& given) {
  Plan p;
  const Status s = resolve_plan("spread", given, p);
  EXPECT_TRUE(s.ok()) << s.error;
  return p;
}

std::vector<double> tent(int R) {
  std::vector<double> k(size_t(2 * R - 1));
  for (int d = -(R - 1); d <= R - 1; ++d) k[size_t(d + R - 1)] = double(R - std::abs(d)) / (double(R) * R);
  return k;
}

// Separable float64 tent convolution (rows then columns on the border-extended image): exact to float64
// rounding and fast enough for 4096^2 (the direct 2D form is used on the small images).
std::vector<double> f64_tent_separable(const Image& src, int R, const std::string& mode) {
  const std::vector<double> k = tent(R);
  const int r = R - 1, W = src.width, H = src.height, C = src.channels;
  std::vector<double> rows(src.value_count(), 0.0), out(src.value_count(), 0.0);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int d = -r; d <= r; ++d) {
        const int xx = testing::f64_border(x + d, W, mode);
        if (xx < 0) continue;
        for (int c = 0; c < C; ++c) rows[(size_t(y) * W + x) * C + c] += k[size_t(d + r)] * src.at(xx, y, c);
      }
  for (int y = 0; y < H; ++y)
    for (int d = -r; d <= r; ++d) {
      const int yy = testing::f64_border(y + d, H, mode);
      if (yy < 0) continue;
      const double w = k[size_t(d + r)];
      for (size_t i = 0; i < size_t(W) * C; ++i) out[size_t(y) * W * C + i] += w * rows[size_t(yy) * W * C + i];
    }
  return out;
}

TEST(Spread, EqualsTheTentConvolutionForEveryBorder) {
  for (const char* border : {"clamp", "mirror", "wrap", "zero"})
    for (int c = 1; c <= 4; ++c)
      for (int R : {1, 2, 5, 9, 30}) {  // 30: the tent is wider than the image on both axes
        const Image src = random_image(23, 17, c, uint32_t(100 * R + c));
        const Plan plan = spread_plan({{"radius", std::to_string(R)}, {"border", border}});
        Image got;
        ASSERT_TRUE(reference_run(plan, src, got).ok());
        const std::vector<double> want = testing::f64_separable_2d(src, tent(R), border);
        EXPECT_LE(max_abs_error(want, got), 1e-6) << border << " channels " << c << " R " << R;
      }
}

// A failing control: without the padding's extension (X = 0, the thesis's missing border values) the result
// differs at the border for every mode but zero, so the test above can tell.
TEST(Spread, BorderValuesMustBeSpread) {
  const Image src = random_image(23, 17, 1, 7);
  Plan plan = spread_plan({{"radius", "5"}, {"border", "clamp"}});
  plan.program.passes[0].extend = 0;
  Image got;
  ASSERT_TRUE(reference_run(plan, src, got).ok());
  EXPECT_GT(max_abs_error(testing::f64_separable_2d(src, tent(5), "clamp"), got), 1e-2);
}

// The spread before the image is folded into two lines per axis (Op::Spread), so the tables are (w + 2)(h + 2)
// for every R (padding 1, all of it before the image) and Scale reads them 1 pixel on. Controls: read without
// that shift the result is wrong; without the margin's spread (which the fold carries) it is wrong at the
// borders for every mode but zero (BorderValuesMustBeSpread), so the test above sees the layout and the fold.
TEST(Spread, TablesFoldTheMarginIntoTwoLines) {
  for (int R : {1, 2, 6, 40}) {
    const Plan plan = spread_plan({{"radius", std::to_string(R)}, {"border", "mirror"}});
    for (size_t i = 2; i < plan.program.images.size(); ++i) EXPECT_EQ(plan.program.images[i].pad, 1) << R;
    ASSERT_EQ(plan.program.passes.back().op, Op::Scale);
    EXPECT_EQ(plan.program.passes.back().extend, 1);
  }
  const int R = 6;
  const Image src = random_image(23, 17, 2, 11);
  const std::vector<double> want = testing::f64_separable_2d(src, tent(R), "mirror");
  Plan shifted = spread_plan({{"radius", std::to_string(R)}, {"border", "mirror"}});
  shifted.program.passes.back().extend = 0;
  Image got;
  ASSERT_TRUE(reference_run(shifted, src, got).ok());
  EXPECT_GT(max_abs_error(want, got), 1e-2);
  const Plan plan = spread_plan({{"radius", std::to_string(R)}, {"border", "mirror"}});
  ASSERT_TRUE(reference_run(plan, src, got).ok());
  EXPECT_LE(max_abs_error(want, got), 1e-6);
}

// The fold's identity on one line: two inclusive prefix sums of v at -d, read at x >= 0, equal those of
// (2 - d) v at -1 and (d - 1) v at -2.
TEST(Spread, FoldWeightsKeepTheDoubleIntegral) {
  for (int d = 1; d <= 50; ++d)
    for (int x = 0; x < 20; ++x) {
      const double direct = double(x + d + 1), folded = (2.0 - d) * (x + 2) + (d - 1.0) * (x + 3);
      EXPECT_EQ(direct, folded) << d << " " << x;
    }
}

// The fold as taps on the source's lines (core/spread_fold.hpp) against the fold written out on one line: the M
// spread values before it, s(-d) = E(-d - 1 - R) - 2 E(-d - 1) + E(-d - 1 + R), times 2 - d and d - 1. Radii far
// beyond the line (mirror and wrap read it many times over) and the tap count min(n, 2R - 2) at most.
TEST(Spread, FoldTapsEqualTheFoldWrittenOut) {
  for (const char* mode : {"clamp", "mirror", "wrap", "zero"})
    for (int n : {1, 2, 7, 50})
      for (int R : {1, 2, 3, 7, 40, 300}) {
        Border border;
        ASSERT_TRUE(parse_border(mode, border));
        const int X = R - 1, M = X + R - 1;
        std::vector<double> line(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) line[size_t(i)] = std::sin(1.7 * i + 0.3 * n) + 0.01 * i;
        const auto E = [&](int p) {
          const int i = p < -X || p >= n + X ? -1 : testing::f64_border(p, n, mode);
          return i < 0 ? 0.0 : line[size_t(i)];
        };
        double want1 = 0.0, want2 = 0.0;
        for (int d = 1; d <= M; ++d) {
          const double s = E(-d - 1 - R) - 2.0 * E(-d - 1) + E(-d - 1 + R);
          want1 += (2.0 - d) * s, want2 += (d - 1.0) * s;
        }
        const std::vector<SpreadFoldTap> taps = spread_fold_taps(R, X, border, n);
        double got1 = 0.0, got2 = 0.0;
        for (size_t k = 0; k < taps.size(); ++k) {
          if (k) EXPECT_LT(taps[k - 1].index, taps[k].index);
          got1 += taps[k].w1 * line[size_t(taps[k].index)], got2 += taps[k].w2 * line[size_t(taps[k].index)];
        }
        const double scale = 1.0 + std::fabs(want1) + std::fabs(want2);
        EXPECT_NEAR(got1, want1, 1e-12 * scale * M) << mode << " n " << n << " R " << R;
        EXPECT_NEAR(got2, want2, 1e-12 * scale * M) << mode << " n " << n << " R " << R;
        EXPECT_LE(taps.size(), size_t(std::min(n, std::max(0, 2 * R - 2)))) << mode << " n " << n << " R " << R;
      }
}

TEST(Spread, ImpulseVarianceIsRSquaredMinusOneOverSix) {
  for (int R : {1, 4, 7, 12}) {
    const Plan plan = spread_plan({{"radius", std::to_string(R)}, {"border", "zero"}});
    const testing::ImpulseMoments m = testing::impulse_moments(plan, 61);
    const double want = (double(R) * R - 1) / 6;
    EXPECT_NEAR(m.sum, 1.0, 1e-5) << R;
    EXPECT_NEAR(m.var_x, want, 1e-4) << R;
    EXPECT_NEAR(m.var_y, want, 1e-4) << R;
    EXPECT_NEAR(plan.effective_sigma * plan.effective_sigma, want, 1e-9) << R;
  }
}

// --sigma: the R whose variance (R^2 - 1) / 6 is nearest sigma^2.
TEST(Spread, SigmaMapping) {
  EXPECT_EQ(spread_plan({{"sigma", "3"}}).param("radius"), "7");     // variance 8 (R = 8: 10.5), want 9
  EXPECT_EQ(spread_plan({{"sigma", "12"}}).param("radius"), "29");   // 140 (R = 30: 149.8), want 144
  EXPECT_EQ(spread_plan({{"sigma", "48"}}).param("radius"), "118");  // 2320.5 (117: 2281.3), want 2304
  EXPECT_EQ(spread_plan({{"sigma", "0.1"}}).param("radius"), "1");   // the identity
  for (double s = 0.5; s < 60; s += 0.37) {
    const int R = spread_radius_for_sigma(s);
    const double e = std::fabs(spread_variance(R) - s * s);
    EXPECT_LE(e, std::fabs(spread_variance(R + 1) - s * s)) << s;
    if (R > 1) EXPECT_LE(e, std::fabs(spread_variance(R - 1) - s * s)) << s;
  }
  const Plan p = spread_plan({{"sigma", "12"}, {"radius", "10"}});
  EXPECT_EQ(p.param("radius"), "10");
  EXPECT_NEAR(p.effective_sigma, std::sqrt(99.0 / 6), 1e-9);
}

// Float64 tables: on a 512^2 image the double integration's error stays at the float32 output's rounding
// (docs/methods.md has 4096^2: GPUBLUR_SPREAD_4096=1 runs that size here, minutes on two cores).
TEST(Spread, DoubleIntegrationPrecision) {
  const char* big = std::getenv("GPUBLUR_SPREAD_4096");
  const int n = big && std::string(big) == "1" ? 4096 : 512;
  const Image src = random_image(n, n, 1, 5);
  for (int R : {6, 40, 118})
    for (const char* border : {"clamp", "zero"}) {
      const Plan plan = spread_plan({{"radius", std::to_string(R)}, {"border", border}});
      Image got;
      ASSERT_TRUE(reference_run(plan, src, got).ok());
      const double err = max_abs_error(f64_tent_separable(src, R, border), got);
      std::printf("spread %dx%d R %d %s: max abs error %.3g\n", n, n, R, border, err);
      EXPECT_LE(err, 1e-7) << R << " " << border;
    }
}

}  // namespace
}  // namespace gpublur
