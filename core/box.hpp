// Box filter math, written once: Kovesi's widths for a sigma, the variance of a cascade, its exact kernel.
#pragma once
#include <vector>

namespace gpublur {

// n passes of two odd widths w and w + 2 (w = the odd floor of Kovesi's ideal sqrt(12 sigma^2 / n + 1)),
// the count of each chosen so the summed variance sum (w_i^2 - 1) / 12 comes closest to sigma^2.
// Ascending order.
std::vector<int> kovesi_widths(double sigma, int passes);

// Variance of the cascade: sum over passes of (w^2 - 1) / 12 (a box of odd width w has variance (w^2-1)/12).
double box_variance(const std::vector<int>& widths);

// The cascade's 1D kernel, the n-fold convolution of the normalised boxes, in float64: weights for offsets
// -R..R, R = sum (w_i - 1) / 2.
std::vector<double> box_cascade_kernel(const std::vector<int>& widths);

}  // namespace gpublur
