// Random test images: uniform values in [0,1], seeded, never constant.
#pragma once
#include <cstdint>
#include <random>

#include "core/image.hpp"

namespace gpublur::testing {

inline Image random_image(int w, int h, int c, uint32_t seed) {
  Image img(w, h, c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (float& v : img.data) v = u(rng);
  return img;
}

}  // namespace gpublur::testing
