// What the host emulations of the CUDA iir schedules (tests/cuda/test_cuda_iir*_emulated.cu) share: one Iir1d
// pass of a resolved iir plan along an axis, its CPU reference output on an image and its kernel coefficients.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "gpu/cuda/passes/iir_line.cuh"
#include "tests/core/image_diff.hpp"

namespace gpublur::testing {

struct IirPassCase {
  Pass pass;            // the plan's first pass along `axis`, image 0 -> 1
  Image want;           // the reference's output of that pass alone
  cuda::IirCoeffs co;   // the pass's terms as the kernels take them
};

inline ::testing::AssertionResult iir_pass_case(const Plan& plan, int axis, const Image& src, IirPassCase& out) {
  out.pass = plan.program.passes[0];
  out.pass.axis = axis, out.pass.src = 0, out.pass.dst = 1;
  Plan one = plan;
  one.program = Program{};
  one.program.passes = {out.pass};
  if (!reference_run(one, src, out.want, 1)) return ::testing::AssertionFailure() << "reference run failed";
  if (const Status st = cuda::iir_coeffs(out.pass.taps, out.co); !st)
    return ::testing::AssertionFailure() << "iir_coeffs: " << st.error;
  return ::testing::AssertionSuccess();
}

// One emulated case against the reference: every error the emulation reported (races, stale reads) fails it,
// and its output must be within 1e-6 of the reference; returns that difference (for the tests' printed maximum).
inline double expect_emulated_case(const std::string& what, const std::vector<std::string>& errors, const Image& got,
                                   const Image& want) {
  for (const std::string& e : errors) ADD_FAILURE() << what << ": " << e;
  const double worst = max_abs_diff(got, want);
  EXPECT_LE(worst, 1e-6) << what;
  return worst;
}

// The plans the iir emulations run (test_cuda_iir*_emulated.cu): both filters at sigma 1.5, 12 and 200, every
// border mode; body(plan, impl, sigma, border).
template <typename Body>
void for_each_iir_plan(Body body) {
  for (const char* impl : {"young-van-vliet", "deriche"})
    for (double sigma : {1.5, 12.0, 200.0})
      for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
        Plan plan;
        ASSERT_TRUE(resolve_plan("iir", {{"impl", impl}, {"sigma", std::to_string(sigma)}, {"border", border}}, plan));
        body(static_cast<const Plan&>(plan), impl, sigma, border);
      }
}

}  // namespace gpublur::testing
