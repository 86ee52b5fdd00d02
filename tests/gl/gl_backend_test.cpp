// The GL backend's context, limits, exactness of render targets, half storage, timing, errors and shader
// error reporting.
#include <glad/gl.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>

#include "gpu/gl/gl_context.hpp"
#include "gpu/gl/gl_pass_context.hpp"
#include "gpu/gl/gl_program.hpp"
#include "gpu/gl/gl_tiles.hpp"
#include "gpu/gl/shaders.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlBackend, DescribesItself) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  EXPECT_EQ(be->name(), "gl");
  EXPECT_FALSE(be->device_name().empty());
  const std::string clock = be->timer_clock();
  EXPECT_TRUE(clock == "gl-timer-query" || clock == "host-clock-glfinish") << clock;
  std::printf("[ device   ] %s, clock %s\n", be->device_name().c_str(), clock.c_str());
  std::string why;
  EXPECT_TRUE(gl_available(&why)) << why;
}

// The fragment form's draws are bounded by the viewport and framebuffer limits, which a driver may set below its
// texture limit: they are read (positive, the lesser of the two) and a draw past either is refused.
TEST(GlBackend, DrawLimits) {
  GlLimits l;
  l.max_draw_w = 16384, l.max_draw_h = 8192;
  EXPECT_TRUE(draw_fits(l, 16384, 8192));
  EXPECT_FALSE(draw_fits(l, 16385, 1));
  EXPECT_FALSE(draw_fits(l, 1, 8193));
  std::string error;
  std::unique_ptr<GlContext> gl = GlContext::create(0, error);
  GPUBLUR_GL_OR_SKIP(gl, error);
  ASSERT_TRUE(gl->make_current().ok());
  {
    GlPassContext ctx(false);
    ASSERT_TRUE(ctx.init(gl->renderer()).ok());
    GLint viewport[2] = {0, 0}, fb_w = 0, fb_h = 0;
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
    glGetIntegerv(GL_MAX_FRAMEBUFFER_WIDTH, &fb_w);
    glGetIntegerv(GL_MAX_FRAMEBUFFER_HEIGHT, &fb_h);
    EXPECT_GT(ctx.limits().max_draw_w, 0);
    EXPECT_GT(ctx.limits().max_draw_h, 0);
    EXPECT_EQ(ctx.limits().max_draw_w, std::min(viewport[0], fb_w));
    EXPECT_EQ(ctx.limits().max_draw_h, std::min(viewport[1], fb_h));
    std::printf("[ limits   ] texture %d, draws %dx%d\n", ctx.limits().max_texture, ctx.limits().max_draw_w,
                ctx.limits().max_draw_h);
  }
  gl->release();
}

TEST(GlBackend, ReportsTimes) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const Image src = random_image(257, 129, 4, 7);
  double up = -1, down = -1;
  ASSERT_TRUE(be->upload(src, up).ok());
  RunInfo info;
  ASSERT_TRUE(be->run(make_plan("gauss-sep", {{"sigma", "3"}}), info).ok());
  Image out;
  ASSERT_TRUE(be->download(out, down).ok());
  EXPECT_GT(up, 0);
  EXPECT_GT(info.compute_ms, 0);
  EXPECT_GT(down, 0);
  // The host time before the timed work (the context current, the programs built or found, the passes set up), which
  // the report counts in the compute stage: never nothing, and a new program's build is in it.
  EXPECT_GT(info.prepare_ms, 0);
  RunInfo fresh;
  ASSERT_TRUE(be->run(make_plan("gauss-sep", {{"sigma", "3.37"}, {"radius", "17"}}), fresh).ok());
  EXPECT_GT(fresh.prepare_ms, 0);
  std::printf("[ measured ] prepare %.3f ms (new program %.3f ms), compute %.3f ms\n", info.prepare_ms,
              fresh.prepare_ms, info.compute_ms);
}

// Radius 0 is the identity: the passes must reproduce every bit, including values far outside [0, 1]
// (no colour clamping or conversion in the RGBA32F render targets / image stores).
TEST(GlBackend, RenderTargetsAndImagesAreExact) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  for (int channels = 1; channels <= 4; ++channels) {  // R32F, RG32F, RGBA32F textures
    SCOPED_TRACE(channels);
    Image src = random_image(61, 37, channels, 11);
    for (size_t i = 0; i < src.data.size(); ++i) src.data[i] = (src.data[i] - 0.5f) * (i % 3 ? 2000.0f : 1e-6f);
    for (const char* impl : {"fragment", "compute"}) {
      SCOPED_TRACE(impl);
      Image out;
      ASSERT_TRUE(gl_run(*be, make_plan("gauss-sep", {{"radius", "0"}, {"impl", impl}}), src, out).ok());
      ASSERT_EQ(out.data.size(), src.data.size());
      EXPECT_EQ(std::memcmp(out.data.data(), src.data.data(), src.byte_count()), 0);
    }
    Image out;
    ASSERT_TRUE(gl_run(*be, make_plan("copy", {}), src, out).ok());
    EXPECT_EQ(std::memcmp(out.data.data(), src.data.data(), src.byte_count()), 0);
    // A host image of as many values in another shape keeps its buffer (shape_for_download) and takes the result's.
    Image other(37, 61, channels);
    for (float& v : other.data) v = NAN;
    const float* buffer = other.data.data();
    double ms = 0;
    ASSERT_TRUE(be->download(other, ms).ok());
    EXPECT_EQ(other.data.data(), buffer);
    EXPECT_EQ(other.width, 61);
    EXPECT_EQ(other.height, 37);
    EXPECT_EQ(std::memcmp(other.data.data(), src.data.data(), src.byte_count()), 0);
  }
}

// The textures hold as many channels as the image (three take RGBA): one backend given images of one size and
// changing channel counts makes its textures again each time the format changes, and every result still
// matches the reference (a texture kept from the previous image would store only its own channels).
TEST(GlBackend, TexturesFollowTheChannels) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const char* formats[] = {"", "r32f", "rg32f", "rgba32f", "rgba32f"};
  uint32_t seed = 70;
  for (const int channels : {1, 4, 2, 3, 1, 2}) {
    SCOPED_TRACE(channels);
    const Image src = random_image(53, 31, channels, seed++);
    expect_matches_reference(*be, make_plan("box", {{"sigma", "2"}, {"border", "mirror"}}), src, "");
    EXPECT_EQ(be->storage(), formats[channels]);
    expect_matches_reference(*be, make_plan("iir", {{"sigma", "3"}, {"border", "wrap"}}), src, "");
    expect_matches_reference(*be, make_plan("gauss-sep", {{"sigma", "1.5"}, {"impl", "fragment"}}), src, "");
  }
  std::string half_error;
  Backend* half = shared_gl(true, half_error);
  GPUBLUR_GL_OR_SKIP(half, half_error);
  double err = 0;
  ASSERT_TRUE(gl_error_vs_reference(*half, make_plan("copy", {}), random_image(53, 31, 1, seed), err).ok());
  EXPECT_EQ(half->storage(), "r16f");
  EXPECT_GT(err, 1e-6);  // really half
  EXPECT_LE(err, 1.0 / 2048);
}

// Half storage (RGBA16F for these three channels): input, intermediate and output each round to half (relative
// 2^-11), so for values in [0, 1) the error stays below 3 * 2^-11 ~ 1.5e-3; above 1e-6 proves it really is half.
TEST(GlBackend, HalfStorageWithinHalfPrecision) {
  std::string error;
  Backend* be = shared_gl(true, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const Image src = random_image(67, 41, 3, 5);
  for (const auto& [method, key, value] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"copy", "", ""}, {"gauss-sep", "impl", "compute"}, {"gauss-sep", "impl", "fragment"},
           {"gauss-2d", "", ""}, {"gauss-linear", "interp", "exact"}, {"box", "impl", "separable"},
           {"box", "impl", "moving-average"}, {"box", "impl", "sat"}, {"box", "impl", "2d"}}) {
    SCOPED_TRACE(method + " " + value);
    std::map<std::string, std::string> params{{"sigma", "2.5"}, {"border", "mirror"}};
    if (!key.empty()) params[key] = value;
    const Plan plan = make_plan(method, params);
    double err = 0;
    const Status s = gl_error_vs_reference(*be, plan, src, err);
    ASSERT_TRUE(s.ok()) << s.error;
    EXPECT_LE(err, 3.0 / 2048);
    EXPECT_GT(err, 1e-6);
  }
}

// Program images are pooled by kind and size and shared by images whose lifetimes do not overlap: here two
// same-size intermediates are both alive (image 2 is read after image 3 is written), so they must be two
// textures; a later program that needs one only reuses the pool.
TEST(GlBackend, PooledIntermediatesDoNotAlias) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  uint32_t seed = 60;
  for (Border border : kBorders) {
    Program p;
    const int a = p.add_image({}), b = p.add_image({});
    Pass box = make_pass(Op::Box1d, 0, a, 0, border), conv = make_pass(Op::Conv1d, 0, b, 1, border),
         out = make_pass(Op::Copy, a, 1, 0, border), touch = make_pass(Op::Copy, b, 1, 0, border);
    box.widths = {7, 9};
    conv.taps = {0.25f, 0.5f, 0.25f};
    p.passes = {box, conv, touch, out};  // the output is image a; b is written while a is alive
    SCOPED_TRACE(border_name(border));
    const Image src = random_image(29, 17, 3, seed++);
    expect_matches_reference(*be, program_plan(p, border), src, "box1d-tiles+conv1d+copy");
    Program q;  // one intermediate: reuses a pooled texture
    const int c = q.add_image({});
    Pass x = make_pass(Op::Conv1d, 0, c, 0, border), y = make_pass(Op::Copy, c, 1, 0, border);
    x.taps = {0.5f, 0.25f, 0.25f};
    q.passes = {x, y};
    expect_matches_reference(*be, program_plan(q, border), src, "conv1d+copy");
  }
}

TEST(GlBackend, WorksFromAnotherThread) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const Image src = random_image(40, 30, 2, 9);
  const Plan plan = make_plan("gauss-sep", {{"sigma", "1.5"}, {"border", "wrap"}});
  double ms = 0;
  ASSERT_TRUE(be->upload(src, ms).ok());
  Status st;
  std::thread t([&] {
    RunInfo info;
    st = be->run(plan, info);
  });
  t.join();
  ASSERT_TRUE(st.ok()) << st.error;
  Image got, want;
  ASSERT_TRUE(be->download(got, ms).ok());
  ASSERT_TRUE(reference_run(plan, src, want).ok());
  EXPECT_LE(max_abs_diff(got, want), 1e-5);
}

TEST(GlBackend, RejectsMisuse) {
  BackendOptions o;
  std::string error;
  auto be = make_gl_backend(o, error);  // a fresh one: nothing uploaded yet
  GPUBLUR_GL_OR_SKIP(be, error);
  RunInfo info;
  double ms = 0;
  Image out;
  EXPECT_FALSE(be->run(make_plan("copy", {}), info).ok());
  EXPECT_FALSE(be->download(out, ms).ok());
  const Status five = be->upload(Image(4, 4, 5), ms);
  EXPECT_NE(five.error.find("1..4 channels"), std::string::npos) << five.error;
  EXPECT_FALSE(be->upload(Image(0, 0, 1), ms).ok());
  const Status big = be->upload(Image(1 << 20, 1, 1), ms);
  EXPECT_NE(big.error.find("texture limit"), std::string::npos) << big.error;
  // A refused upload after a good image's run leaves nothing to download: not that image's result.
  ASSERT_TRUE(be->upload(Image(4, 4, 2), ms).ok());
  ASSERT_TRUE(be->run(make_plan("copy", {}), info).ok());
  ASSERT_TRUE(be->download(out, ms).ok());
  EXPECT_FALSE(be->upload(Image(4, 4, 5), ms).ok());
  EXPECT_FALSE(be->download(out, ms).ok());
  PackedImage packed;
  EXPECT_FALSE(be->download_packed(packed, PackedColour{}, ms).ok());
}

// An image of 4 GiB of floats (16384^2 RGBA) with half storage: its download is the driver's read-back, in bands of
// rows since one call's GLsizei size cannot state it (NVIDIA's driver returned it whole from one call with the size
// wrapped to 0 too: docs/performance.md, session 101). Values k / 1024 are exact in half: the copy comes back bit for
// bit, every band in its place.
TEST(GlBackend, DownloadsFourGiB) {
  std::string error;
  Backend* be = shared_gl(true, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  // A 2 GiB case took 44-52 s and 8.5 GB on llvmpipe: twice that is too much for CI's machine.
  if (on_llvmpipe(*be)) GTEST_SKIP() << "llvmpipe: minutes and 17 GB for this image";
  Image src(16384, 16384, 4);
  ASSERT_EQ(src.byte_count(), size_t(1) << 32);
  for (size_t i = 0; i < src.data.size(); ++i) src.data[i] = float((i * 7919) % 1024) / 1024.0f;
  Image out;
  const Status s = gl_run(*be, make_plan("copy", {}), src, out);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_TRUE(out.data == src.data);
}

// Where EGL finds no vendor library at all, one clear line instead of a crash. Run in a fresh process
// (death-test child) so the variable is read before libEGL loads.
TEST(GlBackendDeathTest, NoEglGivesOneClearLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent/gpublur_no_vendor.json", 1);
        setenv("LIBGL_ALWAYS_SOFTWARE", "0", 1);
        std::string err;
        auto be = make_gl_backend(BackendOptions{}, err);
        std::fprintf(stderr, "%s\n", err.c_str());
        std::exit(be == nullptr && err.rfind("GL: no usable EGL display:", 0) == 0 &&
                          err.find('\n') == std::string::npos
                      ? 0
                      : 1);
      },
      ::testing::ExitedWithCode(0), "GL: no usable EGL display");
}

class GlContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ctx_ = GlContext::create(0, error);
    GPUBLUR_GL_OR_SKIP(ctx_, error);
    ASSERT_TRUE(ctx_->make_current().ok());
  }
  void TearDown() override {
    if (ctx_) ctx_->release();
  }
  std::unique_ptr<GlContext> ctx_;
};

TEST_F(GlContextTest, BrokenShaderNamesFileAndLog) {
  ShaderSource broken{GL_COMPUTE_SHADER, "broken_test.comp",
                      "layout(local_size_x = 1) in;\nvoid main() {\n  vec4 x = undefined_thing;\n}\n"};
  GLuint prog = 0;
  const Status s = build_program({broken}, "", true, prog);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(prog, 0u);
  EXPECT_NE(s.error.find("broken_test.comp"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("failed to compile"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("undefined_thing"), std::string::npos) << "driver log missing: " << s.error;
  std::printf("[ message  ] %s\n", s.error.c_str());

  // A link error (fragment shader output without a vertex stage is fine; an undefined function is not).
  ShaderSource unresolved{GL_COMPUTE_SHADER, "unresolved_test.comp",
                          "layout(local_size_x = 1) in;\nvoid helper();\nvoid main() { helper(); }\n"};
  const Status l = build_program({unresolved}, "", false, prog);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error.find("unresolved_test.comp"), std::string::npos) << l.error;

  ShaderSource missing;
  const Status m = shader_file("no_such_shader.comp", GL_COMPUTE_SHADER, missing);
  EXPECT_NE(m.error.find("no_such_shader.comp"), std::string::npos) << m.error;
}

TEST_F(GlContextTest, EveryShaderIsEmbedded) {
  const auto& all = embedded_shaders();
  for (const char* f : {"common.glsl", "copy.comp", "conv2d.comp", "conv1d.comp", "conv1d_fused.comp",
                        "conv1d_slide.comp", "conv1d_window.comp", "conv1d.frag", "fullscreen.vert", "bilinear1d.comp",
                        "box1d.comp", "moving_average.comp", "sat.comp", "sat_box.comp", "box2d.comp"}) {
    ASSERT_TRUE(all.count(f)) << f;
    EXPECT_FALSE(all.at(f).empty()) << f;
  }
}

// No shader asks for its source's size with textureSize: on NVIDIA's GL that query ahead of the first fetch cost a
// plain copy a quarter of its speed (H200, 4096^2 RGBA: 0.176 against 0.132 ms); the shaders read
// gpublur_src_size (common.glsl), which GlPassContext::bind_src sets. Comments may name it.
TEST(GlShaders, NoneQueriesTextureSize) {
  int with_src_size = 0;
  for (const auto& [file, text] : embedded_shaders()) {
    std::istringstream lines(text);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      const std::string code = line.substr(0, line.find("//"));
      EXPECT_EQ(code.find("textureSize"), std::string::npos) << file << ":" << n << ": " << line;
      with_src_size += code.find("gpublur_src_size") != std::string::npos;
    }
  }
  EXPECT_GE(with_src_size, 25);  // every shader that reads src's size, and common.glsl's declaration
}

// The compute tiles fit the device's limits (llvmpipe: 32 KiB shared memory), also for smaller devices.
TEST_F(GlContextTest, TilesRespectDeviceLimits) {
  GLint shared = 0, invocations = 0, size[2] = {0, 0};
  glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &shared);
  glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &invocations);
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 0, &size[0]);
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 1, &size[1]);
  std::printf("[ limits   ] %s: shared %d B, invocations %d, size %dx%d\n", ctx_->renderer().c_str(), shared,
              invocations, size[0], size[1]);
  // What a GLSL shader could use beyond plain FP32 (docs/performance.md): matrix (tensor-core) and subgroup
  // extensions the driver lists.
  GLint n_ext = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &n_ext);
  std::string found;
  for (GLint i = 0; i < n_ext; ++i) {
    const std::string e = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, GLuint(i)));
    for (const char* key : {"cooperative", "matrix", "subgroup", "shuffle", "spirv", "half_float", "float16"})
      if (e.find(key) != std::string::npos) {
        found += " " + e;
        break;
      }
  }
  EXPECT_GT(n_ext, 0);
  std::printf("[ limits   ] %d extensions; matrix/subgroup/SPIR-V/half ones:%s\n", n_ext, found.c_str());
  // With GL_ARB_gl_spirv the driver also lists the SPIR-V extensions a shader module may use (GL 4.6 enums;
  // on a 4.5 context the query may fail: that reads as none).
  GLint n_spv = 0;
  glGetIntegerv(0x9554 /* GL_NUM_SPIR_V_EXTENSIONS */, &n_spv);
  std::string spv;
  for (GLint i = 0; i < n_spv; ++i)
    if (const GLubyte* e = glGetStringi(0x9553 /* GL_SPIR_V_EXTENSIONS */, GLuint(i)))
      spv += std::string(" ") + reinterpret_cast<const char*>(e);
  while (glGetError() != GL_NO_ERROR) {
  }
  std::printf("[ limits   ] SPIR-V extensions (%d):%s\n", n_spv, spv.c_str());
  struct Limits {
    int shared, invocations, sx, sy;
  };
  for (const Limits& l : {Limits{shared, invocations, size[0], size[1]}, Limits{16384, 256, 256, 256},
                          Limits{32768, 1024, 1024, 1024}, Limits{49152, 1024, 1024, 1024}}) {
    for (int i = 0; i < 4; ++i) {
      const int axis = i % 2, per = i < 2 ? kSepPer : kMaxSepPer;
      const SepTile t = sep_tile(axis, l.shared, l.invocations, per);
      SCOPED_TRACE(::testing::Message() << "shared " << l.shared << " axis " << axis << " per " << per);
      EXPECT_EQ(t.per, per);
      EXPECT_LE(t.shared_vec4 * 16, l.shared);
      EXPECT_LE(t.local_x * t.local_y, l.invocations);
      EXPECT_LE(t.local_x, l.sx);
      EXPECT_LE(t.local_y, l.sy);
      EXPECT_GE(t.offsets_per_round(), t.per);
      EXPECT_EQ(t.offsets_per_round() % t.per, 0);
      EXPECT_LE(t.tile() + t.offsets_per_round(), t.span());
      EXPECT_LE(t.span() * t.across_threads(), t.shared_vec4);
      EXPECT_EQ(t.span() % 2, 1);
      // Balanced load rounds: every round fits the line, the weights cover 2r+1 taps with less than one
      // chunk of padding per round.
      for (int radius : {1, 9, 36, 144, 390}) {
        const int opr = t.round_taps(radius), n = t.rounds(radius);
        EXPECT_LE(opr, t.offsets_per_round()) << radius;
        EXPECT_EQ(opr % t.per, 0) << radius;
        EXPECT_GE(t.weight_count(radius), 2 * radius + 1) << radius;
        EXPECT_LT(t.weight_count(radius) - padded_taps(radius, t.per), n * t.per) << radius;
      }
    }
    // Sliding strips: the default shape fits, or none does (then tw == 0 and gauss-sep takes two passes).
    for (int radius : {1, 9, 36, 144}) {
      const SlideTile st = slide_tile(radius, l.shared, l.invocations, 100);
      if (st.tw == 0) continue;
      EXPECT_LE(st.shared_bytes(), l.shared) << radius;
      EXPECT_LE(st.threads(), std::min(l.invocations, l.sx)) << radius;
      EXPECT_EQ(st.sh % st.pr, 0) << radius;
      EXPECT_GE(st.sh, 100) << radius;
    }
  }
  // box1d tiles: within the shared memory, odd blocks, at most 4 lines dividing the group, the halo under 1/7 of
  // the loads where more than one line fits (2/7 for two lines) and 16 stored positions; one line storing at
  // least 32, else none (line walkers).
  for (const Limits& l : {Limits{shared, invocations, size[0], size[1]}, Limits{32768, 1024, 1024, 1024},
                          Limits{49152, 1024, 1024, 1024}, Limits{16384, 256, 256, 256}}) {
    for (int reach : {0, 1, 9, 36, 144, 600, 1100, 5000}) {
      SCOPED_TRACE(::testing::Message() << "shared " << l.shared << " reach " << reach);
      const BoxTile t = box_tile({2 * reach + 1}, l.shared, l.invocations);
      if (t.lines == 0) {
        EXPECT_TRUE(reach > 600 || l.shared < 32768);  // 32 KiB hold reach 600 in one line
        continue;
      }
      EXPECT_EQ(t.reach, reach);
      EXPECT_EQ(t.per % 2, 1);
      EXPECT_LE(t.threads, l.invocations);
      EXPECT_EQ(t.threads % t.lines, 0);
      EXPECT_LE(t.shared_bytes(), l.shared);
      EXPECT_GE(t.pitch(), t.span());
      EXPECT_LE(t.lines, 2);
      if (t.lines > 1) {
        EXPECT_GE(t.outputs(), 16);
        EXPECT_GE(t.outputs(), 4 * reach);
      } else {
        EXPECT_GE(t.outputs(), 32);
      }
      EXPECT_EQ(t.totals > 0, 2 * reach + 1 > t.per);
    }
  }
  // The most positions per invocation that fit with the window-start totals they need: 11 without (every width
  // <= 11), 9 with them in 48 KiB; 7 and 5 in 32 KiB.
  EXPECT_EQ(box_tile({5, 5, 5}, 49152, 1024).per, 11);
  // 11 against 9 by the positions loaded along the line: 4096 positions in 3 groups of 1408 (2 lines x 11) against
  // 4 of 1152; 1024 in 1 of 1408 against 1 of 1152.
  EXPECT_EQ(box_tile({5, 5, 7}, 49152, 1024, "", "", 4096).per, 11);
  EXPECT_EQ(box_tile({5, 5, 7}, 49152, 1024, "", "", 1024).per, 9);
  EXPECT_EQ(box_tile({5, 5, 7}, 49152, 1024, "", "", 1024).lines, 2);
  // A tile as LINESxPERxTHREADSxVCHxROUNDS.
  const auto shape = [](const BoxTile& t) {
    return std::to_string(t.lines) + "x" + std::to_string(t.per) + "x" + std::to_string(t.threads) + "x" +
           std::to_string(t.vch) + "x" + std::to_string(t.rounds);
  };
  // Two lines while they store at least 4 reaches, else one; 256 x 9 against 224 x 11 (256 of 11 do not fit 48 KiB
  // with the totals) by the positions loaded along the line. Box sigma 8 (reach 23, below two rounds' 32): 4 groups of
  // 2 x 9 x 256.
  EXPECT_EQ(shape(box_tile({15, 17, 17}, 49152, 1024, "", "", 4096)), "2x9x256x4x1");
  // From a reach of 32, RGBA also as lines of two channels in two rounds, weighed with the vec4 shapes (a position,
  // both rounds, at 0.7 of a vec4 position with 5 or 9 an invocation, 0.8 with 7, 1.0 with 17 or 21; 1.3x more with
  // window starts over 3 to 6 whole blocks one by one). Box sigma 12 at 4096: 2 groups of 1 x 9 of two channels (2 x
  // 2304 x 0.7) against 4 of 2 x 9 (4 x 1152 a line).
  EXPECT_EQ(shape(box_tile({23, 25, 25}, 49152, 1024, "", "", 4096)), "1x9x256x2x2");
  // Box sigma 24: 4 groups of 1 x 5 (grouped window starts, 8 whole blocks) against 2 of 1 x 9 (4 whole blocks one by
  // one: 1.3x).
  const BoxTile w24 = box_tile({47, 49, 49}, 49152, 1024, "", "", 4096);
  EXPECT_EQ(shape(w24), "1x5x256x2x2");
  EXPECT_EQ(w24.grouped, 7);
  // Box sigma 48 at 4096: 3 groups of 1 x 7 (3 x 1792 x 0.8) against 3 of 1 x 9 (3 x 2304 x 0.7); sigma 100 3 of 1 x 9.
  const BoxTile w48 = box_tile({95, 97, 97}, 49152, 1024, "", "", 4096);
  EXPECT_EQ(shape(w48), "1x7x256x2x2");
  EXPECT_EQ(w48.grouped, 7);
  EXPECT_EQ(shape(box_tile({199, 201, 201}, 49152, 1024, "", "", 4096)), "1x9x256x2x2");
  // Box sigma 200: the whole line (4096 + 1198 positions) in one group of 256 x 21 of two channels; real widths stop at
  // 17 and also take 15 (integral sigma 200: 2 groups of 3840 against 2 of 4352).
  const BoxTile w200 = box_tile({399, 401, 401}, 49152, 1024, "", "", 4096);
  EXPECT_EQ(shape(w200), "1x21x256x2x2");
  EXPECT_GE(w200.outputs(), 4096);
  EXPECT_FALSE(w200.tail);
  // With a constant tail (clamp, zero) the same group holds the line in 256 x 19 (4096 + 599 + 19 <= 4864 positions);
  // sigma 100 keeps 3 groups of 1 x 9 (3 x 2304 x 0.7 against 4864); two lines a group never take a tail; nor lines
  // longer than one group holds (box_tile's 1 x 21 at 8192).
  const BoxTile t200 = box_tile({399, 401, 401}, 49152, 1024, "", "", 4096, 4, false, true);
  EXPECT_EQ(shape(t200), "1x19x256x2x2");
  EXPECT_TRUE(t200.tail);
  EXPECT_EQ(t200.outputs(), 4864 - 599 - 19);
  EXPECT_FALSE(box_tile({199, 201, 201}, 49152, 1024, "", "", 4096, 4, false, true).tail);
  EXPECT_FALSE(box_tile({15, 17, 17}, 49152, 1024, "", "", 4096, 4, false, true).tail);
  EXPECT_FALSE(box_tile({399, 401, 401}, 49152, 1024, "", "", 8192, 4, false, true).tail);
  // A tail of 160, 144 or 128 invocations that holds the line in half of 48 KiB (two groups an SM on NVIDIA's GL) and
  // loads at most 0.85 of the positions the groups load: box sigma 200 on 2048-long lines, 160 x 17 (2720 >= 2048 + 599
  // + 17 positions, 24320 bytes) instead of 2 groups of 256 x 9 (4608); the pair takes it too; box sigma 100 on
  // 1024-long lines, 160 x 9 (1440) instead of one group of 256 x 7 (1792, 0.80). Not without a constant tail (mirror,
  // wrap), nor at 0.9 of the loads (the five boxes of integral sigma 100 on 1448-long lines: 256 x 9, 2304, against
  // 160 x 13, 2080), nor on 4096-long lines (t200 above).
  const BoxTile t2048 = box_tile({399, 401, 401}, 49152, 1024, "", "", 2048, 4, false, true);
  EXPECT_EQ(shape(t2048), "1x17x160x2x2");
  EXPECT_TRUE(t2048.tail);
  EXPECT_GE(t2048.outputs(), 2048);
  EXPECT_LE(2 * t2048.shared_bytes(), 49152);
  EXPECT_EQ(shape(box_pair_tile({399, 401, 401}, 49152, 1024, "", "", 2048, 4, false, true)), "1x17x160x2x2");
  EXPECT_EQ(shape(box_tile({399, 401, 401}, 49152, 1024, "", "", 2048, 4, false, false)), "1x9x256x2x2");
  EXPECT_EQ(shape(box_tile({199, 201, 201}, 49152, 1024, "", "", 1024, 4, false, true)), "1x9x160x2x2");
  const std::vector<int> i100_spans = {155, 155, 155, 155, 155};
  EXPECT_EQ(shape(box_tile(i100_spans, 49152, 1024, "", "", 1448, 4, true, true)), "1x9x256x2x2");
  // Where 256 invocations of at most 17 cannot hold the line (several groups of 11 or more: integral sigma 200-300, box
  // sigma 300 at 4096), a tail of 384 or 320 that does, the fewest positions an invocation first: integral sigma 200
  // (reach 775) 384 x 13 (4992 >= 4096 + 775 + 13), box sigma 300 (reach 899) 320 x 17 (384 x 13 too short, 384 x 15
  // over 48 KiB); none with 256 invocations at most, nor for box sigma 150's groups of 1 x 9.
  const std::vector<int> i200_spans = {311, 311, 311, 311, 311};
  const BoxTile ti200 = box_tile(i200_spans, 49152, 1024, "", "", 4096, 4, true, true);
  EXPECT_EQ(shape(ti200), "1x13x384x2x2");
  EXPECT_TRUE(ti200.tail);
  EXPECT_GE(ti200.outputs(), 4096);
  const BoxTile t300 = box_tile({599, 601, 601}, 49152, 1024, "", "", 4096, 4, false, true);
  EXPECT_EQ(shape(t300), "1x17x320x2x2");
  EXPECT_TRUE(t300.tail);
  EXPECT_GE(t300.outputs(), 4096);
  EXPECT_LE(t300.shared_bytes(), 49152);
  EXPECT_FALSE(box_tile({599, 601, 601}, 49152, 256, "", "", 4096, 4, false, true).tail);
  EXPECT_FALSE(box_tile({599, 601, 601}, 49152, 1024, "", "", 4096, 4, false, false).tail);
  EXPECT_EQ(shape(box_tile({299, 301, 301}, 49152, 1024, "", "", 4096, 4, false, true)), "1x9x256x2x2");
  EXPECT_FALSE(box_tile({399, 401, 401}, 49152, 1024, "", "", 0, 4, false, true).tail);  // length not known
  // Wherever the line takes four or more groups of one line, a tail that loads under 0.8 of their positions (as the
  // shapes are weighed), the fewest positions an invocation first: integral sigma 200 on 3000-long lines, 4 groups of
  // 1 x 9 (4 x 2304 x 0.7) -> 384 x 11 (4224; 256 x 15 and 320 x 13 hold it too); one channel box sigma 400 at 4096, 10
  // groups of 1 x 11 -> 384 x 15; two channels box sigma 250, 4 of 1 x 11 -> 384 x 13. Not box sigma 75 at 4096 (5
  // groups of 1 x 5: 5 x 1280 x 0.7 against 384 x 13's 4992, 1.11) nor box sigma 125 at 5000 (4 of 1 x 9 against 320 x
  // 17's 5440, 0.84).
  const BoxTile ti3000 = box_tile(i200_spans, 49152, 1024, "", "", 3000, 4, true, true);
  EXPECT_EQ(shape(ti3000), "1x11x384x2x2");
  EXPECT_TRUE(ti3000.tail);
  EXPECT_GE(ti3000.outputs(), 3000);
  EXPECT_EQ(shape(box_tile(i200_spans, 49152, 1024, "", "", 3000, 4, true, false)), "1x9x256x2x2");  // no tail
  const BoxTile b400 = box_tile({799, 801, 801}, 49152, 1024, "", "", 4096, 1, false, true);
  EXPECT_EQ(shape(b400), "1x15x384x1x1");
  EXPECT_TRUE(b400.tail);
  EXPECT_GE(b400.outputs(), 4096);
  EXPECT_EQ(shape(box_tile({499, 501, 501}, 49152, 1024, "", "", 4096, 2, false, true)), "1x13x384x2x1");
  // Two channels whose vec2 lines no tail holds in 48 KiB (box sigma 400 at 6000: 6000 + 1199 + 19 positions, 57 KB as
  // vec2): float lines in two rounds, 384 x 19 (15 groups of 1 x 11 before); at 4096 a vec2 tail, 320 x 17.
  const BoxTile b400c2 = box_tile({799, 801, 801}, 49152, 1024, "", "", 6000, 2, false, true);
  EXPECT_EQ(shape(b400c2), "1x19x384x1x2");
  EXPECT_TRUE(b400c2.tail);
  EXPECT_GE(b400c2.outputs(), 6000);
  EXPECT_EQ(shape(box_tile({799, 801, 801}, 49152, 1024, "", "", 4096, 2, false, true)), "1x17x320x2x1");
  // One and two channels whose reach no group of 9 or 11 holds (integral sigma 400, reach 1550: 256 x 11 loads 2816
  // positions): groups of 13-21 in one round of 384 or 256 invocations, two channels also float lines in two rounds,
  // by their loads; then a tail wherever one holds the line. Integral sigma 400 of two channels at 8192: 2 groups of
  // 384 x 21 in float rounds (4964 outputs; vec2 lines of 256 x 21 store 2276); at 6000 with a constant tail, 384 x 21
  // in float rounds holds the line. One channel box sigma 500 at 8192: 2 groups of 384 x 21. (Before: line walkers.)
  const std::vector<int> i400_spans = {621, 621, 621, 621, 621};
  const BoxTile i400c2 = box_tile(i400_spans, 49152, 1024, "", "", 8192, 2, true, true);
  EXPECT_EQ(shape(i400c2), "1x21x384x1x2");
  EXPECT_FALSE(i400c2.tail);
  EXPECT_EQ(i400c2.outputs(), 384 * 21 - 2 * 1550);
  const BoxTile i400t = box_tile(i400_spans, 49152, 1024, "", "", 6000, 2, true, true);
  EXPECT_EQ(shape(i400t), "1x21x384x1x2");
  EXPECT_TRUE(i400t.tail);
  EXPECT_GE(i400t.outputs(), 6000);
  EXPECT_EQ(shape(box_tile({999, 1001, 1001}, 49152, 1024, "", "", 8192, 1, false, true)), "1x21x384x1x1");
  // Where the groups of 11 store under a quarter of their positions, the same: box sigma 400 (reach 1199, 418 of
  // 256 x 11's 2816 positions) at 8192, 2 groups of 384 x 17 (20 of 1 x 11 before); two channels on mirror at 4096, 384
  // x 17 float lines in two rounds. Box sigma 200 (1618 of 2816) keeps its groups of 11.
  EXPECT_EQ(shape(box_tile({799, 801, 801}, 49152, 1024, "", "", 8192, 1, false, true)), "1x17x384x1x1");
  EXPECT_EQ(shape(box_tile({799, 801, 801}, 49152, 1024, "", "", 4096, 2, false, false)), "1x17x384x1x2");
  EXPECT_EQ(shape(box_tile({399, 401, 401}, 49152, 1024, "", "", 8192, 1, false, true)), "1x11x256x1x1");
  // Where the groups of 11 take three or more groups a line, two channels take them from under half of the positions
  // stored (box sigma 250, 0.47 of 2816; integral sigma 200, 0.45), one channel from under 0.4 (box sigma 300, 0.36;
  // not box sigma 250): on mirror at 4096, 384 x 17 (float lines in two rounds for two channels) where 4 groups of 1 x
  // 11 ran; with two groups a line only on lines of 2048 or more that no tail of theirs holds (integral sigma 200 at
  // 2048 on mirror 256 x 17, on clamp a tail of 320 x 9; box sigma 250 on clamp keeps its tail of 256 x 11); at 1024 (2
  // groups of 224 x 11) the groups stay.
  EXPECT_EQ(shape(box_tile({499, 501, 501}, 49152, 1024, "", "", 4096, 2, false, false)), "1x17x384x1x2");
  EXPECT_EQ(shape(box_tile(i200_spans, 49152, 1024, "", "", 4096, 2, true, false)), "1x17x384x1x2");
  EXPECT_EQ(shape(box_tile({599, 601, 601}, 49152, 1024, "", "", 4096, 1, false, false)), "1x17x384x1x1");
  EXPECT_EQ(shape(box_tile({499, 501, 501}, 49152, 1024, "", "", 4096, 1, false, false)), "1x11x256x1x1");
  EXPECT_EQ(shape(box_tile(i200_spans, 49152, 1024, "", "", 4096, 1, true, false)), "1x11x256x1x1");
  EXPECT_EQ(shape(box_tile({599, 601, 601}, 49152, 1024, "", "", 1024, 2, false, false)), "1x11x224x2x1");
  EXPECT_EQ(shape(box_tile(i200_spans, 49152, 1024, "", "", 2048, 2, true, false)), "1x17x256x2x1");
  const BoxTile i200t2048 = box_tile(i200_spans, 49152, 1024, "", "", 2048, 2, true, true);
  EXPECT_EQ(shape(i200t2048), "1x9x320x2x1");
  EXPECT_TRUE(i200t2048.tail);
  const BoxTile b250t2048 = box_tile({499, 501, 501}, 49152, 1024, "", "", 2048, 2, false, true);
  EXPECT_EQ(shape(b250t2048), "1x11x256x2x1");
  EXPECT_TRUE(b250t2048.tail);
  EXPECT_EQ(shape(box_tile({599, 601, 601}, 49152, 1024, "", "", 1024, 1, false, false)), "1x11x224x1x1");
  EXPECT_EQ(box_tile(i400_spans, 49152, 1024, "", "", 8192, 4, true, true).rounds, 2);  // RGBA: its own shapes
  EXPECT_EQ(shape(box_tile({149, 151, 151}, 49152, 1024, "", "", 4096, 4, false, true)), "1x5x256x2x2");
  EXPECT_EQ(shape(box_tile({249, 251, 251}, 49152, 1024, "", "", 5000, 4, false, true)), "1x9x256x2x2");
  // A line's last group with a tail where the line takes several groups of one line in two rounds, for real widths
  // (integral) at any saving: integral sigma 200, 2 of 1 x 15, the last (1806) in 1 x 11; the same spans as box's
  // integer widths none (an H100 ran them 8-19% slower). Box sigma 100 at 4096, 3 groups of 1 x 9, would end in 1 x 5
  // (680 outputs): a real-width cascade of those spans takes it, box none. None where one group holds the line or the
  // tile has a tail.
  const BoxTile w100 = box_tile({199, 201, 201}, 49152, 1024, "", "", 4096);
  EXPECT_EQ(box_last_tile(w100, {199, 201, 201}, 49152, 4096).lines, 0);
  const BoxTile l100 = box_last_tile(w100, {199, 201, 201}, 49152, 4096, "", true);
  EXPECT_EQ(shape(l100), "1x5x256x2x2");
  EXPECT_TRUE(l100.tail);
  EXPECT_GE(l100.outputs(), 4096 - 2 * w100.outputs());
  const BoxTile i200t = box_tile(i200_spans, 49152, 1024, "", "", 4096, 4, true);
  EXPECT_EQ(shape(box_last_tile(i200t, i200_spans, 49152, 4096, "", true)), "1x11x256x2x2");
  EXPECT_EQ(box_last_tile(i200t, i200_spans, 49152, 4096).lines, 0);
  EXPECT_EQ(box_last_tile(w200, {399, 401, 401}, 49152, 4096).lines, 0);
  EXPECT_EQ(box_last_tile(t200, {399, 401, 401}, 49152, 4096).lines, 0);
  BoxTile no_tile = w200;  // a reach no tile holds (lines 0): no last group either (was a division by zero)
  no_tile.lines = 0;
  EXPECT_EQ(box_last_tile(no_tile, {399, 401, 401}, 49152, 4096).lines, 0);
  // Other tiles only where the last group takes at most a third of their positions an invocation: the pair's 2 x 9 at
  // box sigma 24 (5 groups of 1010 outputs on 4096) ends in 2 x 1 (56 outputs); at sigma 48 (5 of 866) 2 x 7 would
  // hold the last 632: none; two channels' 1 x 11 at sigma 100 (2 of 2218) would end in 1 x 9: none.
  const std::vector<int> b24 = {47, 49, 49}, b48 = {95, 97, 97}, b100 = {199, 201, 201};
  const BoxTile p24 = box_pair_tile(b24, 49152, 1024, "", "", 4096, 4, false, true);
  EXPECT_EQ(shape(p24), "2x9x256x2x2");
  const BoxTile l24 = box_last_tile(p24, b24, 49152, 4096);
  EXPECT_EQ(shape(l24), "2x1x256x2x2");
  EXPECT_TRUE(l24.tail);
  EXPECT_EQ(p24.outputs(), 1010);
  EXPECT_GE(l24.outputs(), 4096 - 4 * p24.outputs());
  EXPECT_EQ(box_last_tile(box_pair_tile(b48, 49152, 1024, "", "", 4096, 4, false, true), b48, 49152, 4096).lines, 0);
  const BoxTile c100 = box_tile(b100, 49152, 1024, "", "", 4096, 2, false, true);
  EXPECT_EQ(shape(c100), "1x11x256x2x1");
  EXPECT_EQ(box_last_tile(c100, b100, 49152, 4096).lines, 0);
  // The pair takes box_tile's tail before its two lines a group: box sigma 48 on 1024-long lines 1 x 5 (1280 positions,
  // one group) against 2 x 9 (two groups of 1152 a line).
  EXPECT_EQ(shape(box_pair_tile({95, 97, 97}, 49152, 1024, "", "", 1024, 4)), "2x9x256x2x2");
  const BoxTile p48 = box_pair_tile({95, 97, 97}, 49152, 1024, "", "", 1024, 4, false, true);
  EXPECT_EQ(shape(p48), "1x5x256x2x2");
  EXPECT_TRUE(p48.tail);
  EXPECT_EQ(shape(box_tile({311, 311, 311, 311, 311}, 49152, 1024, "", "", 4096, 4, true)), "1x15x256x2x2");
  EXPECT_LE(box_tile({399, 401, 401}, 49152, 1024, "", "", 4096, 4, true).per, 17);
  // Real widths at any reach: integral sigma 3 (five spans of 5, reach 10) at 4096 in two rounds too.
  EXPECT_EQ(box_tile({5, 5, 5, 5, 5}, 49152, 1024, "", "", 4096, 4, true).rounds, 2);
  EXPECT_EQ(box_tile({5, 5, 5, 5, 5}, 49152, 1024, "", "", 4096, 4, false).rounds, 1);  // box: from reach 32
  // One and two channels: float and vec2 lines in one round; three take two rounds of two or vec4 lines.
  EXPECT_EQ(box_tile({399, 401, 401}, 49152, 1024, "", "", 4096, 1).vch, 1);
  EXPECT_EQ(box_tile({399, 401, 401}, 49152, 1024, "", "", 4096, 2).vch, 2);
  EXPECT_EQ(box_tile({399, 401, 401}, 49152, 1024, "", "", 4096, 2).rounds, 1);
  EXPECT_EQ(box_tile({399, 401, 401}, 49152, 1024, "", "", 4096, 3).rounds, 2);
  EXPECT_EQ(box_tile({5, 5, 7}, 49152, 1024, "", "", 4096, 3).vch, 4);  // reach 7: vec4 lines
  // A forced shape of VCH 2 takes two rounds for three and four channels, VCH 1 two rounds of two (at most two rounds).
  EXPECT_EQ(box_tile({5, 5, 5}, 49152, 1024, "1x9x256x2", "", 0, 4).rounds, 2);
  EXPECT_EQ(box_tile({5, 5, 5}, 49152, 1024, "1x9x256x1", "", 0, 3).vch, 2);
  EXPECT_EQ(box_tile({5, 5, 5}, 49152, 1024, "1x9x256x1", "", 0, 1).rounds, 1);
  EXPECT_EQ(box_tile({95, 97, 97}, 49152, 1024, "", "direct").grouped, 0);
  EXPECT_EQ(box_tile({95, 97, 97}, 49152, 1024, "", "grouped").grouped, 2);
  EXPECT_EQ(box_tile({95, 97, 97}, 32768, 1024).threads, 256);  // 224 of 11 do not fit 32 KiB
  // The transposed pair's tiles (box_pair_tile): two lines of 5 an invocation where the halo is at most 15% of a
  // group's loads, of 9 where at most 28%, else box_tile's; lines of two channels in two rounds for three and four
  // channels, of the image's channels otherwise; a forced shape as box_tile's.
  EXPECT_EQ(shape(box_pair_tile({5, 5, 7}, 49152, 1024, "", "", 4096)), "2x5x256x2x2");     // box sigma 3: 2.2%
  EXPECT_EQ(shape(box_pair_tile({23, 25, 25}, 49152, 1024, "", "", 4096)), "2x5x256x2x2");  // sigma 12: 10.9%
  EXPECT_EQ(shape(box_pair_tile({23, 25, 25}, 32768, 1024, "", "", 4096)), "2x5x256x2x2");  // llvmpipe's 32 KiB
  EXPECT_EQ(shape(box_pair_tile({95, 97, 97}, 49152, 1024, "", "", 4096)), "2x9x256x2x2");  // sigma 48: 24.8% at 9
  EXPECT_EQ(shape(box_pair_tile({199, 201, 201}, 49152, 1024, "", "", 4096)),               // sigma 100: 52% at 9
            shape(box_tile({199, 201, 201}, 49152, 1024, "", "", 4096)));
  EXPECT_EQ(shape(box_pair_tile({75, 75, 75, 75, 75}, 49152, 1024, "", "", 4096, 4, true)),  // integral 48: 32% at 9
            shape(box_tile({75, 75, 75, 75, 75}, 49152, 1024, "", "", 4096, 4, true)));
  EXPECT_EQ(shape(box_pair_tile({23, 25, 25}, 49152, 1024, "", "", 4096, 1)), "2x5x256x1x1");
  EXPECT_EQ(shape(box_pair_tile({23, 25, 25}, 49152, 1024, "", "", 4096, 2)), "2x5x256x2x1");
  EXPECT_EQ(shape(box_pair_tile({5, 5, 5}, 49152, 1024, "1x9x256x2", "", 0, 4)), "1x9x256x2x2");
  EXPECT_EQ(box_tile({95, 97, 97}, 49152, 192).threads, 128);   // nor fewer than 256 invocations allowed
  // A long line: 224 x 11's 1232 positions a line store 1212 (256 x 9: 1152 store 1132); 1024: one group either way.
  EXPECT_EQ(box_tile({5, 5, 13}, 49152, 1024).threads, 224);
  EXPECT_EQ(box_tile({5, 5, 13}, 49152, 1024, "", "", 1024).per, 9);
  EXPECT_EQ(box_tile({5, 5, 5}, 32768, 1024).per, 7);
  EXPECT_EQ(box_tile({5, 5, 9}, 32768, 1024).per, 5);
  EXPECT_EQ(box_tile({5, 5, 5}, 32768, 1024, "8x3").lines, 8);
  EXPECT_EQ(box_tile({5, 5, 5}, 32768, 1024, "8x4").lines, 0);   // even block length
  EXPECT_EQ(box_tile({99}, 32768, 1024, "32x3").lines, 0);       // 24 positions per line: no room for the reach
  EXPECT_EQ(slide_tile(9, 49152, 1024, 256, "16x8x64").sh, 64);
  EXPECT_EQ(slide_tile(9, 49152, 1024, 256, "16x8").sh, 256);
  EXPECT_EQ(slide_tile(9, 49152, 1024, 256, "bad").tw, 0);
  EXPECT_EQ(slide_tile(9, 49152, 1024, 256, "64x64").tw, 0);  // 1024 threads fit, its ring does not
  EXPECT_EQ(slide_tile(9, 49152, 1024, 256).tw, 32);
  // The shader built with the device's tile links (a driver enforces its shared-memory limit at link).
  for (int axis = 0; axis < 2; ++axis) {
    ShaderSource s;
    ASSERT_TRUE(shader_file("conv1d.comp", GL_COMPUTE_SHADER, s).ok());
    GLuint prog = 0;
    const Status st = build_program(
        {s}, "#define STORE_FORMAT rgba32f\n" + sep_tile(axis, shared, invocations).defines(48, 16384), true, prog);
    EXPECT_TRUE(st.ok()) << st.error;
    glDeleteProgram(prog);
  }
  // box1d.comp builds for the device's tiles: both axes, every sum form, each form of window start.
  for (int axis = 0; axis < 2; ++axis)
    for (const std::vector<int>& widths : std::vector<std::vector<int>>{{5, 5, 7}, {1, 201, 3, 9, 9, 9, 9, 9}})
      for (const char* totals : {"direct", "grouped", "scan"})
        for (int sums = 0; sums < 4; ++sums) {
          BoxTile t = box_tile(widths, shared, invocations, "", totals);
          ASSERT_GT(t.lines, 0);
          t.sums = sums;
          ShaderSource s;
          ASSERT_TRUE(shader_file("box1d.comp", GL_COMPUTE_SHADER, s).ok());
          GLuint prog = 0;
          const Status st = build_program({s}, "#define STORE_FORMAT rgba32f\n" + t.defines(axis, widths), true, prog);
          EXPECT_TRUE(st.ok()) << st.error;
          glDeleteProgram(prog);
        }
}

// A warp's shared-memory reads as the shaders make them, counted independently of least_conflict_pitch: lanes
// part * 32 / vch .. take one wavefront when their texels fall on distinct 4-byte bank groups of vch banks.
int read_wavefronts(int vch, const std::function<int(int)>& texel_of_lane) {
  int waves = 0;
  for (int part = 0; part < vch; ++part) {
    std::map<int, int> per_slot;
    int worst = 0;
    for (int l = part * 32 / vch; l < (part + 1) * 32 / vch; ++l)
      worst = std::max(worst, ++per_slot[texel_of_lane(l) % (32 / vch)]);
    waves += worst;
  }
  return waves;
}

// conv2d.comp's and reshuffle.comp's tiles (host only): within the shared memory, and every warp's window reads
// conflict-free (vch wavefronts: one for float texels, two for vec2, four for vec4), which a plain pitch of the
// tile's width is not for every shape (the float conv2d block of 16 rows x 2 column groups had no such pitch).
TEST(GlTiles, Conv2dAndReshuffleTilesFitAndSpreadTheirReads) {
  for (int shared : {32768, 49152})
    for (int vch : {1, 2, 4})
      for (int radius : {1, 4, 9, 23, 36, 144}) {
        SCOPED_TRACE(::testing::Message() << "shared " << shared << " vch " << vch << " radius " << radius);
        for (int per : {kSepPer, kMaxSepPer}) {
          const Conv2dTile t = conv2d_tile(radius, radius, false, shared, per, vch);
          ASSERT_GT(t.cx, 0);
          ASSERT_GT(t.cy, 0);
          EXPECT_EQ(t.vch, vch);
          EXPECT_LE(t.shared_texels() * 4 * vch, shared);
          EXPECT_GE(t.pitch(), t.tw + t.cx);
          EXPECT_EQ(t.cx % per, 0);
          const int pitch = t.pitch();
          EXPECT_EQ(read_wavefronts(vch, [&](int l) { return (l % t.th) * pitch + (l / t.th) * per; }), vch) << per;
          EXPECT_NE(t.defines(16384).find("#define P " + std::to_string(per)), std::string::npos);
          EXPECT_EQ(t.defines(16384).find("#define VCH") != std::string::npos, vch < 4);
          // A matrix of 2 radius + 1 rows x 3 columns: every row its padded weights.
          const Conv2dTile m = conv2d_tile(1, radius, true, shared, per, vch);
          ASSERT_GT(m.cy, 0);
          EXPECT_LE(m.shared_texels() * 4 * vch, shared);
          EXPECT_EQ(m.weights(), (2 * radius + 1) * per);
          EXPECT_NE(m.defines(16384).find("#define MATRIX 1"), std::string::npos);
        }
        const ReshuffleTile r = reshuffle_tile(radius, vch, shared);
        if (r.tw == 0) {
          // Only where the smallest tile, 16 x 16 outputs of one float a texel, does not fit.
          EXPECT_GT((ReshuffleTile{16, 16, 8, radius, 1}.shared_bytes()), shared);
          continue;
        }
        EXPECT_LE(r.shared_bytes(), shared);
        EXPECT_EQ(r.th % r.by, 0);
        EXPECT_EQ(r.vch * r.rounds, vch);
        EXPECT_EQ(read_wavefronts(r.vch, [&](int l) { return (l / r.tw) * r.pitch() + l % r.tw; }), r.vch);
        // Rounds only where no tile of more channels fits; of the three shapes, the largest that fits.
        if (r.rounds > 1) {
          EXPECT_GT((ReshuffleTile{16, 16, 8, radius, r.vch * 2}.shared_bytes()), shared);
        }
        if (r.tw * r.th < 32 * 32) {
          ReshuffleTile big = r;
          big.tw = 32, big.th = 32, big.by = 8;
          EXPECT_GT(big.shared_bytes(), shared);
        }
      }
  // NVIDIA's 48 KB: reach 9 (sigma 3) takes 32 x 32 for every channel count; reach 36 (sigma 12) a tile of one
  // channel, two and four channels in rounds of one; reach 48 none.
  for (int vch : {1, 2, 4}) EXPECT_EQ(reshuffle_tile(9, vch, 49152).th, 32) << vch;
  for (int vch : {1, 2, 4}) {
    const ReshuffleTile r = reshuffle_tile(36, vch, 49152);
    EXPECT_EQ(r.tw, 32) << vch;
    EXPECT_EQ(r.vch, 1) << vch;
    EXPECT_EQ(r.rounds, vch);
  }
  EXPECT_NE(reshuffle_tile(36, 4, 49152).defines().find("#define ROUNDS 4"), std::string::npos);
  EXPECT_EQ(reshuffle_tile(48, 1, 49152).tw, 0);
  // A spec picks the shape where it fits (in rounds where need be); "0" and shapes that do not fit give the
  // texelFetch form.
  EXPECT_EQ(reshuffle_tile(9, 4, 49152, "16x16x4").per(), 4);
  EXPECT_EQ(reshuffle_tile(9, 4, 49152, "0").tw, 0);
  EXPECT_EQ(reshuffle_tile(36, 4, 49152, "32x32x8").rounds, 4);
  EXPECT_EQ(reshuffle_tile(48, 4, 49152, "32x32x8").tw, 0);
}

}  // namespace
}  // namespace gpublur::testing
