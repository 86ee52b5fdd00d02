// core/nonfinite.hpp. The footprint test is separable (a square, border-remapped per axis): along rows, then along
// columns, each a sliding window over the border-extended line that counts each kind, so O(1) a sample at any reach.
#include "core/nonfinite.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace gpublur {
namespace {

// out[i] = OR of the kinds of in[remap(i + d)] for |d| <= reach, i in [0, n); in and out strided.
void window_or(const uint8_t* in, size_t in_stride, uint8_t* out, size_t out_stride, int n, int reach, Border b) {
  reach = std::min(reach, n);      // from n - 1 on, every window holds the whole line whatever the border
  std::array<long long, 3> cnt{};  // NaN, +Inf, -Inf in the window
  const auto add = [&](int p, int s) {
    const int x = remap_index(p, n, b);
    if (x < 0) return;
    const uint8_t k = in[size_t(x) * in_stride];
    if (k & NonfiniteMarks::kNan) cnt[0] += s;
    if (k & NonfiniteMarks::kPosInf) cnt[1] += s;
    if (k & NonfiniteMarks::kNegInf) cnt[2] += s;
  };
  for (int p = -reach; p <= reach; ++p) add(p, 1);
  for (int i = 0; i < n; ++i) {
    out[size_t(i) * out_stride] = uint8_t((cnt[0] ? NonfiniteMarks::kNan : 0) | (cnt[1] ? NonfiniteMarks::kPosInf : 0) |
                                          (cnt[2] ? NonfiniteMarks::kNegInf : 0));
    add(i + reach + 1, 1);
    add(i - reach, -1);
  }
}

}  // namespace

bool take_nonfinite(Image& img, NonfiniteMarks& marks) {
  marks = NonfiniteMarks{};
  size_t first = img.data.size();
  for (size_t i = 0; i < img.data.size(); ++i)
    if (!std::isfinite(img.data[i])) {
      first = i;
      break;
    }
  if (first == img.data.size()) return false;
  marks.width = img.width, marks.height = img.height, marks.channels = img.channels;
  marks.kind.assign(img.data.size(), 0);
  for (size_t i = first; i < img.data.size(); ++i) {
    const float v = img.data[i];
    if (std::isfinite(v)) continue;
    marks.kind[i] = std::isnan(v) ? NonfiniteMarks::kNan : v > 0 ? NonfiniteMarks::kPosInf : NonfiniteMarks::kNegInf;
    img.data[i] = 0.0f;
    ++marks.count;
  }
  return true;
}

void put_nonfinite(const NonfiniteMarks& marks, int reach, Border b, Image& out) {
  if (marks.count == 0) return;
  const int W = marks.width, H = marks.height, C = marks.channels;
  const size_t row = size_t(W) * C;
  std::vector<uint8_t> rows(marks.kind.size(), 0), both(marks.kind.size(), 0);
  for (int y = 0; y < H; ++y) {
    const uint8_t* line = marks.kind.data() + size_t(y) * row;
    bool any = false;
    for (size_t i = 0; i < row && !any; ++i) any = line[i] != 0;
    if (!any) continue;  // rows without a mark stay clear
    for (int c = 0; c < C; ++c)
      window_or(line + c, size_t(C), rows.data() + size_t(y) * row + c, size_t(C), W, reach, b);
  }
  for (int x = 0; x < W; ++x)
    for (int c = 0; c < C; ++c) {
      const size_t at = size_t(x) * C + c;
      window_or(rows.data() + at, row, both.data() + at, row, H, reach, b);
    }
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < both.size(); ++i) {
    const uint8_t k = both[i];
    if (k == 0) continue;
    const bool is_nan = (k & NonfiniteMarks::kNan) || (k & (NonfiniteMarks::kPosInf | NonfiniteMarks::kNegInf)) ==
                                                          (NonfiniteMarks::kPosInf | NonfiniteMarks::kNegInf);
    out.data[i] = is_nan ? nan : (k & NonfiniteMarks::kPosInf) ? inf : -inf;
  }
}

}  // namespace gpublur
