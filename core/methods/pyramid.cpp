// pyramid: the thesis's fastest blur (3.5, 4.4): L levels down by 2 with an analysis filter (Down2), up level
// by level with the biquadratic B-spline (Up2, Strengert et al.), core/resample.hpp.
// Sigma control (what the thesis's pyramids lack): one level at scale 2^l adds 4^l (v + 3/4) to the per-axis
// variance in input pixels (v: the analysis kernel's variance, 3/4: the B-spline's, both in that level's fine
// pixels; the same for every output pixel, core/resample.hpp), so L levels give (4^L - 1) / 3 (v + 3/4). The
// fit (`gpublur quality`) sees L levels a few percent wider or narrower than that (their kernel is no Gaussian):
// --sigma takes the most levels whose fitted sigma (the measured table below) stays <= sigma and fills the rest
// with a small Gaussian at the coarsest level whose sampled kernel has exactly the missing variance / 4^L (cheap
// there: a few taps on 1 / 4^L of the pixels; folded into the last Down2's taps). Clamp and zero: every coarse
// image carries a 2-pixel ring of the exact extension (core/resample.hpp). Effective sigma (the kernel's sd)
// sqrt(pyramid + 4^L kernel variance); details.fitted_sigma is what the fit should find (docs/methods.md).
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/gauss.hpp"
#include "core/methods/recipe.hpp"
#include "core/resample.hpp"

namespace gpublur {
namespace {

// The fitted table: `gpublur quality`'s effective sigma (the closest exact Gaussian in mean abs difference) of
// L levels alone, divided by their kernel's sd sqrt(pyramid_variance), L = 1..7 (8 and more: the last), mean
// of the built-in set (512 x 512, cpu, clamp; docs/methods.md "pyramid" has the table and its command). A level's
// kernel is not a Gaussian: quasi and box4 look ~3% wider to the fit than their variance says, box2's aliasing
// ~5% narrower from 4 levels on.
double fitted_ratio(DownFilter f, int levels) {
  static const double quasi[] = {1.0335, 1.0259, 1.0260, 1.0251, 1.0273, 1.0274, 1.0292};
  static const double box2[] = {1.0064, 1.0152, 0.9833, 0.9521, 0.9397, 0.9424, 0.9300};
  static const double box4[] = {1.0467, 1.0353, 1.0304, 1.0299, 1.0330, 1.0339, 1.0382};
  if (levels < 1) return 1.0;
  const double* t = f == DownFilter::Quasi ? quasi : f == DownFilter::Box4 ? box4 : box2;
  return t[std::min(levels, 7) - 1];
}

}  // namespace

Recipe pyramid_recipe() {
  Recipe r;
  r.spec.name = "pyramid";
  r.spec.summary = "pyramid: down by 2 per level (analysis filter), a small Gaussian at the coarsest, up by B-spline";
  r.spec.sigma_mapping =
      "levels L: the most whose fitted sigma (a measured table times the kernel's sd sqrt((4^L - 1) / 3 (v + "
      "3/4)), v the analysis kernel's variance: quasi 17/16, box2 and mipmap 1/4, box4 5/4) stays <= sigma; the "
      "rest as an exact-variance Gaussian at the coarsest level, folded into the last down-sampling; effective "
      "sigma sqrt(pyramid variance + 4^L kernel variance), the fit's expected sigma in details.fitted_sigma";
  r.spec.params = {sigma_param(), border_param()};
  r.spec.params.push_back({"down", ParamType::Enum, "quasi", false, 0, 0, {"quasi", "box2", "box4", "mipmap"},
                           "analysis filter: quasi (Kraus's [13 19 19 13]/64), box2 (2x2 box), box4 (4x4 box), "
                           "mipmap (the GL mipmap chain's 2x2 box, computed as box2 on every backend)"});
  r.spec.params.push_back({"levels", ParamType::Int, "", true, 0, 12, {},
                           "levels down and up (default: the most that stay within sigma)"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.build = [](const Params& p, Plan& plan) {
    DownFilter f = DownFilter::Quasi;
    parse_down_filter(p.text("down"), f);
    const std::vector<float> taps = analysis_taps(f);
    const double v = analysis_variance(taps), want = plan.sigma * plan.sigma;
    int L = 0;
    if (p.given("levels")) {
      L = p.integer("levels");
      // No level, no analysis filter: a --down given beside it would be ignored in silence.
      if (L == 0 && p.given("down"))
        return Status::fail("pyramid: --down filters the levels, and --levels 0 has none");
    } else {
      while (L < 12 && std::pow(fitted_ratio(f, L + 1), 2) * pyramid_variance(v, L + 1) <= want) ++L;
    }
    // The levels as the fit sees them, and the Gaussian that brings the fit to sigma (its own kernel is close
    // enough to a Gaussian for its variance to count as it is).
    const double fitted_var = std::pow(fitted_ratio(f, L), 2) * pyramid_variance(v, L);
    const double scale2 = std::ldexp(1.0, 2 * L);  // 4^L
    const double extra = (want - fitted_var) / scale2;  // in coarsest pixels^2
    std::vector<double> g = {1.0};  // the coarsest level's Gaussian, exact variance
    if (extra > 1e-9) g = exact_variance_kernel(extra);
    const int R = int(g.size() / 2);
    const double kernel_var = R > 0 ? std::pow(kernel_sigma(g), 2) : 0.0;
    Program& prog = plan.program;
    if (L == 0) {  // below one level's blur: the Gaussian alone, at the input's resolution
      Pass c;
      if (R > 0) {
        c.op = Op::Conv1d;
        c.taps.assign(g.begin(), g.end());
        separable_passes(plan, c);
      } else {
        prog.passes.push_back(c);  // a copy: nothing to blur
      }
    } else {
      // The Gaussian g at the coarsest level is folded into the last Down2 (decimating, then filtering with g is
      // filtering with g spread to every other fine pixel, then decimating): taps h * (g up 2), n + 4R long,
      // still symmetric about 2X + 1/2, so the program is only Down2 and Up2 and the clamp rings stay exact.
      std::vector<float> last = taps;
      if (R > 0) {
        last.assign(taps.size() + 4 * size_t(R), 0.f);
        std::vector<double> acc(last.size(), 0.0);
        for (size_t i = 0; i < taps.size(); ++i)
          for (int k = -R; k <= R; ++k) acc[i + size_t(2 * (k + R))] += double(taps[i]) * g[size_t(k + R)];
        for (size_t i = 0; i < acc.size(); ++i) last[i] = float(acc[i]);
      }
      if (last.size() > 64)
        return Status::fail(fmt::format("--levels {} leaves too much of sigma {:g} to the coarsest level ({} taps per "
                                        "axis, at most 64): use more levels", L, plan.sigma, last.size()));
      // The clamp or zero extension, exact (core/resample.hpp): under zero, each down level of the extension is
      // non-zero one pixel beyond its edge (4-tap filters) and each up level further, so reading zeros there
      // was not the zero-extended image's pyramid.
      const bool rings = plan.border == Border::Clamp || plan.border == Border::Zero;
      const int ring = rings ? 2 : 0;
      int cur = 0;
      for (int l = 1; l <= L; ++l) {
        const int next = prog.add_image({ring, 1 << l, false});
        Pass d = down2_pass(l == L ? last : taps, plan.border, cur, next);
        if (f == DownFilter::Mipmap) d.hint = "mipmap";
        prog.passes.push_back(d);
        cur = next;
      }
      for (int l = L - 1; l >= 0; --l) {
        const int next = l == 0 ? 1 : prog.add_image({ring, 1 << l, false});
        prog.passes.push_back(up2_pass(plan.border, cur, next));
        cur = next;
      }
    }
    const int blur_radius = R;
    plan.params["levels"] = std::to_string(L);
    plan.effective_sigma = std::sqrt(pyramid_variance(v, L) + scale2 * kernel_var);
    // The reach: at L = 0 the Gaussian's own (it runs alone); else each level's taps and resampling margin.
    plan.radius = L == 0 ? blur_radius : (1 << L) * (blur_radius + 2) + 2;
    if (L == 0 && p.given("down")) {
      // Said as well as noted: the user who set --down had no word that it did nothing (a default's is not said).
      const double one_level = fitted_ratio(f, 1) * std::sqrt(pyramid_variance(v, 1));
      plan.details["down"] = "not used: sigma is below one level's blur";
      set_plan_warning(plan, PlanWarning::Unused,
                       fmt::format("pyramid: --down {} is not used: sigma {:.6g} is below one level's blur ({:.6g}), "
                                   "so its Gaussian runs alone, with no level",
                                   p.text("down"), plan.sigma, one_level));
    }
    plan.details["fitted_sigma"] = std::to_string(std::sqrt(fitted_var + scale2 * kernel_var));
    plan.details["pyramid_sigma"] = std::to_string(std::sqrt(pyramid_variance(v, L)));
    plan.details["coarse_gaussian_sigma"] = std::to_string(std::sqrt(kernel_var));
    plan.details["coarse_gaussian_radius"] = std::to_string(blur_radius);
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
