// kawase --impl dual: the dual filter (core/methods/kawase_dual.cpp).
#pragma once
#include "core/methods/recipe.hpp"

namespace gpublur {

// The per-axis variance, in input pixels^2, of `levels` down passes followed by as many up passes (the kernel,
// away from the borders): (17/6) (4^levels - 1) / 3.
double dual_variance(int levels);
// The levels --sigma chooses: the most whose variance does not exceed sigma^2, at least 1.
int dual_levels_for_sigma(double sigma);
// Builds kawase's plan for --impl dual (--levels, --sigma).
Status build_kawase_dual(const Params& p, Plan& plan);

}  // namespace gpublur
