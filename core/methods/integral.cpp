// integral: the constant-time Gaussian by repeated integration (the constant-time-gaussian seed): n boxes of
// one REAL width w along x, then along y, each box a prefix sum followed by the window average, the fractional
// part of w taken by interpolating the prefix sum at the window ends (core/integral.hpp defines the kernel).
// Like box, the cascade runs on the border-extended line (extended once by the total reach of the n boxes),
// so n iterations equal the convolution with frac_cascade_kernel for every border mode.
//
// Widths (--rule): "exact" (default) solves var(w) = sigma^2 / n for the discrete kernel (so the effective
// sigma is sigma up to float rounding of w); "kovesi" takes the seed's w = sqrt(12 sigma^2 / n + 1), whose
// discrete kernel is wider than sigma (var(w) > (w^2 - 1) / 12 between odd integers); --width W sets every box.
// Either way the reported effective sigma is sqrt(n var(w)) of the widths actually used.
//
// Passes default to 5: the seed (Figure 3) finds 5 iterations "close enough" to the isotropic 2D Gaussian
// within 3 sigma and says the anisotropy "may be spotted if the iteration number is less than 5" on an HDR
// point of light, the kind of input (EXR) this tool takes; 4 it calls good enough for usual images.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/integral.hpp"
#include "core/methods/recipe.hpp"

namespace gpublur {

Recipe integral_recipe() {
  Recipe r;
  r.spec.name = "integral";
  r.spec.summary = "constant-time Gaussian by repeated integration: n boxes of a real width (prefix sums, "
                   "fractional window ends interpolated), rows then columns";
  r.spec.sigma_mapping =
      "n boxes of one real width w: rule exact solves the discrete kernel's variance n var(w) = sigma^2 "
      "(var(w) = ((2r+1) r (r+1)/3 + 2e (r+1)^2) / w, w = 2r+1+2e); rule kovesi takes w = sqrt(12 sigma^2/n + 1); "
      "--width W: every box W";
  r.spec.params = {sigma_param(), border_param()};
  r.spec.params.push_back({"passes", ParamType::Int, "5", false, 1, 8, {},
                           "number of integrations (box iterations); the seed: fewer than 5 can show anisotropy"});
  r.spec.params.push_back({"rule", ParamType::Enum, "exact", false, 0, 0, {"exact", "kovesi"},
                           "box width from sigma: exact variance of the discrete fractional box, or Kovesi's "
                           "sqrt(12 sigma^2/n + 1)"});
  r.spec.params.push_back({"width", ParamType::Float, "", true, 1, 8192, {},
                           "real box width for every pass (default: from sigma by --rule)"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.spec.nonfinite_footprint = true;  // positive on the whole square of its reach (the ends weighed frac > 0)
  r.build = [](const Params& p, Plan& plan) {
    const int n = p.integer("passes");
    double w = 0;
    // --rule picks the width from sigma: beside --width it would do nothing (it was ignored in silence), as kawase
    // refuses --levels without dual.
    if (p.given("width") && p.given("rule"))
      return Status::fail("--rule picks the width from --sigma: not with --width");
    if (p.given("width"))
      w = p.num("width");
    else if (p.text("rule") == "kovesi")
      w = kovesi_width(plan.sigma, n);
    else
      w = frac_width_for_variance(plan.sigma * plan.sigma / n);
    const std::vector<float> widths(size_t(n), static_cast<float>(w));  // the backends' width: variance from the float
    plan.params["width"] = fmt::format("{}", widths[0]);  // the float run, shortest (not 2.12345672)
    // Kovesi's width for this sigma, beside the exact rule's for comparison; none beside --width, whose sigma is
    // unused (it gave the default sigma's width, 7, under --width 8192).
    if (!p.given("width"))
      plan.details[p.text("rule") == "kovesi" ? "kovesi width" : "width by --rule kovesi (not run)"] =
          fmt::format("{:.6g}", kovesi_width(plan.sigma, n));
    plan.radius = frac_cascade_reach(widths);
    plan.effective_sigma = std::sqrt(frac_cascade_variance(widths));
    Pass pass;
    pass.op = Op::Integral1d;
    pass.taps = widths;
    separable_passes(plan, pass);
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
