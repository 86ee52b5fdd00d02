// A plan's impulse response through the CPU reference: its sum and per-axis variances about the impulse, the
// numbers a method's sigma mapping (variances add) is checked against.
#pragma once
#include <gtest/gtest.h>

#include "core/image.hpp"
#include "core/plan.hpp"
#include "core/reference/reference.hpp"

namespace gpublur::testing {

struct ImpulseMoments {
  double sum = 0, var_x = 0, var_y = 0;  // variances normalised by the sum
};

// The n x n single-channel impulse at the centre, run through `plan`.
inline ImpulseMoments impulse_moments(const Plan& plan, int n) {
  Image src(n, n, 1);
  src.at(n / 2, n / 2, 0) = 1.f;
  Image got;
  EXPECT_TRUE(reference_run(plan, src, got).ok());
  ImpulseMoments m;
  if (got.value_count() != src.value_count()) return m;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double v = got.at(x, y, 0);
      m.sum += v, m.var_x += v * (x - n / 2) * (x - n / 2), m.var_y += v * (y - n / 2) * (y - n / 2);
    }
  m.var_x /= m.sum, m.var_y /= m.sum;
  return m;
}

}  // namespace gpublur::testing
