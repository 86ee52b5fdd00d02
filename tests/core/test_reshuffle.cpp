// reshuffle's defining properties: the unique-weight list and linkage sets (core/reshuffle.hpp) partition the
// kernel's offsets (every offset exactly once, one weight per set, as many sets as distinct dx^2 + dy^2), the
// weights are gauss-2d's kernel and sum to 1; the Op::Reshuffle pass equals an independent float64 direct
// convolution with its kernel on random images (every border mode, 1..4 channels, images smaller than the
// kernel), for the Gaussian and for any matrix grouped by equal weights; the method equals gauss-2d within
// float rounding; bad links and radii over the cap are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/gauss.hpp"
#include "core/plan.hpp"
#include "core/reference/pass_table.hpp"
#include "core/reference/reference.hpp"
#include "core/reshuffle.hpp"
#include "tests/core/f64_reference.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur {
namespace {

using testing::f64_border;
using testing::random_image;

const char* kBorders[] = {"clamp", "mirror", "wrap", "zero"};

// Independent float64 direct correlation with a dense (2R+1)^2 matrix, its own border rules (f64_reference).
std::vector<double> direct(const Image& src, const std::vector<double>& m, int R, const std::string& mode) {
  const int n = 2 * R + 1, C = src.channels;
  std::vector<double> out(src.data.size(), 0.0);
  for (int y = 0; y < src.height; ++y)
    for (int x = 0; x < src.width; ++x)
      for (int j = -R; j <= R; ++j)
        for (int i = -R; i <= R; ++i) {
          const double w = m[size_t(j + R) * size_t(n) + size_t(i + R)];
          const int sx = f64_border(x + i, src.width, mode), sy = f64_border(y + j, src.height, mode);
          if (w == 0 || sx < 0 || sy < 0) continue;
          for (int c = 0; c < C; ++c)
            out[(size_t(y) * src.width + x) * C + c] += w * src.data[(size_t(sy) * src.width + sx) * C + c];
        }
  return out;
}

double max_abs(const std::vector<double>& want, const Image& got) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = std::abs(want[i] - got.data[i]);
    if (!(d <= worst)) worst = d;
  }
  return worst;
}

Image run_pass(const Pass& pass, const Image& src) {
  Program prog;
  prog.passes = {pass};
  Image out;
  EXPECT_TRUE(validate_program(prog).ok());
  EXPECT_TRUE(run_program_cpu(prog, src, out, 2).ok());
  return out;
}

// The dense matrix of the float weights a pass actually applies.
std::vector<double> pass_dense(const ReshuffleKernel& k) {
  ReshuffleKernel f = k;
  for (double& w : f.weights) w = double(float(w));
  return reshuffle_dense(f);
}

TEST(Reshuffle, UniqueWeightsAreTheDistinctSquaredDistances) {
  // Small radii by hand: r = 1 {0, 1, 2}; r = 2 adds {4, 5, 8}; r = 3 adds {9, 10, 13, 18}.
  EXPECT_EQ(gaussian_reshuffle(1.0, 0).weights.size(), 1u);
  EXPECT_EQ(gaussian_reshuffle(1.0, 1).weights.size(), 3u);
  EXPECT_EQ(gaussian_reshuffle(1.0, 2).weights.size(), 6u);
  EXPECT_EQ(gaussian_reshuffle(1.0, 3).weights.size(), 10u);
  for (int r : {4, 9, 17, 36}) {
    std::set<int> keys;
    for (int a = 0; a <= r; ++a)
      for (int b = a; b <= r; ++b) keys.insert(a * a + b * b);
    const ReshuffleKernel k = gaussian_reshuffle(r / 3.0, r);
    EXPECT_EQ(k.weights.size(), keys.size()) << "radius " << r;
    EXPECT_EQ(k.sets.size(), k.weights.size());
  }
}

TEST(Reshuffle, SetsPartitionTheSquareAndWeightsSumToOne) {
  for (auto [sigma, r] : std::vector<std::pair<double, int>>{{0.5, 2}, {3, 9}, {5, 11}, {12, 36}}) {
    const ReshuffleKernel k = gaussian_reshuffle(sigma, r);
    EXPECT_EQ(k.radius, r);
    std::map<std::pair<int, int>, int> seen;
    double sum = 0;
    for (size_t u = 0; u < k.sets.size(); ++u) {
      ASSERT_FALSE(k.sets[u].empty());
      const int key = k.sets[u][0].first * k.sets[u][0].first + k.sets[u][0].second * k.sets[u][0].second;
      for (auto [dx, dy] : k.sets[u]) {
        EXPECT_LE(std::abs(dx), r);
        EXPECT_LE(std::abs(dy), r);
        EXPECT_EQ(dx * dx + dy * dy, key);  // one weight per set: one squared distance
        ++seen[{dx, dy}];
      }
      // Distinct keys, decreasing (the smallest weights first, for float sums over the sets): distinct weights.
      if (u > 0) EXPECT_GT(k.weights[u], k.weights[u - 1]);
      sum += k.weights[u] * double(k.sets[u].size());
    }
    EXPECT_EQ(seen.size(), size_t(2 * r + 1) * size_t(2 * r + 1));
    for (const auto& [o, n] : seen) EXPECT_EQ(n, 1) << o.first << "," << o.second;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    // gauss-2d's kernel: the outer product of the normalised 1D taps.
    const std::vector<double> g = gaussian_weights(sigma, r), dense = reshuffle_dense(k);
    for (int dy = -r; dy <= r; ++dy)
      for (int dx = -r; dx <= r; ++dx)
        EXPECT_NEAR(dense[size_t(dy + r) * size_t(2 * r + 1) + size_t(dx + r)], g[size_t(dx + r)] * g[size_t(dy + r)],
                    1e-15);
  }
}

TEST(Reshuffle, PassEqualsDirectConvolutionWithItsKernel) {
  // The Gaussian, and a non-square matrix with repeated, zero and negative weights (grouped by equality).
  const std::vector<double> m = {0.1, -0.2, 0.1,  0.05, 0.3, 0.0,  0.3, 0.05,
                                 0.1, -0.2, 0.1,  0.05, 0.2, 0.05, 0.1, 0.0,  0.0, 0.1, 0.3, -0.2, 0.05};
  const ReshuffleKernel mk = reshuffle_matrix(m, 7, 3);
  ASSERT_EQ(mk.radius, 3);
  ASSERT_EQ(mk.weights.size(), 5u);  // 0.1, -0.2, 0.05, 0.3, 0.2 (zeros left out)
  // The smallest magnitudes first, equal ones in order of first appearance.
  EXPECT_EQ(mk.weights, (std::vector<double>{0.05, 0.1, -0.2, 0.2, 0.3}));
  EXPECT_EQ(mk.taps(), 18u);
  const std::vector<ReshuffleKernel> kernels = {gaussian_reshuffle(1.5, 5), gaussian_reshuffle(2.0, 3), mk};
  const std::vector<std::pair<int, int>> sizes = {{1, 1}, {4, 3}, {23, 17}};
  for (const ReshuffleKernel& k : kernels)
    for (int b = 0; b < 4; ++b)
      for (int c = 1; c <= 4; ++c)
        for (auto [w, h] : sizes) {
          const Image src = random_image(w, h, c, 77u + unsigned(c + w));
          const Image got = run_pass(reshuffle_pass(k, Border(b)), src);
          EXPECT_LT(max_abs(direct(src, pass_dense(k), k.radius, kBorders[b]), got), 1e-6)
              << kBorders[b] << " c" << c << " " << w << "x" << h << " sets " << k.sets.size();
        }
}

// gauss-2d's float taps t[dx] t[dy] and reshuffle's float weight of dx^2 + dy^2 both round the same float64
// weight: at most 3 float roundings (2^-24 each, relative) of every weight, weights summing to 1 over values
// in [0, 1]: <= 1.8e-7, plus each output's own rounding to float (<= 2^-25 below 1) on both sides: 2.4e-7.
TEST(Reshuffle, MethodEqualsGauss2dWithinFloatRounding) {
  double worst = 0;
  for (double sigma : {0.8, 2.0, 3.0, 6.0, 12.0})
    for (const char* border : kBorders) {
      Plan a, b;
      ASSERT_TRUE(resolve_plan("reshuffle", {{"sigma", std::to_string(sigma)}, {"border", border}}, a).ok());
      ASSERT_TRUE(resolve_plan("gauss-2d", {{"sigma", std::to_string(sigma)}, {"border", border}}, b).ok());
      EXPECT_EQ(a.radius, b.radius);
      EXPECT_NEAR(a.effective_sigma, b.effective_sigma, 1e-12);
      const Image src = random_image(41, 29, 4, 5u);
      Image x, y;
      ASSERT_TRUE(reference_run(a, src, x).ok());
      ASSERT_TRUE(reference_run(b, src, y).ok());
      double d = 0;
      for (size_t i = 0; i < x.data.size(); ++i) d = std::max(d, std::abs(double(x.data[i]) - y.data[i]));
      EXPECT_LE(d, 2.4e-7) << "sigma " << sigma << " " << border;
      worst = std::max(worst, d);
    }
  std::printf("reshuffle vs gauss-2d: max abs difference %.3g\n", worst);
  ::testing::Test::RecordProperty("max_abs_vs_gauss_2d", std::to_string(worst));
}

TEST(Reshuffle, RadiusOverTheCapIsAUsageError) {
  Plan p;
  const Status s = resolve_plan("reshuffle", {{"sigma", "2"}, {"radius", std::to_string(kMaxReshuffleRadius + 1)}}, p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("outside [0, " + std::to_string(kMaxReshuffleRadius) + "]"), std::string::npos) << s.error;
  ASSERT_TRUE(resolve_plan("reshuffle", {{"sigma", "512"}}, p).ok());  // the largest sigma's default radius fits
  EXPECT_EQ(p.radius, kMaxReshuffleRadius);
}

TEST(Reshuffle, MalformedLinksAreRefused) {
  const Pass good = reshuffle_pass(gaussian_reshuffle(1.0, 2), Border::Clamp);
  auto valid = [](const Pass& pass) {
    Program prog;
    prog.passes = {pass};
    return validate_program(prog).ok();
  };
  EXPECT_TRUE(valid(good));
  Pass p = good;
  p.links.pop_back();  // ends inside a set
  EXPECT_FALSE(valid(p));
  p = good;
  p.links.push_back(0);  // beyond the last weight
  EXPECT_FALSE(valid(p));
  p = good;
  p.links[1] = 3;  // an offset beyond the reach 2
  EXPECT_FALSE(valid(p));
  p = good;
  p.links[0] = 0;  // an empty set
  EXPECT_FALSE(valid(p));
  p = good;
  p.widths = {kMaxReshuffleRadius + 1};
  EXPECT_FALSE(valid(p));
  p = good;
  p.taps.push_back(0.1f);  // a weight without a set
  EXPECT_FALSE(valid(p));
}

}  // namespace
}  // namespace gpublur
