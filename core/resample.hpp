// Resampling by 2 (Op::Down2, Op::Up2): the coordinate mapping, the analysis kernels and the variance a
// down + up level adds, fixed here once (backends follow core/program.hpp's definitions; these helpers are the
// CPU reference's and the recipes').
//
// Mapping. A coarse image of a fine length n has ceil(n / 2) pixels; coarse pixel X covers fine pixels 2X and
// 2X + 1, so its centre is the fine coordinate 2X + 1/2 (pixel centres at integer + 1/2 in the continuous frame:
// x_coarse = (x_fine + 1/2) / 2 - 1/2). An odd n's last coarse pixel covers fine pixel n - 1 and fine pixel n,
// which lies outside and is read with the border mode (clamp: pixel n - 1 again). Up2's fine pixel x lies at
// coarse coordinate x / 2 - 1/4: 3/4 on its own coarse pixel x >> 1 and 1/4 on the neighbour on its side.
#pragma once
#include <string>
#include <vector>

#include "core/program.hpp"

namespace gpublur {

inline int coarse_length(int n) { return (n + 1) / 2; }

// Padding (the pyramid's clamp rings). Down2 and Up2 write their dst's whole stored area, padding included, and
// read a padded source beyond its stored area with the border mode over that area: pixel x of a source of
// length n and padding p reads stored pixel remap(x + p, n + 2p) - p (-p - 1: zero). The pyramid's clamp rings:
// every level of the infinitely clamp-extended input is constant outward from 1 pixel beyond its edge (4-tap
// kernels; from the edge with 2 taps: the first level of the extension starts at the input's edge pixel, each
// level halves the distance and adds its reach), so a ring of 2 pixels makes clamping onto the ring exact, and
// Up2 into a 2-pixel ring reads only inside its source's 2-pixel ring: the whole pyramid equals the pyramid of
// the infinitely clamp-extended input (tests/core/test_pyramid.cpp).
inline int resample_index(int x, int n, int pad, Border b) {
  const int r = remap_index(x + pad, n + 2 * pad, b);
  return r < 0 ? -pad - 1 : r - pad;
}
// Up2: the coarse pixel nearest to fine pixel x (weight 3/4) and the one on its side (weight 1/4).
inline int up2_near(int x) { return x >= 0 ? x / 2 : -((1 - x) / 2); }  // floor(x / 2)
inline int up2_far(int x) { return up2_near(x) + ((x & 1) ? 1 : -1); }

// The analysis (down-sampling) filters: per-axis taps at fine offsets 2X + first .. 2X + first + taps - 1.
enum class DownFilter { Quasi, Box2, Box4, Mipmap };
bool parse_down_filter(const std::string& s, DownFilter& f);
const char* down_filter_name(DownFilter f);
// quasi: Kraus's quasi-convolution [13 19 19 13] / 64; box2 and mipmap: [1 1] / 2; box4: [1 1 1 1] / 4.
std::vector<float> analysis_taps(DownFilter f);

// Per-axis variance, in fine pixels, of an analysis kernel about its centre 2X + 1/2.
double analysis_variance(const std::vector<float>& taps);
// Up2 as seen from a coarse pixel: fine weights [1 3 3 1] / 8 (times 2) about 2X + 1/2: variance 3/4 in fine pixels,
// the same at every fine phase (the 3/4, 1/4 split puts the mean on the fine pixel).
constexpr double kUp2Variance = 0.75;
// Per-axis variance in input pixels of L down + up levels with an analysis kernel of variance v (fine pixels):
// level l (0 = finest) works in pixels of 2^l input pixels, so sum_l 4^l (v + 3/4) = (4^L - 1) / 3 (v + 3/4).
double pyramid_variance(double v, int levels);

// The passes (border: reads outside the source).
Pass down2_pass(const std::vector<float>& taps, Border border, int src, int dst);
Pass up2_pass(Border border, int src, int dst);

}  // namespace gpublur
