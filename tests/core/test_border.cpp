// remap_index (core/border.hpp, shared by all backends) against the explicit reflection rules of the
// float64 reference, far outside the image too (kernels wider than the image).
#include <gtest/gtest.h>

#include "core/border.hpp"
#include "tests/core/f64_reference.hpp"

namespace gpublur {
namespace {

TEST(Border, RemapMatchesExplicitRules) {
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (int n : {1, 2, 3, 7, 16})
      for (int i = -5 * n - 3; i < 6 * n + 3; ++i)
        ASSERT_EQ(remap_index(i, n, b), testing::f64_border(i, n, border_name(b)))
            << border_name(b) << " n=" << n << " i=" << i;
}

TEST(Border, MirrorRepeatsTheEdge) {
  EXPECT_EQ(remap_index(-1, 4, Border::Mirror), 0);
  EXPECT_EQ(remap_index(-2, 4, Border::Mirror), 1);
  EXPECT_EQ(remap_index(4, 4, Border::Mirror), 3);
  EXPECT_EQ(remap_index(5, 4, Border::Mirror), 2);
}

TEST(Border, NamesRoundTrip) {
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero}) {
    Border back{};
    ASSERT_TRUE(parse_border(border_name(b), back));
    EXPECT_EQ(back, b);
  }
  Border x{};
  EXPECT_FALSE(parse_border("reflect", x));
}

}  // namespace
}  // namespace gpublur
