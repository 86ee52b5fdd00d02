// GL iir1d's two schedules (gpu/gl/passes/iir1d.cpp) on long lines, each forced (GPUBLUR_GL_IIR_TILES_MIN_PIXELS):
// tiles (shaders/iir_tiles.comp; 188 tiles of 32 positions on 6000-wide rows, 172 on 5500-tall columns, the
// last ones partial) and segments (shaders/iir_segments.comp; 64 segments of 94 and 86 positions), so the chains
// and the border states (wrap and mirror from the zero-start totals) are exercised at full length, every border,
// both filters, a large sigma.
#include <cstdio>
#include <cstdlib>

#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlIir1d, LongLinesMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  for (const char* form : {"iir1d-tiles", "iir1d-segments"}) {
    ::setenv("GPUBLUR_GL_IIR_TILES_MIN_PIXELS", std::string(form) == "iir1d-tiles" ? "0" : "-1", 1);
    double worst = 0;
    uint32_t seed = 900;
    for (const char* impl : {"young-van-vliet", "deriche"})
      for (Border border : kBorders)
        for (auto [w, h] : {std::pair{6000, 2}, std::pair{3, 5500}}) {
          const Plan plan = make_plan("iir", {{"impl", impl}, {"sigma", "200"}, {"border", border_name(border)}});
          SCOPED_TRACE(::testing::Message() << form << " " << impl << " " << border_name(border) << " " << w << "x"
                                            << h);
          const Image src = random_image(w, h, 1 + int(seed % 4), seed);
          worst = std::max(worst, expect_matches_reference(*be, plan, src, form));
          ++seed;
        }
    std::printf("[ measured ] %s, long lines: max abs error %.3g\n", form, worst);
  }
  ::unsetenv("GPUBLUR_GL_IIR_TILES_MIN_PIXELS");
}

}  // namespace
}  // namespace gpublur::testing
