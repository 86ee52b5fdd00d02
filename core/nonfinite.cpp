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

namespace {

constexpr uint8_t kInfs = NonfiniteMarks::kPosInf | NonfiniteMarks::kNegInf;

// A marked kind seen through a weight of sign s (non-zero): a negative weight turns an infinity's sign.
uint8_t through(uint8_t k, int s) {
  if (s > 0 || !(k & kInfs)) return k;
  return uint8_t((k & NonfiniteMarks::kNan) | ((k & NonfiniteMarks::kPosInf) ? NonfiniteMarks::kNegInf : 0) |
                 ((k & NonfiniteMarks::kNegInf) ? NonfiniteMarks::kPosInf : 0));
}

// Whether row y of the marks holds one.
bool row_marked(const NonfiniteMarks& marks, int y) {
  const size_t row = size_t(marks.width) * marks.channels;
  const uint8_t* line = marks.kind.data() + size_t(y) * row;
  return std::any_of(line, line + row, [](uint8_t k) { return k != 0; });
}

// A separable pass over the marks: line(in, in_stride, out, out_stride, n, axis) along each channel of every row that
// holds a mark (axis 0; rows without one stay clear), then along each channel of every column of that (axis 1).
template <typename Line>
std::vector<uint8_t> rows_then_columns(const NonfiniteMarks& marks, Line line) {
  const int W = marks.width, H = marks.height, C = marks.channels;
  const size_t row = size_t(W) * C;
  std::vector<uint8_t> rows(marks.kind.size(), 0), both(marks.kind.size(), 0);
  for (int y = 0; y < H; ++y)
    if (row_marked(marks, y))
      for (int c = 0; c < C; ++c)
        line(marks.kind.data() + size_t(y) * row + c, size_t(C), rows.data() + size_t(y) * row + c, size_t(C), W, 0);
  for (int x = 0; x < W; ++x)
    for (int c = 0; c < C; ++c) {
      const size_t at = size_t(x) * C + c;
      line(rows.data() + at, row, both.data() + at, row, H, 1);
    }
  return both;
}

// The kinds met by each sample's rectangle of reach (rx, ry).
std::vector<uint8_t> rect_kinds(const NonfiniteMarks& marks, int rx, int ry, Border b) {
  return rows_then_columns(marks, [&](const uint8_t* in, size_t is, uint8_t* out, size_t os, int n, int axis) {
    window_or(in, is, out, os, n, axis ? ry : rx, b);
  });
}

// The direct convolution's value for the kinds an output met.
void set_kind(float& v, uint8_t k) {
  if (k == 0) return;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const bool is_nan = (k & NonfiniteMarks::kNan) || (k & kInfs) == kInfs;
  v = is_nan ? nan : (k & NonfiniteMarks::kPosInf) ? inf : -inf;
}

// out[i] |= OR over the nonzero taps (offset d, sign s) of through(in[remap(i + d)], s), on a line of n; in and out
// strided, r the taps' reach. Scattered from the marks of the border-extended line (each read through the border
// once), so it costs the marks times the taps: a gather at every output near a mark cost those outputs times the taps
// (6 s for a 1024^2 RGBA image with 0.1% NaN through a 41 x 41 disc).
void taps_or(const uint8_t* in, size_t in_stride, uint8_t* out, size_t out_stride, int n, int r,
             const std::vector<std::pair<int, int>>& taps, Border b) {
  for (int j = -r; j < n + r; ++j) {
    const int src = remap_index(j, n, b);
    if (src < 0) continue;
    if (const uint8_t k = in[size_t(src) * in_stride])
      for (const auto& [d, s] : taps)
        if (const int x = j - d; x >= 0 && x < n) out[size_t(x) * out_stride] |= through(k, s);
  }
}

std::vector<std::pair<int, int>> nonzero(const std::vector<int8_t>& signs, int r) {
  std::vector<std::pair<int, int>> t;
  for (int i = 0; i < int(signs.size()); ++i)
    if (signs[size_t(i)]) t.emplace_back(i - r, signs[size_t(i)]);
  return t;
}

}  // namespace

void put_nonfinite(const NonfiniteMarks& marks, int reach, Border b, Image& out) {
  if (marks.count == 0) return;
  const std::vector<uint8_t> both = rect_kinds(marks, reach, reach, b);
  for (size_t i = 0; i < both.size(); ++i) set_kind(out.data[i], both[i]);
}

bool NonfiniteTaps::all_positive() const {
  const auto positive = [](const std::vector<int8_t>& v) {
    return std::all_of(v.begin(), v.end(), [](int8_t s) { return s > 0; });
  };
  return separable ? positive(sx) && positive(sy) : positive(s2d);
}

void put_nonfinite(const NonfiniteMarks& marks, const NonfiniteTaps& taps, Border b, Image& out) {
  if (marks.count == 0) return;
  if (taps.all_positive()) {  // every tap of the rectangle weighs: the rectangle's kinds are the taps'
    const std::vector<uint8_t> near = rect_kinds(marks, taps.rx, taps.ry, b);
    for (size_t i = 0; i < near.size(); ++i) set_kind(out.data[i], near[i]);
    return;
  }
  const int W = marks.width, H = marks.height, C = marks.channels;
  const size_t row = size_t(W) * C;
  std::vector<uint8_t> met(marks.kind.size(), 0);
  if (taps.separable) {  // along rows through sx, then along columns through sy
    const auto tx = nonzero(taps.sx, taps.rx), ty = nonzero(taps.sy, taps.ry);
    met = rows_then_columns(marks, [&](const uint8_t* in, size_t is, uint8_t* out, size_t os, int n, int axis) {
      taps_or(in, is, out, os, n, axis ? taps.ry : taps.rx, axis ? ty : tx, b);
    });
  } else {  // as taps_or in 2D: from the marks of the border-extended channel
    std::vector<std::array<int, 3>> t;  // a, b, sign
    const int w2 = 2 * taps.rx + 1;
    for (int i = 0; i < int(taps.s2d.size()); ++i)
      if (taps.s2d[size_t(i)]) t.push_back({i % w2 - taps.rx, i / w2 - taps.ry, taps.s2d[size_t(i)]});
    for (int c = 0; c < C; ++c)
      for (int Y = -taps.ry; Y < H + taps.ry; ++Y) {
        const int sy = remap_index(Y, H, b);
        if (sy < 0 || !row_marked(marks, sy)) continue;
        const uint8_t* line = marks.kind.data() + size_t(sy) * row;
        for (int X = -taps.rx; X < W + taps.rx; ++X) {
          const int sx = remap_index(X, W, b);
          const uint8_t m = sx < 0 ? 0 : line[size_t(sx) * C + c];
          if (!m) continue;
          for (const auto& [da, db, s] : t) {
            const int x = X - da, y = Y - db;
            if (x >= 0 && x < W && y >= 0 && y < H) met[(size_t(y) * W + x) * C + c] |= through(m, s);
          }
        }
      }
  }
  for (size_t i = 0; i < met.size(); ++i) set_kind(out.data[i], met[i]);
}

}  // namespace gpublur
