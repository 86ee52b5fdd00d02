// Porikli's reshuffling (thesis 3.7, "Reshuffling: a fast algorithm for filtering with arbitrary kernels"):
// a kernel preprocessed once into its list of unique weights and, per unique weight, its linkage set (the
// offsets where the kernel has that weight). The single-output (gather) form then makes each output pixel as
// sum_u w_u * (sum of the source pixels at the offsets of set u): as many reads as the kernel has taps, but
// only as many multiplies as it has unique weights. Built here in core; Op::Reshuffle carries it in a Pass.
#pragma once
#include <utility>
#include <vector>

#include "core/border.hpp"
#include "core/program.hpp"

namespace gpublur {

struct ReshuffleKernel {
  int radius = 0;                                      // every offset has |dx|, |dy| <= radius
  std::vector<double> weights;                         // the unique weights, one per linkage set
  std::vector<std::vector<std::pair<int, int>>> sets;  // the linkage sets: offsets (dx, dy)
  size_t taps() const;                                 // offsets over all sets
};

// The sampled, truncated 2D Gaussian of gauss-2d (weights exp(-(dx^2 + dy^2) / (2 sigma^2)) over the
// (2 radius + 1)^2 square, normalised to sum 1), grouped by the integer key dx^2 + dy^2: every offset whose
// weight is the same exactly, whatever float rounding would do to the products of two 1D taps. Sets in
// decreasing key order (the smallest weights first, so that float sums over the sets add them before the centre's),
// offsets in each in raster order (dy, then dx).
ReshuffleKernel gaussian_reshuffle(double sigma, int radius);

// Any kernel, as a correlation matrix (row-major kw x kh, odd sizes; the weight of offset (i - kw/2, j - kh/2)
// at [j * kw + i]): grouped by exactly equal weights, zero weights left out, sets in order of first
// appearance among equal magnitudes, the smallest magnitudes first. radius = max(kw, kh) / 2.
ReshuffleKernel reshuffle_matrix(const std::vector<double>& m, int kw, int kh);

// The kernel as a dense (2 radius + 1)^2 correlation matrix, row-major (what a direct 2D convolution with it
// computes is what the reshuffled pass computes).
std::vector<double> reshuffle_dense(const ReshuffleKernel& k);

// An Op::Reshuffle pass of the kernel: taps the unique weights (as float), links the linkage sets, widths
// {radius} (core/program.hpp).
Pass reshuffle_pass(const ReshuffleKernel& k, Border border);

}  // namespace gpublur
