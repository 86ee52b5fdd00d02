// gauss-sep: the separable Gaussian, a horizontal then a vertical pass of 2r+1 taps (compute-shader seed
// 10.2-10.3, thesis 3.3). Backends fuse the two passes where that is faster (the schedule).
#include "core/fft.hpp"
#include "core/methods/recipe.hpp"

namespace gpublur {

Recipe gauss_sep_recipe() {
  Recipe r;
  r.spec.name = "gauss-sep";
  r.spec.summary = "separable Gaussian: a horizontal then a vertical pass of 2r+1 taps";
  r.spec.sigma_mapping = "radius = ceil(3*sigma); 1D weights exp(-x^2/(2 sigma^2)), normalised";
  r.spec.exact_gaussian = true;
  r.spec.quality_reference = true;  // exact and the fastest exact Gaussian on every backend
  r.spec.default_method = true;
  r.spec.params = {sigma_param(), radius_param(), border_param()};
  r.spec.params.push_back({"impl", ParamType::Enum, "compute", false, 0, 0, {"compute", "fragment"},
                           "GL only: compute shader with shared-memory tiles, or fragment-shader ping-pong "
                           "(the thesis's form); CPU and CUDA compute the same function either way"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  // Positive on the whole square of its radius. Its direct passes give that footprint themselves, but its other
  // schedules did not: CUDA's tensor-core passes (radius 48+, FP16 halves: Inf - Inf) and the FFT forms made NaN
  // where the footprint holds one infinity, and GL on an H200 made 293 outputs of a 64 x 48 image non-finite or of
  // another kind at radius 15 (docs/methods.md, "Non-finite inputs").
  r.spec.nonfinite_footprint = true;
  r.build = [](const Params& p, Plan& plan) {
    Pass pass = gaussian_pass(p, plan, Op::Conv1d);
    if (p.text("impl") == "fragment") pass.hint = "fragment";
    // Large kernels hand over to the FFT form of the same function where measured faster (core/fft.hpp).
    if (pass.hint.empty() && plan.radius >= sep_fft_min_radius()) {
      pass.op = Op::FftConv1d;
      plan.details["schedule"] = "fft (radius >= " + std::to_string(sep_fft_min_radius()) + ")";
    }
    separable_passes(plan, pass);
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
