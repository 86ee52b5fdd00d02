// bilateral: the edge-preserving blur of the compute-shader seed (10.3, Tomasi 1998): each output is the mean of
// its (2r+1)^2 window weighted by the spatial Gaussian of --sigma times the range Gaussian of --sigma-range
// (exp(-|I_p - I_q|^2 / (2 sigma_r^2)), the colour difference over the non-alpha channels, in the image's
// linear units), normalised by the weights' sum. --impl brute is that definition; --impl separable is the
// seed's approximation: the 1D bilateral along x, then along y on its result (not the same function: the
// range weights of the second pass see the first pass's output). The sigma it stands for is the spatial one,
// exactly so where the range weights are all 1 (flat areas, or sigma_r -> infinity).
#include "core/methods/recipe.hpp"

namespace gpublur {

Recipe bilateral_recipe() {
  Recipe r;
  r.spec.name = "bilateral";
  r.spec.summary = "edge-preserving bilateral filter: spatial Gaussian x range Gaussian (brute force or separable)";
  r.spec.sigma_mapping =
      "spatial weights as gauss-2d (radius ceil(3*sigma)); range weights exp(-d^2 / (2 sigma_range^2)); "
      "effective sigma = sigma where colours are flat";
  r.spec.linear = false;  // the range weight makes it depend on the image
  r.spec.params = {sigma_param(), radius_param(), border_param()};
  r.spec.params.push_back({"sigma-range", ParamType::Float, "0.1", false, 1e-4, 1e9, {},
                           "standard deviation of the range Gaussian, in the image's linear units (huge: no edge "
                           "preservation, the Gaussian)"});
  r.spec.params.push_back({"impl", ParamType::Enum, "brute", false, 0, 0, {"brute", "separable"},
                           "bilateral: the (2r+1)^2 window (brute), or the seed's separable approximation (x then y)"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.build = [](const Params& p, Plan& plan) {
    const bool brute = p.text("impl") == "brute";
    Pass pass = gaussian_pass(p, plan, brute ? Op::Bilateral : Op::Bilateral1d);
    const double sr = p.num("sigma-range");
    pass.range = float(1.0 / (2.0 * sr * sr));
    if (brute) {
      plan.program.passes.push_back(pass);
      warn_direct_2d_cost(plan, "bilateral --impl brute", plan.radius,
                          "--impl separable (the seed's approximation) reads 2 (2r+1)");
    } else {
      separable_passes(plan, pass);
    }
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
