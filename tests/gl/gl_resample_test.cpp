// The GL resampling passes (gpu/gl/passes/dual.cpp, down2.cpp, up2.cpp) in every form the host picks, against
// the CPU reference. Beyond the registry test: padded images of odd and even rings, long Down2 kernels (the
// folded last level: the two-pass x / y form through a scratch texture), odd sizes (the last column and row of
// outputs cut, the dual-up's last quad cut on both axes), every border, 1 and 4 channels, half storage.
#include <cmath>
#include <string>
#include <vector>

#include "core/resample.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

bool path_has(const std::string& path, const std::string& form) {
  return ("+" + path + "+").find("+" + form + "+") != std::string::npos;
}

// A case for failure messages: "clamp c4 37x23 path ...".
std::string case_name(Border b, int c, int w, int h, const std::string& path) {
  return std::string(border_name(b)) + " c" + std::to_string(c) + " " + std::to_string(w) + "x" +
         std::to_string(h) + " path " + path;
}

// Down2 (4 taps, quasi-like) -> Down2 (`long_n` taps, a smooth symmetric kernel) -> Up2 -> Up2, coarse images
// with a ring of `pad`.
Program resample_program(Border b, int pad, int long_n) {
  Program prog;
  const std::vector<float> quasi = {13.f / 64, 19.f / 64, 19.f / 64, 13.f / 64};
  std::vector<float> longk;
  double sum = 0;
  for (int i = 0; i < long_n; ++i) {
    longk.push_back(float(1.0 + std::cos(0.21 * (i - (long_n - 1) / 2.0))));
    sum += longk.back();
  }
  for (float& v : longk) v = float(v / sum);
  const int i2 = prog.add_image({pad, 2, false}), i4 = prog.add_image({pad, 4, false});
  const int u2 = prog.add_image({pad, 2, false});
  prog.passes = {down2_pass(quasi, b, 0, i2), down2_pass(longk, b, i2, i4), up2_pass(b, i4, u2), up2_pass(b, u2, 1)};
  return prog;
}

TEST(GlResample, Down2AndUp2EqualTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (int pad : {0, 1, 2, 3})
      for (int c : {1, 4}) {
        const Plan plan = program_plan(resample_program(b, pad, 24), b);
        for (auto [w, h] : {std::pair{37, 23}, std::pair{66, 9}}) {
          const Image src = random_image(w, h, c, unsigned(7 + w + pad + c));
          RunInfo info;
          double err = 0;
          const Status s = gl_error_vs_reference(*be, plan, src, err, &info);
          ASSERT_TRUE(s.ok()) << s.error;
          const std::string what = case_name(b, c, w, h, info.path) + " pad " + std::to_string(pad);
          EXPECT_LE(err, 2e-6) << what;
          for (const char* f : {"down2", "down2-axes", "up2"}) EXPECT_TRUE(path_has(info.path, f)) << f << ": " << what;
        }
      }
}

// Two levels down and up: 4 x 4 windows at odd sizes, the up pass's last quad cut on both axes.
Program dual_program(Border b) {
  Program prog;
  const int i2 = prog.add_image({0, 2, false}), i4 = prog.add_image({0, 4, false});
  const int u2 = prog.add_image({0, 2, false});
  prog.passes = {make_pass(Op::DualDown, 0, i2, 0, b), make_pass(Op::DualDown, i2, i4, 0, b),
                 make_pass(Op::DualUp, i4, u2, 0, b), make_pass(Op::DualUp, u2, 1, 0, b)};
  return prog;
}

// dual-down and dual-up (2 x 2 quads per invocation; odd sizes cut the last quads and groups).
TEST(GlResample, DualFilterEqualsTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (int c : {1, 4}) {
      const Plan plan = program_plan(dual_program(b), b);
      for (auto [w, h] : {std::pair{45, 27}, std::pair{70, 13}, std::pair{33, 34}}) {
        const Image src = random_image(w, h, c, unsigned(3 + w + c));
        RunInfo info;
        double err = 0;
        const Status s = gl_error_vs_reference(*be, plan, src, err, &info);
        ASSERT_TRUE(s.ok()) << s.error;
        const std::string what = case_name(b, c, w, h, info.path);
        EXPECT_LE(err, 2e-6) << what;
        for (const std::string& f : {std::string("dual-down"), std::string("dual-up")})
          EXPECT_TRUE(path_has(info.path, f)) << f << ": " << what;
      }
    }
}

// Full-resolution kawase passes (the sampler form) at offsets 0, 1 and 5 (beyond the image's short side: the
// border at both ends) in one program; the registry test covers the method's own offsets.
TEST(GlResample, KawaseEqualsTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (int c : {1, 4}) {
      Program prog;
      const int t1 = prog.add_image({0, 1, false}), t2 = prog.add_image({0, 1, false});
      prog.passes = {make_pass(Op::Kawase, 0, t1, 0, b), make_pass(Op::Kawase, t1, t2, 0, b),
                     make_pass(Op::Kawase, t2, 1, 0, b)};
      prog.passes[0].widths = {0};
      prog.passes[1].widths = {1};
      prog.passes[2].widths = {5};
      const Plan plan = program_plan(prog, b);
      for (auto [w, h] : {std::pair{37, 9}, std::pair{64, 19}}) {
        const Image src = random_image(w, h, c, unsigned(11 + w + c));
        RunInfo info;
        double err = 0;
        const Status s = gl_error_vs_reference(*be, plan, src, err, &info);
        ASSERT_TRUE(s.ok()) << s.error;
        const std::string what = case_name(b, c, w, h, info.path);
        EXPECT_LE(err, 1e-5) << what;
        EXPECT_EQ(info.path, "kawase-sampler") << what;
      }
    }
}

// RGBA16F storage: the folded down2's x pass still writes its RGBA32F scratch (a binding of another format
// would fail or garble). Input, 3 intermediates and output each round to half (relative 2^-11), the filters
// average, so the error stays below 5 * 2^-11; above 1e-6 proves the storage really is half.
TEST(GlResample, HalfStorageWithinHalfPrecision) {
  std::string error;
  Backend* be = shared_gl(true, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  for (Border b : {Border::Clamp, Border::Zero})
    for (const Program& prog : {resample_program(b, 2, 24), dual_program(b)}) {
      const Plan plan = program_plan(prog, b);
      const Image src = random_image(53, 31, 4, 17u);
      double err = 0;
      RunInfo info;
      const Status s = gl_error_vs_reference(*be, plan, src, err, &info);
      ASSERT_TRUE(s.ok()) << s.error;
      EXPECT_LE(err, 5.0 / 2048) << info.path;
      EXPECT_GT(err, 1e-6) << info.path;
    }
}

}  // namespace
}  // namespace gpublur::testing
