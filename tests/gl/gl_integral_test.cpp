// GL coverage of Integral1d (the integral method) against the CPU reference: box1d.comp's tiles with
// fractional window ends (real widths just above 1 and just below an odd integer, integer widths, 1 and 8
// passes, reach beyond the image, long rows and columns, forced tile shapes and sum forms) and the line
// walkers (moving_average.comp with its fraction), all four borders, 1-4 channels.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

struct IntegralCase {
  int w, h;
  std::map<std::string, std::string> params;  // integral recipe parameters besides border
};

std::vector<IntegralCase> cases() {
  return {{1, 1, {{"sigma", "0.5"}}},
          {7, 3, {{"sigma", "40"}}},                         // reach ~150, far beyond the image
          {67, 41, {{"width", "1.0001"}, {"passes", "8"}}},  // e ~ 5e-5
          {40, 33, {{"width", "6.9999"}, {"passes", "3"}}},  // e just below 1
          {33, 60, {{"width", "5"}, {"passes", "2"}}},       // integer: no fraction
          {45, 30, {{"sigma", "4"}, {"rule", "kovesi"}, {"passes", "1"}}},
          {1500, 2, {{"sigma", "20"}}},
          {2, 1500, {{"sigma", "20"}}}};
}

// Every shader is compiled per width list and axis (llvmpipe: ~1 s each): `first` cases only where a knob
// changes the code path.
double run_cases(Backend& be, const std::string& path, uint32_t seed, size_t first = 99) {
  double worst = 0;
  for (Border border : kBorders)
    for (size_t k = 0; k < std::min(first, cases().size()); ++k) {
      const IntegralCase c = cases()[k];
      std::map<std::string, std::string> params = c.params;
      params["border"] = border_name(border);
      const int ch = 1 + int((size_t(border) + k) % 4);
      const Plan plan = make_plan("integral", params);
      SCOPED_TRACE(::testing::Message() << border_name(border) << " " << c.w << "x" << c.h << "x" << ch << " width "
                                        << plan.params.at("width") << " passes " << plan.params.at("passes"));
      worst = std::max(worst, expect_matches_reference(be, plan, random_image(c.w, c.h, ch, seed++), path));
    }
  return worst;
}

TEST(GlIntegral1d, TilesMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  // The product's schedule (the transposed pair of passes/box_pair.cpp where it applies: GlBox1d.ThePairOrThePasses);
  // then the rows and columns passes.
  std::printf("[ measured ] integral1d as the product runs it: max abs error %.3g\n", run_cases(*be, "", 1900));
  {
    const Plan plan = make_plan("integral", {{"sigma", "3"}, {"border", "wrap"}});
    expect_matches_reference(*be, plan, random_image(67, 41, 4, 1950), "integral1d-pair");
  }
  {
    ScopedEnv plain("GPUBLUR_GL_BOX_PAIR", "0");
    std::printf("[ measured ] integral1d tiles: max abs error %.3g\n", run_cases(*be, "integral1d-tiles", 2000));
  }
  // Shapes with every window start form: one position per invocation (all through the totals), small blocks; lines
  // of two channels (two rounds for three and four) and of one.
  uint32_t seed = 2100;
  // (Each shape both ways: the pair on images wider than tall and taller than wide, then the plain passes.)
  for (const char* shape : {"1x1", "8x5", "1x5x256x2", "2x3x256x1", "2x5x256x2"}) {
    ScopedEnv env("GPUBLUR_GL_BOX_TILE", shape);
    double worst = 0;
    for (const char* pair : {"1", "0"}) {
      ScopedEnv schedule("GPUBLUR_GL_BOX_PAIR", pair);
      for (Border border : kBorders)
        for (const char* width : {"2.5", "9.25"}) {
          SCOPED_TRACE(::testing::Message() << "tile " << shape << " pair " << pair << " width " << width << " "
                                            << border_name(border));
          const Plan plan =
              make_plan("integral", {{"width", width}, {"passes", "3"}, {"border", border_name(border)}});
          const std::string path = pair[0] == '1' ? "integral1d-pair" : "integral1d-tiles";
          worst = std::max(worst, expect_matches_reference(*be, plan, random_image(61, 23, 1 + int(border), seed++),
                                                           path));
          if (pair[0] == '1')
            worst = std::max(worst, expect_matches_reference(*be, plan, random_image(23, 61, 1 + int(border), seed++),
                                                             path));
        }
    }
    std::printf("[ measured ] integral1d tile %s: max abs error %.3g\n", shape, worst);
  }
  for (const char* sums : {"fast2sum", "twosum", "f64"}) {
    ScopedEnv env("GPUBLUR_GL_BOX_SUMS", sums);
    std::printf("[ measured ] integral1d as the product runs it, %s sums: max abs error %.3g\n", sums,
                run_cases(*be, "", seed += 100, 4));
    ScopedEnv plain("GPUBLUR_GL_BOX_PAIR", "0");
    std::printf("[ measured ] integral1d tiles, %s sums: max abs error %.3g\n", sums,
                run_cases(*be, "integral1d-tiles", seed += 100, 4));
  }
}

TEST(GlIntegral1d, LineWalkersMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  ScopedEnv env("GPUBLUR_GL_BOX_TILE", "lines");
  std::printf("[ measured ] integral1d as line walkers: max abs error %.3g\n",
              run_cases(*be, "moving-average", 2500));
}

}  // namespace
}  // namespace gpublur::testing
