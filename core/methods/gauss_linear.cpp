// gauss-linear: the separable Gaussian with bilinear taps, two texels per fetch (fast-realtime-gpu-blurs).
// interp=hardware: the texture unit interpolates (8-bit fractions on NVIDIA: a measured bound, not 1e-5).
// interp=exact: the split taps as one discrete kernel (core/gauss.hpp linear_exact_kernel), which the CPU
// reference also computes for the hardware form.
#include "core/gauss.hpp"
#include "core/methods/recipe.hpp"

namespace gpublur {

Recipe gauss_linear_recipe() {
  Recipe r;
  r.spec.name = "gauss-linear";
  r.spec.summary = "separable Gaussian with bilinear taps: two texels per fetch, about half the fetches";
  r.spec.sigma_mapping = "radius = ceil(3*sigma); texel pairs merged at offset i + w(i+1)/(w(i)+w(i+1))";
  r.spec.exact_gaussian = true;
  r.spec.params = {sigma_param(), radius_param(), border_param()};
  r.spec.params.push_back({"interp", ParamType::Enum, "hardware", false, 0, 0, {"hardware", "exact"},
                           "hardware: the texture unit interpolates (low-precision fixed-point weights on "
                           "GPUs); exact: full-precision interpolation in the shader/kernel. The CPU always "
                           "interpolates exactly"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.spec.nonfinite_footprint = true;  // within the square of its radius (a bound: the taps read pairs of texels)
  r.build = [](const Params& p, Plan& plan) {
    plan.radius = gaussian_radius_param(p, plan);
    const std::vector<double> w = gaussian_weights(plan.sigma, plan.radius);
    const LinearTaps t = linear_taps(w);
    Pass pass;
    pass.op = Op::Bilinear1d;
    pass.offsets.assign(t.offsets.begin(), t.offsets.end());
    pass.taps.assign(t.weights.begin(), t.weights.end());
    if (p.text("interp") == "exact") {
      int reach = 0;
      const std::vector<double> k = linear_exact_kernel(pass.offsets, pass.taps, reach);
      pass.op = Op::Conv1d;
      pass.offsets.clear();
      pass.taps.assign(k.begin(), k.end());
    } else {
      // The texture unit's interpolation weights have 8 fractional bits (NVIDIA): each pass may be off by
      // (sum of weights = 1) x (value range) / 256; two passes 2/256. Measured about 6e-4 on an H100.
      plan.tolerance = 2.0 / 256.0;
    }
    separable_passes(plan, pass);
    plan.effective_sigma = kernel_sigma(w);
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
