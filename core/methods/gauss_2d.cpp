// gauss-2d: the direct 2D convolution with the sampled Gaussian (compute-shader seed 10.1, thesis 3.2).
#include "core/methods/recipe.hpp"

namespace gpublur {

Recipe gauss_2d_recipe() {
  Recipe r;
  r.spec.name = "gauss-2d";
  r.spec.summary = "direct 2D convolution with the sampled Gaussian, (2r+1)^2 taps";
  r.spec.sigma_mapping = "radius = ceil(3*sigma); weights exp(-(x^2+y^2)/(2 sigma^2)), normalised";
  r.spec.exact_gaussian = true;
  r.spec.params = {sigma_param(), radius_param(), border_param()};
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.spec.nonfinite_footprint = true;  // positive on the whole square of its radius
  r.build = [](const Params& p, Plan& plan) {
    plan.program.passes.push_back(gaussian_pass(p, plan, Op::Conv2d));
    warn_direct_2d_cost(plan, "gauss-2d", plan.radius, kGaussianFasterWays);
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
