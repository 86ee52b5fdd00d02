// The bilateral method's defining properties: with an infinite range sigma it is the Gaussian (brute: gauss-2d,
// separable: gauss-sep); a step edge survives where the Gaussian smears it; alpha takes no part in the colour
// distance; the brute form is the textbook sum at every pixel and border.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "tests/core/f64_reference.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur {
namespace {

using testing::f64_border;
using testing::random_image;

const char* kBorders[] = {"clamp", "mirror", "wrap", "zero"};

Image run(const std::string& method, const std::map<std::string, std::string>& given, const Image& src) {
  Plan p;
  const Status s = resolve_plan(method, given, p);
  EXPECT_TRUE(s.ok()) << s.error;
  Image out;
  EXPECT_TRUE(reference_run(p, src, out).ok());
  return out;
}

double max_diff(const Image& a, const Image& b) {
  double m = 0;
  for (size_t i = 0; i < a.data.size(); ++i) m = std::max(m, std::fabs(double(a.data[i]) - double(b.data[i])));
  return a.data.size() == b.data.size() ? m : 1e9;
}

TEST(Bilateral, InfiniteRangeSigmaIsTheGaussian) {
  for (const char* border : kBorders)
    for (int c = 1; c <= 4; ++c) {
      const Image src = random_image(23, 9, c, 60 + c);
      const std::map<std::string, std::string> g = {{"sigma", "1.7"}, {"border", border}};
      auto with = [&](std::map<std::string, std::string> m, const char* impl) {
        m["sigma-range"] = "1e9";
        m["impl"] = impl;
        return m;
      };
      EXPECT_LE(max_diff(run("bilateral", with(g, "brute"), src), run("gauss-2d", g, src)), 1e-6) << border << c;
      EXPECT_LE(max_diff(run("bilateral", with(g, "separable"), src), run("gauss-sep", g, src)), 1e-6) << border << c;
    }
}

TEST(Bilateral, KeepsAStepEdgeTheGaussianSmears) {
  Image src(32, 8, 1);
  for (int y = 0; y < 8; ++y)
    for (int x = 16; x < 32; ++x) src.at(x, y, 0) = 1.f;
  for (const char* impl : {"brute", "separable"}) {
    const Image b = run("bilateral", {{"sigma", "3"}, {"sigma-range", "0.05"}, {"impl", impl}}, src);
    EXPECT_LT(b.at(15, 4, 0), 1e-3) << impl;
    EXPECT_GT(b.at(16, 4, 0), 1 - 1e-3) << impl;
  }
  const Image g = run("gauss-2d", {{"sigma", "3"}}, src);
  EXPECT_GT(g.at(15, 4, 0), 0.3);
}

// Constant gray, random alpha: the colour distance is 0 everywhere, so every weight is spatial only.
TEST(Bilateral, AlphaIsNotAColour) {
  for (int c : {2, 4}) {
    Image src = random_image(17, 11, c, 5);
    for (int y = 0; y < src.height; ++y)
      for (int x = 0; x < src.width; ++x)
        for (int k = 0; k < c - 1; ++k) src.at(x, y, k) = 0.25f;
    const Image b = run("bilateral", {{"sigma", "1.5"}, {"sigma-range", "0.01"}}, src);
    EXPECT_LE(max_diff(b, run("gauss-2d", {{"sigma", "1.5"}}, src)), 1e-6) << c;
  }
}

// The blur and quality run each group of at most four channels with its own alpha (plan_for_channels): the image's
// alpha where the group holds it, else none; a plan with no bilateral pass is handed back as it is.
TEST(Bilateral, EachChannelGroupGetsItsAlpha) {
  Plan plan, scratch;
  ASSERT_TRUE(resolve_plan("bilateral", {{"sigma", "1"}, {"impl", "separable"}}, plan).ok());
  for (const Pass& q : plan.program.passes) EXPECT_EQ(q.alpha, kAlphaLast);
  const auto alphas = [&](std::vector<int> image_alphas, int first, int count) {
    std::vector<int> v;
    for (const Pass& q : plan_for_channels(plan, image_alphas, first, count, scratch).program.passes)
      v.push_back(q.alpha);
    return v;
  };
  EXPECT_EQ(alphas({3}, 0, 4), (std::vector<int>{3, 3}));      // RGBA
  EXPECT_EQ(alphas({}, 0, 4), (std::vector<int>{-1, -1}));     // R, G, B, Z: none
  EXPECT_EQ(alphas({3}, 4, 1), (std::vector<int>{-1, -1}));    // R, G, B, A, Z's second group
  EXPECT_EQ(alphas({5}, 4, 2), (std::vector<int>{1, 1}));      // six channels, alpha the sixth
  EXPECT_EQ(alphas({3, 7}, 4, 4), (std::vector<int>{3, 3}));   // two RGBA layers: the second's
  EXPECT_EQ(alphas({0}, 0, 1), (std::vector<int>{-1, -1}));    // a matte named A alone keeps its own edges
  EXPECT_EQ(alphas({4}, 4, 1), (std::vector<int>{-1, -1}));    // R, G, B, Y, A: the A alone in its group
  Plan gauss;
  ASSERT_TRUE(resolve_plan("gauss-sep", {{"sigma", "1"}}, gauss).ok());
  EXPECT_EQ(&plan_for_channels(gauss, {3}, 0, 4, scratch), &gauss);
  // On the reference: a step in the fourth channel is an edge kept where it is no alpha, and smeared where it is.
  Image src(16, 5, 4);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 16; ++x) {
      for (int k = 0; k < 3; ++k) src.at(x, y, k) = 0.5f;
      src.at(x, y, 3) = x >= 8 ? 1.f : 0.f;
    }
  Plan sharp;
  ASSERT_TRUE(resolve_plan("bilateral", {{"sigma", "2"}, {"sigma-range", "0.05"}}, sharp).ok());
  Image kept, smeared;
  ASSERT_TRUE(reference_run(plan_for_channels(sharp, {}, 0, 4, scratch), src, kept).ok());
  ASSERT_TRUE(reference_run(plan_for_channels(sharp, {3}, 0, 4, scratch), src, smeared).ok());
  EXPECT_LT(kept.at(7, 2, 3), 1e-3);
  EXPECT_GT(smeared.at(7, 2, 3), 0.2);
}

// The alpha channels by name: a bare A, a layer's (Blender's ViewLayer.Combined.A, Nuke's beauty.a), one per layer;
// a name that only ends in A (SPECA, N.xA) is none; without names, the reader's alpha_channel.
TEST(Bilateral, AlphaChannelsAreNamedA) {
  ImageMeta m;
  m.channel_names = {"R", "G", "B", "A"};
  EXPECT_EQ(alpha_channels(m), (std::vector<int>{3}));
  m.channel_names = {"ViewLayer.Combined.R", "ViewLayer.Combined.G", "ViewLayer.Combined.B", "ViewLayer.Combined.A"};
  EXPECT_EQ(alpha_channels(m), (std::vector<int>{3}));
  m.channel_names = {"R", "G", "B", "A", "spec.R", "spec.G", "spec.B", "spec.a"};
  EXPECT_EQ(alpha_channels(m), (std::vector<int>{3, 7}));
  m.channel_names = {"R", "G", "B", "SPECA", "N.xA"};
  EXPECT_TRUE(alpha_channels(m).empty());
  m.channel_names.clear();
  m.alpha_channel = 1;
  EXPECT_EQ(alpha_channels(m), (std::vector<int>{1}));
}

TEST(Bilateral, BruteIsTheTextbookSum) {
  const double sigma = 1.2, sr = 0.2;
  const int r = 4;  // ceil(3 sigma)
  for (const char* border : kBorders) {
    const Image src = random_image(9, 7, 3, 77);
    const Image got = run("bilateral", {{"sigma", "1.2"}, {"sigma-range", "0.2"}, {"border", border}}, src);
    double worst = 0;
    for (int y = 0; y < src.height; ++y)
      for (int x = 0; x < src.width; ++x) {
        double num[3] = {0, 0, 0}, den = 0;
        for (int dy = -r; dy <= r; ++dy)
          for (int dx = -r; dx <= r; ++dx) {
            const int xx = f64_border(x + dx, src.width, border), yy = f64_border(y + dy, src.height, border);
            double q[3], d2 = 0;
            for (int k = 0; k < 3; ++k) {
              q[k] = xx < 0 || yy < 0 ? 0.0 : src.at(xx, yy, k);
              d2 += (q[k] - src.at(x, y, k)) * (q[k] - src.at(x, y, k));
            }
            const double w = std::exp(-(dx * dx + dy * dy) / (2 * sigma * sigma)) * std::exp(-d2 / (2 * sr * sr));
            den += w;
            for (int k = 0; k < 3; ++k) num[k] += w * q[k];
          }
        for (int k = 0; k < 3; ++k) worst = std::max(worst, std::fabs(num[k] / den - got.at(x, y, k)));
      }
    EXPECT_LE(worst, 2e-6) << border;  // float32 output, float32 weights
  }
}

}  // namespace
}  // namespace gpublur
