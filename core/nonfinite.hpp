// Non-finite input values (NaN, +-Inf). Running sums, transforms and texture interpolation carry a NaN or an infinity
// past the kernel's footprint (prefix differences, Inf - Inf, Inf x 0), each backend and impl its own way
// (docs/methods.md, "Non-finite inputs"). For a plan that states its footprint (Plan::nonfinite_reach: a square, the
// kernel's exact support or a bound), the pipeline takes such values out before the program (as zeros) and afterwards
// sets every output whose footprint holds one as the direct convolution would: NaN where the footprint holds a NaN or
// both infinities, else the infinity. The other outputs are the method's on the image with those values zero.
#pragma once
#include <cstdint>
#include <vector>

#include "core/border.hpp"
#include "core/image.hpp"

namespace gpublur {

struct NonfiniteMarks {
  int width = 0, height = 0, channels = 0;
  size_t count = 0;           // non-finite samples taken out
  std::vector<uint8_t> kind;  // per sample: 0 finite, kNan, kPosInf or kNegInf
  static constexpr uint8_t kNan = 1, kPosInf = 2, kNegInf = 4;
};

// Records every non-finite sample of img in marks and sets it to 0. False (marks.count 0, nothing recorded) where
// img has none.
bool take_nonfinite(Image& img, NonfiniteMarks& marks);

// Sets each sample of out (marks' shape) whose footprint, the (2 reach + 1)^2 square read through border b, holds a
// marked sample of its channel: NaN if one of them is a NaN or they hold both infinities, else that infinity.
void put_nonfinite(const NonfiniteMarks& marks, int reach, Border b, Image& out);

// A linear kernel's taps for the exact fill, where its weights are not all positive or its window is not square (a
// user's kernel): the sign of each weight, in correlation form (output (x, y) reads input (x + a, y + b) for a in
// [-rx, rx], b in [-ry, ry]). Separable: sx (2 rx + 1) and sy (2 ry + 1), the weight's sign their product; else s2d,
// row b + ry, column a + rx. A zero weight reads nothing; a negative one turns an infinity's sign.
struct NonfiniteTaps {
  int rx = 0, ry = 0;
  bool separable = false;
  std::vector<int8_t> sx, sy, s2d;
  bool all_positive() const;
};
// The direct convolution's non-finite outputs for such taps: each sample of out whose taps' nonzero weights meet a
// marked sample of its channel (read through border b) becomes NaN where they meet a NaN or infinities of both signs
// (after the weights' signs), else that infinity. Costs the marks (of the border-extended image) times the nonzero taps
// (separable: per axis), against the square fill's O(1) a sample, which kernels of positive weights take.
void put_nonfinite(const NonfiniteMarks& marks, const NonfiniteTaps& taps, Border b, Image& out);

}  // namespace gpublur
