// CUDA's 8-bit path (packed.cu) against the host forms around its own float path, bit for bit
// (tests/core/packed_check.hpp).
#include "tests/core/packed_check.hpp"
#include "tests/cuda/cuda_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(CudaPacked, EqualsTheHostFormsBitForBit) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(be);
  EXPECT_EQ(expect_packed_matches_host(*be, "gauss-sep", {{"sigma", "2"}}), 64);
  expect_packed_matches_host(*be, "copy", {});
}

}  // namespace
}  // namespace gpublur::testing
