// A CPU image with its padding (stored area) filled with deterministic values in [0, 1): the source of the
// emulated resampling tests, whose kernels read the clamp rings too.
#pragma once
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

}  // namespace gpublur::testing
