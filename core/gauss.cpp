#include "core/gauss.hpp"

#include <algorithm>
#include <cmath>

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
    t.offsets.push_back(i + b / (a + b));
    t.weights.push_back(a + b);
  }
  return t;
}

}  // namespace gpublur
