// A method is a recipe written once, here in core/methods/<method>.cpp: its registry entry (name, summary,
// parameters with type/default/range/help, backends), how --sigma sets its parameters, the effective sigma it
// predicts, and a builder that turns resolved parameters into a Plan (a program of passes over primitives,
// core/program.hpp). Nothing outside core/methods/ names a method.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/registry.hpp"
#include "core/status.hpp"

namespace gpublur {

// A recipe's view of its resolved parameters: numbers and enum choices after validation. Parameters with a
// derived default (ParamSpec::derived) are present only when the user gave them, but for `downsample`:
// build_recipe puts in the working resolution it settled on (given or chosen) before calling the build.
class Params {
 public:
  double num(const std::string& name) const;
  int integer(const std::string& name) const { return int(num(name)); }
  const std::string& text(const std::string& name) const;
  std::vector<int> ints(const std::string& name) const;  // an IntList parameter
  bool given(const std::string& name) const { return given_.count(name) > 0; }

  std::map<std::string, double> nums;
  std::map<std::string, std::string> texts;
  std::set<std::string> given_;
};

struct Recipe {
  MethodSpec spec;
  // Fills plan.program, plan.radius, plan.effective_sigma and, where it applies, plan.tolerance,
  // plan.details and the resolved values of derived parameters in plan.params. plan.method, .border,
  // .sigma and .params (as given or defaulted) are set before. Errors are usage errors.
  Status (*build)(const Params& p, Plan& plan) = nullptr;
  // The working resolution F (1, 2, 4 or 8) the method picks from the resolved parameters and --sigma when
  // --downsample is not given, and that rule in words for the help (core/methods/downsample.cpp). nullptr:
  // F = 1, --downsample's plain default.
  int (*auto_downsample)(const Params& p, double sigma) = nullptr;
  std::string auto_downsample_rule;
};

// Every method, in the order `gpublur methods` lists them (core/methods/catalogue.cpp).
const std::vector<Recipe>& recipes();
const Recipe* find_recipe(const std::string& name);

// Parameters every method takes: sigma, and border; `radius` for methods with a truncated kernel.
ParamSpec sigma_param();
ParamSpec radius_param();
ParamSpec border_param();

// The radius of a sampled Gaussian: --radius if given, else ceil(3 sigma); recorded in plan.params.
int gaussian_radius_param(const Params& p, Plan& plan);
// A pass of `op` whose taps are the sampled, truncated Gaussian of plan.sigma and the radius above, with the
// plan's border; sets plan.radius and plan.effective_sigma (the taps' standard deviation).
Pass gaussian_pass(const Params& p, Plan& plan, Op op);

// Direct 2D windows of (2r+1)^2 reads a pixel cost the radius squared (gauss-2d at sigma 48, radius 144: 215 ms for
// one 4096^2 RGBA image on an H100; at sigma 300 a 256^2 image ran over 20 minutes on llvmpipe). Above
// kDirect2dWarnTaps reads a pixel the recipe sets a PlanWarning::Cost saying so and naming `faster`;
// resolve_plan logs it (once a plan: a batch, a bench case, a quality run) and the report keeps it.
constexpr long long kDirect2dWarnTaps = 100000;  // radius 158 and up (sigma above 52.3 by the 3-sigma rule)
void warn_direct_2d_cost(Plan& plan, const std::string& method, int radius, const std::string& faster);
// The same for a window of width x height reads (a user kernel's matrix).
void warn_direct_2d_window(Plan& plan, const std::string& method, int width, int height, const std::string& faster);
// `faster` for the sampled Gaussian's direct windows (gauss-2d, reshuffle).
inline constexpr const char* kGaussianFasterWays =
    "gauss-sep computes the same kernel separably (by FFT at large radii), iir and integral in time independent of "
    "sigma";

// Program builders shared by recipes.
// in -> tmp -> out: `op` along x then along y with the same settings (the separable pattern).
void separable_passes(Plan& plan, Pass pass);

// The recipes, one per file.
Recipe copy_recipe();
Recipe gauss_2d_recipe();
Recipe gauss_sep_recipe();
Recipe gauss_linear_recipe();
Recipe box_recipe();
Recipe integral_recipe();
Recipe diffusion_recipe();
Recipe fft_recipe();
Recipe bilateral_recipe();
Recipe kawase_recipe();
Recipe iir_recipe();
Recipe spread_recipe();

// spread's tent of radius R: per-axis variance (R^2 - 1) / 6, and the R whose variance is nearest sigma^2.
double spread_variance(int R);
int spread_radius_for_sigma(double sigma);
Recipe kernel_recipe();
Recipe reshuffle_recipe();
Recipe pyramid_recipe();

// --downsample F (core/methods/downsample.cpp), a parameter every method but the bandwidth floor takes: the
// method runs at 1/F resolution between F x F box down-sampling and B-spline up-sampling, at the sigma that
// keeps the requested one. build_recipe runs a recipe's build with it applied: F as given, else the recipe's
// auto_downsample, else 1. The parameter's default is 1, or "from sigma" (derived) for a recipe with
// auto_downsample, whose rule the help then states.
ParamSpec downsample_param(const Recipe& r);
// The smallest --sigma that --downsample F accepts: the resampling's own blur, sqrt((F^2 - 1) / 3), plus the
// registry's minimum sigma at the small resolution.
double downsample_min_sigma(int F);
Status build_recipe(const Recipe& r, const Params& p, Plan& plan);

}  // namespace gpublur
