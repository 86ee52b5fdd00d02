// Comparing a result with its reference in the tests.
#pragma once
#include <algorithm>
#include <cmath>

#include "core/image.hpp"

namespace gpublur::testing {

// Max |a - b| over all values; infinity where shapes differ or a value is NaN (poison left behind).
inline double max_abs_diff(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels || a.data.size() != b.data.size())
    return INFINITY;
  double m = 0;
  for (size_t i = 0; i < a.data.size(); ++i) {
    const double d = std::fabs(double(a.data[i]) - double(b.data[i]));
    if (std::isnan(d)) return INFINITY;
    m = std::max(m, d);
  }
  return m;
}

}  // namespace gpublur::testing
