// GL iir1d's two schedules (gpu/gl/passes/iir1d.cpp) on long lines, each forced (GPUBLUR_GL_IIR_TILES_MIN_PIXELS):
// tiles (shaders/iir_tiles.comp; 188 tiles of 32 positions on 6000-wide rows, 172 on 5500-tall columns, the last ones
// partial; an iir plan's rows and columns of one or two channels run as the x/y pair, iir1d-tiles-pair) and segments
// (shaders/iir_segments.comp; 32 segments of 188 and 172 positions, of 512 on 16384-wide rows, their sweeps in float),
// so the chains and the border states (wrap and mirror from the zero-start totals) are exercised at full length, every
// border, both filters, a large sigma.
// Then the pair on odd sizes (partial tiles both ways, the group's square cut by both image edges), the tiles of a lone
// pass along either axis (no pair), and the size rule's choices unforced.
#include <cstdio>
#include <cstdlib>

#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlIir1d, LongLinesMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  for (const char* form : {"iir1d-tiles-pair", "iir1d-segments"}) {
    ::setenv("GPUBLUR_GL_IIR_TILES_MIN_PIXELS", std::string(form) == "iir1d-tiles-pair" ? "0" : "-1", 1);
    double worst = 0;
    uint32_t seed = 900;
    for (const char* impl : {"young-van-vliet", "deriche"})
      for (Border border : kBorders)
        for (auto [w, h] : {std::pair{6000, 2}, std::pair{3, 5500}, std::pair{16384, 2}}) {
          // 16384: segments of 512 positions, the longest float sweeps (the tiles' are 32 long at any width).
          if (w == 16384 && std::string(form) != "iir1d-segments") continue;
          const Plan plan = make_plan("iir", {{"impl", impl}, {"sigma", "200"}, {"border", border_name(border)}});
          SCOPED_TRACE(::testing::Message() << form << " " << impl << " " << border_name(border) << " " << w << "x"
                                            << h);
          const Image src = random_image(w, h, 1 + int(seed % 4), seed);
          const bool pair = std::string(form) == "iir1d-tiles-pair";
          worst = std::max(worst, expect_matches_reference(*be, plan, src,
                                                           pair && src.channels > 2 ? "iir1d-tiles" : form));
          ++seed;
        }
    std::printf("[ measured ] %s, long lines: max abs error %.3g\n", form, worst);
  }
  ::unsetenv("GPUBLUR_GL_IIR_TILES_MIN_PIXELS");
}

TEST(GlIir1d, PairOnOddSizesMatchesReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const ScopedEnv tiles("GPUBLUR_GL_IIR_TILES_MIN_PIXELS", "0");
  double worst = 0;
  uint32_t seed = 300;
  for (const char* impl : {"young-van-vliet", "deriche"})
    for (Border border : kBorders)
      for (auto [w, h] : {std::pair{77, 91}, std::pair{64, 33}, std::pair{33, 64}, std::pair{129, 40}}) {
        const Plan plan = make_plan("iir", {{"impl", impl}, {"sigma", "7"}, {"border", border_name(border)}});
        const int ch = 1 + int(seed % 4);  // 3 and 4: the passes apart
        SCOPED_TRACE(::testing::Message() << impl << " " << border_name(border) << " " << w << "x" << h << " ch "
                                          << ch);
        worst = std::max(worst, expect_matches_reference(*be, plan, random_image(w, h, ch, seed),
                                                         ch <= 2 ? "iir1d-tiles-pair" : "iir1d-tiles"));
        ++seed;
      }
  std::printf("[ measured ] iir1d-tiles-pair, odd sizes: max abs error %.3g\n", worst);
}

TEST(GlIir1d, LonePassTilesMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const ScopedEnv tiles("GPUBLUR_GL_IIR_TILES_MIN_PIXELS", "0");
  double worst = 0;
  uint32_t seed = 400;
  for (Border border : kBorders)
    for (int axis : {0, 1}) {
      const Plan iir = make_plan("iir", {{"sigma", "9"}, {"border", border_name(border)}});
      Program p;
      Pass pass = make_pass(Op::Iir1d, 0, 1, axis, border);
      pass.taps = iir.program.passes[0].taps;
      p.passes = {pass};
      const int ch = 1 + int(seed % 4);
      SCOPED_TRACE(::testing::Message() << border_name(border) << " axis " << axis << " ch " << ch);
      worst = std::max(worst, expect_matches_reference(*be, program_plan(p, border), random_image(70, 45, ch, seed),
                                                       "iir1d-tiles"));
      ++seed;
    }
  std::printf("[ measured ] iir1d-tiles, lone passes: max abs error %.3g\n", worst);
}

// The size rule unforced: one and two channels take the pair from 2048^2 pixels (kIirPairMinPixels), the segments
// below; RGBA keeps the segments up to kIirTilesMinPixels, unless their line buffer (16 bytes a pixel) exceeds the
// device's storage blocks: a 2900^2 RGBA image's 134.6 MB take the tiles on llvmpipe (128 MiB) and the segments on
// NVIDIA's (2 GiB).
TEST(GlIir1d, SizeRulePicksTheSchedule) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  ::unsetenv("GPUBLUR_GL_IIR_TILES_MIN_PIXELS");
  const Plan plan = make_plan("iir", {{"sigma", "5"}, {"border", "mirror"}});
  double worst = expect_matches_reference(*be, plan, random_image(2048, 2048, 1, 500), "iir1d-tiles-pair");
  worst = std::max(worst, expect_matches_reference(*be, plan, random_image(2048, 2047, 2, 501), "iir1d-segments"));
  worst = std::max(worst, expect_matches_reference(*be, plan, random_image(1100, 1000, 4, 502), "iir1d-segments"));
  worst = std::max(worst, expect_matches_reference(*be, plan, random_image(2900, 2900, 4, 503),
                                                   on_llvmpipe(*be) ? "iir1d-tiles" : "iir1d-segments"));
  std::printf("[ measured ] iir1d by the size rule: max abs error %.3g\n", worst);
}

}  // namespace
}  // namespace gpublur::testing
