// Quality, the thesis's way (4.1.2): how close a method is to a true Gaussian, and to which sigma.
//
// For a method and its parameters on some images: the effective sigma (the sigma s of the exact Gaussian -
// gauss-sep, clamp border, radius ceil(3 s) - whose output on the image is closest to the method's output in
// mean absolute difference over all pixels and channels), and PSNR (peak 1), max abs and mean abs error of the
// method's output against the exact Gaussian of the requested sigma. Per image and as a mean over the images.
// Both the method and every reference Gaussian run on the same Backend (the CPU reference, threaded over
// rows, or a GPU: every backend matches the CPU reference within 1e-5), so no backend difference enters the
// numbers. Used by `gpublur quality`, the tests and later tools (sigma calibration).
//
// Only the stable parts of a Plan are read: method, params, sigma, effective_sigma (the method's predicted
// effective sigma: the standard deviation of the kernel it applies), border.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/backend.hpp"
#include "core/color.hpp"
#include "core/image.hpp"
#include "core/io/image_io.hpp"
#include "core/plan.hpp"
#include "core/status.hpp"

namespace gpublur {

// The reference family: gauss-sep with sigma s, clamp border and the default radius ceil(3 s).
Status exact_gaussian_plan(double sigma, Plan& out);

// dst = plan applied to src on `backend`, in channel groups of at most 4 as the blur pipeline does.
Status run_on_backend(Backend& backend, const Plan& plan, const Image& src, Image& dst);

// a against b (same shape): PSNR for peak 1 (+infinity when identical), max and mean of |a - b| over every
// value. Always psnr <= -20 log10(mean_abs) and psnr >= -20 log10(max_abs).
struct ErrorStats {
  double psnr_db = 0;
  double max_abs = 0;
  double mean_abs = 0;
};
ErrorStats compare_images(const Image& a, const Image& b);

struct FitOptions {
  double tolerance = 1e-3;  // absolute, in sigma: the fitted value is within this of the minimiser found
  double min_sigma = 0.1;   // search limits: the registry's sigma range
  double max_sigma = 512;
  int max_evaluations = 80;  // a guard; typical fits take 15-25
};

struct SigmaFit {
  double sigma = 0;       // the effective sigma
  double mad = 0;         // mean absolute difference at it
  int evaluations = 0;    // reference Gaussians run
  bool at_limit = false;  // the minimum lies at min_sigma or max_sigma: the true one may lie beyond
};

// Fits s minimising MAD(s) = mean |target - gauss(s)(input)| (target: the method's output on input): brackets
// the minimum starting around `guess` (the bracket widens geometrically while the minimum is at its edge, up
// to the limits), then Brent's method (parabolic steps, golden-section where those fail) to opts.tolerance.
// Each evaluation is one reference Gaussian on the backend. The result is a local minimum near the guess (far
// from it MAD(s) can have others: a sharp image against sigmas of hundreds, where the clamp border takes
// over). MAD(s) steps where ceil(3 s) does (every 1/3 in s): near a flat minimum (large sigma) the steps are
// comparable to its slope and the minimum sits at one of them, so the fit is good to ~1/3 there (0.2% at
// sigma 165, measured).
Status fit_effective_sigma(Backend& backend, const Image& input, const Image& target, double guess,
                           const FitOptions& opts, SigmaFit& out);

// Impulse-response check: runs the plan on a one-channel zero image with a single 1 in the middle, large
// enough that the response does not reach the border (grown until the outermost ring holds less than 1e-6
// of the response), and returns the standard deviation of the response's horizontal marginal (column sums).
// For a separable or radially symmetric kernel that is the 1D kernel's sigma, comparable to
// plan.effective_sigma. On a smooth image the fit agrees with it (MAD is then governed by the second moment).
Status kernel_sigma_of_method(const Plan& plan, Backend& backend, double& sigma);

// One image to measure: working-space pixels (linear light, premultiplied alpha), or the error that stopped
// it from being read.
struct QualityInput {
  std::string name;  // file path or built-in name
  Image image;
  std::string error;
  std::vector<int> alphas{};  // the alpha channels (alpha_channels), which bilateral's colour difference leaves out
  std::vector<std::string> warnings{};  // logged while it was read (WarningCapture): what the read lost
};

// Reads each file as `gpublur blur` reads it (read_working: linear light, premultiplied alpha as `color`
// says); a file that cannot be read, or holds NaN or Inf, keeps its error and the rest go on.
std::vector<QualityInput> read_quality_inputs(const std::vector<std::string>& paths, ImageIO& io,
                                              const ColorOptions& color = {}, const ReadLimits& limits = {});
// The built-in set (core/quality_images.hpp) as inputs.
std::vector<QualityInput> builtin_quality_inputs(int size);

struct QualityResult;

struct QualityOptions {
  FitOptions fit;
  bool impulse = true;  // also run kernel_sigma_of_method
  // Where the exact Gaussians the method is judged against run (that of --sigma and the fit's); null: the method's
  // backend. A backend that stores half floats (GL rgba16f) is judged on another: the judge must not share the
  // error it measures (the CLI gives the cpu backend).
  Backend* reference_backend = nullptr;
  // Where given, sees the result before the impulse response and the images (none measured, impulse_sigma not yet),
  // then after each image, its mean and storage those of the images so far (the CLI keeps it for an interrupted
  // run's JSON).
  std::function<void(const QualityResult&)> progress;
};

struct ImageQuality {
  std::string name;
  int width = 0, height = 0, channels = 0;
  std::string error;  // "" = measured
  double effective_sigma = 0;   // the fit
  double fit_kernel_sigma = 0;  // standard deviation of the fitted Gaussian's truncated kernel
  double fit_mad = 0;
  int fit_evaluations = 0;
  bool fit_at_limit = false;
  // The requested sigma's reference kernel is wider than the image each way (2R+1 > width and height): every pixel's
  // window reaches past an edge along both axes, and the fit weighs the clamp border as much as the kernel's shape (a
  // 32^2 image at sigma 50: box fitted 53.2 for a kernel of sd 50.2), saying less about the method than on a larger
  // image. A strip (4096 x 1) is not flagged: along its length the kernel has room.
  bool border_dominated = false;
  ErrorStats vs_sigma;  // method output against the exact Gaussian of the requested sigma
  double ms = 0;        // wall time for this image
  // Logged while it was read or measured (WarningCapture), as blur's report keeps an image's: the JSON says them too.
  std::vector<std::string> warnings;
};

struct QualityMean {
  int count = 0;  // images measured
  double effective_sigma = 0, effective_sigma_median = 0, effective_sigma_stddev = 0;
  double fit_kernel_sigma = 0;
  // Mean of the dB values of the images that differ from the exact Gaussian; +infinity when none does. An
  // identical image (+infinity dB) would make any mean infinite: it is counted in `identical` instead.
  double psnr_db = 0;
  int identical = 0;
  double max_abs = 0, mean_abs = 0;  // means of the images' values
  int at_limit = 0;                   // images whose fit is at a search limit (QualityImage::fit_at_limit)
};

struct QualityResult {
  std::string backend, device;
  std::string storage;            // the method's backend's (Backend::storage, after the images)
  std::string reference_backend;  // where the exact Gaussians ran (QualityOptions::reference_backend)
  // How the images were read (the CLI's options; the built-in set is generated, linear): said in the JSON.
  bool linear = true, premultiply = true;
  std::string io;
  std::string method;
  std::map<std::string, std::string> params;   // resolved
  std::map<std::string, std::string> details;  // the plan's (its derivations; warning and warning_kind if it warns)
  double sigma = 0;            // requested
  double predicted_sigma = 0;  // plan.effective_sigma
  bool has_impulse = false;
  double impulse_sigma = 0;  // kernel_sigma_of_method, when has_impulse
  double tolerance = 0;
  std::vector<ImageQuality> images;
  QualityMean mean;
  // The run's warnings, logged outside any image (measure_quality's own: impulse skipped, border-dominated; the CLI
  // puts its own first: --border, --size ignored, the plan's), so a script reading only the JSON sees them.
  std::vector<std::string> warnings;
  bool interrupted = false;  // a signal ended the run: images holds those measured before it
  int failed() const;
};

// Measures `plan` on every input with `backend`. Per-image problems (unreadable, a backend failure) are errors
// of that image and the rest go on; the returned Status fails only for what stops everything (the method is
// not on the backend, the impulse check fails).
Status measure_quality(Backend& backend, const Plan& plan, const std::vector<QualityInput>& inputs,
                       const QualityOptions& opts, QualityResult& out);

// A table for people: one row per image, then the mean.
std::string quality_table(const QualityResult& r);
// One JSON document; an infinite PSNR is written as null (JSON has no infinity) with "identical": true.
// The mean over the images measured (those without an error).
QualityMean quality_mean(const std::vector<ImageQuality>& images);
nlohmann::json quality_json(const QualityResult& r);

}  // namespace gpublur
