// A CPU image with its padding (stored area) filled with deterministic values in [0, 1): the source of the
// emulated resampling tests, whose kernels read the clamp rings too; and their comparison with the reference.
#pragma once
#include <cmath>
#include <vector>

#include "core/reference/cpu_image.hpp"

namespace gpublur::testing {

inline CpuImage random_stored(int w, int h, int c, int pad, unsigned seed) {
  CpuImage im = CpuImage::make(w, h, c, ImageDecl{pad, 1, false});
  for (float& v : im.own_f) {
    seed = seed * 1664525u + 1013904223u;
    v = float(seed >> 8) / float(1u << 24);
  }
  return im;
}

// The worst |got - ref| over ref's stored float32 values; NaN where got has one (an output no thread wrote).
inline double worst_of(const std::vector<float>& got, const CpuImage& ref) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::abs(double(got[i]) - double(ref.own_f[i]));
    if (!(d <= worst)) worst = d;  // NaN too
  }
  return worst;
}

}  // namespace gpublur::testing
