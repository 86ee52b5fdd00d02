// kawase --impl dual: Marius Bjorge's dual filter ("Bandwidth-Efficient Rendering", SIGGRAPH 2015): `levels`
// down passes, each to half the resolution, then as many up passes back, every pass a few bilinear samples.
// The published shader (the widely copied form, `halfpixel` times the pass's `offset`, 1 here):
//   down: sum = tex(uv) * 4 + tex(uv - hp.xy) + tex(uv + hp.xy) + tex(uv + (hp.x, -hp.y)) + tex(uv - (hp.x, -hp.y));
//         return sum / 8;
//   up:   sum = tex(uv + (-2 hp.x, 0)) + tex(uv + (-hp.x, hp.y)) * 2 + tex(uv + (0, 2 hp.y)) + tex(uv + hp.xy) * 2
//             + tex(uv + (2 hp.x, 0)) + tex(uv + (hp.x, -hp.y)) * 2 + tex(uv + (0, -2 hp.y)) + tex(uv - hp.xy) * 2;
//         return sum / 12;
// with uv the output pixel's centre. Implementations differ in which texture `halfpixel` is half a texel of;
// ours, in SOURCE pixels (core/program.hpp Op::DualDown/DualUp, core/dual_grid.hpp): down hp = 1 source pixel
// (half an output pixel: the 4 corner samples sit on the output pixel's corners, Bjorge's picture; with half a
// source pixel they would land on the 4 pixels under the centre and the pass would be a 2 x 2 box), up hp =
// 1/2 source pixel (one output pixel).
//
// Variances (per axis, kernel away from the borders; tests/core/test_kawase_dual.cpp checks them on impulses):
// - down, in source pixels: the centre sample is the 2 x 2 box of the output's pixels 2X, 2X + 1, the 4 corner
//   samples together the 4 x 4 box about them: weights 5/32 (inner 2 x 2) and 1/32 (the ring), per-axis
//   marginal (1, 3, 3, 1) / 8 at offsets -3/2, -1/2, 1/2, 3/2: variance 3/4.
// - up, in source (coarse) pixels: the sample offsets have per-axis variance (2 * 1 + 8 * 1/4) / 12 = 1/3, and
//   every sample sits at a quarter position (the output centre is X -+ 1/4), where the interpolation adds
//   f (1 - f) = 3/16: 25/48 coarse = 25/12 output pixels^2.
// - the whole weight of each pass centres on the output pixel, so nested passes add: one level adds
//   3/4 + 25/12 = 17/6 of its own pixels^2, level l (1-based) 4^(l-1) times that:
//   V(L) = (17/6) (4^L - 1) / 3  (sigma 1.68, 3.76, 7.71, 15.5, 31.1, 62.2 for L = 1 .. 6).
// Sigma control: the number of levels grows the blur by ~2x in sigma per level, so --sigma takes the most
// levels whose V(L) <= sigma^2 and fills the rest, sigma^2 - V(L), with an exact sampled Gaussian of
// variance (sigma^2 - V(L)) / 4^L (coarse pixels^2, 0 to 17/6 by sigma) on the coarsest image (Conv1d x, y
// between the last down and the first up pass): it adds its variance exactly (scaled by 4^L) and costs a
// separable pass over 1/4^L of the pixels. Below sigma 1.68 (one level) the plan is one level and predicts 1.68.
#include "core/methods/kawase_dual.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace gpublur {
namespace {

constexpr int kMaxLevels = 16;

// The normalised sampled Gaussian of radius R and deviation s, and its variance.
std::vector<double> gauss_taps(double s, int R, double& variance) {
  std::vector<double> t(size_t(2 * R + 1));
  double sum = 0, m2 = 0;
  for (int k = -R; k <= R; ++k) sum += t[size_t(k + R)] = std::exp(-0.5 * k * k / (s * s));
  for (int k = -R; k <= R; ++k) m2 += (t[size_t(k + R)] /= sum) * k * k;
  variance = m2;
  return t;
}

// Taps whose variance is `v` exactly (to 1e-12): the sampled Gaussian of radius max(1, ceil(4 sqrt v)) with
// its deviation found by bisection (the variance rises with s, from 0 to the flat kernel's R (R + 1) / 3 > v).
std::vector<double> taps_of_variance(double v) {
  const int R = std::max(1, int(std::ceil(4 * std::sqrt(v))));
  double lo = 1e-3, hi = 4 * std::sqrt(v) + 4, got = 0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    gauss_taps(mid, R, got);
    (got < v ? lo : hi) = mid;
  }
  return gauss_taps(0.5 * (lo + hi), R, got);
}

}  // namespace

double dual_variance(int levels) { return 17.0 / 6.0 * (std::pow(4.0, levels) - 1) / 3.0; }

int dual_levels_for_sigma(double sigma) {
  int L = 1;
  while (L < kMaxLevels && dual_variance(L + 1) <= sigma * sigma) ++L;
  return L;
}

Status build_kawase_dual(const Params& p, Plan& plan) {
  if (p.given("passes") || p.given("offsets"))
    return Status::fail("--passes and --offsets are --impl kawase's; --impl dual takes --levels");
  const int L = p.given("levels") ? p.integer("levels") : dual_levels_for_sigma(plan.sigma);
  const double scale = std::pow(4.0, L);  // coarsest pixel^2 in input pixels^2
  const double rest = (plan.sigma * plan.sigma - dual_variance(L)) / scale;
  // A bottom blur below 1e-3 coarse pixels^2 changes sigma by < 0.05% of a level's: left out.
  std::vector<double> taps;
  if (rest > 1e-3) taps = taps_of_variance(rest);
  double bottom = 0;
  for (size_t k = 0; k < taps.size(); ++k) {
    const double d = double(k) - double(taps.size() / 2);
    bottom += taps[k] * d * d;
  }
  plan.params["levels"] = std::to_string(L);
  plan.params["offsets"] = "";  // --impl kawase's (the report lists every parameter)
  plan.effective_sigma = std::sqrt(dual_variance(L) + scale * bottom);
  plan.details["dual"] = fmt::format("{} levels (variance {:.6g}); bottom gaussian {}", L, dual_variance(L),
                                     taps.empty() ? std::string("none")
                                                  : fmt::format("variance {:.6g} at 1/{} resolution, {} taps",
                                                                bottom, 1 << L, taps.size()));

  // Images: level l (1..L) at divisor 2^l; the down pass to level l writes it, the up pass from level l + 1
  // writes it again (its down content is no longer read); the last up pass writes the output.
  Program& prog = plan.program;
  std::vector<int> level(size_t(L) + 1);
  level[0] = 0;
  for (int l = 1; l <= L; ++l) {
    ImageDecl d;
    d.divisor = 1 << l;
    level[size_t(l)] = prog.add_image(d);
  }
  Pass pass;
  pass.border = plan.border;
  for (int l = 1; l <= L; ++l) {
    pass.op = Op::DualDown;
    pass.src = level[size_t(l - 1)], pass.dst = level[size_t(l)];
    prog.passes.push_back(pass);
    plan.radius += 2 << (l - 1);  // 2 source pixels of level l - 1
  }
  if (!taps.empty()) {
    ImageDecl d;
    d.divisor = 1 << L;
    // Its own images (a fused x-y pair may read its source while writing its destination).
    const int tmp = prog.add_image(d), blurred = prog.add_image(d);
    Pass g;
    g.op = Op::Conv1d;
    g.border = plan.border;
    g.taps.assign(taps.begin(), taps.end());
    g.axis = 0, g.src = level[size_t(L)], g.dst = tmp;
    prog.passes.push_back(g);
    g.axis = 1, g.src = tmp, g.dst = blurred;
    prog.passes.push_back(g);
    level[size_t(L)] = blurred;
    plan.radius += int(taps.size() / 2) << L;
  }
  for (int l = L; l >= 1; --l) {
    pass.op = Op::DualUp;
    pass.src = level[size_t(l)], pass.dst = l == 1 ? 1 : level[size_t(l - 1)];
    prog.passes.push_back(pass);
    plan.radius += 2 << l;  // 2 source pixels of level l
  }
  plan.params["passes"] = std::to_string(prog.passes.size());
  return Status::success();
}

}  // namespace gpublur
