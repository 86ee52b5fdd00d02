#include "core/box.hpp"

#include <cmath>
#include <limits>

namespace gpublur {

std::vector<int> kovesi_widths(double sigma, int passes) {
  const double ideal = std::sqrt(12.0 * sigma * sigma / passes + 1.0);
  int wl = int(std::floor(ideal));
  if (wl % 2 == 0) --wl;
  if (wl < 1) wl = 1;
  const int wu = wl + 2;
  int best_m = 0;
  double best = std::numeric_limits<double>::infinity();
  for (int m = 0; m <= passes; ++m) {  // m passes of wl, the rest wu
    const double var = (m * (double(wl) * wl - 1) + (passes - m) * (double(wu) * wu - 1)) / 12.0;
    const double err = std::abs(var - sigma * sigma);
    if (err < best) best = err, best_m = m;
  }
  std::vector<int> w(size_t(passes), wu);
  for (int i = 0; i < best_m; ++i) w[size_t(i)] = wl;
  return w;
}

double box_variance(const std::vector<int>& widths) {
  double v = 0;
  for (int w : widths) v += (double(w) * w - 1.0) / 12.0;
  return v;
}

std::vector<double> box_cascade_kernel(const std::vector<int>& widths) {
  std::vector<double> k{1.0};
  for (int w : widths) {
    std::vector<double> next(k.size() + size_t(w) - 1, 0.0);
    for (size_t i = 0; i < k.size(); ++i)
      for (int j = 0; j < w; ++j) next[i + size_t(j)] += k[i] / w;
    k.swap(next);
  }
  return k;
}

}  // namespace gpublur
