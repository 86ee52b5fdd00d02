// kawase: passes of the Intel article's Kawase blur: pass i writes the mean of the 4 bilinear samples at
// (x +- (k_i + 1/2), y +- (k_i + 1/2)). A sample halfway between pixels is the mean of 2 x 2 pixels, so a pass is
// separable: per axis weights 1/4 at -(k+1), -k, k, k+1 (k = 0: 1/4, 1/2, 1/4), variance
// ((k+1)^2 + k^2) / 2 = k^2 + k + 1/2 per axis. Passes convolve, so variances add: the effective sigma is
// sqrt(sum (k_i^2 + k_i + 1/2)) exactly (for the kernel; at the borders each pass reads its own border).
// From --sigma: the article's rising offsets 0, 1, 2, ... for as many passes as it takes to reach sigma^2, the
// last offset then chosen to land closest to sigma^2; --passes n keeps 0 .. n-2 and chooses the last;
// --offsets gives the list. --impl dual is the dual filter (down then up passes, core/methods/kawase_dual.cpp).
// Working resolution: full-resolution passes grow with sigma (sigma 48: 20), so by default the passes run at
// 1/F resolution (--downsample F, core/methods/downsample.cpp), as games run the article's blur: the largest
// F in 2, 4, 8 with sigma / F >= 3, where the passes still blur by about 3 small pixels and the cascade stays
// Gaussian-like (PSNR against the exact Gaussian within 1.3 dB of full resolution's; at sigma / F of 1.5-2 it
// falls 2-3 dB: docs/methods.md "kawase"). There sigma^2 is small (about 9 small pixels^2) against the last offset's steps of 2(k + 1),
// and each small pixel^2 counts F^2 times: the rising offsets that fit are followed by the largest offsets that
// fit the rest (a last 0 where it brings the variance closer), within 1/4 small pixel^2 of sigma^2.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/methods/kawase_dual.hpp"
#include "core/methods/recipe.hpp"

namespace gpublur {
namespace {

double pass_variance(int k) { return double(k) * k + k + 0.5; }

constexpr double kSigmaPerF = 3;  // the smallest sigma, in small pixels, the automatic working resolution leaves
constexpr int kMaxPasses = 64;   // --passes' maximum

// The offset whose pass variance brings `have` closest to `want`.
int closest_offset(double have, double want) {
  int best = 0;
  for (int k = 1; k <= 4096; ++k) {
    if (std::fabs(have + pass_variance(k) - want) < std::fabs(have + pass_variance(best) - want)) best = k;
    if (pass_variance(k) > want) break;
  }
  return best;
}

// The article's schedule: the rising offsets 0 .. n-2 and a last one that lands closest to `want`; n = 0: as
// many passes as the rising offsets take to reach `want`.
std::vector<int> rising_offsets(double want, int n) {
  if (n == 0) {
    n = 1;
    for (double have = pass_variance(0); have < want && n < kMaxPasses; have += pass_variance(n), ++n) {
    }
  }
  std::vector<int> ks;
  double have = 0;
  for (int k = 0; k + 1 < n; ++k) ks.push_back(k), have += pass_variance(k);
  ks.push_back(closest_offset(have, want));
  return ks;
}

// At a reduced working resolution: the rising offsets whose variances fit in `want`, then the rest filled
// greedily by the largest offset that fits, and a last 0 where the rest is 1/4 or more; in ascending order (the
// article's lists, e.g. 0,1,2,2,3; the order only matters at the borders).
std::vector<int> filled_offsets(double want) {
  // "Fits" allows float rounding: want arrives as a square of a square root (sigma 7 at F = 2: 11.999999999999998
  // for 12), and offset 1's 2.5 then did not fit the rest, five passes of 0 did.
  want += 1e-9 * std::max(1.0, want);
  std::vector<int> ks;
  double have = 0;
  for (int k = 0; have + pass_variance(k) <= want && int(ks.size()) < kMaxPasses; ++k)
    ks.push_back(k), have += pass_variance(k);
  while ((ks.empty() || want - have >= 0.25) && int(ks.size()) < kMaxPasses) {
    int k = 0;
    while (pass_variance(k + 1) <= want - have) ++k;
    ks.push_back(k), have += pass_variance(k);
  }
  std::sort(ks.begin(), ks.end());
  return ks;
}

// The working resolution from sigma (Recipe::auto_downsample). --offsets and --passes name the passes
// themselves, so they run at full resolution; the dual filter makes its own levels.
int kawase_downsample(const Params& p, double sigma) {
  if (p.text("impl") == "dual" || p.given("offsets") || p.given("passes")) return 1;
  // (sigma >= 3F is above downsample's minimum for every F; the check keeps the rule from ever handing
  // build_recipe an F it refuses, should the threshold change.)
  for (int F = 8; F > 1; F /= 2)
    if (sigma >= kSigmaPerF * F && sigma >= downsample_min_sigma(F)) return F;
  return 1;
}

}  // namespace

Recipe kawase_recipe() {
  Recipe r;
  r.spec.name = "kawase";
  r.spec.summary =
      "Kawase blur: passes of 4 bilinear samples at the diagonal offsets +-(k + 1/2), or the dual filter (--impl dual)";
  r.spec.sigma_mapping =
      "per pass variance k^2 + k + 1/2 per axis; offsets 0, 1, 2, ... until sigma^2 is reached, the last one "
      "chosen to come closest; effective sigma sqrt(sum of the passes' variances). By default the passes run at "
      "1/F resolution (--downsample), F from sigma: the largest of 2, 4, 8 with sigma / F >= 3; there the rising "
      "offsets that fit are followed by the largest that fit the rest. dual: the most levels whose "
      "variance (17/6)(4^L - 1)/3 fits in sigma^2, the rest an exact Gaussian at the coarsest level";
  r.spec.params = {sigma_param(), border_param()};
  r.spec.params.push_back({"passes", ParamType::Int, "", true, 1, 64, {},
                           "number of passes (default: as many as the rising offsets need to reach sigma); "
                           "runs at full resolution unless --downsample is given"});
  r.spec.params.push_back({"offsets", ParamType::IntList, "", true, 0, 4096, {},
                           "the passes' offsets k, comma-separated (samples at +-(k + 1/2)); --passes, if given, "
                           "must match their count; runs at full resolution unless --downsample is given"});
  r.spec.params.push_back({"impl", ParamType::Enum, "kawase", false, 0, 0, {"kawase", "dual"},
                           "kawase: the Intel article's passes (at 1/F resolution from sigma, see --downsample); "
                           "dual: Bjorge's dual filter, down-sample passes then up-sample passes"});
  r.spec.params.push_back({"levels", ParamType::Int, "", true, 1, 16, {},
                           "--impl dual: number of down (and up) passes; the rest of sigma^2 goes to an exact "
                           "Gaussian at the coarsest level"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.spec.nonfinite_footprint = true;  // within the square of the passes' reach (a bound: the taps leave gaps)
  r.auto_downsample = kawase_downsample;
  r.auto_downsample_rule =
      "the largest F of 2, 4, 8 with sigma / F >= 3 (sigma 6: 2, 12: 4, 24 and up: 8), else 1; 1 with --impl dual, "
      "--offsets or --passes";
  r.build = [](const Params& p, Plan& plan) {
    if (p.text("impl") == "dual") return build_kawase_dual(p, plan);
    if (p.given("levels")) return Status::fail("--levels is --impl dual's");
    const double want = plan.sigma * plan.sigma;
    std::vector<int> ks;
    if (p.given("offsets")) {
      ks = p.ints("offsets");
      if (ks.size() > 64)  // --passes's range, which the report's passes states
        return Status::fail("--offsets: " + std::to_string(ks.size()) + " passes, at most 64");
      if (p.given("passes") && p.integer("passes") != int(ks.size()))
        return Status::fail("--passes " + std::to_string(p.integer("passes")) + " does not match the " +
                            std::to_string(ks.size()) + " --offsets");
    } else if (p.integer("downsample") > 1 && !p.given("passes")) {
      ks = filled_offsets(want);
    } else {
      ks = rising_offsets(want, p.given("passes") ? p.integer("passes") : 0);
    }
    double variance = 0;
    std::string text;
    for (int k : ks) variance += pass_variance(k), text += (text.empty() ? "" : ",") + std::to_string(k);
    plan.params["passes"] = std::to_string(ks.size());
    plan.params["offsets"] = text;
    plan.params["levels"] = "";  // --impl dual's down levels: none here ("0" was outside its own range, 1..16)
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
