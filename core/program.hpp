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
  Sat,            // inclusive summed-area table of src extended by `extend` pixels (float64 dst); a float64
                  // source (a table of a table) has extend 0 and covers the table's area
  SatBox,         // dst(x, y) = window sum of width widths[0] (both axes) looked up in the table src, / w^2
  Box2d,          // dst(x, y) = mean of src over the widths[0] x widths[0] window (direct, w^2 reads)
  Integral1d,     // cascade of boxes of REAL widths `taps` (core/integral.hpp) along `axis` on the extended line
  Bilateral,      // brute-force bilateral: spatial weights taps (x) taps over (2r+1)^2, range weight
                  // exp(-range * |colour difference|^2) against the centre pixel, normalised by the weights' sum.
                  // bilateral_weight_floor: a tap's weight where the difference is finite (d^2 <= FLT_MAX) is at
                  // least FLT_MIN, on every backend: float's exp underflows past range d^2 ~ 87 (float64's past
                  // 708), and 0 x an Inf in alpha was NaN on the GPUs where the cpu kept it Inf.
  Bilateral1d,    // the same along `axis` only (the separable approximation runs x then y)
  Diffusion,      // widths[0] explicit heat steps u += taps[0] * (4-neighbour sum - 4 u) over src's whole stored
                  // area (padding included), the border mode read at its edge every step; dst padded as src
  FftConv1d,      // the same function as Conv1d, scheduled as 1D FFTs of the border-extended lines (core/fft.hpp)
  // Recursive filter along `axis` on the infinitely border-extended line (core/iir.hpp): dst(n) = sum_k
  // Re(c_k sum_m p_k^|m| src(n - m)), taps = p.re, p.im, c.re, c.im per term; exact initial states per border.
  Iir1d,
  Kawase,         // the mean of the 4 bilinear samples at (x +- (k + 1/2), y +- (k + 1/2)), k = widths[0] >= 0 (the
                  // Intel article's pass): each sample the mean of 2 x 2 pixels, read with the border mode
  // Kosloff's polynomial spreading of the tent's second derivatives, in gather form (float64 dst, padded):
  // dst(x, y) = sum_{a, b in -1..1} w_a w_b E(x - 1 + a R, y - 1 + b R), w = (1, -2, 1), R = widths[0] >= 1,
  // E = src read with the border mode on [-extend, w + extend) x [-extend, h + extend) and 0 beyond. Two
  // inclusive Sats of it are R^4 times the tent (R - |dx|)(R - |dy|) convolution of E (core/methods/spread.cpp).
  // dst has padding 1, all of it before the image: its stored pixel (i, j) is (x, y) = (i, j) - 2, the area
  // [-2, w) x [-2, h). The spread before the image (x or y in [-M, -1], M = extend + R - 1) is folded into the
  // lines -1 and -2 of each axis: a value at -d counts (2 - d) times at -1 and (d - 1) times at -2, which two
  // inclusive prefix sums make the same as the value at -d for every x >= 0 (core/methods/spread.cpp).
  Spread,
  // dst = taps[0] * src over dst's area, src float64 (a table) covering it read `extend` pixels on, dst float32:
  // dst(x, y) = taps[0] src(x + extend, y + extend) (extend: a Spread table's shift)
  Scale,
  // Direct 2D correlation with a full matrix of widths[0] x widths[1] (odd) weights, taps row-major:
  // dst(x, y) = sum_{j, i} taps[(j + ry) * widths[0] + (i + rx)] src(x + i, y + j), rx = widths[0] / 2,
  // ry = widths[1] / 2 (a user's convolution kernel is flipped by its recipe into this form).
  Conv2dMatrix,
  // Porikli's reshuffling, single-output form (core/reshuffle.hpp): taps the U unique weights, links their
  // linkage sets: dst(x, y) = sum_u taps[u] * sum_{(dx, dy) in set u} src(x + dx, y + dy), with the border
  // mode. widths[0] = R, the reach: every |dx|, |dy| <= R <= kMaxReshuffleRadius.
  Reshuffle,
  // The dual filter's passes (Bjorge 2015; core/dual_grid.hpp has the coordinates, core/methods/kawase_dual.cpp
  // the sample patterns). They change resolution: DualDown writes an image of twice its source's divisor
  // (ceil(n / 2) pixels per axis), dst(X, Y) = (4 s(c) + s(c + (+-1, +-1))) / 8 with c the centre of the 2 x 2
  // source pixels 2X, 2X + 1 (offsets in source pixels); DualUp writes half its source's divisor, dst(x, y) =
  // (s(u + (+-1, 0)) + s(u + (0, +-1)) + 2 s(u + (+-1/2, +-1/2))) / 12 with u = the fine pixel's centre in source
  // (coarse) pixels. s: bilinear samples, pixels read with the border mode.
  DualDown,
  DualUp,
  // Resampling by 2 (core/resample.hpp has the coordinate mapping; dst's divisor is 2x / 1/2x src's). Coarse
  // pixel X covers fine pixels 2X, 2X + 1 (centre 2X + 1/2); a coarse image of a fine n is ceil(n / 2) long, its
  // last pixel of an odd n reading fine pixel n with the border mode.
  // Down2: dst(X, Y) = sum_{i, j} t_i t_j src(2X + o + i, 2Y + o + j), t = taps (the per-axis analysis kernel,
  // symmetric about 2X + 1/2), o = widths[0] = -(taps.size() / 2 - 1); reads outside src with the border mode.
  Down2,
  // Up2: the biquadratic B-spline synthesis (Strengert et al.): per axis fine pixel 2X reads 3/4 src(X) +
  // 1/4 src(X - 1), fine 2X + 1 reads 3/4 src(X) + 1/4 src(X + 1); reads outside src with the border mode.
  // Both may take padded images: they write dst's whole stored area and apply the border mode over src's stored
  // area (core/resample.hpp resample_index; the pyramid's clamp rings).
  Up2,
  kCount
};
const char* op_name(Op op);
// Ops whose dst has another divisor than src: +1 when dst is coarser (dst divisor = 2 x src's), -1 when finer
// (dst divisor = src's / 2), 0 for the same resolution. Every other op keeps the resolution.
int op_resamples(Op op);
constexpr int kMaxIirTerms = 4;  // Iir1d: most terms a pass may have (backends size their state by it)
// Reshuffle: the largest reach, the default radius ceil(3 sigma) of the largest sigma (512): (2R + 1)^2 = 9.4M
// offsets, 75 MB of links; the pass is as slow as gauss-2d's direct 2D convolution long before that.
constexpr int kMaxReshuffleRadius = 1536;

struct Pass {
  Op op = Op::Copy;
  int src = 0, dst = 1;
  int axis = 0;                    // 0: along x (rows), 1: along y (columns)
  Border border = Border::Clamp;   // reads outside src's area (src without padding only)
  std::vector<float> taps;         // Conv1d(+Fft), Conv2d, Bilateral(1d): weights for offsets -r..r. Conv2dMatrix:
                                   // the matrix, row-major. Bilinear1d:
                                   // weights of offsets. Integral1d: the real box widths (>= 1), one per box of
                                   // the cascade. Iir1d: the terms (4 values each). Diffusion: the rate.
  std::vector<float> offsets;      // Bilinear1d: taps k >= 0 at +-offsets[k] (offsets[0] = 0 is the centre)
  std::vector<int> widths;         // Box1d, MovingAverage: the cascade; SatBox, Box2d: one width;
                                   // Conv2dMatrix: the matrix's width and height
  int extend = 0;                  // Sat: pixels added on every side with the border mode
  // Bilateral, Bilateral1d: 1 / (2 sigma_r^2) of the range Gaussian (0: no range weighting). The colour
  // difference is over the colour channels: every channel but `alpha` (pass_alpha).
  float range = 0.f;
  // Bilateral, Bilateral1d: the channel that is alpha, as the image runs on the backend (0..3; -1: none), or
  // kAlphaLast: the last of 2 and 4 channels (PNG's gray + alpha and RGBA), where nothing else is known. The blur
  // pipeline and quality set it for each channel group from the image's channel names (alpha_channels,
  // plan_for_channels): an EXR's R, G or R, G, B, Z has none (its last channel kept no edge), a layer's beauty.A is one.
  int alpha = -2;
  // A form of the pass the user asked for by name where a backend has several (GL: "fragment" runs Conv1d
  // as fragment-shader ping-pong, the thesis's form); a backend without that form ignores it.
  std::string hint;
  // Reshuffle: the linkage sets, one per unique weight in taps' order, each as its offset count n >= 1 then n
  // (dx, dy) pairs: n_0, dx, dy, dx, dy, ..., n_1, dx, dy, ...
  std::vector<int> links;

  int radius() const;              // how far the pass reads beyond each output pixel, per axis
};

constexpr int kAlphaLast = -2;  // Pass::alpha's default
// The channel a Bilateral pass leaves out of its colour difference on an image of `channels` (-1: none).
inline int pass_alpha(int alpha, int channels) {
  if (alpha == kAlphaLast) return channels == 2 || channels == 4 ? channels - 1 : -1;
  return alpha < channels ? alpha : -1;
}
inline int pass_alpha(const Pass& pass, int channels) { return pass_alpha(pass.alpha, channels); }

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

// The pattern backends fuse into one unit: passes[i] and passes[i + 1] are the same op with the same settings
// along x then y, through an unpadded float32 intermediate of the source's resolution that nothing else reads.
bool xy_pair(const Program& p, size_t i);
// xy_pair of Conv1d (the separable kernels), of Box1d or MovingAverage cascades, of Bilinear1d (the texture pair).
bool separable_pair(const Program& p, size_t i);
bool box_pair(const Program& p, size_t i);
// xy_pair of Box1d or Integral1d cascades (GL runs them as its transposed pair).
bool cascade_pair(const Program& p, size_t i);
bool bilinear_pair(const Program& p, size_t i);
// xy_pair of Iir1d (CUDA folds the columns' first kernel into the rows' last).
bool iir_pair(const Program& p, size_t i);
// Two Sats that double-integrate a float64 table (spread's Sat, Sat): passes[i] the table of a float64 source that
// covers it, passes[i + 1] the table of that table, all three of one stored area, the middle one read by no other
// pass. Sat Sat = (Px Py)(Px Py) = Px^2 Py^2 (prefix sums along x and y commute), so a backend runs the pair as one
// double prefix sum along the rows and one down the columns: each value read and written once an axis, not twice.
bool sat_pair(const Program& p, size_t i);

// Resampling pairs (Down2, Up2), decided from the program alone; a backend may add its own size rule (CUDA's
// pair_big_enough). Two consecutive Down2 / Up2 passes fuse where the first's destination is the second's
// source, is read by no other pass (it never needs to be stored) and is float32: down chains pair from their
// start, up chains from their end (the full-resolution levels).
constexpr int kResamplePairMaxTaps = 4;  // the analysis kernels proper; longer (folded) levels are not fused
// A Down2 pair's kernels: the first 2 or 4 taps, the second at most kResamplePairMaxTaps, the same hint.
bool down2_fusable(const Pass& p, const Pass& q);
bool resample_pair(const Program& prog, size_t i);
// Dual-filter pairs: passes i and i + 1 both DualDown, the first's destination the second's source, float32, and
// read by no later pass before one writes it again (the dual recipe writes each level twice: down, then up); a
// down chain pairs from its start. (Fused DualUp pairs measured slower on CUDA and on GL: not paired.)
bool dual_pair(const Program& prog, size_t i);

}  // namespace gpublur
