#include "core/reshuffle.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gpublur {

size_t ReshuffleKernel::taps() const {
  size_t n = 0;
  for (const auto& s : sets) n += s.size();
  return n;
}

ReshuffleKernel gaussian_reshuffle(double sigma, int radius) {
  ReshuffleKernel k;
  k.radius = radius;
  // The 1D normaliser S = sum_k exp(-k^2 / (2 sigma^2)): the 2D kernel is gauss-2d's outer product of the
  // normalised 1D taps, exp(-(dx^2 + dy^2) / (2 sigma^2)) / S^2, which sums to 1.
  double s1 = 0;
  for (int i = -radius; i <= radius; ++i) s1 += std::exp(-double(i) * i / (2.0 * sigma * sigma));
  // Counting sort by key dx^2 + dy^2 (at most 2 radius^2): set index per key, the largest key (smallest weight)
  // first, then the offsets in raster order. The GPU backends sum w_u * S_u in float32 in set order, up to 1.2M sets
  // at radius 1536: the centre first left the small terms under the sum's rounding (GL on a constant 0.7 at sigma
  // 512: 0.698987, 1.4e-3 low; 5e-6 at 100).
  const size_t keys = size_t(2) * size_t(radius) * size_t(radius) + 1;
  std::vector<int> set_of(keys, -1);
  std::vector<int> count(keys, 0);
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) ++count[size_t(dx * dx + dy * dy)];
  for (size_t key = keys; key-- > 0;) {
    if (count[key] == 0) continue;
    set_of[key] = int(k.weights.size());
    k.weights.push_back(std::exp(-double(key) / (2.0 * sigma * sigma)) / (s1 * s1));
    k.sets.emplace_back();
    k.sets.back().reserve(size_t(count[key]));
  }
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) k.sets[size_t(set_of[size_t(dx * dx + dy * dy)])].emplace_back(dx, dy);
  return k;
}

ReshuffleKernel reshuffle_matrix(const std::vector<double>& m, int kw, int kh) {
  ReshuffleKernel k;
  k.radius = std::max(kw, kh) / 2;
  std::map<double, size_t> index;  // exact weight -> set
  for (int j = 0; j < kh; ++j)
    for (int i = 0; i < kw; ++i) {
      const double w = m[size_t(j) * size_t(kw) + size_t(i)];
      if (w == 0) continue;
      auto [it, fresh] = index.emplace(w, k.weights.size());
      if (fresh) {
        k.weights.push_back(w);
        k.sets.emplace_back();
      }
      k.sets[it->second].emplace_back(i - kw / 2, j - kh / 2);
    }
  // The smallest magnitudes first (see gaussian_reshuffle); equal magnitudes in order of first appearance.
  std::vector<size_t> order(k.weights.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return std::fabs(k.weights[a]) < std::fabs(k.weights[b]); });
  ReshuffleKernel sorted;
  sorted.radius = k.radius;
  for (size_t i : order) sorted.weights.push_back(k.weights[i]), sorted.sets.push_back(std::move(k.sets[i]));
  return sorted;
}

std::vector<double> reshuffle_dense(const ReshuffleKernel& k) {
  const int n = 2 * k.radius + 1;
  std::vector<double> m(size_t(n) * size_t(n), 0.0);
  for (size_t u = 0; u < k.sets.size(); ++u)
    for (auto [dx, dy] : k.sets[u]) m[size_t(dy + k.radius) * size_t(n) + size_t(dx + k.radius)] += k.weights[u];
  return m;
}

Pass reshuffle_pass(const ReshuffleKernel& k, Border border) {
  Pass p;
  p.op = Op::Reshuffle;
  p.border = border;
  p.widths = {k.radius};
  p.taps.assign(k.weights.begin(), k.weights.end());
  p.links.reserve(k.sets.size() + 2 * k.taps());
  for (const auto& s : k.sets) {
    p.links.push_back(int(s.size()));
    for (auto [dx, dy] : s) p.links.push_back(dx), p.links.push_back(dy);
  }
  return p;
}

}  // namespace gpublur
