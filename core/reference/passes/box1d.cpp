// box1d (and moving-average, the same function): a cascade of boxes of odd widths w_i along the axis, on
// the line extended once by R = sum (w_i - 1) / 2 with the border mode; each box is a difference of float64
// prefix sums, so the cost does not depend on the width. The cascade equals the convolution of the extended
// line with the n-fold box kernel (core/box.hpp box_cascade_kernel).
#include "core/reference/pass_table.hpp"

namespace gpublur {

Status cpu_box1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int R = pass.radius();
  for_line_batches(src, dst, pass.axis, R, pass.border, threads, [&](LineBatch& lb) {
    const size_t V = size_t(lb.vec);
    std::vector<double> cur = std::move(lb.buf), prefix;  // cur: positions -ext .. n + ext - 1
    int ext = R;
    for (int w : pass.widths) {
      const int h = w / 2;
      const size_t len = cur.size() / V;
      prefix.assign((len + 1) * V, 0.0);
      for (size_t p = 0; p < len; ++p)
        for (size_t v = 0; v < V; ++v) prefix[(p + 1) * V + v] = prefix[p * V + v] + cur[p * V + v];
      const size_t out_len = len - size_t(2 * h);
      std::vector<double> next(out_len * V);
      for (size_t p = 0; p < out_len; ++p)  // output p covers inputs p .. p + 2h
        for (size_t v = 0; v < V; ++v) next[p * V + v] = (prefix[(p + 2 * h + 1) * V + v] - prefix[p * V + v]) / w;
      cur.swap(next);
      ext -= h;
    }
    return cur;  // ext == 0: exactly the n positions of the line
  });
  return Status::success();
}

}  // namespace gpublur
