// GL-specific coverage of the box primitives against the CPU reference: the edge cases of each schedule
// (box1d tiles and their shapes, the line walkers, Hensley's table passes, direct windows, padded
// intermediates), all four borders, 1-4 channels, odd sizes down to 1x1, reaches beyond the image.
#include <glad/gl.h>

#include <cstdio>
#include <vector>

#include "gpu/gl/gl_context.hpp"
#include "gpu/gl/gl_tiles.hpp"
#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

struct BoxCase {
  int w, h;
  std::map<std::string, std::string> params;  // box recipe parameters besides border and impl
};

int channels_for(Border b, size_t k) { return 1 + int((size_t(b) + k) % 4); }

// Runs the box recipe with `impl` over `cases` x all borders; returns the worst error.
double run_box_cases(Backend& be, const char* impl, const std::vector<BoxCase>& cases, const std::string& path,
                     uint32_t seed) {
  double worst = 0;
  for (Border border : kBorders)
    for (size_t k = 0; k < cases.size(); ++k) {
      const BoxCase& c = cases[k];
      std::map<std::string, std::string> params = c.params;
      params["border"] = border_name(border);
      params["impl"] = impl;
      const int ch = channels_for(border, k);
      const Plan plan = make_plan("box", params);
      SCOPED_TRACE(::testing::Message() << impl << " " << border_name(border) << " " << c.w << "x" << c.h << "x" << ch
                                        << " width " << plan.params.at("width"));
      worst = std::max(worst, expect_matches_reference(be, plan, random_image(c.w, c.h, ch, seed++), path));
    }
  return worst;
}

Pass box_pass(Op op, int src, int dst, int axis, Border border, std::vector<int> widths) {
  Pass p = make_pass(op, src, dst, axis, border);
  p.widths = std::move(widths);
  return p;
}

// One box1d pass of `widths` along `axis` (a program: box's --width stops at 4097, and two-channel lines hold wider).
Plan lone_box1d(const std::vector<int>& widths, Border border, int axis) {
  Program p;
  p.passes = {box_pass(Op::Box1d, 0, 1, axis, border, widths)};
  return program_plan(p, border);
}

// Box1d x then y of `widths` (any odd widths, not only Kovesi's), src 0 -> 2 -> 1.
Program box1d_pair(const std::vector<int>& widths, Border border, Op op = Op::Box1d) {
  Program p;
  const int mid = p.add_image({});
  p.passes = {box_pass(op, 0, mid, 0, border, widths), box_pass(op, mid, 1, 1, border, widths)};
  return p;
}

// This device's shared memory and invocations a group, as box_tile takes them (from a context of the test's own).
void tile_limits(GLint& shared, GLint& invocations) {
  std::string error;
  auto ctx = GlContext::create(0, error);
  ASSERT_TRUE(ctx) << error;
  ASSERT_TRUE(ctx->make_current().ok());
  glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &shared);
  glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &invocations);
  ctx->release();
}

// The cases every box schedule runs: 1x1, 7x3 with a reach of ~190 (far beyond the image), 8-pass
// cascades, a single pass, long rows and long columns.
std::vector<BoxCase> common_cases() {
  return {{1, 1, {{"sigma", "0.5"}}},
          {7, 3, {{"sigma", "64"}}},
          {67, 41, {{"sigma", "3"}, {"passes", "8"}}},
          {40, 33, {{"sigma", "12"}, {"passes", "8"}}},
          {33, 60, {{"sigma", "5"}, {"passes", "1"}}},
          {1500, 2, {{"sigma", "20"}}},
          {2, 1500, {{"sigma", "20"}}}};
}

// The product's schedule: the x-y pair as two column passes that store transposed (passes/box_pair.cpp) where it
// applies (which: ThePairOrThePasses), else the rows and columns passes; then the passes themselves
// (GPUBLUR_GL_BOX_PAIR=0; lone passes and padded images take them).
TEST(GlBox1d, TilesMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  std::printf("[ measured ] box1d as the product runs it: max abs error %.3g\n",
              run_box_cases(*be, "separable", common_cases(), "", 900));
  ScopedEnv env("GPUBLUR_GL_BOX_PAIR", "0");
  const double worst = run_box_cases(*be, "separable", common_cases(), "box1d-tiles", 1000);
  std::printf("[ measured ] box1d tiles: max abs error %.3g\n", worst);
}

// For every forced tile shape (GPUBLUR_GL_BOX_TILE=LINESxPER[xTHREADS...]) and every widths list its span holds, and
// every border: run(widths, border, channels) returns a case's error; prints each shape's worst under `what`.
template <class Run>
void for_tile_shapes(const std::vector<const char*>& shapes, const std::vector<std::vector<int>>& lists,
                     const char* what, Run run) {
  for (const char* shape : shapes) {
    ScopedEnv env("GPUBLUR_GL_BOX_TILE", shape);
    int lines = 0, per = 0, threads = 256;
    std::sscanf(shape, "%dx%dx%d", &lines, &per, &threads);
    const int span = threads * per / lines;
    double worst = 0;
    for (size_t k = 0; k < lists.size(); ++k) {
      int reach = 0;
      for (int w : lists[k]) reach += w / 2;
      if (span - 2 * reach < 1) continue;  // the shape cannot hold this reach
      for (Border border : kBorders) {
        SCOPED_TRACE(::testing::Message() << "tile " << shape << " widths list " << k << " " << border_name(border));
        worst = std::max(worst, run(lists[k], border, channels_for(border, k)));
      }
    }
    std::printf("[ measured ] %s tile %s: max abs error %.3g\n", what, shape, worst);
  }
}

// Forced tile shapes (GPUBLUR_GL_BOX_TILE=LINESxPER) around the per-invocation block length: widths below,
// at and above it, window starts that take whole blocks from the float64 totals plus a partial block, boxes
// of width 1; one position per invocation (every box > 1 wide through the totals); groups of many lines with
// little room beyond the reach; a lone pass along y; lines of two channels (xVCH 2: three- and four-channel images
// in two rounds) and of one (two rounds of two where the image has more), and vec4 lines for every channel count (x4).
// Every shape fits llvmpipe's 32 KiB.
TEST(GlBox1d, TileShapesAroundTheBlockLength) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const std::vector<std::vector<int>> lists = {
      {1, 3, 5, 7, 9, 11, 13, 15},  // reach 28
      {5, 5, 5},                    // reach 6
      {25, 3},                      // reach 13
      {41}};                        // reach 20
  uint32_t seed = 1100;
  ScopedEnv plain("GPUBLUR_GL_BOX_PAIR", "0");  // the rows and columns passes (the pair: TransposedPairShapes)
  // Groups of 224 invocations (7 warps; box_tile's shape for wide windows on 48 KiB devices) as well.
  for_tile_shapes({"1x1", "1x5", "8x5", "16x3", "2x3", "2x5x224", "1x7x224", "1x5x256x2", "2x3x256x2", "1x9x224x2",
                   "4x5x256x1", "8x3x256x4"},
                  lists, "box1d", [&](const std::vector<int>& widths, Border border, int ch) {
                    seed += 2;  // (two images, seeds in order)
                    return std::max(expect_matches_reference(*be, program_plan(box1d_pair(widths, border), border),
                                                             random_image(61, 23, ch, seed - 2), "box1d-tiles"),
                                    expect_matches_reference(*be, lone_box1d(widths, border, 1),
                                                             random_image(23, 61, ch, seed - 1), "box1d-tiles"));
                  });
}

// Where the product runs the transposed pair: boxes of every reach a tile holds for three and four channels (one line a
// group too), for one and two channels where box_pair_tile takes two lines a group, and for two channels as float
// lines in two rounds (one line a group of floats or vec2 lines stores a row at a time: the passes were faster), and
// nowhere with GPUBLUR_GL_BOX_PAIR=0 or the line walkers forced.
TEST(GlBox1d, ThePairOrThePasses) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  GLint shared = 0, invocations = 0;
  ASSERT_NO_FATAL_FAILURE(tile_limits(shared, invocations));
  uint32_t seed = 1180;
  const auto check = [&](int ch, const char* sigma, const char* path) {
    SCOPED_TRACE(::testing::Message() << ch << " channels, sigma " << sigma);
    const Plan plan = make_plan("box", {{"sigma", sigma}, {"border", "mirror"}});
    expect_matches_reference(*be, plan, random_image(67, 41, ch, seed++), path);
  };
  check(4, "3", "box1d-pair");
  check(1, "3", "box1d-pair");
  check(2, "12", "box1d-pair");
  check(3, "64", "box1d-pair");    // reach 191: box_tile's shape (no two-line shape of the pair's)
  check(1, "200", "box1d-tiles");  // reach 599: one line a group of floats, the passes
  check(2, "200", "box1d-tiles");
  // Two channels as float lines in two rounds along both axes: the smallest square whose lines take that tile on this
  // device (box sigma 500 clamp: 64 on llvmpipe's 32 KiB, 3928 on an H200; integral sigma 500 mirror: 64 / 1508).
  for (const auto& [method, border] : {std::pair{"box", "clamp"}, {"integral", "mirror"}}) {
    const Plan plan = make_plan(method, {{"sigma", "500"}, {"border", border}});
    const Pass& pass = plan.program.passes[0];
    const bool frac = pass.op == Op::Integral1d;
    const std::vector<int> spans = gl_box_cascade(pass).spans;
    const auto float_rounds = [&](int n) {
      const BoxTile t = box_pair_tile(spans, shared, invocations, "", "", n, 2, frac, box_const_tail(pass.border));
      return t.lines == 1 && t.rounds == 2 && t.vch == 1;
    };
    int n = 64;
    while (n <= 8192 && !float_rounds(n)) n += 4;
    SCOPED_TRACE(::testing::Message() << method << " sigma 500 " << border << " " << n << "^2");
    ASSERT_LE(n, 8192) << "no square takes float lines in two rounds on this device";
    expect_matches_reference(*be, plan, random_image(n, n, 2, seed++), frac ? "integral1d-pair" : "box1d-pair");
  }
  {
    ScopedEnv env("GPUBLUR_GL_BOX_PAIR", "0");
    check(4, "3", "box1d-tiles");
  }
  ScopedEnv env("GPUBLUR_GL_BOX_TILE", "lines");
  check(4, "3", "moving-average");
}

// Constant tails (BoxTile::tail): box and integral as the product runs them, the pair and the passes, on lines that
// this device's tiles hold in one group with a tail (box_tile), on lines of several groups whose last one takes a tail
// (box_last_tile: integral's three and four channels in two rounds; the pair's two lines a group, 1-4 channels): the
// shortest of each found from 200 positions on (they depend on the device's shared memory), along x and along y,
// against the reference; on lines whose one group with a tail takes more than 256 invocations (three and four
// channels); every border (mirror and wrap take no tail).
TEST(GlBox1d, ConstantTailsMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  GLint shared = 0, invocations = 0;
  ASSERT_NO_FATAL_FAILURE(tile_limits(shared, invocations));
  struct TailCase {
    const char* method;
    const char* sigma;
    int axis, ch;
    bool pair;  // the pair's tiles (box_pair_tile), their last groups only, on square images
    bool wide = false;  // instead: the shortest line that takes a tail of more than 256 invocations (form 2 below)
    const char* vch = "";  // form 2: forced with this VCH ("x1": two channels as float lines in two rounds)
  };
  uint32_t seed = 1260;
  for (const TailCase& c :
       {TailCase{"box", "100", 0, 4, false}, TailCase{"box", "100", 1, 3, false}, TailCase{"box", "100", 0, 1, false},
        TailCase{"box", "100", 1, 2, false}, TailCase{"integral", "40", 0, 4, false},
        TailCase{"integral", "40", 1, 3, false}, TailCase{"box", "60", 1, 4, false}, TailCase{"box", "24", 0, 1, true},
        TailCase{"box", "24", 1, 2, true}, TailCase{"box", "24", 0, 4, true}, TailCase{"integral", "3", 1, 3, true},
        TailCase{"integral", "200", 0, 4, false, true}, TailCase{"box", "300", 1, 3, false, true},
        TailCase{"box", "300", 0, 1, false, true}, TailCase{"integral", "200", 1, 2, false, true},
        TailCase{"box", "100", 0, 2, false, true, "x1"}}) {
    const Plan clamp = make_plan(c.method, {{"sigma", c.sigma}, {"border", "clamp"}});
    const Pass& pass = clamp.program.passes[c.axis];
    ASSERT_EQ(pass.axis, c.axis);
    const bool frac = pass.op == Op::Integral1d;
    const std::vector<int> spans = frac ? gl_box_cascade(pass).spans : pass.widths;
    const auto tile = [&](int n) {
      return c.pair ? box_pair_tile(spans, shared, invocations, "", "", n, c.ch, frac, true)
                    : box_tile(spans, shared, invocations, "", "", n, c.ch, frac, true);
    };
    // form 0: one group with a tail, 1: a last group's tail, 2: one group of more than 256 invocations with a tail
    // (box_tile's tails of 320 or 384 invocations).
    for (const int form : {0, 1, 2}) {
      // (The passes' cases of one and two channels, and box's, search one-group tails only: the pair's cases, last
      // groups only, cover last groups of one and two channels, and box takes none of one line in two rounds.)
      if (form == 1 ? !c.pair && (c.ch <= 2 || !frac) : c.pair) continue;
      if ((form == 2) != c.wide) continue;
      const auto takes = [&](int n) {
        const BoxTile t = tile(n);
        return form == 1 ? box_last_tile(t, spans, shared, n, "", frac).lines > 0
                         : t.tail && (form == 0 || t.threads > 256);
      };
      int n = 200;
      while (n <= 8192 && !takes(n)) n += 50;
      SCOPED_TRACE(::testing::Message() << c.method << " sigma " << c.sigma
                                        << (form == 1 ? " last group" : form == 0 ? " one group" : " wide group"));
      // Where no line takes a wide tail (less than 48 KiB of shared memory: llvmpipe's 32 KiB hold no tail of 384 x 11
      // or more), a shape forced (GPUBLUR_GL_BOX_TILE) on the longest line it holds: 384 x 7, or where its window
      // starts would scan (box sigma 300: 84 whole blocks) 288 x 11; of two channels in two rounds for three and four.
      // A case that names a VCH always takes that shape forced in it (two channels' float lines in two rounds are the
      // device's choice only on lines longer than llvmpipe's tiles hold).
      std::string forced;
      const std::string vch = c.ch > 2 ? "x2" : c.vch;
      if (form == 2 && ((n > 8192 && shared < 49152) || *c.vch))
        for (const std::string& f : {"1x7x384" + vch + "t", "1x11x288" + vch + "t"})
          if (box_tile(spans, shared, invocations, f, "", 200, c.ch, frac, true).tail) {
            forced = f;
            break;
          }
      if (!forced.empty()) {
        for (n = 200; box_tile(spans, shared, invocations, forced, "", n + 50, c.ch, frac, true).tail;) n += 50;
        ASSERT_TRUE(box_tile(spans, shared, invocations, forced, "", n, c.ch, frac, true).tail);
        std::printf("[ forced   ] %s sigma %s: %s on %d positions\n", c.method, c.sigma, forced.c_str(), n);
      }
      ASSERT_LE(n, 8192) << "no line length takes that tail here";
      ScopedEnv shape("GPUBLUR_GL_BOX_TILE", forced);
      // The pair's cases square: a short other side would hold its lines in one group with a tail, which the pair
      // leaves to the passes for one and two channels.
      const int other = c.pair ? n : 37, w = c.axis == 0 ? n : other, h = c.axis == 0 ? other : n;
      for (const char* pair : {"1", "0"})
        for (Border border : kBorders) {
          if (c.pair && pair[0] == '0') continue;  // (the passes: the other cases)
          ScopedEnv env("GPUBLUR_GL_BOX_PAIR", pair);
          SCOPED_TRACE(::testing::Message() << w << "x" << h << "x" << c.ch << " " << border_name(border) << " pair "
                                            << pair);
          const Plan plan = make_plan(c.method, {{"sigma", c.sigma}, {"border", border_name(border)}});
          expect_matches_reference(*be, plan, random_image(w, h, c.ch, seed++), "", plan.tolerance);
        }
    }
  }
}

// The pair's groups walking two lines (box1d.comp WALK, gl_tiles.hpp box_walks), forced (GPUBLUR_GL_BOX_WALK=1) on the
// smallest images whose lines both passes hold in one group of one line in two rounds (this device's shapes: the rule
// leaves llvmpipe's out): box and integral, three and four channels (vec2 lines) and two (float lines, that shape
// forced), every border, an odd count of lines in one pass (its last group's second line past the image), against the
// reference.
TEST(GlBox1d, PairGroupsWalkingTwoLines) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  GLint shared = 0, invocations = 0;
  ASSERT_NO_FATAL_FAILURE(tile_limits(shared, invocations));
  uint32_t seed = 1290;
  int cases = 0;
  for (const auto& [method, sigma] : {std::pair{"box", "60"}, {"integral", "40"}})
    for (const int ch : {4, 3, 2})
      for (Border border : kBorders) {
        const Plan plan = make_plan(method, {{"sigma", sigma}, {"border", border_name(border)}});
        const Pass& pass = plan.program.passes[0];
        const bool frac = pass.op == Op::Integral1d;
        const std::vector<int> spans = gl_box_cascade(pass).spans;
        // Two channels take float lines in two rounds only where no vec2 line fits (beyond llvmpipe's tiles): forced.
        const std::string spec = ch == 2 ? "1x5x256x1t" : "";
        const auto walks = [&](int n) {
          const BoxTile t = box_pair_tile(spans, shared, invocations, spec, "", n, ch, frac, box_const_tail(border));
          return box_walks(t, shared, 1) && t.outputs() >= n;
        };
        int n = 101;
        while (n <= 4097 && !(walks(n) && walks(n + 1))) n += 2;
        SCOPED_TRACE(::testing::Message() << method << " sigma " << sigma << " " << border_name(border) << " " << n
                                          << "x" << n + 1 << "x" << ch);
        ASSERT_LE(n, 4097) << "no image's lines take one group of one line in two rounds here";
        ScopedEnv env("GPUBLUR_GL_BOX_WALK", "1"), shape("GPUBLUR_GL_BOX_TILE", spec);
        expect_matches_reference(*be, plan, random_image(n, n + 1, ch, seed++), frac ? "integral1d-pair" : "box1d-pair",
                                 plan.tolerance);
        ++cases;
      }
  EXPECT_EQ(cases, 24);
}

// The rule that picks the walk (box_walks) on NVIDIA's 48 KB shapes as measured: one line a group with a tail in two
// rounds, of 256 or 384 invocations, one group an SM; not where two groups run an SM, not 160 or 320 invocations, not
// two lines a group, not without a tail; forced on or off.
TEST(GlBox1d, WhereGroupsWalkTwoLines) {
  BoxTile t;
  t.threads = 256, t.lines = 1, t.per = 19, t.vch = 2, t.rounds = 2, t.totals = 1, t.tail = true, t.reach = 599;
  ASSERT_EQ(t.shared_bytes(), 43008);  // box sigma 200's 4096 lines on an H200
  EXPECT_TRUE(box_walks(t, 49152));
  BoxTile b = t;
  b.threads = 384, b.per = 13;  // integral sigma 150-200's
  EXPECT_TRUE(box_walks(b, 49152));
  b.threads = 320, b.per = 17;  // box sigma 300's: measured slower
  EXPECT_FALSE(box_walks(b, 49152));
  b = t, b.threads = 160, b.per = 17;  // two groups an SM (2048 lines, sigma 100-200): slower
  EXPECT_FALSE(box_walks(b, 49152));
  b = t, b.per = 9;  // 256 x 9: two groups an SM
  EXPECT_FALSE(box_walks(b, 49152));
  EXPECT_TRUE(box_walks(b, 49152, 1));
  b = t, b.tail = false;
  EXPECT_FALSE(box_walks(b, 49152));
  b = t, b.lines = 2, b.per = 9;
  EXPECT_FALSE(box_walks(b, 49152, 1));  // the shader walks one line a group only
  b = t, b.rounds = 1, b.vch = 4;
  EXPECT_FALSE(box_walks(b, 49152, 1));
  EXPECT_FALSE(box_walks(t, 49152, 0));
}

// The transposed pair (passes/box_pair.cpp) with forced shapes: one line, groups of several lines (the transposed
// stores in quads), lines of two channels in two rounds and of one, on images wider than tall and taller than wide
// (the scratch texture of the transposed size), every border.
TEST(GlBox1d, TransposedPairShapes) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const std::vector<std::vector<int>> lists = {{1, 3, 5, 7, 9, 11, 13, 15}, {5, 5, 7}, {25, 3}};
  uint32_t seed = 1150;
  for_tile_shapes({"1x5", "8x5", "2x3", "2x5x256x2", "2x9x256x2", "4x5x256x1", "1x9x224x2"}, lists,
                  "box1d transposed pair", [&](const std::vector<int>& widths, Border border, int ch) {
                    const Plan plan = program_plan(box1d_pair(widths, border), border);
                    seed += 2;  // (two images, seeds in order)
                    return std::max(
                        expect_matches_reference(*be, plan, random_image(61, 23, ch, seed - 2), "box1d-pair"),
                        expect_matches_reference(*be, plan, random_image(23, 61, ch, seed - 1), "box1d-pair"));
                  });
}

// One and two channels whose reach no group of 9 or 11 positions an invocation holds (box sigma 500, integral sigma
// 400 and 500) run as tiles, not as the line walkers, and where those groups store little (box sigma 400) in the same
// shapes: groups of 13-21 in one round (two channels also float lines in two rounds), tails on clamp and zero; rows of
// 4100 (several groups where no tail holds them) and short lines, every border, against the CPU reference.
TEST(GlBox1d, ReachesBeyondGroupsOf11) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  uint32_t seed = 1600;
  double worst = 0;
  const std::pair<const char*, const char*> cases[] = {
      {"box", "400"}, {"box", "500"}, {"integral", "400"}, {"integral", "500"}};
  for (const auto& [method, sigma] : cases)
    for (int ch : {1, 2})
      for (Border border : kBorders)
        for (const auto& [w, h] : {std::pair{4100, 5}, {45, 70}}) {
          SCOPED_TRACE(::testing::Message() << method << " sigma " << sigma << " " << w << "x" << h << "x" << ch << " "
                                            << border_name(border));
          const Plan plan = make_plan(method, {{"sigma", sigma}, {"border", border_name(border)}});
          RunInfo info;
          double err = 0;
          const Status s = gl_error_vs_reference(*be, plan, random_image(w, h, ch, seed++), err, &info);
          ASSERT_TRUE(s.ok()) << s.error;
          EXPECT_NE(info.path, "moving-average");
          EXPECT_LE(err, plan.tolerance);
          worst = std::max(worst, err);
        }
  std::printf("[ measured ] box and integral beyond groups of 11: max abs error %.3g\n", worst);
}

// The widest box that still gets a tile on this device runs as tiles (one line per group, the fewest outputs
// box_tile allows), the next width as the line walkers; per channel count, since one- and two-channel lines take a
// quarter and half the shared memory of RGBA's.
TEST(GlBox1d, ReachAtTheTileLimit) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  GLint shared = 0, invocations = 0;
  ASSERT_NO_FATAL_FAILURE(tile_limits(shared, invocations));
  // The widest tile of each border's channel count (1 + border, as the images below), along the image's 9-pixel rows.
  const auto widest = [&](int channels) {
    int fit = 1;
    while (fit + 2 <= 8193 && box_tile({fit + 2}, shared, invocations, "", "", 9, channels).lines > 0) fit += 2;
    return fit;
  };
  uint32_t seed = 1200;
  double worst = 0;
  for (Border border : kBorders) {
    const int ch = 1 + int(border), fit = widest(ch);
    ASSERT_LT(fit, 8193);
    const BoxTile t = box_tile({fit}, shared, invocations, "", "", 9, ch);
    EXPECT_EQ(t.lines, 1);
    std::printf("[ limits   ] box1d tiles of %d channels up to width %d (reach %d): %d positions per invocation, %d "
                "stored per line\n", ch, fit, fit / 2, t.per, t.outputs());
    for (int w : {fit, fit + 2}) {
      SCOPED_TRACE(::testing::Message() << "width " << w << " " << border_name(border));
      worst = std::max(worst, expect_matches_reference(*be, lone_box1d({w}, border, 0), random_image(9, 5, ch, seed++),
                                                       w == fit ? "box1d-tiles" : "moving-average"));
    }
  }
  std::printf("[ measured ] box1d at the tile limit: max abs error %.3g\n", worst);
  // The same widest box with its window starts from the block totals summed plainly, all (fit - per) / per of them
  // (the product takes them up to 64 and the scan beyond), one by one and in groups: the plain sums' float32 error
  // at its worst here.
  for (const char* totals : {"direct", "grouped"}) {
    ScopedEnv env("GPUBLUR_GL_BOX_TOTALS", totals);
    worst = 0;
    int most = 0;
    for (Border border : kBorders) {
      const int ch = 1 + int(border), fit = widest(ch);
      const BoxTile t = box_tile({fit}, shared, invocations, "", totals, 9, ch);
      most = std::max(most, (fit - t.per) / t.per);
      worst = std::max(worst, expect_matches_reference(*be, lone_box1d({fit}, border, 0),
                                                       random_image(9, 5, ch, seed++), "box1d-tiles"));
    }
    std::printf("[ measured ] box1d at the tile limit, up to %d totals summed plainly (%s): max abs error %.3g\n",
                most, totals, worst);
  }
}

// The knobs: line walkers for every box1d pass (GPUBLUR_GL_BOX_TILE=lines), the other sum forms in the tiles
// (GPUBLUR_GL_BOX_SUMS: Fast2Sum and TwoSum pairs, float64), each form of window start (GPUBLUR_GL_BOX_TOTALS: block
// totals one by one, in groups, the scan of them) for boxes narrow and wide relative to the blocks.
TEST(GlBox1d, LineWalkersSumsAndWindowStarts) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const std::vector<BoxCase> cases = {{1, 1, {{"sigma", "0.5"}}},
                                      {7, 3, {{"sigma", "64"}}},
                                      {67, 41, {{"sigma", "3"}, {"passes", "8"}}},
                                      {300, 37, {{"sigma", "12"}, {"passes", "2"}}}};
  {
    ScopedEnv env("GPUBLUR_GL_BOX_TILE", "lines");
    std::printf("[ measured ] box1d as line walkers: max abs error %.3g\n",
                run_box_cases(*be, "separable", cases, "moving-average", 1300));
  }
  uint32_t seed = 1400;
  // As the product runs them (path "": the transposed pair where it applies), then in the rows and columns passes.
  for (const char* pair : {"1", "0"}) {
    ScopedEnv schedule("GPUBLUR_GL_BOX_PAIR", pair);
    const std::string path = pair[0] == '1' ? "" : "box1d-tiles";
    const char* what = pair[0] == '1' ? "box1d as the product runs it" : "box1d tiles";
    for (const char* sums : {"fast2sum", "twosum", "f64"}) {
      ScopedEnv env("GPUBLUR_GL_BOX_SUMS", sums);
      std::printf("[ measured ] %s, %s sums: max abs error %.3g\n", what, sums,
                  run_box_cases(*be, "separable", cases, path, seed += 100));
    }
    for (const char* totals : {"direct", "grouped", "scan"}) {
      ScopedEnv env("GPUBLUR_GL_BOX_TOTALS", totals);
      std::printf("[ measured ] %s, window starts from %s totals: max abs error %.3g\n", what, totals,
                  run_box_cases(*be, "separable", cases, path, seed += 100));
    }
  }
}

// MovingAverage, the Intel article's line walkers: 1 box (texture to texture), 2 boxes (one line buffer),
// 3 and 8 (ping-pong), reaches beyond the image, long lines.
TEST(GlMovingAverage, CascadesMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  std::vector<BoxCase> cases = common_cases();
  cases.push_back({45, 30, {{"sigma", "4"}, {"passes", "2"}}});
  std::printf("[ measured ] moving-average: max abs error %.3g\n",
              run_box_cases(*be, "moving-average", cases, "moving-average", 1500));
}

// Summed-area tables: Hensley's pass counts around powers of two (tables 16 and 17 wide: 4 and 5 doubling
// passes; a 1x1 table: the extending pass alone), 1..8 tables of different paddings in one program, a
// source extended far beyond a small image.
TEST(GlSat, TablesAndLookupsMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const std::vector<BoxCase> cases = {{1, 1, {{"width", "1"}, {"passes", "1"}}},
                                      {16, 16, {{"width", "1"}, {"passes", "1"}}},
                                      {17, 15, {{"width", "1"}, {"passes", "1"}}},
                                      {14, 13, {{"width", "3"}, {"passes", "1"}}},
                                      {1, 1, {{"sigma", "2"}}},
                                      {7, 3, {{"sigma", "64"}}},
                                      {67, 41, {{"sigma", "3"}, {"passes", "8"}}},
                                      {40, 33, {{"sigma", "12"}, {"passes", "2"}}}};
  std::printf("[ measured ] sat + sat-box: max abs error %.3g\n",
              run_box_cases(*be, "sat", cases, "sat-doubling+sat-box", 1600));
}

// Direct 2D windows through padded intermediates; 131 wide on llvmpipe splits its rows over two dispatches
// (its loop limit) with a float64 accumulator.
TEST(GlBox2d, DirectWindowsMatchReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const std::vector<BoxCase> cases = {{1, 1, {{"sigma", "0.5"}}},
                                      {7, 3, {{"sigma", "12"}}},
                                      {31, 17, {{"sigma", "3"}, {"passes", "8"}}},
                                      {5, 4, {{"width", "131"}, {"passes", "1"}}}};
  std::printf("[ measured ] box2d: max abs error %.3g\n", run_box_cases(*be, "2d", cases, "box2d-direct", 1700));
}

// Padded images through every primitive that takes them: the input copied into a padded image (border
// mode), a 2D box and a table read inside the padding, copied back out of a padded image.
TEST(GlPadded, CopiesAndTablesThroughPaddedImages) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  uint32_t seed = 1800;
  double worst = 0;
  for (Border border : kBorders) {
    Program a;  // copy 0 -> pad 4, box2d w 5 -> pad 2, copy -> output
    const int p4 = a.add_image({4, 1, false}), p2 = a.add_image({2, 1, false});
    a.passes = {make_pass(Op::Copy, 0, p4, 0, border), box_pass(Op::Box2d, p4, p2, 0, border, {5}),
                make_pass(Op::Copy, p2, 1, 0, border)};
    Program b;  // copy 0 -> pad 4, table of it, 9 x 9 lookups -> output
    const int q4 = b.add_image({4, 1, false}), table = b.add_image({4, 1, true});
    b.passes = {make_pass(Op::Copy, 0, q4, 0, border), make_pass(Op::Sat, q4, table, 0, border),
                box_pass(Op::SatBox, table, 1, 0, border, {9})};
    SCOPED_TRACE(border_name(border));
    worst = std::max(worst, expect_matches_reference(*be, program_plan(a, border),
                                                     random_image(13, 9, 1 + int(border), seed++), "copy+box2d-direct"));
    worst = std::max(worst, expect_matches_reference(*be, program_plan(b, border),
                                                     random_image(9, 13, 4 - int(border), seed++),
                                                     "copy+sat-doubling+sat-box"));
  }
  std::printf("[ measured ] padded copies and tables: max abs error %.3g\n", worst);
}

}  // namespace
}  // namespace gpublur::testing
