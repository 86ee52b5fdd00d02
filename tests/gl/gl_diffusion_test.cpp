// diffusion on GL (shaders/diffusion.comp, the walk of up to 8 steps a dispatch) against the CPU reference, which
// reads the border at every step: every border, 1-4 channels, step counts that are and are not multiples of a
// dispatch's (1, 5, 8, 9, 23: one dispatch, two, three with a shorter last), images smaller than the cone of the steps
// (1 x 1, 3 x 2), one strip and segment, and more than one strip across and segment down (RGBA strips of 112 columns
// at 8 steps, one and two channels' of 240: 300 x 97 and 1100 x 61; segments of 16 rows and more, of 2 for one step).
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/quality.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlDiffusion, WalkEqualsTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  double worst = 0;
  for (Border b : kBorders)
    for (int c = 1; c <= 4; ++c)
      for (auto [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {3, 2}, {29, 17}, {300, 97}, {1100, 61}})
        for (int steps : {1, 5, 8, 9, 23}) {
          if (w * h > 29 * 17 && steps != 23 && steps != 9) continue;  // llvmpipe's time: the big images twice
          Pass pass = make_pass(Op::Diffusion, 0, 1, 0, b);
          pass.taps = {0.2f};
          pass.widths = {steps};
          Program prog;
          prog.passes = {pass};
          const Image src = random_image(w, h, c, unsigned(7 * c + steps));
          RunInfo info;
          double err = 0;
          const Status s = gl_error_vs_reference(*be, program_plan(prog, b), src, err, &info);
          ASSERT_TRUE(s.ok()) << s.error;
          const std::string form = "diffusion-walk-" + std::to_string(steps < 8 ? steps : 8) + "-per-dispatch";
          EXPECT_NE(info.path.find(form), std::string::npos) << info.path;
          EXPECT_LE(err, 1e-5) << border_name(b) << " c" << c << " " << w << "x" << h << " steps " << steps;
          worst = std::max(worst, err);
        }
  std::printf("diffusion walk: worst max abs %.3g\n", worst);
}

// Many steps keep a constant image constant and follow the reference: each step adds c (neighbours - 4 u), which is
// 0 on a constant, where (1 - 4c) u + c neighbours in float drifted by (1 + e)^N (0.7 -> 0.69994 in 20000 steps).
TEST(GlDiffusion, ManyStepsDoNotDrift) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  for (Border b : {Border::Wrap, Border::Mirror}) {
    Pass pass = make_pass(Op::Diffusion, 0, 1, 0, b);
    pass.taps = {2.5e-5f};
    pass.widths = {20000};
    Program prog;
    prog.passes = {pass};
    Image flat(4, 4, 1);
    std::fill(flat.data.begin(), flat.data.end(), 0.7f);
    Image out;
    ASSERT_TRUE(run_on_backend(*be, program_plan(prog, b), flat, out).ok());
    for (float v : out.data) EXPECT_EQ(v, 0.7f) << border_name(b);
    double err = 0;
    ASSERT_TRUE(gl_error_vs_reference(*be, program_plan(prog, b), random_image(5, 3, 1, 11), err).ok());
    std::printf("[ measured ] %s, 20000 steps of 2.5e-5: max abs %.3g against the float64 reference\n",
                border_name(b), err);
    EXPECT_LE(err, 3e-5) << border_name(b);  // float32 rounds each step's small update (the CPU sums in float64)
  }
}

}  // namespace
}  // namespace gpublur::testing
