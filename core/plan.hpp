// A resolved method plan: everything a backend needs to execute a method, with every parameter decided by the
// method's recipe (core/methods/). Backends execute the plan's program of passes; they never pick parameters
// themselves and never look at the method's name.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/border.hpp"
#include "core/image.hpp"
#include "core/program.hpp"
#include "core/status.hpp"

namespace gpublur {

struct NonfiniteTaps;  // core/nonfinite.hpp

struct Plan {
  std::string method;   // registry name (for reports and logs only)
  Border border = Border::Clamp;
  double sigma = 0;     // requested
  int radius = 0;       // how far the whole program reads beyond an output pixel (report)
  Program program;
  double effective_sigma = 0;  // standard deviation of the kernel the program applies (the recipe's prediction)
  // False for a kernel that is not a blur (negative weights or a zero sum): effective_sigma 0 then means "none",
  // where for a blur it means the identity (box widths 1,1,1), which --downsample's resampling still widens.
  bool blur = true;
  // Max abs difference every backend keeps to the CPU reference on values in [0, 1] (the registry-driven
  // test asserts it): 1e-5 where the arithmetic is the reference's up to float rounding; a recipe states a
  // measured bound where hardware arithmetic differs (e.g. the texture unit's 8-bit interpolation weights).
  double tolerance = 1e-5;
  // >= 0: non-finite inputs are taken out before the program and the outputs whose square of this reach holds one set
  // after it as the direct convolution sets them (core/nonfinite.hpp; the blur pipeline does it): resolve_plan sets it
  // to `radius` for methods with MethodSpec::nonfinite_footprint, the kernel's exact support where it is positive on
  // all of it (gauss-sep, box, integral, gauss-2d, fft), else a bound (gauss-linear, kawase, diffusion, --downsample);
  // kWholeImageReach: a support with no end (iir), so every output of a channel that holds one.
  // -1: the program's own arithmetic meets them.
  int nonfinite_reach = -1;
  static constexpr int kWholeImageReach = 1 << 30;
  // With nonfinite_reach: the kernel's own taps where its weights are not all positive or its window not square (a
  // user's kernel: zero weights read nothing, negative ones turn an infinity's sign); null: the square of the reach.
  std::shared_ptr<const NonfiniteTaps> nonfinite_taps;
  // Every registry parameter with its resolved textual value (what the report prints).
  std::map<std::string, std::string> params;
  // What the recipe derived, for the report (e.g. box widths), name -> text. A warning among them is set with
  // set_plan_warning (below).
  std::map<std::string, std::string> details;

  const std::string& param(const std::string& name) const;  // resolved value; throws if not declared
};

// What a recipe's warning is about. Cost: the run is very large (a direct 2D window past its bound, diffusion's
// padding), so `gpublur quality` skips the impulse response, whose image would cost that again. Unused: a parameter
// the user gave does nothing in this plan (pyramid's --down where sigma gives no level); quality measures as usual.
// Gain: a blur whose weights do not sum to 1 (a user's kernel file), so flat areas change brightness; quality's fit
// then compares unlike images, and says so.
enum class PlanWarning { Cost, Unused, Gain };
// The text goes to details.warning, which resolve_plan logs (once a plan) and the report keeps, and the kind to
// details.warning_kind ("cost", "unused", "gain"): readers act on the kind, not on any warning (quality once skipped
// the impulse for every one). A second warning joins the first's text; the kind is the higher of the two in the
// order cost, gain, unused.
void set_plan_warning(Plan& plan, PlanWarning kind, const std::string& text);
bool plan_warns_of_cost(const Plan& plan);

// Validates `given` (name -> text) against the registry entry of `method`, then builds the plan with the
// method's recipe. Errors name the parameter and the allowed range or choices: they are usage errors.
Status resolve_plan(const std::string& method, const std::map<std::string, std::string>& given, Plan& out);
// A --sigma that the method's other parameters override (box --width, diffusion --iterations with --rate, a kernel
// file), so that the plan's effective sigma is more than 25% off it, is said as a warning naming them: the run's blur
// is far from the one asked for (box --width 5 --sigma 10 ran at 2.45 in silence). For the plan a user asked for
// (blur, quality), not the ones a command makes for itself (quality's reference Gaussians, which printed it on every
// run); bench's table states each case's effective sigma. The warning also joins the plan's details.warning (kind
// "unused" unless it warns of cost), so that reports keep it.
void warn_sigma_overridden(const std::string& method, const std::map<std::string, std::string>& given, Plan& plan);

// The channels that are alpha, for bilateral's colour difference: those named A, alone or as a layer's (beauty.A,
// ViewLayer.Combined.a), else meta.alpha_channel. A multi-layer EXR has one per layer.
std::vector<int> alpha_channels(const ImageMeta& meta);

// The plan for channels [first, first + count) of an image whose alpha channels are `alphas`: bilateral passes
// leave the group's alpha out of their colour difference (Pass::alpha), or none where the group holds none or is
// that alpha alone (a matte keeps its own edges). `plan` itself where no pass asks; else a copy in `scratch`.
const Plan& plan_for_channels(const Plan& plan, const std::vector<int>& alphas, int first, int count, Plan& scratch);

// "box1d(x, w 5,5,7) 0->2; box1d(y, ...) 2->1": the program in one line, for logs and the report.
std::string program_text(const Program& p);

// A plain decimal number (digits, '.', an exponent, a sign: not hex, nan or inf), spaces around it allowed, finite:
// the one reading of numbers on the command line, in bench lists and in kernel files (strtod alone took 0x10 as 16).
bool parse_decimal(const std::string& text, double& v);
// `text` without the characters of `around` at its ends: parameter values take spaces (" sat"), bench lists spaces
// and tabs.
std::string trimmed(const std::string& text, const char* around = " ");

}  // namespace gpublur
