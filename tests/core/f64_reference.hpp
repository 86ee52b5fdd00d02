// An independent float64 direct 2D Gaussian convolution: its own weights, its own border rules (written as
// explicit reflections, not core/border.hpp's modulo arithmetic), no separation. The ground truth that
// every exact-Gaussian implementation is checked against.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace gpublur::testing {

// Returns the in-range index, or -1 for "reads zero".
inline int f64_border(int i, int n, const std::string& mode) {
  if (mode == "zero") return (i < 0 || i >= n) ? -1 : i;
  if (mode == "clamp") return i < 0 ? 0 : (i >= n ? n - 1 : i);
  if (mode == "wrap") {
    while (i < 0) i += n;
    while (i >= n) i -= n;
    return i;
  }
  // mirror with the edge repeated: -1 -> 0, n -> n-1; reflect until inside
  while (i < 0 || i >= n) i = i < 0 ? -1 - i : 2 * n - 1 - i;
  return i;
}

inline std::vector<double> f64_convolve_2d(const Image& src, double sigma, int radius, const std::string& mode) {
  std::vector<double> w(size_t(2 * radius + 1));
  double s = 0;
  for (int k = -radius; k <= radius; ++k) s += w[size_t(k + radius)] = std::exp(-0.5 * k * k / (sigma * sigma));
  std::vector<double> out(src.value_count(), 0.0);
  for (int y = 0; y < src.height; ++y)
    for (int x = 0; x < src.width; ++x)
      for (int dy = -radius; dy <= radius; ++dy) {
        const int yy = f64_border(y + dy, src.height, mode);
        if (yy < 0) continue;
        for (int dx = -radius; dx <= radius; ++dx) {
          const int xx = f64_border(x + dx, src.width, mode);
          if (xx < 0) continue;
          const double wt = w[size_t(dy + radius)] * w[size_t(dx + radius)] / (s * s);
          for (int c = 0; c < src.channels; ++c)
            out[(size_t(y) * src.width + x) * src.channels + c] += wt * src.at(xx, yy, c);
        }
      }
  return out;
}

// Direct 2D convolution with the separable kernel k(dx) k(dy) (any odd-length k) over the border-extended
// image, float64.
inline std::vector<double> f64_separable_2d(const Image& src, const std::vector<double>& k, const std::string& mode) {
  const int r = int(k.size() / 2);
  std::vector<double> out(src.value_count(), 0.0);
  for (int y = 0; y < src.height; ++y)
    for (int x = 0; x < src.width; ++x)
      for (int dy = -r; dy <= r; ++dy) {
        const int yy = f64_border(y + dy, src.height, mode);
        if (yy < 0) continue;
        for (int dx = -r; dx <= r; ++dx) {
          const int xx = f64_border(x + dx, src.width, mode);
          if (xx < 0) continue;
          const double w = k[size_t(dy + r)] * k[size_t(dx + r)];
          for (int c = 0; c < src.channels; ++c)
            out[(size_t(y) * src.width + x) * src.channels + c] += w * src.at(xx, yy, c);
        }
      }
  return out;
}

// Max abs difference of an image's values from float64 expectations laid out the same way.
inline double max_abs_error(const std::vector<double>& want, const Image& got) {
  double worst = got.value_count() == want.size() ? 0.0 : 1e300;
  for (size_t i = 0; i < want.size() && i < got.value_count(); ++i)
    worst = std::max(worst, std::abs(want[i] - double(got.data[i])));
  return worst;
}

// Bilinear interpolation at the real position (fx, fy) of pixel centres (integers), in float64, pixels read
// with the border mode (zero: 0 outside).
inline double f64_bilinear(const Image& img, double fx, double fy, int c, const std::string& border) {
  const int x0 = int(std::floor(fx)), y0 = int(std::floor(fy));
  const double ax = fx - x0, ay = fy - y0;
  auto px = [&](int x, int y) {
    const int xx = f64_border(x, img.width, border), yy = f64_border(y, img.height, border);
    return xx < 0 || yy < 0 ? 0.0 : double(img.at(xx, yy, c));
  };
  return (1 - ay) * ((1 - ax) * px(x0, y0) + ax * px(x0 + 1, y0)) + ay * ((1 - ax) * px(x0, y0 + 1) + ax * px(x0 + 1, y0 + 1));
}

}  // namespace gpublur::testing
