// kawase --impl dual (the dual filter)'s defining properties: the grid mapping for odd sizes; a down pass is the
// (4 centre + 4 corner) / 8 mean of its bilinear samples and an up pass the (axial + 2 diagonal) / 12 mean of
// its own, at positions worked out here by hand and sampled by a general bilinear interpolation of the
// border-extended image; the variance of L levels, (17/6)(4^L - 1)/3, on impulses at every phase of the grid
// and against quality's fit; the sigma schedule and its bottom Gaussian; the program rules for the resampling
// passes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "core/dual_grid.hpp"
#include "core/methods/kawase_dual.hpp"
#include "core/plan.hpp"
#include "core/quality.hpp"
#include "core/quality_images.hpp"
#include "core/reference/pass_table.hpp"
#include "core/reference/reference.hpp"
#include "tests/core/f64_reference.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur {
namespace {

using testing::f64_bilinear;
using testing::f64_border;
using testing::random_image;

std::string text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

Plan dual_plan(std::map<std::string, std::string> given) {
  given["impl"] = "dual";
  Plan p;
  const Status s = resolve_plan("kawase", given, p);
  EXPECT_TRUE(s.ok()) << s.error;
  return p;
}

Border border_of(const std::string& name) {
  Border b = Border::Clamp;
  parse_border(name, b);
  return b;
}

// One pass of `op` from src into dst (dst's size is the caller's: the pass reads the sizes of both).
void run_pass(Op op, const std::string& border, Image src, Image& dst) {
  Pass pass;
  pass.op = op;
  pass.border = border_of(border);
  const CpuImage s = CpuImage::view(src);
  CpuImage d = CpuImage::view(dst);
  ASSERT_TRUE(cpu_pass(op)(pass, s, d, 1).ok());
}

TEST(KawaseDual, GridMapping) {
  // Coarse sizes are ceil(n / 2), and the program's divisors give the same sizes level after level.
  for (int n : {1, 2, 3, 4, 5, 7, 8, 9, 1023, 1024}) {
    EXPECT_EQ(dual_coarse_size(n), (n + 1) / 2);
    Program prog;
    prog.add_image(ImageDecl{0, 2, false});
    prog.add_image(ImageDecl{0, 4, false});
    prog.add_image(ImageDecl{0, 8, false});
    for (int i = 2; i <= 4; ++i) {
      int w = 0, h = 0;
      image_size(prog, i, n, n + 1, w, h);
      int want_w = n, want_h = n + 1;
      for (int k = 2; k <= i; ++k) want_w = dual_coarse_size(want_w), want_h = dual_coarse_size(want_h);
      EXPECT_EQ(w, want_w) << n << " level " << i - 1;
      EXPECT_EQ(h, want_h) << n << " level " << i - 1;
    }
  }
  // Fine pixel x's centre at (x + 1/2) / 2 - 1/2 in coarse index units; coarse X's at 2X + 1/2 in fine ones.
  EXPECT_EQ(dual_fine_centre(0), -0.25f);
  EXPECT_EQ(dual_fine_centre(1), 0.25f);
  EXPECT_EQ(dual_fine_centre(6), 2.75f);
  EXPECT_EQ(dual_fine_centre(7), 3.25f);
  EXPECT_EQ(dual_coarse_centre(0), 0.5f);
  EXPECT_EQ(dual_coarse_centre(3), 6.5f);
  // Round trip: a coarse centre seen from the fine grid and back is the coarse pixel itself.
  for (int X = 0; X < 5; ++X) EXPECT_EQ((dual_coarse_centre(X) + 0.5f) / 2 - 0.5f, float(X));
}

TEST(KawaseDual, DownPassIsTheMeanOfItsWeightedBilinearSamples) {
  for (const char* border : {"clamp", "mirror", "wrap", "zero"})
    for (int c = 1; c <= 4; ++c)
      for (auto [w, h] : {std::pair{9, 6}, std::pair{8, 5}, std::pair{1, 1}, std::pair{2, 3}}) {
        const Image src = random_image(w, h, c, 40 + c);
        Image got((w + 1) / 2, (h + 1) / 2, c);
        run_pass(Op::DualDown, border, src, got);
        double worst = 0, worst_weights = 0;
        for (int Y = 0; Y < got.height; ++Y)
          for (int X = 0; X < got.width; ++X)
            for (int ch = 0; ch < c; ++ch) {
              // Output (X, Y) covers source pixels 2X, 2X + 1: its centre is at 2X + 1/2, h = 1 source pixel.
              const double cx = 2 * X + 0.5, cy = 2 * Y + 0.5;
              double want = 4 * f64_bilinear(src, cx, cy, ch, border);
              for (double dy : {-1.0, 1.0})
                for (double dx : {-1.0, 1.0}) want += f64_bilinear(src, cx + dx, cy + dy, ch, border);
              want /= 8;
              worst = std::max(worst, std::fabs(double(got.at(X, Y, ch)) - want));
              // The same as explicit weights: 5/32 on the 2 x 2 under the centre, 1/32 on the ring around it.
              double by_weights = 0;
              for (int j = -1; j <= 2; ++j)
                for (int i = -1; i <= 2; ++i) {
                  const int xx = f64_border(2 * X + i, w, border), yy = f64_border(2 * Y + j, h, border);
                  const double v = xx < 0 || yy < 0 ? 0.0 : double(src.at(xx, yy, ch));
                  by_weights += v * ((i == 0 || i == 1) && (j == 0 || j == 1) ? 5.0 / 32 : 1.0 / 32);
                }
              worst_weights = std::max(worst_weights, std::fabs(by_weights - want));
            }
        EXPECT_LE(worst, 1e-6) << border << " c " << c << " " << w << "x" << h;
        EXPECT_LE(worst_weights, 1e-12) << border << " c " << c << " " << w << "x" << h;
      }
}

TEST(KawaseDual, UpPassIsTheMeanOfItsWeightedBilinearSamples) {
  for (const char* border : {"clamp", "mirror", "wrap", "zero"})
    for (int c = 1; c <= 4; ++c)
      for (auto [w, h] : {std::pair{9, 6}, std::pair{8, 5}, std::pair{1, 1}, std::pair{2, 3}}) {
        const Image src = random_image((w + 1) / 2, (h + 1) / 2, c, 60 + c);
        Image got(w, h, c);
        run_pass(Op::DualUp, border, src, got);
        double worst = 0;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x)
            for (int ch = 0; ch < c; ++ch) {
              // Fine pixel x's centre in coarse index units; h = 1/2 coarse pixel (one fine pixel).
              const double ux = (x + 0.5) / 2 - 0.5, uy = (y + 0.5) / 2 - 0.5;
              double want = f64_bilinear(src, ux - 1, uy, ch, border) + f64_bilinear(src, ux + 1, uy, ch, border) +
                            f64_bilinear(src, ux, uy - 1, ch, border) + f64_bilinear(src, ux, uy + 1, ch, border);
              for (double dy : {-0.5, 0.5})
                for (double dx : {-0.5, 0.5}) want += 2 * f64_bilinear(src, ux + dx, uy + dy, ch, border);
              want /= 12;
              worst = std::max(worst, std::fabs(double(got.at(x, y, ch)) - want));
            }
        EXPECT_LE(worst, 1e-6) << border << " c " << c << " " << w << "x" << h;
      }
}

// The response to impulses at every phase of the 2^L grid (zero border, far from it): sum 1, centroid on the
// impulse, per-axis variance (17/6)(4^L - 1)/3 -- the derivation in core/methods/kawase_dual.cpp.
TEST(KawaseDual, LevelVariancesAtEveryPhase) {
  for (int L = 1; L <= 3; ++L) {
    const double v = dual_variance(L);
    EXPECT_NEAR(v, 17.0 / 6.0 * (std::pow(4.0, L) - 1) / 3.0, 1e-12);
    // sigma exactly sqrt(V(L)): no bottom Gaussian.
    const Plan plan = dual_plan({{"levels", std::to_string(L)}, {"sigma", text(std::sqrt(v))}, {"border", "zero"}});
    EXPECT_EQ(plan.program.passes.size(), size_t(2 * L)) << plan.details.at("dual");
    EXPECT_NEAR(plan.effective_sigma, std::sqrt(v), 1e-9);
    const int n = 96, step = 1 << L;
    for (int py = 0; py < step; ++py)
      for (int px = 0; px < step; ++px) {
        const int ix = n / 2 + px, iy = n / 2 + py;
        Image src(n, n, 1), got;
        src.at(ix, iy, 0) = 1.f;
        ASSERT_TRUE(reference_run(plan, src, got).ok());
        double sum = 0, mx = 0, my = 0, vx = 0, vy = 0;
        for (int y = 0; y < n; ++y)
          for (int x = 0; x < n; ++x) {
            const double g = got.at(x, y, 0);
            sum += g, mx += g * (x - ix), my += g * (y - iy), vx += g * (x - ix) * (x - ix), vy += g * (y - iy) * (y - iy);
          }
        EXPECT_NEAR(sum, 1.0, 1e-5) << "L " << L << " phase " << px << "," << py;
        EXPECT_NEAR(mx / sum, 0.0, 1e-4) << "L " << L << " phase " << px << "," << py;
        EXPECT_NEAR(my / sum, 0.0, 1e-4) << "L " << L << " phase " << px << "," << py;
        EXPECT_NEAR(vx / sum, v, 1e-3 * v) << "L " << L << " phase " << px << "," << py;
        EXPECT_NEAR(vy / sum, v, 1e-3 * v) << "L " << L << " phase " << px << "," << py;
      }
  }
}

// The same variance as `quality` sees it: the impulse check equals the prediction, and the fit on a smooth
// image lands near it (as for box cascades: a variance match there, within 3%).
TEST(KawaseDual, QualityFitAgreesWithTheVariance) {
  auto b = make_cpu_backend(BackendOptions{});
  std::vector<QualityInput> smooth{{"smooth", smooth_noise_image(128, 128, 3, 32, 11), ""}};
  for (const auto& given : std::vector<std::map<std::string, std::string>>{
           {{"levels", "1"}, {"sigma", text(std::sqrt(dual_variance(1)))}},
           {{"levels", "2"}, {"sigma", text(std::sqrt(dual_variance(2)))}},
           {{"sigma", "6"}}}) {
    const Plan plan = dual_plan(given);
    QualityResult r;
    ASSERT_TRUE(measure_quality(*b, plan, smooth, QualityOptions{}, r).ok());
    ASSERT_TRUE(r.has_impulse);
    const ImageQuality& q = r.images.at(0);
    ASSERT_TRUE(q.error.empty()) << q.error;
    SCOPED_TRACE("sigma " + plan.param("sigma") + " levels " + plan.param("levels") + ": fit " +
                 std::to_string(q.effective_sigma) + ", impulse sd " + std::to_string(r.impulse_sigma));
    EXPECT_NEAR(r.impulse_sigma, plan.effective_sigma, 2e-3 * plan.effective_sigma);
    EXPECT_NEAR(q.effective_sigma, plan.effective_sigma, 0.03 * plan.effective_sigma);
  }
}

TEST(KawaseDual, SigmaSchedule) {
  // The most levels whose variance fits, then an exact Gaussian at the coarsest level for the rest.
  EXPECT_EQ(dual_levels_for_sigma(1.0), 1);
  EXPECT_EQ(dual_levels_for_sigma(3.0), 1);   // V(2) = 14.17 > 9
  EXPECT_EQ(dual_levels_for_sigma(3.77), 2);  // V(2) = 14.17 <= 14.21
  EXPECT_EQ(dual_levels_for_sigma(12.0), 3);
  EXPECT_EQ(dual_levels_for_sigma(48.0), 5);
  EXPECT_EQ(dual_levels_for_sigma(200.0), 7);
  for (double s : {2.0, 3.0, 6.0, 12.0, 24.0, 48.0, 100.0, 200.0}) {
    const Plan p = dual_plan({{"sigma", text(s)}});
    const int L = std::stoi(p.param("levels"));
    EXPECT_EQ(L, dual_levels_for_sigma(s));
    EXPECT_NEAR(p.effective_sigma, s, 1e-6 * s) << p.details.at("dual");
    // downs, the Gaussian's x and y, ups; the Gaussian on the coarsest images.
    ASSERT_EQ(p.program.passes.size(), size_t(2 * L + 2)) << p.details.at("dual");
    const Pass& g = p.program.passes[size_t(L)];
    EXPECT_EQ(g.op, Op::Conv1d);
    EXPECT_EQ(p.program.images[size_t(g.src)].divisor, 1 << L);
  }
  // Below one level's sigma: one level, and the plan says what it does.
  Plan p = dual_plan({{"sigma", "1"}});
  EXPECT_EQ(p.param("levels"), "1");
  EXPECT_NEAR(p.effective_sigma, std::sqrt(17.0 / 6.0), 1e-9);
  // --levels fixes the levels; the Gaussian takes what is left (none when the levels alone exceed sigma).
  p = dual_plan({{"sigma", "12"}, {"levels", "2"}});
  EXPECT_NEAR(p.effective_sigma, 12.0, 1e-6);
  p = dual_plan({{"sigma", "2"}, {"levels", "3"}});
  EXPECT_NEAR(p.effective_sigma, std::sqrt(dual_variance(3)), 1e-9);
  // Parameters of the other impl are usage errors.
  Plan bad;
  Status s = resolve_plan("kawase", {{"impl", "dual"}, {"offsets", "1,2"}}, bad);
  EXPECT_NE(s.error.find("--impl dual takes --levels"), std::string::npos) << s.error;
  s = resolve_plan("kawase", {{"levels", "2"}}, bad);
  EXPECT_NE(s.error.find("--levels is --impl dual's"), std::string::npos) << s.error;
}

TEST(KawaseDual, ProgramRulesForResamplingPasses) {
  Program p;
  const int half = p.add_image(ImageDecl{0, 2, false});
  Pass down;
  down.op = Op::DualDown, down.src = 0, down.dst = half;
  Pass up;
  up.op = Op::DualUp, up.src = half, up.dst = 1;
  p.passes = {down, up};
  EXPECT_TRUE(validate_program(p).ok()) << validate_program(p).error;
  p.passes = {up, down};  // up from divisor 1 into 2, down from 2 into 1: both wrong
  p.passes[0].src = 0, p.passes[0].dst = half, p.passes[1].src = half, p.passes[1].dst = 1;
  EXPECT_NE(validate_program(p).error.find("it doubles the resolution"), std::string::npos) << validate_program(p).error;
  const int quarter = p.add_image(ImageDecl{0, 4, false});
  p.passes = {down, up};
  p.passes[0].dst = quarter;  // 1 -> 4: skips a level
  EXPECT_NE(validate_program(p).error.find("it halves the resolution"), std::string::npos) << validate_program(p).error;
  const int padded = p.add_image(ImageDecl{2, 2, false});
  p.passes = {down, up};
  p.passes[0].dst = padded, p.passes[1].src = padded;
  EXPECT_NE(validate_program(p).error.find("unpadded"), std::string::npos) << validate_program(p).error;
  // Other ops still keep the resolution.
  Pass copy;
  copy.src = half, copy.dst = 1;
  p.passes = {down, copy};
  EXPECT_NE(validate_program(p).error.find("it keeps the resolution"), std::string::npos) << validate_program(p).error;
}

}  // namespace
}  // namespace gpublur
