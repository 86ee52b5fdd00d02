// spread: Kosloff's polynomial spreading (thesis 3.6.2; Kosloff's thesis): the tent filter of spreading
// radius R, t(d) = (R - |d|) / R^2 per axis for |d| < R (the triangle of base 2R; the box of width R
// convolved with itself), applied in 2D as the product t(dx) t(dy). Its second differences are sparse:
// [1 -2 1] at offsets -R, 0, R per axis, nine weights in 2D. The program spreads those nine weights
// (Op::Spread, in gather form), integrates twice with inclusive float64 summed-area tables (Op::Sat, Op::Sat)
// and divides by R^4 (Op::Scale). The cost per pixel does not depend on R.
//
// Borders (which the thesis skipped): the image is padded, not folded by the border mode. E is the input
// extended with the border mode by X = R - 1 pixels (what the tent of an output pixel reads) and 0 beyond; the
// spread of E reaches P = X + R - 1 = 2R - 2 pixels before the image, and the double integration of all of it
// is exactly the tent convolution of the border-extended image, for every border mode
// (tests/core/test_spread.cpp). The integrations run forwards, so nothing after the image's last pixel is
// needed, and the margin before it need not be stored: after two inclusive prefix sums a value v at -d adds
// (x + d + 1) v at x >= 0, which is what (2 - d) v at -1 and (d - 1) v at -2 add. So Op::Spread folds the
// margin into the two lines before the image on each axis, the tables are (w + 2)(h + 2) for every R (stored
// with padding 1, all of it before the image) and Scale reads them 1 pixel on. (Padding by P on both sides, as
// first built, cost ((w + 2P) / w)^2, and the one-sided margin ((w + P) / w)^2: measured 1.69x from sigma 3 to
// 48 at 1024^2 on an H100.) Backends fold through taps on the source's lines (core/spread_fold.hpp), at most
// min(w, 2R - 2) a row, so the fold reads at most twice the image at any R; the reference writes the fold out.
//
// Precision: the double integration cancels (the tables grow like R^4 times the mean while the spread values
// alternate in sign): float64 tables throughout (docs/methods.md, spread: the measured error on 4096^2).
//
// Sigma: the discrete box of width R has variance (R^2 - 1) / 12, so the tent (two of them) has
// sigma^2 = (R^2 - 1) / 6 per axis; from --sigma R is the integer >= 1 whose variance is nearest sigma^2
// (near sqrt(6 sigma^2 + 1)).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/methods/recipe.hpp"

namespace gpublur {

double spread_variance(int R) { return (double(R) * R - 1.0) / 6.0; }

int spread_radius_for_sigma(double sigma) {
  const double v = sigma * sigma;
  const int lo = std::max(1, int(std::floor(std::sqrt(6.0 * v + 1.0))));
  return std::fabs(spread_variance(lo + 1) - v) < std::fabs(spread_variance(lo) - v) ? lo + 1 : lo;
}

Recipe spread_recipe() {
  Recipe r;
  r.spec.name = "spread";
  r.spec.summary = "Kosloff's polynomial spreading: a tent filter from nine spread weights and two float64 "
                   "summed-area tables (cost per pixel independent of the radius; the margin's fold reads up to "
                   "min(2R, w) pixels a row and min(2R, h) a column: at most the image twice)";
  r.spec.sigma_mapping =
      "tent of radius R (box of width R convolved with itself): sigma^2 = (R^2 - 1) / 6; R the integer nearest "
      "sqrt(6 sigma^2 + 1) in variance; --radius R: that R";
  r.spec.params = {sigma_param(), border_param()};
  r.spec.params.push_back({"radius", ParamType::Int, "", true, 1, 2048, {},
                           "spreading radius R: the tent (R - |d|) / R^2, base 2R (default: from sigma)"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  // Positive on the whole square of its radius R - 1 (the tent): non-finite inputs go through the pipeline's footprint
  // path, as the tables' sums carried them past it each backend its own way (GL +Inf where cpu had NaN).
  r.spec.nonfinite_footprint = true;
  r.build = [](const Params& p, Plan& plan) {
    const int R = p.given("radius") ? p.integer("radius") : spread_radius_for_sigma(plan.sigma);
    plan.params["radius"] = std::to_string(R);
    plan.radius = R - 1;
    plan.effective_sigma = std::sqrt(spread_variance(R));
    const int X = R - 1, Q = 1;  // the margin folded into two lines before the image, stored as padding 1
    Program& prog = plan.program;
    const int a = prog.add_image({Q, 1, true}), b = prog.add_image({Q, 1, true});
    Pass spread;
    spread.op = Op::Spread;
    spread.border = plan.border;
    spread.widths = {R};
    spread.extend = X;
    spread.src = 0, spread.dst = a;
    Pass sat1;
    sat1.op = Op::Sat;
    sat1.src = a, sat1.dst = b;
    Pass sat2 = sat1;
    sat2.src = b, sat2.dst = a;  // the second table replaces the spread values
    Pass scale;
    scale.op = Op::Scale;
    scale.taps = {float(1.0 / (double(R) * R * R * R))};
    scale.extend = Q;
    scale.src = a, scale.dst = 1;
    prog.passes = {spread, sat1, sat2, scale};
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
