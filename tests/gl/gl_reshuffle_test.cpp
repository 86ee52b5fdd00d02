// reshuffle on GL (shaders/reshuffle.comp) against the CPU reference where llvmpipe's loop limit makes the host
// split the work: the Gaussian of radius 70 (20164 offsets in 1921 sets) over 2 dispatches carrying the running
// sum in the accumulator, and a constant 131 x 131 box grouped into one set of 17161 offsets, which the host
// cuts into sets of the same weight (8192 + 8192 + 777) over 2 dispatches. Bounds: float32 accumulation on the GPU side. The Gaussian's
// 20164 taps in 1921 weighted sums: ~sqrt(n) half-ulps of the ~0.5 result, measured <= 2.2e-6 on llvmpipe, bound
// 5e-6. The box's one set is a float32 sum of 8192 values in [0, 1] before its one multiply (the rounding
// reshuffling trades for its multiplies): up to n^2 / 2 ulps of 2^-24 in the worst case, 1.2e-4 after the
// weight 1/17161; measured <= 3.3e-5 (clamp on an image smaller than the box: many equal values), bound 1e-4.
// The registry test covers the one-dispatch case; here every border, 1..4 channels, an image smaller than the
// kernel and one larger.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/reshuffle.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlReshuffle, SetsSplitOverDispatchesEqualTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const int n = 131;
  const std::vector<ReshuffleKernel> kernels = {gaussian_reshuffle(23.0, 70),
                                                reshuffle_matrix(std::vector<double>(size_t(n) * n, 1.0 / (n * n)), n, n)};
  for (const ReshuffleKernel& k : kernels)
    for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
      for (int c = 1; c <= 4; ++c)
        for (auto [w, h] : std::vector<std::pair<int, int>>{{23, 17}, {150, 9}}) {
          Program prog;
          prog.passes = {reshuffle_pass(k, b)};
          const Plan plan = program_plan(prog, b);
          const Image src = random_image(w, h, c, 5u + unsigned(c));
          Image ref, out;
          ASSERT_TRUE(reference_run(plan, src, ref).ok());
          RunInfo info;
          const Status s = gl_run(*be, plan, src, out, &info);
          ASSERT_TRUE(s.ok()) << s.error;
          if (on_llvmpipe(*be)) {
            EXPECT_NE(info.path.find("dispatches"), std::string::npos) << info.path;  // the split ran
          }
          EXPECT_LE(max_abs_diff(out, ref), k.sets.size() == 1 ? 1e-4 : 5e-6) << border_name(b) << " c" << c << " " << w << "x" << h << " sets "
                                                  << k.sets.size() << " path " << info.path;
        }
}

// The tile form (reshuffle.comp TILE) in each of its shapes, and the texelFetch form forced: every border, 1..4
// channels, images smaller than the tile, odd sizes and more than one tile a side. Reach 9 takes a tile for every
// channel count in llvmpipe's 32 KB; reach 29 a tile of one channel, two and four channels in rounds of one; there
// llvmpipe's budget splits its 3481 offsets over dispatches, so the tile form's accumulator runs too (each round
// resuming its own channels).
TEST(GlReshuffle, TileFormsEqualTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  double worst = 0;
  int tiles = 0, fetches = 0, splits = 0, rounds = 0;
  for (const char* spec : {"", "32x16x8", "16x16x8", "0"}) {
    ScopedEnv env("GPUBLUR_GL_RESHUFFLE_TILE", spec);
    for (const auto& [sigma, reach] : std::vector<std::pair<double, int>>{{3.0, 9}, {9.7, 29}})
      for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
        for (int c = 1; c <= 4; ++c) {
          if (reach == 29 && c > 1 && *spec) continue;  // llvmpipe time: the fetch form of the default covers them
          for (auto [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {7, 3}, {70, 41}}) {
            Program prog;
            prog.passes = {reshuffle_pass(gaussian_reshuffle(sigma, reach), b)};
            const Plan plan = program_plan(prog, b);
            RunInfo info;
            double err = 0;
            const Status s = gl_error_vs_reference(*be, plan, random_image(w, h, c, 7u + unsigned(c + w)), err, &info);
            ASSERT_TRUE(s.ok()) << s.error;
            const bool tile = info.path.find("reshuffle-tile") != std::string::npos;
            tiles += tile, fetches += !tile, splits += info.path.find("dispatches") != std::string::npos;
            rounds += info.path.find("rounds") != std::string::npos;
            if (std::string(spec) == "0") {
              EXPECT_FALSE(tile) << info.path;
            }
            if (reach == 9 && std::string(spec) != "0") {
              EXPECT_TRUE(tile) << info.path;
              if (*spec) {
                EXPECT_NE(info.path.find(std::string(spec).substr(0, 5)), std::string::npos) << info.path;
              }
            }
            worst = std::max(worst, err);
            EXPECT_LE(err, 5e-6) << spec << " reach " << reach << " " << border_name(b) << " c" << c << " " << w << "x"
                                 << h << " " << info.path;
          }
        }
  }
  if (on_llvmpipe(*be)) {
    EXPECT_GT(splits, 0);
  }
  EXPECT_GT(tiles, 0);
  EXPECT_GT(fetches, 0);
  EXPECT_GT(rounds, 0);
  std::printf("[ measured ] reshuffle tile / fetch forms: max abs error %.3g (%d tile runs, %d in rounds, %d fetch, "
              "%d split)\n",
              worst, tiles, rounds, fetches, splits);
}

// A constant image stays that constant at large sigma: one output sums w_u S_u in float32 over up to 1.2M sets, and
// with the centre's set first the small terms fell under the sum's rounding (0.7 came back 0.69994 at sigma 200,
// 0.698987 at 512 on llvmpipe). With the smallest weights first, measured 1.5e-7 and 1.5e-5 below 0.7 there (the
// random part of ~1.2M roundings, as gauss-2d's 2.9e-5 at radius 1536).
TEST(GlReshuffle, AConstantImageStaysConstantAtLargeSigma) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  for (const auto& [sigma, bound] : std::vector<std::pair<const char*, double>>{{"200", 2e-6}, {"512", 3e-5}}) {
    const Plan plan = make_plan("reshuffle", {{"sigma", sigma}});
    Image src(3, 2, 1);
    std::fill(src.data.begin(), src.data.end(), 0.7f);
    Image out;
    const Status s = gl_run(*be, plan, src, out, nullptr);
    ASSERT_TRUE(s.ok()) << s.error;
    for (float v : out.data) EXPECT_NEAR(v, 0.7f, bound) << "sigma " << sigma;
  }
}

}  // namespace
}  // namespace gpublur::testing
