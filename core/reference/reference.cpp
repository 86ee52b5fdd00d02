// CPU reference implementations. Each method is written as plainly as its definition allows:
// float32 in and out, double accumulation, borders through remap_index for every tap.
#include "core/reference/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "core/border.hpp"
#include "core/gauss.hpp"
#include "core/reference/row_threads.hpp"

namespace gpublur {
namespace {

// An integer tap: out(x) += weight * in(x + offset). Every method here is a list of these per axis.
struct Tap {
  int offset;
  double weight;
};

std::vector<Tap> discrete_taps(const Plan& p) {
  std::vector<Tap> taps;
  for (int k = -p.radius; k <= p.radius; ++k) taps.push_back({k, p.weights[size_t(k + p.radius)]});
  return taps;
}

// gauss-linear with exact interpolation: the discrete kernel of its split bilinear taps (core/gauss.hpp).
std::vector<Tap> linear_exact_taps(const Plan& p) {
  int reach = 0;
  const std::vector<double> k = linear_exact_kernel(p.tap_offsets, p.tap_weights, reach);
  std::vector<Tap> taps;
  for (int d = -reach; d <= reach; ++d)
    if (k[size_t(d + reach)] != 0.0) taps.push_back({d, k[size_t(d + reach)]});
  return taps;
}

int reach(const std::vector<Tap>& taps) {
  int r = 0;
  for (const Tap& t : taps) r = std::max(r, std::abs(t.offset));
  return r;
}

// Row y of src extended by `pad` pixels on each side with the border mode applied (zero -> 0).
void padded_row(const Image& src, int y, int pad, Border b, std::vector<double>& out) {
  const int C = src.channels;
  out.assign(size_t(src.width + 2 * pad) * C, 0.0);
  const int yi = remap_index(y, src.height, b);
  if (yi < 0) return;
  for (int i = -pad; i < src.width + pad; ++i) {
    const int xi = remap_index(i, src.width, b);
    if (xi < 0) continue;
    for (int c = 0; c < C; ++c) out[size_t(i + pad) * C + c] = src.at(xi, yi, c);
  }
}

void horizontal(const std::vector<Tap>& taps, Border b, const Image& src, Image& dst, int threads) {
  const int C = src.channels, pad = reach(taps);
  for_rows(src.height, threads, [&](int y) {
    std::vector<double> line, acc(size_t(src.width) * C);
    padded_row(src, y, pad, b, line);
    for (const Tap& t : taps) {
      const double* in = line.data() + size_t(pad + t.offset) * C;
      for (size_t i = 0; i < acc.size(); ++i) acc[i] += t.weight * in[i];
    }
    for (size_t i = 0; i < acc.size(); ++i) dst.data[size_t(y) * src.width * C + i] = float(acc[i]);
  });
}

void vertical(const std::vector<Tap>& taps, Border b, const Image& src, Image& dst, int threads) {
  const size_t row = size_t(src.width) * src.channels;
  for_rows(src.height, threads, [&](int y) {
    std::vector<double> acc(row, 0.0);
    for (const Tap& t : taps) {
      const int yi = remap_index(y + t.offset, src.height, b);
      if (yi < 0) continue;
      const float* in = src.data.data() + size_t(yi) * row;
      for (size_t i = 0; i < row; ++i) acc[i] += t.weight * in[i];
    }
    for (size_t i = 0; i < row; ++i) dst.data[size_t(y) * row + i] = float(acc[i]);
  });
}

// Direct 2D convolution: (2r+1)^2 taps per pixel, weight w[dy] * w[dx], no separation.
void gauss_2d(const Plan& p, const Image& src, Image& dst, int threads) {
  const int r = p.radius, C = src.channels;
  const size_t row = size_t(src.width) * C;
  std::vector<std::vector<double>> rows(size_t(src.height));  // each source row padded once
  for_rows(src.height, threads, [&](int y) { padded_row(src, y, r, p.border, rows[size_t(y)]); });
  const std::vector<double> zero(size_t(src.width + 2 * r) * C, 0.0);
  for_rows(src.height, threads, [&](int y) {
    std::vector<double> acc(row, 0.0);
    for (int dy = -r; dy <= r; ++dy) {
      const int yi = remap_index(y + dy, src.height, p.border);
      const std::vector<double>& line = yi < 0 ? zero : rows[size_t(yi)];
      const double wy = p.weights[size_t(dy + r)];
      for (int dx = -r; dx <= r; ++dx) {
        const double w = wy * p.weights[size_t(dx + r)];
        const double* in = line.data() + size_t(dx + r) * C;
        for (size_t i = 0; i < row; ++i) acc[i] += w * in[i];
      }
    }
    for (size_t i = 0; i < row; ++i) dst.data[size_t(y) * row + i] = float(acc[i]);
  });
}

}  // namespace

Status reference_run(const Plan& plan, const Image& src, Image& dst, int threads) {
  dst = Image(src.width, src.height, src.channels);
  if (src.value_count() == 0) return Status::success();
  if (plan.method == "copy") {
    dst.data = src.data;
  } else if (plan.method == "gauss-2d") {
    gauss_2d(plan, src, dst, threads);
  } else if (plan.method == "gauss-sep" || plan.method == "gauss-linear") {
    const std::vector<Tap> taps = plan.method == "gauss-sep" ? discrete_taps(plan) : linear_exact_taps(plan);
    Image tmp(src.width, src.height, src.channels);  // float32 between passes, as on the GPU
    horizontal(taps, plan.border, src, tmp, threads);
    vertical(taps, plan.border, tmp, dst, threads);
  } else {
    return Status::fail("cpu: method '" + plan.method + "' has no CPU implementation");
  }
  return Status::success();
}

}  // namespace gpublur
