// GL timing paths used by `bench`: queued repeated runs (one timer query each) and the busy warm-up.
#include <gtest/gtest.h>

#include <vector>

#include "core/reference/reference.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlTiming, RepeatedRunsGiveOneTimeEachAndTheResult) {
  std::string error;
  Backend* be = shared_gl(false, error);
  GPUBLUR_GL_OR_SKIP(be, error);
  const Image src = random_image(67, 45, 4, 31);
  const Plan plan = make_plan("gauss-sep", {{"sigma", "2.5"}, {"border", "mirror"}});
  double ms = 0;
  ASSERT_TRUE(be->upload(src, ms).ok());
  ASSERT_TRUE(be->warm_up(plan, 5).ok());
  std::vector<double> times;
  RunInfo info;
  const Status s = be->run_repeated(plan, 5, times, info);
  ASSERT_TRUE(s.ok()) << s.error;
  ASSERT_EQ(times.size(), 5u);
  for (double t : times) EXPECT_GT(t, 0.0) << be->timer_clock();
  EXPECT_EQ(info.compute_ms, times.back());
  EXPECT_EQ(info.path, on_llvmpipe(*be) ? "conv1d-window" : "conv1d-fused");  // a small image on a GPU
  Image got, want;
  ASSERT_TRUE(be->download(got, ms).ok());
  ASSERT_TRUE(reference_run(plan, src, want).ok());
  EXPECT_LE(max_abs_diff(got, want), 1e-5);
  std::printf("[ measured ] %s: 5 queued runs, first %.4f ms, last %.4f ms\n", be->timer_clock().c_str(),
              times.front(), times.back());
}

}  // namespace
}  // namespace gpublur::testing
