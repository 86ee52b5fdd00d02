// A method's plan as a small program of passes over a few primitives (Halide's split: this is the algorithm;
// how a backend runs a pass -- tiles, fusing passes, shared memory, tensor cores -- is its schedule and may
// never change the result beyond float rounding). Every number is decided in core by the method's recipe
// (core/methods/); backends implement the primitives, one file per primitive, found through one table per
// backend, and never look at method names.
//
// Images are numbered: 0 is the uploaded input, 1 the output, 2.. intermediates declared by the program.
// Every image has the input's channel count. An image covers the pixels [-pad, w + pad) x [-pad, h + pad)
// of the input's coordinate frame, where (w, h) = ceil(input size / divisor); pixel (0, 0) is the input's
// first pixel. A pass that reads outside its source's stored area applies its border mode, which is only
// allowed for sources without padding (the remap is to [0, w) x [0, h)).
#pragma once
#include <string>
#include <vector>

#include "core/border.hpp"
#include "core/status.hpp"

namespace gpublur {

enum class Op : int {
  Copy,           // dst = src
  Conv1d,         // dst(x) = sum_k taps[k + r] src(x + k) along `axis`, r = (taps.size() - 1) / 2
  Conv2d,         // direct 2D convolution with the outer product taps (x) taps, (2r+1)^2 products per pixel
  Bilinear1d,     // conv1d through bilinear samples at fractional offsets (the texture unit on GPUs)
  Box1d,          // cascade of box filters of the odd `widths` along `axis`, running sums on the extended line
  MovingAverage,  // the same function as Box1d, scheduled as one sequential moving average per line
  Sat,            // inclusive summed-area table of src extended by `extend` pixels (float64 dst)
  SatBox,         // dst(x, y) = window sum of width widths[0] (both axes) looked up in the table src, / w^2
  Box2d,          // dst(x, y) = mean of src over the widths[0] x widths[0] window (direct, w^2 reads)
  // Recursive filter along `axis` on the infinitely border-extended line (core/iir.hpp): dst(n) = sum_k
  // Re(c_k sum_m p_k^|m| src(n - m)), taps = p.re, p.im, c.re, c.im per term; exact initial states per border.
  Iir1d,
  kCount
};
const char* op_name(Op op);
constexpr int kMaxIirTerms = 4;  // Iir1d: most terms a pass may have (backends size their state by it)

struct Pass {
  Op op = Op::Copy;
  int src = 0, dst = 1;
  int axis = 0;                    // 0: along x (rows), 1: along y (columns)
  Border border = Border::Clamp;   // reads outside src's area (src without padding only)
  std::vector<float> taps;         // Conv1d, Conv2d: weights for offsets -r..r. Bilinear1d: weights of offsets.
                                   // Iir1d: the terms (4 values each)
  std::vector<float> offsets;      // Bilinear1d: taps k >= 0 at +-offsets[k] (offsets[0] = 0 is the centre)
  std::vector<int> widths;         // Box1d, MovingAverage: the cascade; SatBox, Box2d: one width
  int extend = 0;                  // Sat: pixels added on every side with the border mode
  // A form of the pass the user asked for by name where a backend has several (GL: "fragment" runs Conv1d
  // as fragment-shader ping-pong, the thesis's form); a backend without that form ignores it.
  std::string hint;

  int radius() const;              // how far the pass reads beyond each output pixel, per axis
};

struct ImageDecl {
  int pad = 0;
  int divisor = 1;
  bool f64 = false;  // float64 storage (summed-area tables); otherwise float32
};

struct Program {
  std::vector<ImageDecl> images;  // images[0]: input, images[1]: output (both pad 0, divisor 1, float32)
  std::vector<Pass> passes;

  Program();
  int add_image(ImageDecl d);  // returns the new image's index
};

// Checks a program's structure (indices, sizes of tap lists, odd widths, padding rules). Recipes' programs
// are checked in tests; backends may rely on a program that passed.
Status validate_program(const Program& p);

// Size of image `i` without its padding, for an input of w x h.
void image_size(const Program& p, int i, int w, int h, int& iw, int& ih);

// The pattern backends fuse into one separable kernel: passes[i] and passes[i + 1] are Conv1d along x then y
// with the same taps and border, through an intermediate that nothing else reads.
bool separable_pair(const Program& p, size_t i);
// The same for Box1d / MovingAverage cascades (same op, same widths, same border).
bool box_pair(const Program& p, size_t i);

}  // namespace gpublur
