#include "core/gauss.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

namespace gpublur {

int default_radius(double sigma) { return std::max(1, int(std::ceil(3.0 * sigma))); }

std::vector<double> gaussian_weights(double sigma, int radius) {
  std::vector<double> w(size_t(2 * radius + 1));
  double sum = 0;
  for (int k = -radius; k <= radius; ++k) {
    const double v = std::exp(-double(k) * k / (2.0 * sigma * sigma));
    w[size_t(k + radius)] = v;
    sum += v;
  }
  for (double& v : w) v /= sum;
  return w;
}

double kernel_sigma(const std::vector<double>& weights) {
  const int r = int(weights.size() / 2);
  double var = 0, sum = 0;
  for (int k = -r; k <= r; ++k) {
    var += weights[size_t(k + r)] * k * k;
    sum += weights[size_t(k + r)];
  }
  return std::sqrt(var / sum);
}

LinearTaps linear_taps(const std::vector<double>& w) {
  const int r = int(w.size() / 2);
  LinearTaps t;
  t.offsets.push_back(0.0);
  t.weights.push_back(w[size_t(r)]);
  for (int i = 1; i <= r; i += 2) {
    const double a = w[size_t(r + i)];
    const double b = i + 1 <= r ? w[size_t(r + i + 1)] : 0.0;
    // Far tails underflow to 0 (sigma 2, radius 80: exp(-800)); 0 / 0 made the offset NaN, and the reference's
    // exact kernel from it a vector of an undefined size (std::bad_alloc). A weightless pair sits between its texels.
    t.offsets.push_back(a + b > 0.0 ? i + b / (a + b) : i + (i + 1 <= r ? 0.5 : 0.0));
    t.weights.push_back(a + b);
  }
  return t;
}

std::vector<double> linear_exact_kernel(const std::vector<float>& tap_offsets,
                                        const std::vector<float>& tap_weights, int& reach) {
  std::map<int, double> split;  // texel offset -> weight
  if (!tap_weights.empty()) split[0] += tap_weights[0];
  for (size_t k = 1; k < tap_offsets.size() && k < tap_weights.size(); ++k) {
    for (double o : {-double(tap_offsets[k]), double(tap_offsets[k])}) {
      const double fl = std::floor(o), f = o - fl;
      split[int(fl)] += tap_weights[k] * (1.0 - f);
      if (f != 0.0) split[int(fl) + 1] += tap_weights[k] * f;
    }
  }
  reach = 0;
  for (const auto& [d, w] : split) reach = std::max(reach, std::abs(d));
  std::vector<double> kernel(size_t(2 * reach + 1), 0.0);
  for (const auto& [d, w] : split) kernel[size_t(d + reach)] = w;
  return kernel;
}

}  // namespace gpublur

namespace gpublur {
std::vector<double> exact_variance_kernel(double variance) {
  if (variance < 0.5) return {variance / 2, 1 - variance, variance / 2};
  const int r = int(std::ceil(3 * std::sqrt(variance))) + 1;
  double lo = 0.05, hi = 2 * std::sqrt(variance) + 1;  // a truncated kernel's variance rises with sigma
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi), s = kernel_sigma(gaussian_weights(mid, r));
    (s * s < variance ? lo : hi) = mid;
  }
  return gaussian_weights(0.5 * (lo + hi), r);
}
}  // namespace gpublur
