// kawase: passes of the Intel article's Kawase blur: pass i writes the mean of the 4 bilinear samples at
// (x +- (k_i + 1/2), y +- (k_i + 1/2)). A sample halfway between pixels is the mean of 2 x 2 pixels, so a pass is
// separable: per axis weights 1/4 at -(k+1), -k, k, k+1 (k = 0: 1/4, 1/2, 1/4), variance
// ((k+1)^2 + k^2) / 2 = k^2 + k + 1/2 per axis. Passes convolve, so variances add: the effective sigma is
// sqrt(sum (k_i^2 + k_i + 1/2)) exactly (for the kernel; at the borders each pass reads its own border).
// From --sigma: the article's rising offsets 0, 1, 2, ... for as many passes as it takes to reach sigma^2, the
// last offset then chosen to land closest to sigma^2; --passes n keeps 0 .. n-2 and chooses the last;
// --offsets gives the list. --impl dual is the dual filter (down then up passes, core/methods/kawase_dual.cpp).
#include <cmath>
#include <string>

#include "core/methods/kawase_dual.hpp"
#include "core/methods/recipe.hpp"

namespace gpublur {
namespace {

double pass_variance(int k) { return double(k) * k + k + 0.5; }

// The offset whose pass variance brings `have` closest to `want`.
int closest_offset(double have, double want) {
  int best = 0;
  for (int k = 1; k <= 4096; ++k) {
    if (std::fabs(have + pass_variance(k) - want) < std::fabs(have + pass_variance(best) - want)) best = k;
    if (pass_variance(k) > want) break;
  }
  return best;
}

}  // namespace

Recipe kawase_recipe() {
  Recipe r;
  r.spec.name = "kawase";
  r.spec.summary =
      "Kawase blur: passes of 4 bilinear samples at the diagonal offsets +-(k + 1/2), or the dual filter (--impl dual)";
  r.spec.sigma_mapping =
      "per pass variance k^2 + k + 1/2 per axis; offsets 0, 1, 2, ... until sigma^2 is reached, the last one "
      "chosen to come closest; effective sigma sqrt(sum of the passes' variances). dual: the most levels whose "
      "variance (17/6)(4^L - 1)/3 fits in sigma^2, the rest an exact Gaussian at the coarsest level";
  r.spec.params = {sigma_param(), border_param()};
  r.spec.params.push_back({"passes", ParamType::Int, "", true, 1, 64, {},
                           "number of passes (default: as many as the rising offsets need to reach sigma)"});
  r.spec.params.push_back({"offsets", ParamType::IntList, "", true, 0, 4096, {},
                           "the passes' offsets k, comma-separated (samples at +-(k + 1/2)); overrides --passes"});
  r.spec.params.push_back({"impl", ParamType::Enum, "kawase", false, 0, 0, {"kawase", "dual"},
                           "kawase: passes at full resolution (the Intel article's); dual: Bjorge's dual filter, "
                           "down-sample passes then up-sample passes"});
  r.spec.params.push_back({"levels", ParamType::Int, "", true, 1, 16, {},
                           "--impl dual: number of down (and up) passes; the rest of sigma^2 goes to an exact "
                           "Gaussian at the coarsest level"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.build = [](const Params& p, Plan& plan) {
    if (p.text("impl") == "dual") return build_kawase_dual(p, plan);
    if (p.given("levels")) return Status::fail("--levels is --impl dual's");
    const double want = plan.sigma * plan.sigma;
    std::vector<int> ks;
    if (p.given("offsets")) {
      ks = p.ints("offsets");
      if (p.given("passes") && p.integer("passes") != int(ks.size()))
        return Status::fail("--passes " + std::to_string(p.integer("passes")) + " does not match the " +
                            std::to_string(ks.size()) + " --offsets");
    } else {
      int n = 1;
      if (p.given("passes")) {
        n = p.integer("passes");
      } else {
        for (double have = pass_variance(0); have < want && n < 64; have += pass_variance(n), ++n) {
        }
      }
      double have = 0;
      for (int k = 0; k + 1 < n; ++k) ks.push_back(k), have += pass_variance(k);
      ks.push_back(closest_offset(have, want));
    }
    double variance = 0;
    std::string text;
    for (int k : ks) variance += pass_variance(k), text += (text.empty() ? "" : ",") + std::to_string(k);
    plan.params["passes"] = std::to_string(ks.size());
    plan.params["offsets"] = text;
    plan.params["levels"] = "0";  // full resolution (--impl dual's down levels)
    plan.effective_sigma = std::sqrt(variance);
    Program& prog = plan.program;
    const int a = ks.size() > 1 ? prog.add_image({}) : 1, b = ks.size() > 2 ? prog.add_image({}) : 1;
    int src = 0;
    for (size_t i = 0; i < ks.size(); ++i) {
      Pass pass;
      pass.op = Op::Kawase;
      pass.border = plan.border;
      pass.widths = {ks[i]};
      pass.src = src;
      pass.dst = i + 1 == ks.size() ? 1 : (i % 2 == 0 ? a : b);
      prog.passes.push_back(pass);
      src = pass.dst;
      plan.radius += ks[i] + 1;
    }
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
