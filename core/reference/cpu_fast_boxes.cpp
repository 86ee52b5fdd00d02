// The cpu backend's schedule for box cascades: Box1d / MovingAverage (odd integer widths; passes/box1d.cpp) and
// Integral1d (real widths, the end pixels weighted; passes/integral1d.cpp), the reference's functions on the line
// extended once by the cascade's reach with the border mode, as float64 running sums over batches of lines laid out
// position-major: the inner loop runs over a batch's values (vectorised) and a box costs a few additions and
// multiplications a value whatever its width. The reference builds prefix arrays and divides per value in buffers
// allocated per line (docs/performance.md, "The cpu backend's box cascades and iir").
#include <algorithm>
#include <vector>

#include "core/integral.hpp"
#include "core/reference/cpu_fast.hpp"
#include "core/reference/cpu_fast_lines.hpp"

namespace gpublur {
namespace {

// One box over `len` positions of `vec` values in `a`: b gets the len - 2 reach window means, centred: the sum of
// the 2r + 1 whole pixels, running, plus e times the two beyond them, over w. The sums run in float64: over a line
// of 10^4 positions their rounding stays near 1e-12 of the values.
GPUBLUR_SIMD_CLONES void box_pass(const double* a, double* b, double* sum, size_t len, size_t vec, FracBox box) {
  const size_t h = size_t(box.reach()), r = size_t(box.r), out_len = len - 2 * h;
  const double inv = 1.0 / box.w, ke = box.e;
  std::fill(sum, sum + vec, 0.0);
  for (size_t q = h - r; q <= h + r; ++q)  // the first window's whole pixels
    for (size_t v = 0; v < vec; ++v) sum[v] += a[q * vec + v];
  // Output p (centre c = p + h) once sum holds pixels c - r .. c + r.
  const auto put = [&](size_t p) {
    double* o = b + p * vec;
    if (box.e > 0) {
      const double* left = a + (p + h - r - 1) * vec;
      const double* right = a + (p + h + r + 1) * vec;
      for (size_t v = 0; v < vec; ++v) o[v] = (sum[v] + ke * (left[v] + right[v])) * inv;
    } else {
      for (size_t v = 0; v < vec; ++v) o[v] = sum[v] * inv;
    }
  };
  put(0);
  for (size_t p = 1; p < out_len; ++p) {
    const double* enter = a + (p + h + r) * vec;
    const double* leave = a + (p + h - r - 1) * vec;
    for (size_t v = 0; v < vec; ++v) sum[v] += enter[v] - leave[v];
    put(p);
  }
}

// The pass's cascade: Box1d / MovingAverage's odd widths (e = 0), or Integral1d's real widths.
std::vector<FracBox> boxes_of(const Pass& p) {
  std::vector<FracBox> out;
  if (p.op == Op::Integral1d)
    for (float wf : p.taps) out.push_back(frac_box(wf));
  else
    for (int w : p.widths) out.push_back(frac_box(w));
  return out;
}

// The cascade over a[0 .. len) (positions -R .. n + R - 1 of the extended lines); returns the buffer holding the
// n outputs (a or b).
double* cascade(const std::vector<FracBox>& boxes, double* a, double* b, double* sum, size_t len, size_t vec) {
  for (const FracBox& box : boxes) {
    box_pass(a, b, sum, len, vec, box);
    len -= 2 * size_t(box.reach());
    std::swap(a, b);
  }
  return a;
}

}  // namespace

void cpu_fast_boxes(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const std::vector<FracBox> boxes = boxes_of(pass);
  for_fast_lines(src, dst, pass.axis, pass.radius(), pass.border, 1, threads,
                 [&](LineBuffers& buf, size_t len, size_t vec) {
                   return cascade(boxes, buf.a.data(), buf.b.data(), buf.lane[0].data(), len, vec);
                 });
}

}  // namespace gpublur
