// The CPU reference's exact Gaussians against the independent float64 direct 2D convolution:
// random images, every border mode, 1-4 channels, odd sizes, sigma 0.5..64; max abs error <= 1e-5.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "core/reference/reference.hpp"
#include "tests/core/f64_reference.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur {
namespace {

using testing::f64_convolve_2d;
using testing::random_image;

struct Size {
  int w, h;
};

double max_abs_diff(const Image& a, const std::vector<double>& ref) {
  double m = 0;
  for (size_t i = 0; i < ref.size(); ++i) m = std::max(m, std::abs(double(a.data[i]) - ref[i]));
  return m;
}

Plan plan_for(const std::string& method, double sigma, const std::string& border, int radius = -1) {
  std::map<std::string, std::string> given{{"sigma", std::to_string(sigma)}, {"border", border}};
  if (radius >= 0) given["radius"] = std::to_string(radius);
  if (method == "gauss-linear") given["interp"] = "exact";
  Plan p;
  const Status s = resolve_plan(method, given, p);
  EXPECT_TRUE(s.ok()) << s.error;
  return p;
}

// (size, sigma, border, channels): sizes are capped per sigma so the float64 2D reference stays cheap.
using Case = std::tuple<Size, double, std::string, int>;

class ReferenceAccuracy : public ::testing::TestWithParam<Case> {};

TEST_P(ReferenceAccuracy, ExactGaussiansMatchFloat64Direct2D) {
  const auto& [size, sigma, border, channels] = GetParam();
  const uint32_t seed = uint32_t(size.w * 7919 + size.h * 31 + channels * 3 + int(sigma * 16));
  const Image src = random_image(size.w, size.h, channels, seed);
  const Plan base = plan_for("gauss-2d", sigma, border);
  const std::vector<double> ref = f64_convolve_2d(src, sigma, base.radius, border);
  for (const std::string method : {"gauss-2d", "gauss-sep", "gauss-linear"}) {
    Image out;
    ASSERT_TRUE(reference_run(plan_for(method, sigma, border), src, out).ok());
    ASSERT_EQ(out.value_count(), src.value_count());
    EXPECT_LE(max_abs_diff(out, ref), 1e-5) << method;
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto& [size, sigma, border, channels] = info.param;
  std::string s = std::to_string(size.w) + "x" + std::to_string(size.h) + "_s" + std::to_string(int(sigma * 10)) +
                  "_" + border + "_c" + std::to_string(channels);
  return s;
}

const auto kBorders = ::testing::Values("clamp", "mirror", "wrap", "zero");
const auto kChannels = ::testing::Values(1, 2, 3, 4);

INSTANTIATE_TEST_SUITE_P(Tiny, ReferenceAccuracy,
                         ::testing::Combine(::testing::Values(Size{1, 1}, Size{7, 3}),
                                            ::testing::Values(0.5, 2.5, 16.0, 64.0), kBorders, kChannels),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Large, ReferenceAccuracy,
                         ::testing::Combine(::testing::Values(Size{1023, 517}), ::testing::Values(0.5, 2.5),
                                            kBorders, kChannels),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Mid, ReferenceAccuracy,
                         ::testing::Combine(::testing::Values(Size{61, 37}), ::testing::Values(6.0, 16.0),
                                            kBorders, kChannels),
                         case_name);
INSTANTIATE_TEST_SUITE_P(WideKernel, ReferenceAccuracy,
                         ::testing::Combine(::testing::Values(Size{29, 17}), ::testing::Values(64.0), kBorders,
                                            kChannels),
                         case_name);

TEST(ReferenceAccuracy, ExplicitRadiusOverridesDefault) {
  const Image src = random_image(40, 30, 3, 99);
  const Plan p = plan_for("gauss-sep", 3.0, "mirror", 4);
  EXPECT_EQ(p.radius, 4);
  Image out;
  ASSERT_TRUE(reference_run(p, src, out).ok());
  EXPECT_LE(max_abs_diff(out, f64_convolve_2d(src, 3.0, 4, "mirror")), 1e-5);
  // And it really differs from the default radius (9): the override is not ignored.
  EXPECT_GT(max_abs_diff(out, f64_convolve_2d(src, 3.0, 9, "mirror")), 1e-4);
}

TEST(ReferenceAccuracy, CopyIsIdentity) {
  const Image src = random_image(13, 11, 4, 5);
  Image out;
  ASSERT_TRUE(reference_run(plan_for("copy", 1.0, "clamp"), src, out).ok());
  EXPECT_EQ(out.data, src.data);
}

TEST(ReferenceAccuracy, ThreadCountDoesNotChangeResult) {
  const Image src = random_image(77, 45, 2, 7);
  const Plan p = plan_for("gauss-sep", 4.0, "wrap");
  Image one, many;
  ASSERT_TRUE(reference_run(p, src, one, 1).ok());
  ASSERT_TRUE(reference_run(p, src, many, 5).ok());
  EXPECT_EQ(one.data, many.data);
}

// The reference runs programs, not method names: a plan whose program has no passes is an error saying so.
TEST(ReferenceAccuracy, PlanWithoutProgramIsAnError) {
  Plan p;
  p.method = "nope";
  Image out;
  const Status s = reference_run(p, random_image(3, 3, 1, 1), out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("no passes"), std::string::npos) << s.error;
}

}  // namespace
}  // namespace gpublur
