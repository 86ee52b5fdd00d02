// The barriers between a GL schedule's steps (gpu/gl/step_barriers.hpp): texture fetches always see earlier
// stores; image stores wait for earlier accesses of their texture only where the pool reused it.
#include <gtest/gtest.h>

#include "gpu/gl/gl_pass_context.hpp"
#include "gpu/gl/step_barriers.hpp"

namespace gpublur {
namespace {

constexpr GLbitfield kImage = GL_SHADER_IMAGE_ACCESS_BARRIER_BIT;

TEST(GlStepBarriers, FreshTexturesNeedOnlyFetchBarriers) {
  const std::vector<GLbitfield> b = step_barriers({{{1}, {10}}, {{10}, {11}}, {{11}, {12}}, {{12}, {2}}});
  ASSERT_EQ(b.size(), 4u);
  for (GLbitfield x : b) EXPECT_EQ(x, kStepBarrier);
  EXPECT_NE(kStepBarrier & GL_TEXTURE_FETCH_BARRIER_BIT, 0u);
  EXPECT_EQ(kStepBarrier, GLbitfield(GL_TEXTURE_FETCH_BARRIER_BIT));
}

TEST(GlStepBarriers, ReusedTexturesWaitForEarlierAccesses) {
  // Step 2 writes 10, which step 0 wrote and step 1 read (a pooled texture); step 3 writes a fresh one; step 4
  // writes 11, read by step 2 after the last image barrier; step 5 writes 13, last touched before it.
  const std::vector<GLbitfield> b = step_barriers(
      {{{1}, {10}}, {{10}, {11}}, {{11}, {10}}, {{10}, {12}}, {{12}, {11}}, {{11}, {13}}});
  const std::vector<GLbitfield> want = {kStepBarrier, kStepBarrier, kStepBarrier | kImage,
                                        kStepBarrier, kStepBarrier | kImage, kStepBarrier};
  EXPECT_EQ(b, want);
}

TEST(GlStepBarriers, SharedScratchTexturesWait) {
  // Steps 0 and 2 both use scratch texture 50 (written and read by each); step 1's scratch 60 is its own.
  const std::vector<GLbitfield> b =
      step_barriers({{{1, 50}, {10, 50}}, {{10, 60}, {11, 60}}, {{11, 50}, {12, 50}}, {{12}, {2}}});
  const std::vector<GLbitfield> want = {kStepBarrier, kStepBarrier, kStepBarrier | kImage, kStepBarrier};
  EXPECT_EQ(b, want);
}

TEST(GlStepBarriers, StepsWithStorageBuffersGetTheStorageBit) {
  StepAccess a{{1}, {10}}, b{{10}, {11}, true}, c{{11}, {12}}, d{{12}, {2}, true};
  const std::vector<GLbitfield> got = step_barriers({a, b, c, d});
  const GLbitfield st = GL_SHADER_STORAGE_BARRIER_BIT;
  const std::vector<GLbitfield> want = {kStepBarrier, kStepBarrier | st, kStepBarrier, kStepBarrier | st};
  EXPECT_EQ(got, want);
}

TEST(GlStepBarriers, WriteAfterWriteWaits) {
  const std::vector<GLbitfield> b = step_barriers({{{1}, {10}}, {{2}, {10}}});
  EXPECT_EQ(b[1], kStepBarrier | kImage);
}

}  // namespace
}  // namespace gpublur
