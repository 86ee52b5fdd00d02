// The cpu backend's bilateral (Bilateral, Bilateral1d): the reference's function (passes/bilateral.cpp), in float64
// as it is, computed tap by tap over a whole output row: the row's centre pixels and each tap's source row are
// border-extended once into planar buffers, so the loop over the row's pixels is unit-stride and vectorises (the
// AVX2 clone where the CPU has it), where the reference border-remapped every read of every channel and called
// std::exp once a tap. The range weight exp(-range d2) comes from exp_nonpositive (below); images with a
// non-finite value take the reference (cpu_fast.cpp), whose NaN / inf weights this does not reproduce.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/reference/cpu_fast.hpp"
#include "core/reference/cpu_fast_lines.hpp"  // GPUBLUR_SIMD_CLONES
#include "core/reference/row_threads.hpp"

namespace gpublur {
namespace {

// exp(a) for finite a <= 0: a = k ln 2 + q (Cody-Waite, fdlibm's split of ln 2), exp(q) by its Taylor polynomial to
// q^12 (|q| <= ln 2 / 2: truncation under 2e-16 relative), times 2^k from its bits. Below -708 it returns 0: there
// the reference's weights are subnormal, under 1e-307 of the centre tap's (d2 = 0, weight the spatial tap), which
// every sum includes.
inline double exp_nonpositive(double a) {
  const double am = a < -708.0 ? -708.0 : a;
  constexpr double kShift = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer in the low bits
  const double t = am * 1.4426950408889634 + kShift;
  const double k = t - kShift;
  const double q = (am - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
  double p = 1.0 / 479001600.0;  // 1 / 12!
  p = p * q + 1.0 / 39916800.0;
  p = p * q + 1.0 / 3628800.0;
  p = p * q + 1.0 / 362880.0;
  p = p * q + 1.0 / 40320.0;
  p = p * q + 1.0 / 5040.0;
  p = p * q + 1.0 / 720.0;
  p = p * q + 1.0 / 120.0;
  p = p * q + 1.0 / 24.0;
  p = p * q + 1.0 / 6.0;
  p = p * q + 0.5;
  p = p * q + 1.0;
  p = p * q + 1.0;
  int64_t tb;
  std::memcpy(&tb, &t, sizeof tb);
  const int64_t bits = (tb - int64_t(0x4338000000000000LL) + 1023) << 52;  // k + 1023 in the exponent
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return a < -708.0 ? 0.0 : p * scale;
}

// One tap over n outputs: planar channels (tap[c], centre[c]: n values each, stride `plane`; sums stride sum_plane),
// CC of them colour (the range distance), C summed.
template <int C, int CC>
GPUBLUR_SIMD_CLONES void add_tap(const double* __restrict__ tap, const double* __restrict__ centre, size_t plane,
                                 double ws, double range, size_t n, double* __restrict__ total,
                                 double* __restrict__ sum, size_t sum_plane) {
  for (size_t x = 0; x < n; ++x) {
    double d2 = 0;
    for (int c = 0; c < CC; ++c) {
      const double d = tap[size_t(c) * plane + x] - centre[size_t(c) * plane + x];
      d2 += d * d;
    }
    const double wr = ws * exp_nonpositive(-range * d2);
    const double w = d2 <= double(FLT_MAX) ? std::max(wr, double(FLT_MIN)) : wr;  // the reference's weight floor
    total[x] += w;
    for (int c = 0; c < C; ++c) sum[size_t(c) * sum_plane + x] += w * tap[size_t(c) * plane + x];
  }
}

using AddTap = void (*)(const double*, const double*, size_t, double, double, size_t, double*, double*, size_t);
// The planes run colour channels first, the alpha (if any) last: CC = C - 1 with an alpha, else C.
AddTap add_tap_for(int channels, bool alpha) {
  switch (channels * 2 + (alpha ? 1 : 0)) {
    case 2: return add_tap<1, 1>;
    case 3: return add_tap<1, 0>;
    case 4: return add_tap<2, 2>;
    case 5: return add_tap<2, 1>;
    case 6: return add_tap<3, 3>;
    case 7: return add_tap<3, 2>;
    case 8: return add_tap<4, 4>;
    default: return add_tap<4, 3>;
  }
}

// Source row y of src extended by rx on both sides with the border mode, planar: out[p * plane + rx + x] holds channel
// order[p].
void planar_row(const CpuImage& src, int y, int rx, Border b, const int* order, std::vector<double>& out) {
  const int C = src.channels, W = src.width;
  const size_t plane = size_t(W + 2 * rx);
  out.assign(plane * size_t(C), 0.0);
  const int yy = remap_index(y, src.height, b);
  if (yy < 0) return;  // the zero border's row
  const float* row = src.f + src.offset(0, yy);
  for (int i = 0; i < W + 2 * rx; ++i) {
    const int x = remap_index(i - rx, W, b);
    if (x < 0) continue;
    for (int c = 0; c < C; ++c) out[size_t(c) * plane + size_t(i)] = double(row[size_t(x) * C + size_t(order[c])]);
  }
}

}  // namespace

bool all_finite(const CpuImage& img) {
  const size_t n = size_t(img.stride()) * size_t(img.height + 2 * img.pad) * size_t(img.channels);
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(img.f[i])) return false;
  return true;
}

// Source rows go in groups of kGroupRows and outputs in chunks of kChunk: a chunk's sums, centre and rows stay in
// the first-level cache while the group's taps pass over them (1024^2 RGBA on this 2-core machine, against tap by tap
// over whole rows: separable at sigma 12 384-391 -> 341-343 ms, brute 8424-8483 -> 6609-6958).
constexpr int kGroupRows = 8;
constexpr size_t kChunk = 256;

void cpu_fast_bilateral(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = src.channels, W = src.width, r = pass.radius();
  const bool two_d = pass.op == Op::Bilateral;
  const int rx = two_d || pass.axis == 0 ? r : 0, ry = two_d || pass.axis == 1 ? r : 0;
  const double range = double(pass.range);
  const int alpha = pass_alpha(pass, C);
  const AddTap add = add_tap_for(C, alpha >= 0);
  int order[4] = {0, 1, 2, 3};  // the planes' channels: the colour ones, then alpha
  for (int c = 0, p = 0; c < C; ++c)
    if (c != alpha) order[p++] = c;
  if (alpha >= 0) order[C - 1] = alpha;
  const size_t n = size_t(W), plane = size_t(W + 2 * rx);
  const auto spatial = [&](int dx, int dy) {
    return two_d ? double(pass.taps[size_t(dx + r)]) * double(pass.taps[size_t(dy + r)])
                 : double(pass.taps[size_t((pass.axis == 0 ? dx : dy) + r)]);
  };
  for_rows(dst.height, threads, [&](int y) {
    thread_local std::vector<double> centre, total, sum;
    thread_local std::vector<std::vector<double>> rows(kGroupRows);
    planar_row(src, y, rx, pass.border, order, centre);
    total.assign(n, 0.0);
    sum.assign(n * size_t(C), 0.0);
    for (int g0 = -ry; g0 <= ry; g0 += kGroupRows) {
      const int g1 = std::min(ry + 1, g0 + kGroupRows);
      for (int dy = g0; dy < g1; ++dy)
        if (dy != 0) planar_row(src, y + dy, rx, pass.border, order, rows[size_t(dy - g0)]);
      for (size_t x0 = 0; x0 < n; x0 += kChunk) {
        const size_t m = std::min(kChunk, n - x0);
        for (int dy = g0; dy < g1; ++dy) {
          const double* row = (dy == 0 ? centre : rows[size_t(dy - g0)]).data() + rx + x0;
          for (int dx = -rx; dx <= rx; ++dx)
            add(row + dx, centre.data() + rx + x0, plane, spatial(dx, dy), range, m, total.data() + x0,
                sum.data() + x0, n);
        }
      }
    }
    float* out = dst.f + dst.offset(0, y);
    for (size_t x = 0; x < n; ++x)
      for (int p = 0; p < C; ++p) out[x * size_t(C) + size_t(order[p])] = float(sum[size_t(p) * n + x] / total[x]);
  });
}

}  // namespace gpublur
