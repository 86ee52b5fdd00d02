// GL's 8-bit path (unpack8.comp, pack8.comp) against the host forms around its own float path, bit for bit
// (tests/core/packed_check.hpp); with half storage the backend keeps the host forms, checked the same way.
#include "tests/core/packed_check.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(GlPacked, EqualsTheHostFormsBitForBit) {
  for (bool half : {false, true}) {
    std::string error;
    Backend* be = shared_gl(half, error);
    GPUBLUR_GL_OR_SKIP(be, error);
    EXPECT_EQ(expect_packed_matches_host(*be, "gauss-sep", {{"sigma", "2"}}), 64);
    expect_packed_matches_host(*be, "copy", {});
  }
}

}  // namespace
}  // namespace gpublur::testing
