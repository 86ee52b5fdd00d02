// conv2d-matrix on GL (shaders/conv2d_matrix.comp) where llvmpipe's loop limit makes the host split the kernel
// rows over several dispatches (the running sum carried in the RGBA32F accumulator): a 255 x 67 matrix takes
// 63 rows per dispatch (kLoopBudget / 256), so 2 dispatches. The registry test's kernels are small enough for
// one dispatch; this covers the resume / last protocol, every border, 1 and 4 channels.
#include <cmath>

#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlConv2dMatrix, RowsSplitOverDispatchesEqualTheReference) {
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

}  // namespace
}  // namespace gpublur::testing
