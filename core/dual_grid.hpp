// The coordinates of the dual filter's resolution-changing passes (Op::DualDown, Op::DualUp), written once for
// the CPU reference, CUDA and the tests (GL's shaders state the same in normalised coordinates).
//
// Positions are in pixel-index units of an image: pixel i covers [i - 1/2, i + 1/2), its centre is at i. A
// coarse image has ceil(n / 2) pixels per axis for n fine ones (core/program.hpp image_size with divisor 2d
// from d); coarse pixel X covers fine pixels 2X and 2X + 1 (2X + 1 = n for odd n lies outside the fine image
// and is read with the border mode). In continuous coordinates (centre of i at i + 1/2) the fine point t maps
// to t / 2 on the coarse grid, so the centre of fine pixel x is at (x + 1/2) / 2 - 1/2 = x / 2 - 1/4 in coarse
// index units, and the centre of coarse pixel X at 2X + 1/2 in fine index units.
#pragma once
#include "core/border.hpp"

namespace gpublur {

// Pixels per axis of the image one level coarser.
GPUBLUR_HD int dual_coarse_size(int n) { return (n + 1) / 2; }
// Centre of coarse pixel X in fine index units (the down pass's sampling centre).
GPUBLUR_HD float dual_coarse_centre(int X) { return 2.0f * float(X) + 0.5f; }
// Centre of fine pixel x in coarse index units (the up pass's sampling centre): X - 1/4 for x = 2X, X + 1/4
// for x = 2X + 1. Quarter values are exact in float.
GPUBLUR_HD float dual_fine_centre(int x) { return 0.5f * float(x) - 0.25f; }

}  // namespace gpublur
