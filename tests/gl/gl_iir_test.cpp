// GL iir1d (gpu/gl/passes/iir1d.cpp, shaders/iir_segments.comp) on long lines: 64 segments of 94 positions
// (6000-wide rows) and 86 (5500-tall columns), so the segments' chain and the border states (wrap and mirror
// from the zero-start totals) are exercised at full width, every border, both filters, a large sigma.
#include <cstdio>

#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlIir1d, LongLinesMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  double worst = 0;
  uint32_t seed = 900;
  for (const char* impl : {"young-van-vliet", "deriche"})
    for (Border border : kBorders)
      for (auto [w, h] : {std::pair{6000, 2}, std::pair{3, 5500}}) {
        const Plan plan = make_plan("iir", {{"impl", impl}, {"sigma", "200"}, {"border", border_name(border)}});
        SCOPED_TRACE(::testing::Message() << impl << " " << border_name(border) << " " << w << "x" << h);
        worst = std::max(worst, expect_matches_reference(*be, plan, random_image(w, h, 1 + int(seed % 4), seed), "iir1d-segments"));
        ++seed;
      }
  std::printf("[ measured ] iir1d long lines: max abs error %.3g\n", worst);
}

}  // namespace
}  // namespace gpublur::testing
