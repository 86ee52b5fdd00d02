// reshuffle: Porikli's reshuffling, single-output form (thesis 3.7, Algorithm 3.2), for gauss-2d's kernel: the
// sampled Gaussian of --sigma over the (2r+1)^2 square of gauss-2d's radius rule, preprocessed once in core
// (core/reshuffle.hpp) into its unique weights and linkage sets; each output pixel sums the source pixels of
// every linkage set and weights the sum once. Reads per pixel: (2r+1)^2 as gauss-2d; multiplies: the number of
// unique weights (distinct dx^2 + dy^2): 51 of 361 taps at radius 9, 567 of 5329 at 36, 7400 of 83521 at 144.
// The weights are grouped by the integer key dx^2 + dy^2 and computed in float64 as exp(-(dx^2 + dy^2) / (2
// sigma^2)) / S^2 (S the 1D normaliser): the true sampled 2D Gaussian, which gauss-2d's products of two float 1D
// taps equal within float rounding (products of rounded taps differ at the 1e-7 relative level between
// offsets of one key, so grouping gauss-2d's own float products would split sets for no reason).
#include <string>

#include "core/gauss.hpp"
#include "core/methods/recipe.hpp"
#include "core/reshuffle.hpp"

namespace gpublur {

Recipe reshuffle_recipe() {
  Recipe r;
  r.spec.name = "reshuffle";
  r.spec.summary = "Porikli's reshuffling of gauss-2d's kernel: per output, sum each linkage set, then weight it "
                   "(reads = taps, multiplies = unique weights)";
  r.spec.sigma_mapping =
      "as gauss-2d: radius = ceil(3*sigma) (at most " + std::to_string(kMaxReshuffleRadius) +
      "), weights exp(-(x^2+y^2)/(2 sigma^2)), normalised, grouped by x^2+y^2";
  r.spec.exact_gaussian = true;
  r.spec.params = {sigma_param(), radius_param(), border_param()};
  r.spec.params[1].max = kMaxReshuffleRadius;  // the registry states the cap, so --radius checks it up front
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.build = [](const Params& p, Plan& plan) {
    const int radius = gaussian_radius_param(p, plan);
    if (radius > kMaxReshuffleRadius)
      return Status::fail("reshuffle: radius " + std::to_string(radius) + " is over its cap " +
                          std::to_string(kMaxReshuffleRadius) + " (the linkage sets of (2r+1)^2 offsets)");
    const ReshuffleKernel k = gaussian_reshuffle(plan.sigma, radius);
    plan.radius = radius;
    plan.effective_sigma = kernel_sigma(gaussian_weights(plan.sigma, radius));
    plan.details["unique_weights"] = std::to_string(k.weights.size()) + " for " + std::to_string(k.taps()) + " taps";
    plan.program.passes.push_back(reshuffle_pass(k, plan.border));
    warn_direct_2d_cost(plan, "reshuffle", radius, kGaussianFasterWays);
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
