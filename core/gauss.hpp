// Gaussian kernel math, written once: sampled weights, radius, linear-tap pairs, effective sigma.
#pragma once
#include <vector>

namespace gpublur {

// ceil(3 sigma), at least 1: 99.7% of the Gaussian's mass.
int default_radius(double sigma);

// Sampled, truncated Gaussian exp(-k^2 / (2 sigma^2)) for k = -radius..radius, normalised to sum 1.
// Index k + radius. Computed in double; backends take the float copy in Plan.
std::vector<double> gaussian_weights(double sigma, int radius);

// Standard deviation of a symmetric 1D kernel given as weights for -r..r (sum 1).
double kernel_sigma(const std::vector<double>& weights);

// Bilinear taps for the non-negative half of a symmetric kernel (Rakos / fast-realtime-gpu-blurs):
// tap 0 is the centre (offset 0, weight w0); tap k >= 1 merges texels (2k-1, 2k) into one sample at
// offset (2k-1) + w(2k) / (w(2k-1) + w(2k)) with weight w(2k-1) + w(2k); an odd radius leaves a last
// single texel (offset r, weight w(r)). A sample at x + o is (1-f) * p[floor] + f * p[floor+1] with both
// texels border-remapped, so with exact interpolation the result equals the discrete convolution.
// out(x) = weights[0] * s(x) + sum_k weights[k] * (s(x - offsets[k]) + s(x + offsets[k])).
struct LinearTaps {
  std::vector<double> offsets;
  std::vector<double> weights;
};
LinearTaps linear_taps(const std::vector<double>& weights_1d);

// gauss-linear's taps (a Plan's tap_offsets / tap_weights) with exact interpolation, as one discrete kernel:
// each sample s(x -+ o_k) = (1 - f) p[floor] + f p[floor + 1] split into its two texels with weights
// w_k (1 - f) and w_k f, summed per texel offset. Returns the weights for offsets -reach..reach (index
// offset + reach). The CPU reference and the GPU "exact" paths all run this kernel, so they compute the
// same function as a full-precision bilinear fetch of border-remapped texels.
std::vector<double> linear_exact_kernel(const std::vector<float>& tap_offsets,
                                        const std::vector<float>& tap_weights, int& reach);

}  // namespace gpublur

namespace gpublur {
// A symmetric kernel (weights for -r..r, sum 1) whose variance is exactly `variance` (> 0): below 1/2 the
// 3 taps [v/2, 1 - v, v/2]; from 1/2 the sampled Gaussian whose sigma is solved (bisection) so that its kernel,
// truncated at r = ceil(3 sqrt(variance)) + 1, has that variance. For blurs too small to sample a Gaussian.
std::vector<double> exact_variance_kernel(double variance);
}  // namespace gpublur
