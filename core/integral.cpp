#include "core/integral.hpp"

#include <cmath>

namespace gpublur {

FracBox frac_box(double w) {
  FracBox b;
  const double h = (w - 1.0) / 2.0;
  b.r = int(std::floor(h));
  b.e = h - b.r;
  b.w = 2.0 * b.r + 1.0 + 2.0 * b.e;
  return b;
}

double frac_box_variance(double w) {
  const FracBox b = frac_box(w);
  const double r = b.r;
  return ((2 * r + 1) * r * (r + 1) / 3.0 + 2 * b.e * (r + 1) * (r + 1)) / b.w;
}

double frac_width_for_variance(double v) {
  if (!(v > 0)) return 1.0;
  // The odd integer width 2r + 1 has variance r (r + 1) / 3: the largest r not above v, then e from
  // (2r+1) r (r+1) / 3 + 2 e (r+1)^2 = v (2r + 1 + 2e).
  int r = int(std::floor((-1.0 + std::sqrt(1.0 + 12.0 * v)) / 2.0));
  while (r > 0 && r * (r + 1.0) / 3.0 > v) --r;
  while ((r + 1.0) * (r + 2.0) / 3.0 <= v) ++r;
  const double rr = r;
  const double e = (v * (2 * rr + 1) - (2 * rr + 1) * rr * (rr + 1) / 3.0) / (2 * (rr + 1) * (rr + 1) - 2 * v);
  return 2 * rr + 1 + 2 * e;
}

double kovesi_width(double sigma, int n) { return std::sqrt(12.0 * sigma * sigma / n + 1.0); }

double frac_cascade_variance(const std::vector<float>& widths) {
  double v = 0;
  for (float w : widths) v += frac_box_variance(w);
  return v;
}

int frac_cascade_reach(const std::vector<float>& widths) {
  int r = 0;
  for (float w : widths) r += frac_box(w).reach();
  return r;
}

std::vector<double> frac_cascade_kernel(const std::vector<float>& widths) {
  std::vector<double> k{1.0};
  for (float wf : widths) {
    const FracBox b = frac_box(wf);
    const int h = b.reach();
    std::vector<double> box(size_t(2 * h + 1), 1.0 / b.w);
    if (b.e > 0) box.front() = box.back() = b.e / b.w;
    std::vector<double> next(k.size() + box.size() - 1, 0.0);
    for (size_t i = 0; i < k.size(); ++i)
      for (size_t j = 0; j < box.size(); ++j) next[i + j] += k[i] * box[j];
    k.swap(next);
  }
  return k;
}

}  // namespace gpublur
