// fft: the exact sampled, truncated Gaussian of gauss-sep (the same taps, the same --radius) applied by FFT
// convolution (thesis 3.4): along x then along y, each line extended by the radius with the border mode, zero
// beyond, transformed, multiplied by the kernel's spectrum and transformed back (core/fft.hpp: the transform
// lengths and the spectrum). The cost per pixel grows with log(n + 2r), not with r: the exact method for huge
// kernels. Two 1D passes rather than one 2D transform: the kernel is separable, and lines need a transform
// buffer of one line each instead of the whole padded image (docs/performance.md, fft).
#include "core/methods/recipe.hpp"

namespace gpublur {

Recipe fft_recipe() {
  Recipe r;
  r.spec.name = "fft";
  r.spec.summary = "exact Gaussian by FFT convolution: gauss-sep's taps applied along x then y through 1D FFTs";
  r.spec.sigma_mapping = "as gauss-sep: radius = ceil(3*sigma); 1D weights exp(-x^2/(2 sigma^2)), normalised";
  r.spec.exact_gaussian = true;
  r.spec.params = {sigma_param(), radius_param(), border_param()};
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.spec.nonfinite_footprint = true;  // positive on the whole square of its radius (the transforms mix whole lines)
  r.build = [](const Params& p, Plan& plan) {
    separable_passes(plan, gaussian_pass(p, plan, Op::FftConv1d));
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
