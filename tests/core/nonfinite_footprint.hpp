// The direct convolution's answer for non-finite inputs (core/nonfinite.hpp's contract), by brute force: whether
// the (2 reach + 1)^2 footprint of output (x, y, ch), read through border b, holds a NaN or both infinities (NaN),
// one infinity, or none.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/border.hpp"
#include "core/image.hpp"

namespace gpublur::testing {

enum class Footprint { Finite, Nan, PosInf, NegInf };

inline Footprint direct_footprint(const Image& img, int x, int y, int ch, int reach, Border b) {
  const float inf = std::numeric_limits<float>::infinity();
  bool nan = false, pos = false, neg = false;
  reach = std::min(reach, std::max(img.width, img.height));  // beyond, the square holds the whole image (whole-image reach)
  for (int dy = -reach; dy <= reach; ++dy)
    for (int dx = -reach; dx <= reach; ++dx) {
      const int sx = remap_index(x + dx, img.width, b), sy = remap_index(y + dy, img.height, b);
      if (sx < 0 || sy < 0) continue;
      const float v = img.at(sx, sy, ch);
      nan |= std::isnan(v), pos |= v == inf, neg |= v == -inf;
    }
  return nan || (pos && neg) ? Footprint::Nan : pos ? Footprint::PosInf : neg ? Footprint::NegInf : Footprint::Finite;
}

// What a value is, in the same terms.
inline Footprint footprint_of(float v) {
  return std::isnan(v) ? Footprint::Nan : std::isinf(v) ? (v > 0 ? Footprint::PosInf : Footprint::NegInf)
                                                          : Footprint::Finite;
}

}  // namespace gpublur::testing
