// GL coverage of the spread method's primitives (spread.comp, its two tables as sat_pair.comp's pair, scale.comp)
// against the CPU reference beyond the matrix's two radii: R 1 (the identity), R past the image on both axes,
// long rows and columns, R far past the image (the margin's fold through the taps), every border, 1-4 channels.
#include <algorithm>
#include <cstdio>
#include <string>

#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlSpread, MatchesReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  struct Case {
    int w, h, R;
  };
  // R 600: a corner's (2R - 2)^2 margin values, which the fold by folded pixels split over dispatches on llvmpipe
  // (its loop limit); the fold through the taps (gl spread.cpp) reads at most the image's lines.
  const Case cases[] = {{1, 1, 3},  {23, 17, 1}, {23, 17, 9},  {23, 17, 40},
                        {300, 5, 17}, {5, 300, 17}, {64, 48, 6}, {2, 3, 600}};
  double worst = 0;
  uint32_t seed = 3100;
  for (Border border : kBorders)
    for (size_t k = 0; k < std::size(cases); ++k) {
      const Case c = cases[k];
      const int ch = 1 + int((size_t(border) + k) % 4);
      const Plan plan = make_plan("spread", {{"radius", std::to_string(c.R)}, {"border", border_name(border)}});
      SCOPED_TRACE(::testing::Message() << border_name(border) << " " << c.w << "x" << c.h << "x" << ch << " R " << c.R);
      worst = std::max(worst, expect_matches_reference(*be, plan, random_image(c.w, c.h, ch, seed++),
                                                       "spread+sat-pair+scale"));
    }
  std::printf("[ measured ] spread: max abs error %.3g\n", worst);
}

// The margin's fold through the taps on the source's lines (gl spread.cpp, core/spread_fold.hpp) at radii far past
// the image, where the border modes fold E's positions back onto the image many times over: every border, 1-4
// channels, against the reference's literal fold.
TEST(GlSpread, FoldMatchesReferenceFarBeyondTheImage) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  struct Case {
    int w, h, R;
  };
  const Case cases[] = {{7, 5, 40}, {7, 5, 300}, {23, 17, 40}, {23, 17, 300}, {9, 1, 40}};
  double worst = 0;
  uint32_t seed = 3200;
  for (Border border : kBorders)
    for (const Case& c : cases)
      for (int ch = 1; ch <= 4; ++ch) {
        const Plan plan = make_plan("spread", {{"radius", std::to_string(c.R)}, {"border", border_name(border)}});
        SCOPED_TRACE(::testing::Message() << border_name(border) << " " << c.w << "x" << c.h << "x" << ch << " R "
                                          << c.R);
        worst = std::max(worst, expect_matches_reference(*be, plan, random_image(c.w, c.h, ch, seed++),
                                                         "spread+sat-pair+scale"));
      }
  std::printf("[ measured ] spread's fold far past the image: max abs error %.3g\n", worst);
}

}  // namespace
}  // namespace gpublur::testing
