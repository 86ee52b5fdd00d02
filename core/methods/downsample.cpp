// --downsample F: any method at 1/F resolution. The input goes down by log2 F Down2 passes of the 2x2 box
// (together the F x F box, aligned to F x F blocks), the method runs on the small image, and log2 F Up2 passes
// (B-spline) bring it back. Down and up are the box2 pyramid of log2 F levels: per-axis variance
// (4^L - 1) / 3 (1/4 + 3/4) = (F^2 - 1) / 3 input pixels^2 (core/resample.hpp), and the method's variance counts
// F^2 times, so it runs at sigma sqrt(sigma^2 - (F^2 - 1) / 3) / F and the effective sigma is
// sqrt(F^2 s_m^2 + (F^2 - 1) / 3), s_m the method's own effective sigma at its resolution. F is 1 by default;
// a recipe may choose it from sigma instead (Recipe::auto_downsample: kawase), which --downsample overrides.
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "core/methods/recipe.hpp"
#include "core/resample.hpp"

namespace gpublur {

namespace {

constexpr double kMinSigma = 0.1;  // the registry's sigma minimum, at the small resolution

int levels_of(int F) {
  int L = 0;
  while ((1 << L) < F) ++L;
  return L;
}

// Per-axis variance of the F x F box down and the B-spline up, in input pixels^2: (F^2 - 1) / 3.
double resample_variance(int F) {
  return pyramid_variance(analysis_variance(analysis_taps(DownFilter::Box2)), levels_of(F));
}

}  // namespace

ParamSpec downsample_param(const Recipe& r) {
  ParamSpec p{"downsample", ParamType::Int, "1", false, 1, 8, {"1", "2", "4", "8"},
              "F = 1, 2, 4 or 8: run the method at 1/F resolution (F x F box down, B-spline up), sigma adjusted to "
              "keep the effective one"};
  if (r.auto_downsample) {
    p.default_value.clear();
    p.derived = true;
    p.help += "; by default " + r.auto_downsample_rule;
  }
  return p;
}

double downsample_min_sigma(int F) {
  return std::sqrt(resample_variance(F) + std::pow(kMinSigma * F, 2));
}

Status build_recipe(const Recipe& r, const Params& given, Plan& plan) {
  // --downsample as given; else the recipe's own choice from sigma; else its plain default (1).
  const bool automatic = r.auto_downsample && !given.given("downsample");
  const int F = automatic ? r.auto_downsample(given, plan.sigma)
                          : given.nums.count("downsample") ? given.integer("downsample") : 1;
  if (F != 1 && F != 2 && F != 4 && F != 8)
    return Status::fail("--downsample " + std::to_string(F) + " is not 1, 2, 4 or 8");
  if (!r.auto_downsample && F == 1) return r.build(given, plan);  // every method without a rule: as before
  // The recipe sees the working resolution it runs at (kawase picks its offsets by it).
  Params p = given;
  p.nums["downsample"] = F;
  if (r.auto_downsample) {
    plan.params["downsample"] = std::to_string(F);
    plan.details["downsample"] = std::to_string(F);
    // The rule: the parameter's help. Where it gives 1 whatever the sigma (kawase --passes, --offsets, dual) the
    // method's own parameters chose full resolution: "from sigma" said otherwise.
    plan.details["downsample_choice"] = !automatic                          ? "given"
                                        : r.auto_downsample(given, 1e9) == 1 ? "by its parameters"
                                                                             : "from sigma";
  }
  if (F == 1) return r.build(p, plan);
  const int L = levels_of(F);
  const double resample_var = resample_variance(F);
  const double inner_var = plan.sigma * plan.sigma - resample_var;
  // A method whose own parameters fix its size (a kernel file, box --width, kawase --offsets) keeps it at the small
  // resolution: its effective sigma does not follow the sigma it is built at, from the one it would be asked for to
  // 4 times it, so there is no sigma to correct or to check against the resampling's own blur. (A probe that fails:
  // not fixed.)
  // Where both probes are the identity (box's widths of 1 below sigma 0.5), a third at sigma 4 tells a method that
  // is the identity only at small sigma (box --downsample 2 --sigma 0.1 ran, reporting effective sigma 1, where
  // gauss-sep refused it) from one fixed at the identity (a kernel file of one tap).
  // The third probe, at sigma 4 or more, also tells a method whose sigma has its say only above a floor (pyramid
  // --levels 1, kawase --passes 1: the same effective sigma at 0.125 and 0.5, another at 4) from a fixed one: by the
  // first two alone --sigma 0.5 --downsample 2 ran as fixed where --sigma 1 was refused below the minimum.
  Plan one = plan, two = plan, three = plan;
  one.sigma = std::max(kMinSigma, (inner_var > 0 ? std::sqrt(inner_var) : plan.sigma) / F);
  two.sigma = 4 * one.sigma;  // far enough apart that a discrete method (kawase's offsets at small sigma) moves
  three.sigma = std::max(4.0, two.sigma);
  const auto same = [](const Plan& a, const Plan& b) {
    return std::fabs(a.effective_sigma - b.effective_sigma) <= 1e-9 * std::fabs(b.effective_sigma);
  };
  const Status b1 = r.build(p, one), b2 = r.build(p, two), b3 = r.build(p, three);
  // Refused in the same words at every probe: its parameters conflict whatever the sigma (kawase --levels without
  // --impl dual, --passes that do not match --offsets), said as without --downsample. It was reported as the sigma's
  // minimum, or behind the small resolution's prefix, which named a sigma that had no part in it.
  if (!b1 && !b2 && !b3 && b1.error == b2.error && b2.error == b3.error) return b1;
  const bool fixed = b1 && b2 && same(one, two) && b3 && same(two, three);
  Plan inner;
  // What the method's own refusals and warnings at the small resolution are prefixed with.
  const auto at_small_size = [&](double sigma) {
    return fmt::format("--downsample {} runs {} at sigma {:.4g} on an image 1/{} the size, where: ", F, plan.method,
                       sigma, F);
  };
  if (fixed) {
    inner = std::move(one);  // built at the sigma the small resolution asks for; another build would read the same
  } else {
    if (inner_var < std::pow(kMinSigma * F, 2)) {
      // The minimum rounded up in its fourth digit, so that the sigma it names passes ("at least 4.65" refused 4.65:
      // the minimum is 4.6519).
      const double m = downsample_min_sigma(F), unit = std::pow(10.0, std::floor(std::log10(m)) - 3);
      return Status::fail(fmt::format("--downsample {} blurs by sigma {:.3g} itself: --sigma must be at least {:.4g}",
                                      F, std::sqrt(resample_var), std::ceil(m / unit) * unit));
    }
    // The method's own effective sigma at the small resolution is what counts: where it differs from the sigma
    // asked for (a sampled Gaussian of sigma 0.5 is narrower), the request is corrected (s *= target / effective)
    // within a bracket that every trial narrows, bisecting where the correction would leave it or has not halved the
    // bracket since the last trial: near a sampled Gaussian's smallest sigmas its effective sigma rises steeply, the
    // plain correction oscillated there (gauss-sep sigma 1.2 --downsample 2 kept its first trial, 13% short), and
    // corrections alone crept to one side of the bracket for all their trials (sigma 1.23: 1.078). Above the
    // bracket's start a trial at most doubles: where the effective sigma is near 0 the correction asked for sigma
    // 1e8 and built its kernel (gauss-sep 2.2726 --downsample 4: 16 GB). The closest plan is kept (methods with
    // discrete settings, box's odd widths, may not reach the target).
    const double target = std::sqrt(inner_var) / F;
    double ask = target, lo = 0, hi = std::numeric_limits<double>::infinity();  // effective(lo) < target < (hi)
    double last_width = std::numeric_limits<double>::infinity(), last_e = -1;
    for (int it = 0; it < 60; ++it) {
      Plan trial = plan;
      trial.sigma = ask;
      // The method's own words name its sigma and sizes at the small resolution: said as such (diffusion's "--sigma
      // 2.44948974 needs at least 12 steps" read as if the user had asked for 2.449).
      if (Status s = r.build(p, trial); !s) return Status::fail(at_small_size(ask) + s.error);
      const double e = trial.effective_sigma;
      if (it == 0 || std::fabs(e - target) < std::fabs(inner.effective_sigma - target)) inner = trial;
      // (A kernel that is not a blur has no sigma to correct; an identity, e = 0, goes on up: e < target.)
      if (std::fabs(e - target) < 1e-4 * target || !trial.blur || !(e >= 0)) break;
      // Short of the target with a doubled sigma gaining under 1e-6: the method's own parameters cap it (gauss-sep
      // --radius 1 tends to a box of 3); doubling on to the last trial reported a method sigma of 4e7.
      if (std::isinf(hi) && e < target && e > 0 && std::fabs(e - last_e) <= 1e-6 * e) break;
      last_e = e;
      (e < target ? lo : hi) = ask;
      if (hi - lo < 1e-7 * target || (e > target && ask <= kMinSigma)) break;  // nothing left to try
      double next = e > 0 ? ask * target / e : 2 * ask;
      if (std::isinf(hi)) {
        next = std::min(next, 2 * ask);
      } else {
        const double width = hi - lo;
        if (!(next > lo && next < hi) || width > 0.5 * last_width) next = 0.5 * (lo + hi);
        last_width = width;
      }
      ask = std::max(kMinSigma, next);
    }
  }
  // Renumber: the method's input and output become intermediates at divisor F, its intermediates scale by F.
  Program& prog = plan.program;
  prog = Program();
  std::vector<int> map(inner.program.images.size());
  for (size_t i = 0; i < inner.program.images.size(); ++i) {
    ImageDecl d = inner.program.images[i];
    d.divisor *= F;
    map[i] = prog.add_image(d);
  }
  const std::vector<float> box = analysis_taps(DownFilter::Box2);
  int cur = 0;
  for (int l = 1; l <= L; ++l) {
    const int next = l == L ? map[0] : prog.add_image({0, 1 << l, false});
    prog.passes.push_back(down2_pass(box, plan.border, cur, next));
    cur = next;
  }
  for (Pass q : inner.program.passes) {
    q.src = map[size_t(q.src)], q.dst = map[size_t(q.dst)];
    prog.passes.push_back(q);
  }
  cur = map[1];
  for (int l = L - 1; l >= 0; --l) {
    const int next = l == 0 ? 1 : prog.add_image({0, 1 << l, false});
    prog.passes.push_back(up2_pass(plan.border, cur, next));
    cur = next;
  }
  plan.params = inner.params;
  plan.params["sigma"] = fmt::format("{:.9g}", plan.sigma);
  plan.details = inner.details;
  if (auto w = plan.details.find("warning"); w != plan.details.end() && !fixed)
    w->second = at_small_size(inner.sigma) + w->second;
  plan.details["downsample"] = std::to_string(F);
  plan.details["method_sigma"] = fixed ? "none (its parameters fix its size)" : fmt::format("{:.6g}", inner.sigma);
  plan.details["method_effective_sigma"] = fmt::format("{:.6g}", inner.effective_sigma);
  plan.details["method_resolution"] = fmt::format("1/{} per axis (ceil(width / {}) x ceil(height / {}))", F, F, F);
  plan.tolerance = inner.tolerance;
  // A method that is not a blur (a kernel of negative weights) has no effective sigma whatever the resampling; an
  // identity (box widths 1,1,1, effective sigma 0) is the resampling's blur alone.
  plan.blur = inner.blur;
  plan.effective_sigma =
      inner.blur ? std::sqrt(double(F) * F * inner.effective_sigma * inner.effective_sigma + resample_var) : 0;
  plan.radius = F * (inner.radius + 2) + 2;
  if (inner.nonfinite_reach == Plan::kWholeImageReach) plan.nonfinite_reach = Plan::kWholeImageReach;
  return Status::success();
}

}  // namespace gpublur
