// The cpu backend's schedule for passes whose every output weighs a 4 x 4 block of source pixels: kawase's step
// (rows and columns at -k - 1, -k, k, k + 1, each 1/16) and the dual filter's down and up passes (their bilinear
// samples at quarter and half positions, passes/dual.cpp). The weights come from the passes' own sample lists at
// plan time, once per output parity; each output row then reads its four source rows through column tables made
// once a pass, where the reference interpolated and border-remapped every sample of every channel.
#include <array>
#include <cmath>
#include <vector>

#include "core/dual_grid.hpp"
#include "core/reference/cpu_fast.hpp"
#include "core/reference/row_threads.hpp"

namespace gpublur {
namespace {

// One axis: output o reads source indices index(o, 0..3) (border-remapped; -1: the zero border) with the weights
// of its parity (DualUp's fine pixels alternate between two sample patterns; the others have one).
struct AxisTaps {
  std::vector<std::array<int, 4>> at;  // per output
  std::vector<int> parity;             // per output: 0 or 1
};

template <class Index>
AxisTaps axis_taps(int n_out, int n_src, Border b, Index index, bool alternate) {
  AxisTaps t;
  t.at.resize(size_t(n_out));
  t.parity.resize(size_t(n_out));
  for (int o = 0; o < n_out; ++o) {
    for (int i = 0; i < 4; ++i) t.at[size_t(o)][size_t(i)] = remap_index(index(o, i), n_src, b);
    t.parity[size_t(o)] = alternate ? (o & 1) : 0;
  }
  return t;
}

// W[py][px][j][i]: the weight of source row first_y + j, column first_x + i.
using Weights = std::array<std::array<std::array<std::array<double, 4>, 4>, 2>, 2>;

// Adds w times the bilinear sample at (rx, ry), positions relative to the block's first column / row (each in
// [0, 3]), to the block's weights.
void add_sample(std::array<std::array<double, 4>, 4>& m, double rx, double ry, double w) {
  const int x0 = int(std::floor(rx)), y0 = int(std::floor(ry));
  const double ax = rx - x0, ay = ry - y0;
  m[size_t(y0)][size_t(x0)] += w * (1 - ay) * (1 - ax);
  if (ax > 0) m[size_t(y0)][size_t(x0 + 1)] += w * (1 - ay) * ax;
  if (ay > 0) m[size_t(y0 + 1)][size_t(x0)] += w * ay * (1 - ax);
  if (ax > 0 && ay > 0) m[size_t(y0 + 1)][size_t(x0 + 1)] += w * ay * ax;
}

// dst(x, y) = sum_{j, i} W[py(y)][px(x)][j][i] src(xs(x)[i], ys(y)[j]), float64 sums of a row's outputs.
void run_blocks(const CpuImage& src, CpuImage& dst, const AxisTaps& xs, const AxisTaps& ys, const Weights& W,
                int threads) {
  const int C = src.channels, DW = dst.width;
  const size_t row_values = size_t(src.width) * size_t(C);
  for_rows(dst.height, threads, [&](int y) {
    thread_local std::vector<double> acc;
    acc.assign(size_t(DW) * size_t(C), 0.0);
    const std::array<int, 4>& rows = ys.at[size_t(y)];
    const int py = ys.parity[size_t(y)];
    for (int j = 0; j < 4; ++j) {
      if (rows[size_t(j)] < 0) continue;  // the zero border's row
      const float* line = src.f + size_t(rows[size_t(j)]) * row_values;
      for (int x = 0; x < DW; ++x) {
        const std::array<double, 4>& w = W[size_t(py)][size_t(xs.parity[size_t(x)])][size_t(j)];
        const std::array<int, 4>& cols = xs.at[size_t(x)];
        double* a = acc.data() + size_t(x) * size_t(C);
        for (int i = 0; i < 4; ++i) {
          if (cols[size_t(i)] < 0 || w[size_t(i)] == 0.0) continue;
          const float* p = line + size_t(cols[size_t(i)]) * size_t(C);
          for (int c = 0; c < C; ++c) a[c] += w[size_t(i)] * double(p[c]);
        }
      }
    }
    float* out = dst.f + dst.offset(0, y);
    for (size_t k = 0; k < acc.size(); ++k) out[k] = float(acc[k]);
  });
}

}  // namespace

void cpu_fast_kawase(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int k = pass.widths[0];
  // Block index i -> source offset -k - 1, -k, k, k + 1 (at k = 0 the middle two are one pixel, counted twice as
  // the reference does).
  const auto index = [k](int o, int i) { return o + (i < 2 ? -k - 1 + i : k + i - 2); };
  const AxisTaps xs = axis_taps(dst.width, src.width, pass.border, index, false);
  const AxisTaps ys = axis_taps(dst.height, src.height, pass.border, index, false);
  Weights W{};
  for (auto& m : W[0][0])
    for (double& v : m) v = 1.0 / 16;
  run_blocks(src, dst, xs, ys, W, threads);
}

void cpu_fast_dual(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  Weights W{};
  AxisTaps xs, ys;
  if (pass.op == Op::DualDown) {
    // Coarse pixel X samples at its centre 2X + 1/2 (weight 4) and the four diagonal points 1 away (weight 1), / 8:
    // the block's first fine pixel is 2X - 1, the centre 1.5 into it.
    const auto first = [](int X) { return int(std::floor(dual_coarse_centre(X))) - 1; };
    const auto index = [&](int X, int i) { return first(X) + i; };
    xs = axis_taps(dst.width, src.width, pass.border, index, false);
    ys = axis_taps(dst.height, src.height, pass.border, index, false);
    const double c = double(dual_coarse_centre(0)) - first(0);
    add_sample(W[0][0], c, c, 4.0 / 8);
    for (int sy : {-1, 1})
      for (int sx : {-1, 1}) add_sample(W[0][0], c + sx, c + sy, 1.0 / 8);
  } else {
    // Fine pixel x samples around its centre u = x / 2 - 1/4 (coarse units): 1 away along each axis (weight 1) and
    // the four diagonal points 1/2 away (weight 2), / 12; the block starts at floor(u) - 1, u 1.75 (even x) or
    // 1.25 (odd x) into it.
    const auto first = [](int x) { return int(std::floor(dual_fine_centre(x))) - 1; };
    const auto index = [&](int x, int i) { return first(x) + i; };
    xs = axis_taps(dst.width, src.width, pass.border, index, true);
    ys = axis_taps(dst.height, src.height, pass.border, index, true);
    for (int py = 0; py < 2; ++py)
      for (int px = 0; px < 2; ++px) {
        const double ux = double(dual_fine_centre(px)) - first(px), uy = double(dual_fine_centre(py)) - first(py);
        auto& m = W[size_t(py)][size_t(px)];
        for (int s : {-1, 1}) {
          add_sample(m, ux + s, uy, 1.0 / 12);
          add_sample(m, ux, uy + s, 1.0 / 12);
          add_sample(m, ux + 0.5 * s, uy + 0.5, 2.0 / 12);
          add_sample(m, ux + 0.5 * s, uy - 0.5, 2.0 / 12);
        }
      }
  }
  run_blocks(src, dst, xs, ys, W, threads);
}

}  // namespace gpublur
