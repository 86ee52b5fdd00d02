// diffusion: the explicit heat equation (thesis 3.9): N steps of u += c (u(x-1,y) + u(x+1,y) + u(x,y-1) +
// u(x,y+1) - 4 u), the border mode read at every step, c in (0, 0.25] (the explicit scheme's stability bound).
// One step convolves with the 5-point kernel whose variance per axis is 2c; variances add, so N steps have
// sigma^2 = 2 c N exactly (t = sigma^2 / 2 = c N in the heat equation's time). From --sigma: the fewest steps
// at the default rate, then the rate that lands on sigma exactly.
// Borders mean what they mean for every method: the blur (here N steps' kernel) of the border-extended image.
// Mirror and wrap extensions are kept by the steps (the kernel is symmetric), so reading the border at every
// step is that function exactly. Clamp and zero extensions are not: the steps run on a copy padded by the
// border extension, P = min(N, ceil(6 sigma) + 2) pixels per side (the kernel's mass beyond 6 sigma is below
// 1e-8: what leaks in from the padded domain's own edge), and the output is cropped from it.
// The default rate is 0.2, not the bound 0.25: at c = 1/4 the centre weight 1 - 4c is 0 and a step maps the
// highest frequency (a checkerboard) to minus itself undamped, so N steps leave a kernel that is zero on every
// other pixel; at 0.2 that frequency decays by 0.6 per step (docs/methods.md has the measured fits).
#include <cmath>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "core/methods/recipe.hpp"

namespace gpublur {
namespace {

constexpr double kDefaultRate = 0.2;
constexpr int kMaxSteps = 100000;
constexpr double kMinRate = 1e-6;  // --rate's lower bound, for a derived rate too
// Clamp and zero: the padded domain's cell updates past which the plan warns of its cost (about 10 s on one core of
// the cpu backend; sigma 70 at the default rate).
constexpr double kDiffusionWarnCells = 1e10;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

Recipe diffusion_recipe() {
  Recipe r;
  r.spec.name = "diffusion";
  r.spec.summary = "explicit heat-equation steps, 5-point Laplacian (GPUs: 8 steps a pass, walking down the image)";
  r.spec.sigma_mapping =
      "sigma^2 = 2 c N (per-axis variance 2c per step): N = ceil(sigma^2 / (2 * 0.2)), then c = sigma^2 / (2N); "
      "--iterations or --rate given: the other follows from sigma";
  r.spec.params = {sigma_param(), border_param()};
  r.spec.params.push_back({"iterations", ParamType::Int, "", true, 1, kMaxSteps, {},
                           "number of diffusion steps N (default: the fewest at rate 0.2 that reach sigma)"});
  r.spec.params.push_back({"rate", ParamType::Float, "", true, kMinRate, 0.25, {},
                           "diffusion rate c per step, (0, 0.25] (default: sigma^2 / (2N))"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.spec.nonfinite_footprint = true;  // within the square of its steps (a bound on the stencil's diamond)
  r.build = [](const Params& p, Plan& plan) {
    const double t = plan.sigma * plan.sigma / 2;  // c N
    long steps = 0;
    double rate = 0;
    if (p.given("iterations") && p.given("rate")) {
      steps = p.integer("iterations"), rate = p.num("rate");
    } else if (p.given("iterations")) {
      steps = p.integer("iterations"), rate = t / double(steps);
      if (rate > 0.25)
        return Status::fail("--sigma " + num(plan.sigma) + " needs at least " + std::to_string(long(std::ceil(4 * t))) +
                            " diffusion steps (rate <= 0.25); --iterations is " + std::to_string(steps));
    } else {
      rate = p.given("rate") ? p.num("rate") : kDefaultRate;
      steps = std::max(1L, p.given("rate") ? std::lround(t / rate) : long(std::ceil(t / rate - 1e-9)));
      if (!p.given("rate")) rate = t / double(steps);
    }
    if (rate < kMinRate)  // --iterations far beyond what sigma needs: steps too small for float to add up
      return Status::fail("--iterations " + std::to_string(steps) + " at --sigma " + num(plan.sigma) +
                          " makes the rate " + num(rate) + ", below its minimum " + num(kMinRate) +
                          ": give fewer iterations");
    if (steps > kMaxSteps)
      return Status::fail("diffusion at --sigma " + num(plan.sigma) + " needs " + std::to_string(steps) +
                          " steps (at most " + std::to_string(kMaxSteps) +
                          "): use a method whose cost does not grow with sigma (e.g. box)");
    Pass pass;
    pass.op = Op::Diffusion;
    pass.border = plan.border;
    pass.taps = {float(rate)};
    pass.widths = {int(steps)};
    plan.params["iterations"] = std::to_string(steps);
    plan.params["rate"] = fmt::format("{}", pass.taps[0]);  // the float run, shortest (0.2, not 0.200000003)
    plan.radius = int(steps);
    plan.effective_sigma = std::sqrt(2.0 * double(pass.taps[0]) * double(steps));
    Program& prog = plan.program;
    if (plan.border == Border::Mirror || plan.border == Border::Wrap) {
      prog.passes.push_back(pass);
      return Status::success();
    }
    const int pad = int(std::min<long>(steps, long(std::ceil(6 * plan.effective_sigma)) + 2));
    // The padding alone is stepped N times whatever the image: a 2 x 2 image at sigma 200 (100000 steps over 2406^2
    // cells) ran for about 40 minutes on the cpu backend, with nothing said.
    const double floor_cells = double(steps) * std::pow(2.0 * pad + 1, 2);
    if (floor_cells > kDiffusionWarnCells)
      set_plan_warning(plan, PlanWarning::Cost,
                       fmt::format("diffusion at sigma {:.4g} with --border {} steps the image padded by {} pixels a "
                                   "side {} times: at least {:.2g} cell updates even for a 1-pixel image (the cost "
                                   "grows as sigma^4); iir or box cost the same at any sigma, and mirror or wrap "
                                   "step the image alone",
                                   // the sigma that runs: --iterations and --rate may set it, not --sigma
                                   plan.effective_sigma, border_name(plan.border), pad, steps, floor_cells));
    const int a = prog.add_image({pad, 1, false}), b = prog.add_image({pad, 1, false});
    Pass extend;  // Op::Copy: the border extension into the padded domain
    extend.border = plan.border;
    extend.src = 0, extend.dst = a;
    pass.src = a, pass.dst = b;
    Pass crop;
    crop.src = b, crop.dst = 1;
    prog.passes = {extend, pass, crop};
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
