// integral1d: a cascade of boxes of real widths along the axis (core/integral.hpp), written the seed's way: per
// box the float64 inclusive prefix sum of the line, then each output from the prefix sums interpolated at the
// window's two ends. The line is extended once by the cascade's total reach with the border mode, each box
// shortening it by its reach on both sides, so the cascade equals the convolution of the extended line with
// frac_cascade_kernel.
#include "core/integral.hpp"
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_integral1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int R = pass.radius();
  for_line_batches(src, dst, pass.axis, R, pass.border, threads, [&](LineBatch& lb) {
    const size_t V = size_t(lb.vec);
    std::vector<double> cur = std::move(lb.buf), prefix;  // cur: the current box's input line
    for (float wf : pass.taps) {
      const FracBox b = frac_box(wf);
      const size_t h = size_t(b.reach()), r = size_t(b.r), len = cur.size() / V;
      // prefix[q] = sum of cur[0 .. q - 1]: the integral of the line up to the left edge of pixel q.
      prefix.assign((len + 1) * V, 0.0);
      for (size_t q = 0; q < len; ++q)
        for (size_t v = 0; v < V; ++v) prefix[(q + 1) * V + v] = prefix[q * V + v] + cur[q * V + v];
      const size_t out_len = len - 2 * h;
      std::vector<double> next(out_len * V);
      for (size_t p = 0; p < out_len; ++p) {
        const size_t c = p + h;  // the window's centre pixel in cur
        for (size_t v = 0; v < V; ++v) {
          // The window [c - r - e, c + r + 1 + e) in prefix coordinates: prefix interpolated linearly at both ends.
          double sum = prefix[(c + r + 1) * V + v] - prefix[(c - r) * V + v];
          if (b.e > 0)
            sum = (1 - b.e) * sum + b.e * (prefix[(c + r + 2) * V + v] - prefix[(c - r - 1) * V + v]);
          next[p * V + v] = sum / b.w;
        }
      }
      cur.swap(next);
    }
    return cur;
  });
  return Status::success();
}

}  // namespace gpublur
