// conv2d-matrix on GL (conv2d.comp's blocks, MATRIX) with a 255 x 67 matrix far larger than the 23 x 17 image (every
// tap's border remap), every border, 1 and 4 channels. BlocksEqualTheReference below covers llvmpipe's split of
// the kernel rows over dispatches.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlConv2dMatrix, WideMatrixEqualsTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const int kw = 255, kh = 67;
  Program prog;
  Pass pass;
  pass.op = Op::Conv2dMatrix;
  pass.widths = {kw, kh};
  for (int k = 0; k < kw * kh; ++k) pass.taps.push_back(float(std::cos(0.37 * k) / (kw * kh)));
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (int c : {1, 4}) {
      pass.border = b;
      prog.passes = {pass};
      const Plan plan = program_plan(prog, b);
      const Image src = random_image(23, 17, c, 5u + unsigned(c));
      Image ref, out;
      ASSERT_TRUE(reference_run(plan, src, ref).ok());
      RunInfo info;
      const Status s = gl_run(*be, plan, src, out, &info);
      ASSERT_TRUE(s.ok()) << s.error;
      EXPECT_LE(max_abs_diff(out, ref), 1e-6) << border_name(b) << " c" << c << " path " << info.path;
    }
}

// A large matrix's sums keep near the reference's: each block of kernel rows is summed apart and then added (one
// running sum a row of a 501 x 501 matrix drifted 3.2e-6 on llvmpipe, 1.4e-5 at 1001 x 1001, past the plan's 1e-5;
// 5.4e-7 and 1.2e-7 now). Weights of one sign and a wrapped 3 x 3 image: every tap reads, every sum grows alike.
TEST(GlConv2dMatrix, LargeMatrixSumsStayNearTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const int n = 501;
  Pass pass;
  pass.op = Op::Conv2dMatrix;
  pass.widths = {n, n};
  pass.border = Border::Wrap;
  const double sum = 0.5 * (double(n) * n - 1) + 1;
  for (int k = 0; k < n * n; ++k) pass.taps.push_back(float((k == n * n / 2 ? 1.0 : 0.5) / sum));
  Program prog;
  prog.passes = {pass};
  const Plan plan = program_plan(prog, Border::Wrap);
  const Image src = random_image(3, 3, 1, 77u);
  Image ref, out;
  ASSERT_TRUE(reference_run(plan, src, ref).ok());
  RunInfo info;
  const Status s = gl_run(*be, plan, src, out, &info);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_LE(max_abs_diff(out, ref), 1.5e-6) << "path " << info.path;
}

// conv2d.comp's blocks with a full matrix (MATRIX): odd and non-square matrices, 4 and 8 outputs an invocation
// (GPUBLUR_GL_2D_PER), every border, 1..4 channels, images smaller than the matrix and than a group's outputs; on
// llvmpipe the 41 x 81 matrix's rows take more than one dispatch, so the accumulator runs too.
TEST(GlConv2dMatrix, BlocksEqualTheReference) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  double worst = 0;
  int splits = 0;
  for (const char* per : {"", "8"}) {
    ScopedEnv env("GPUBLUR_GL_2D_PER", per);
    for (auto [kw, kh] : std::vector<std::pair<int, int>>{{9, 5}, {3, 11}, {1, 1}, {41, 81}}) {
      Pass pass;
      pass.op = Op::Conv2dMatrix;
      pass.widths = {kw, kh};
      for (int k = 0; k < kw * kh; ++k) pass.taps.push_back(float((1.5 + std::cos(0.37 * k)) / (kw * kh)));
      for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
        for (int c = 1; c <= 4; ++c) {
          if (kw == 41 && c % 3 != 1) continue;  // llvmpipe time: one and four channels
          pass.border = b;
          Program prog;
          prog.passes = {pass};
          const Plan plan = program_plan(prog, b);
          for (auto [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {7, 3}, {70, 41}}) {
            RunInfo info;
            double err = 0;
            const Status s = gl_error_vs_reference(*be, plan, random_image(w, h, c, 9u + unsigned(c + w)), err, &info);
            ASSERT_TRUE(s.ok()) << s.error;
            EXPECT_EQ(info.path.rfind("conv2d-matrix", 0), 0u) << info.path;
            splits += info.path.find("dispatches") != std::string::npos;
            worst = std::max(worst, err);
            EXPECT_LE(err, 1e-5) << "per " << per << " " << kw << "x" << kh << " " << border_name(b) << " c" << c
                                 << " " << w << "x" << h << " " << info.path;
          }
        }
    }
  }
  if (on_llvmpipe(*be)) {
    EXPECT_GT(splits, 0);
  }
  std::printf("[ measured ] conv2d-matrix blocks: max abs error %.3g\n", worst);
}

}  // namespace
}  // namespace gpublur::testing
