// Repeated integration (the constant-time-gaussian seed): boxes of REAL width, written once.
//
// A box of real width w >= 1 centred on a pixel averages the line seen as a piecewise-constant function (pixel
// i covers [i - 1/2, i + 1/2)) over [x - w/2, x + w/2]; its integral, the prefix sum, is then piecewise linear
// between the discrete prefix sums, which is the seed's "interpolate the prefix sums at the window ends". With
// r = floor((w - 1) / 2) and e = (w - 1) / 2 - r in [0, 1), the window covers pixels x - r .. x + r fully and
// pixels x - r - 1 and x + r + 1 by the fraction e, so the discrete kernel is
//   k(j) = 1 / w for |j| <= r,   e / w for |j| = r + 1,   0 beyond         (w = 2r + 1 + 2e),
// equivalently (1 - e) (P(x+r) - P(x-r-1)) / w + e (P(x+r+1) - P(x-r-2)) / w with P the inclusive prefix sum.
// Its variance (derived in docs/methods.md, "integral"):
//   var(w) = [ (2r+1) r (r+1) / 3 + 2 e (r+1)^2 ] / w
// which equals (w^2 - 1) / 12 (the continuous-box-minus-pixel formula behind Kovesi's width) only at odd
// integer w; in between it is larger (by up to ~1/4 pixel^2 near e = 1/2).
#pragma once
#include <vector>

namespace gpublur {

struct FracBox {
  int r = 0;       // full pixels on each side of the centre
  double e = 0;    // weight of the two end pixels (before dividing by w), in [0, 1)
  double w = 1;    // the real width 2r + 1 + 2e
  int reach() const { return r + (e > 0 ? 1 : 0); }  // pixels read on each side
};

// The box of real width w (>= 1). r and e come out exact for float widths (w - 1 and the halving are exact).
FracBox frac_box(double w);

// var(w) above: the variance of the discrete kernel of one box of real width w.
double frac_box_variance(double w);

// The real width whose box has variance v (>= 0): var is continuous and increasing in w, so this inverts it
// exactly (per integer r it is a ratio of linear functions of e).
double frac_width_for_variance(double v);

// Kovesi's width for n boxes standing for sigma: sqrt(12 sigma^2 / n + 1) (exact only for odd integer results).
double kovesi_width(double sigma, int n);

// Sum of the variances of the cascade's boxes.
double frac_cascade_variance(const std::vector<float>& widths);
// Total reach of the cascade: sum of the boxes' reaches.
int frac_cascade_reach(const std::vector<float>& widths);

// The cascade's 1D kernel, the n-fold convolution of the boxes' discrete kernels, in float64: weights for
// offsets -R..R, R = frac_cascade_reach.
std::vector<double> frac_cascade_kernel(const std::vector<float>& widths);

}  // namespace gpublur
