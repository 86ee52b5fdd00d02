#include "core/quality.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/bench.hpp"
#include "core/nonfinite.hpp"
#include "core/pipeline.hpp"
#include "core/quality_images.hpp"
#include "core/registry.hpp"
#include "core/warning_capture.hpp"

namespace gpublur {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string exact_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);  // round-trips: the plan gets exactly this sigma
  return buf;
}

// One image on the backend for many plans. An image of at most 4 channels is uploaded once and every plan
// runs on the resident copy (Backend::run reads the uploaded input each time); a wider one goes through in
// channel groups, uploaded again for every plan.
class Resident {
 public:
  Resident(Backend& backend, const Image& src, std::vector<int> alphas = {})
      : backend_(backend), src_(src), alphas_(std::move(alphas)) {}
  const Image& source() const { return src_; }

  Status run(const Plan& plan, Image& dst) {
    if (src_.channels < 1 || src_.value_count() != src_.data.size())
      return Status::fail("inconsistent image (" + std::to_string(src_.channels) + " channels)");
    const bool whole = src_.channels <= 4;
    if (!whole) dst = Image(src_.width, src_.height, src_.channels);
    for (int first = 0; first < src_.channels; first += 4) {
      const int count = std::min(4, src_.channels - first);
      double ms = 0;
      if (!whole || !uploaded_) {
        Status s = whole ? backend_.upload(src_, ms) : backend_.upload(extract_channels(src_, first, count), ms);
        if (!s) return s;
        uploaded_ = whole;
      }
      RunInfo info;
      Plan scratch;
      if (Status s = backend_.run(plan_for_channels(plan, alphas_, first, count, scratch), info); !s) return s;
      Image out;
      if (Status s = backend_.download(out, ms); !s) return s;
      if (out.width != src_.width || out.height != src_.height || out.channels != count)
        return Status::fail("backend returned a " + std::to_string(out.width) + "x" + std::to_string(out.height) +
                            "x" + std::to_string(out.channels) + " image");
      if (whole)
        dst = std::move(out);
      else
        insert_channels(out, first, dst);
    }
    return Status::success();
  }

 private:
  Backend& backend_;
  const Image& src_;
  std::vector<int> alphas_;
  bool uploaded_ = false;
};

double mean_abs_difference(const Image& a, const Image& b) {
  double sum = 0;
  for (size_t i = 0; i < a.data.size(); ++i) sum += std::abs(double(a.data[i]) - double(b.data[i]));
  return a.data.empty() ? 0 : sum / double(a.data.size());
}

bool all_finite(const Image& img) {
  for (float v : img.data)
    if (!std::isfinite(v)) return false;
  return true;
}

float largest_abs(const Image& img) {
  float m = 0;
  for (float v : img.data) m = std::max(m, std::fabs(v));
  return m;
}

// Why sums of finite values came out infinite: values near float32's limit (3.4e38) overflow in a blur's sums.
std::string overflow_reason(const Image& finite_values) {
  return fmt::format("the image's values (up to {:.3g}) overflow float32 in the sums", largest_abs(finite_values));
}

// MAD(s) against `target`, memoised by the exact s (the same s gives the same plan and output).
class MadFunction {
 public:
  MadFunction(Resident& input, const Image& target) : input_(input), target_(target) {}

  Status eval(double s, double& mad) {
    if (auto it = cache_.find(s); it != cache_.end()) {
      mad = it->second;
      return Status::success();
    }
    Plan plan;
    if (Status st = exact_gaussian_plan(s, plan); !st) return st;
    Image out;
    if (Status st = input_.run(plan, out); !st) return st;
    mad = mean_abs_difference(target_, out);
    if (!std::isfinite(mad))
      return Status::fail(fmt::format("the difference to the exact Gaussian of sigma {:.6g} is not finite: {}", s,
                                      overflow_reason(input_.source())));  // the input's values, not the output's
    cache_[s] = mad;
    ++evaluations_;
    return Status::success();
  }
  void seed(double s, double mad) { cache_[s] = mad; }
  int evaluations() const { return evaluations_; }
  // A known point in [lo, hi] below `mad` (a seed the search did not visit), if any.
  void improve_within(double lo, double hi, double& s, double& mad) const {
    for (auto it = cache_.lower_bound(lo); it != cache_.end() && it->first <= hi; ++it)
      if (it->second < mad) s = it->first, mad = it->second;
  }

 private:
  Resident& input_;
  const Image& target_;
  std::map<double, double> cache_;
  int evaluations_ = 0;
};

Status fit_with(MadFunction& f, double guess, const FitOptions& o, SigmaFit& out) {
  out = SigmaFit{};
  const double lo = o.min_sigma, hi = o.max_sigma;
  if (!(lo > 0) || !(hi > lo) || !(o.tolerance > 0)) return Status::fail("bad fit limits or tolerance");
  auto F = [&](double s, double& v) -> Status {
    if (f.evaluations() >= o.max_evaluations)
      return Status::fail("fit did not converge in " + std::to_string(o.max_evaluations) + " evaluations");
    return f.eval(s, v);
  };

  // Bracket: a < b < c with f(b) <= f(a), f(c), one of them strictly, widening geometrically while the minimum is
  // at an edge. Three equal values are no bracket: near the lower limit every sigma leaves an image as it was.
  double ratio = 1.15;
  double b = std::clamp(std::isfinite(guess) ? guess : lo, lo * ratio, hi / ratio);
  double a = b / ratio, c = b * ratio;
  double fa, fb, fc;
  bool to_limit = false;  // the bracket widened to a search limit while still going downhill
  if (Status s = F(a, fa); !s) return s;
  if (Status s = F(b, fb); !s) return s;
  if (Status s = F(c, fc); !s) return s;
  auto bracketed = [&] { return fb <= fa && fb <= fc && (fb < fa || fb < fc); };
  while (!bracketed()) {
    ratio *= 1.6;
    if (fa < fc) {  // downhill to the left
      if (a <= lo) {  // the minimum lies in [lo, b]
        to_limit = true;
        break;
      }
      c = b, fc = fb, b = a, fb = fa;
      a = std::max(lo, b / ratio);
      if (Status s = F(a, fa); !s) return s;
    } else {  // downhill to the right
      if (c >= hi) {  // the minimum lies in [b, hi]
        to_limit = true;
        break;
      }
      a = b, fa = fb, b = c, fb = fc;
      c = std::min(hi, b * ratio);
      if (Status s = F(c, fc); !s) return s;
    }
  }

  // Brent's localmin (Brent 1973, ch. 5) on [left, right] from x: with an absolute tolerance t it stops when
  // every point of the remaining interval is within 2t of x, which is then the lowest point it found.
  const double golden = 0.5 * (3 - std::sqrt(5.0));
  const double t = 0.5 * o.tolerance;
  auto localmin = [&](double left, double right, double& x, double& fx) -> Status {
    double w = x, v = x, fw = fx, fv = fx, d = 0, e = 0;
    for (;;) {
      const double m = 0.5 * (left + right);
      const double tol = 1e-10 * std::abs(x) + t, t2 = 2 * tol;
      if (std::abs(x - m) <= t2 - 0.5 * (right - left)) return Status::success();
      double p = 0, q = 0, r = 0;
      if (std::abs(e) > tol) {  // parabola through x, w, v
        r = (x - w) * (fx - fv);
        q = (x - v) * (fx - fw);
        p = (x - v) * q - (x - w) * r;
        q = 2 * (q - r);
        if (q > 0) p = -p; else q = -q;
        r = e;
        e = d;
      }
      if (std::abs(p) < std::abs(0.5 * q * r) && p > q * (left - x) && p < q * (right - x)) {
        d = p / q;
        const double u = x + d;
        if (u - left < t2 || right - u < t2) d = x < m ? tol : -tol;
      } else {
        e = (x < m ? right : left) - x;
        d = golden * e;
      }
      const double u = x + (std::abs(d) >= tol ? d : (d > 0 ? tol : -tol));
      double fu;
      if (Status s = F(u, fu); !s) return s;
      if (fu < fx || (fu == fx && u < x)) {  // ties go to the smaller sigma (flat MAD: e.g. no blur at all)
        (u < x ? right : left) = x;
        v = w, fv = fw, w = x, fw = fx, x = u, fx = fu;
      } else {
        (u < x ? left : right) = u;
        if (fu <= fw || w == x) {
          v = w, fv = fw, w = u, fw = fu;
        } else if (fu <= fv || v == x || v == w) {
          v = u, fv = fu;
        }
      }
    }
  };
  double x, fx;
  if (bracketed())
    x = b, fx = fb;
  else if (fa < fc)
    x = a, fx = fa, c = b;  // minimum at the low limit: search [lo, b]
  else
    x = c, fx = fc, a = b;  // at the high limit: search [b, hi]
  if (Status s = localmin(a, c, x, fx); !s) return s;

  // MAD(s) steps where the reference's radius ceil(3 s) does, at s = k / 3, and Brent's bracket may straddle a step
  // and settle on one side of it while the other is lower (pyramid sigma 12 on the built-in set: 11.9931 on radius
  // 36, where 12 + 1e-7 on radius 37 is 3.5% lower). So the neighbouring pieces of constant radius are probed at
  // their ends next to x's piece, and the search goes on inside any lower one, until none is.
  const double kEdge = 1e-7;  // s this far inside a piece: ceil(3 s) is that piece's radius whatever k / 3 rounds to
  for (int round = 0; round < 8; ++round) {
    const double k = std::ceil(3 * x - 1e-9);  // x's piece: s in ((k - 1) / 3, k / 3], radius k
    double best = x, fbest = fx;
    for (double end : {(k - 1) / 3 - kEdge, k / 3 + kEdge}) {
      if (end < lo || end > hi) continue;
      double fe;
      if (Status s = F(end, fe); !s) return s;
      if (fe < fbest) best = end, fbest = fe;
    }
    if (best == x) break;
    const double kb = std::ceil(3 * best - 1e-9);
    x = best, fx = fbest;
    if (Status s = localmin(std::max(lo, (kb - 1) / 3 + kEdge), std::min(hi, kb / 3 - kEdge), x, fx); !s) return s;
  }
  // x is the lowest point Brent found in the final bracket: a local minimum to the tolerance, or the best
  // point where MAD(s) steps with ceil(3 s). The seeded point may be lower still, inside the bracket or not (an
  // exact method: MAD 0 at the requested sigma; where 3 sigma is a whole number, ceil(3 s) steps there and the
  // search settled just above it, on the next radius: gauss-sep sigma 3 was fitted 3.0016).
  f.improve_within(lo, hi, x, fx);
  out.sigma = x;
  out.mad = fx;
  out.evaluations = f.evaluations();
  // At a limit, or where MAD fell towards one and is no higher there than at x (a flat MAD: an image smaller than
  // the kernel, where the fit settled anywhere near 512, e.g. 511.95). A bracket that ran to a limit while Brent then
  // found a lower point inside is not at it (bilateral on a 1 x 9 image: 0.2296, MAD 1.5% below the 0.1 limit's).
  // A fit within 1% of the upper limit (2x of the lower) is probed there too: where MAD is flat from the start the
  // bracket never runs to a limit (gauss-sep --downsample 8 on a 2 x 2 image: 511.9939, MAD the same at 512, was not
  // flagged).
  // Below twice the lower limit as well: a Gaussian there is the identity to a few parts in a million or less, and MAD
  // flat from the limit to x (copy fitted 0.116 on the built-in edges and texture, MAD 0, not flagged).
  bool flat_to_limit = false;
  const bool near_lo = x <= lo * 2, near_hi = x >= hi / 1.01;
  if (to_limit || near_lo || near_hi) {
    double fl;
    if (Status s = f.eval(to_limit ? (fa < fc ? lo : hi) : near_lo ? lo : hi, fl); !s) return s;
    // Near a limit, within 1% of MAD: MAD 7.8e-5 at 511.58 and 0.19% more at 512 in that case, a fit of nothing.
    flat_to_limit = fl <= fx * (near_lo || near_hi ? 1 + 1e-2 : 1 + 1e-3);
  }
  out.at_limit = flat_to_limit || x - lo <= o.tolerance || hi - x <= o.tolerance;
  return Status::success();
}

// A starting point for the fit: the family's sigma s whose truncated kernel has the predicted standard
// deviation (plan.effective_sigma), found by bisection (the kernel's sd grows with s). For exact methods that
// is the requested sigma; the kernel's sd is below s by ~1.3% at s >= 1 (truncation at ceil(3 s)) and by far
// more below s ~ 0.4 (s = 0.3, radius 1: sd 0.088). A kernel that is not a blur has no prediction: the requested
// sigma (from the lower limit, where MAD is flat, a Lanczos row fitted 0.9995 against 1.0647, a shift failed).
// The identity (copy; box widths 1): the lower search limit.
double fit_guess(const Plan& plan, const FitOptions& o) {
  auto sd = [](double s) {
    Plan g;
    return exact_gaussian_plan(s, g) ? g.effective_sigma : s;
  };
  if (!plan.blur) return std::clamp(plan.sigma > 0 ? plan.sigma : o.min_sigma, o.min_sigma, o.max_sigma);
  const double pred = plan.effective_sigma;
  if (!(pred > sd(o.min_sigma))) return o.min_sigma;
  if (!(pred < sd(o.max_sigma))) return o.max_sigma;
  double lo = o.min_sigma, hi = o.max_sigma;
  for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (sd(mid) < pred ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

Status exact_gaussian_plan(double sigma, Plan& out) {
  const MethodSpec* ref = quality_reference_method();
  if (!ref) return Status::fail("the registry has no quality reference method");
  return resolve_plan(ref->name, {{"sigma", exact_text(sigma)}, {"border", "clamp"}}, out);
}

Status run_on_backend(Backend& backend, const Plan& plan, const Image& src, Image& dst) {
  Resident r(backend, src);
  return r.run(plan, dst);
}

ErrorStats compare_images(const Image& a, const Image& b) {
  ErrorStats e;
  double sum = 0, sq = 0, mx = 0;
  for (size_t i = 0; i < a.data.size(); ++i) {
    const double d = std::abs(double(a.data[i]) - double(b.data[i]));
    sum += d, sq += d * d, mx = std::max(mx, d);
  }
  const double n = double(std::max<size_t>(1, a.data.size()));
  e.max_abs = mx;
  e.mean_abs = sum / n;
  e.psnr_db = sq > 0 ? 10 * std::log10(n / sq) : kInf;  // peak 1: 10 log10(1 / mse)
  return e;
}

Status fit_effective_sigma(Backend& backend, const Image& input, const Image& target, double guess,
                           const FitOptions& opts, SigmaFit& out) {
  if (input.width != target.width || input.height != target.height || input.channels != target.channels)
    return Status::fail("fit: input and target differ in shape");
  Resident r(backend, input);
  MadFunction f(r, target);
  return fit_with(f, guess, opts, out);
}

Status kernel_sigma_of_method(const Plan& plan, Backend& backend, double& sigma) {
  const double scale = std::max({plan.sigma, plan.effective_sigma, 0.5});
  int half = int(std::ceil(4 * scale)) + 4;
  for (;;) {
    const int n = 2 * half + 1;
    if (n > 16385) return Status::fail("impulse response still reaches the border of a 16385 px image");
    Image out;
    if (Status s = guarded_run(backend, plan, n, n,
                               [&] {
                                 Image img(n, n, 1);  // up to 1 GB: inside the guard too
                                 img.at(half, half, 0) = 1.0f;
                                 return run_on_backend(backend, plan, img, out);
                               });
        !s)
      return s;
    double total = 0, frame = 0;
    std::vector<double> column(size_t(n), 0.0);
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const double v = out.at(x, y, 0);
        column[size_t(x)] += v;
        total += std::abs(v);
        if (x == 0 || y == 0 || x == n - 1 || y == n - 1) frame += std::abs(v);
      }
    if (!std::isfinite(total) || total == 0) return Status::fail("impulse response is zero or not finite");
    if (frame > 1e-6 * total) {
      half = int(std::ceil(half * 1.5));
      continue;
    }
    double sum = 0, first = 0;
    for (int x = 0; x < n; ++x) sum += column[size_t(x)], first += (x - half) * column[size_t(x)];
    const double mean = first / sum;
    double var = 0;
    for (int x = 0; x < n; ++x) var += (x - half - mean) * (x - half - mean) * column[size_t(x)];
    if (!(var / sum >= -1e-12))  // negative weights (a sharpening kernel): no standard deviation to give
      return Status::fail("its marginal's variance is not positive (negative weights: not a blur)");
    sigma = std::sqrt(std::max(0.0, var / sum));  // copy: 0
    return Status::success();
  }
}

std::vector<QualityInput> read_quality_inputs(const std::vector<std::string>& paths, ImageIO& io,
                                              const ColorOptions& color, const ReadLimits& limits) {
  std::vector<QualityInput> v;
  for (const auto& p : paths) {
    QualityInput in;
    in.name = p;
    const WarningCapture capture(in.warnings);
    try {
      LoadedImage loaded;
      ColorState state;
      if (Status s = read_working(io, p, limits, color, loaded, state); !s) {
        in.error = s.error.find(p) != std::string::npos ? s.error : p + ": " + s.error;
      } else if (NonfiniteMarks bad; take_nonfinite(loaded.image, bad)) {
        // The fit and the errors would all read NaN: say why instead (blur handles them, docs/methods.md).
        in.error = p + ": " + std::to_string(bad.count) +
                   " non-finite values (NaN or Inf); the effective sigma and PSNR need finite pixels";
        // Its size still goes in the report (the pixels are dropped: nothing runs on them).
        in.image.width = loaded.image.width, in.image.height = loaded.image.height;
        in.image.channels = loaded.image.channels;
      } else {
        in.image = std::move(loaded.image);
        in.alphas = alpha_channels(loaded.meta);
      }
    } catch (const std::exception& e) {
      in.error = p + ": " + e.what();
    }
    v.push_back(std::move(in));
  }
  return v;
}

std::vector<QualityInput> builtin_quality_inputs(int size) {
  std::vector<QualityInput> v;
  for (auto& g : quality_test_images(size)) v.push_back({g.name, std::move(g.image), ""});
  return v;
}

int QualityResult::failed() const {
  int n = 0;
  for (const auto& q : images) n += q.error.empty() ? 0 : 1;
  return n;
}

QualityMean quality_mean(const std::vector<ImageQuality>& images) {
  QualityMean mean;
  std::vector<double> sigmas;
  for (const auto& q : images) {
    if (!q.error.empty()) continue;
    ++mean.count;
    sigmas.push_back(q.effective_sigma);
    mean.effective_sigma += q.effective_sigma;
    mean.fit_kernel_sigma += q.fit_kernel_sigma;
    if (std::isinf(q.vs_sigma.psnr_db))
      ++mean.identical;
    else
      mean.psnr_db += q.vs_sigma.psnr_db;
    mean.max_abs += q.vs_sigma.max_abs;
    mean.mean_abs += q.vs_sigma.mean_abs;
    mean.at_limit += q.fit_at_limit;
  }
  if (mean.count > 0) {
    const double n = mean.count;
    mean.psnr_db = mean.identical < mean.count ? mean.psnr_db / (n - mean.identical) : kInf;
    mean.effective_sigma /= n, mean.fit_kernel_sigma /= n;
    mean.max_abs /= n, mean.mean_abs /= n;
    mean.effective_sigma_median = median_of(sigmas);
    double ss = 0;
    for (double s : sigmas) ss += (s - mean.effective_sigma) * (s - mean.effective_sigma);
    mean.effective_sigma_stddev = mean.count > 1 ? std::sqrt(ss / (n - 1)) : 0;
  }
  return mean;
}

namespace {
// Whether every channel holds one value (a flat colour, a 1x1 image, all transparent once premultiplied): the MAD
// of every Gaussian against the method's output is then 0 up to rounding, and the fit would stop anywhere.
bool constant_channels(const Image& img) {
  const size_t nc = size_t(img.channels);
  for (size_t i = nc; i < img.data.size(); ++i)
    if (img.data[i] != img.data[i % nc]) return false;
  return true;
}
}  // namespace

Status measure_quality(Backend& backend, const Plan& plan, const std::vector<QualityInput>& inputs,
                       const QualityOptions& opts, QualityResult& out) {
  using Clock = std::chrono::steady_clock;
  out = QualityResult{};
  const WarningCapture run_capture(out.warnings);  // an image's own go to the image (nested captures below)
  out.backend = backend.name();
  out.device = backend.device_name();
  Backend& judge = opts.reference_backend ? *opts.reference_backend : backend;
  out.reference_backend = judge.name();
  out.method = plan.method;
  out.params = plan.params;
  out.details = plan.details;
  out.sigma = plan.sigma;
  out.predicted_sigma = plan.effective_sigma;
  out.tolerance = opts.fit.tolerance;
  const MethodSpec* m = find_method(plan.method);
  if (!m) return Status::fail("unknown method '" + plan.method + "'");
  if (!method_on_backend(*m, backend.name()))
    return Status::fail("method '" + plan.method + "' is not implemented on backend '" + backend.name() + "'");
  Plan reference;
  if (Status s = exact_gaussian_plan(plan.sigma, reference); !s) return s;
  auto report = [&] {
    if (!opts.progress) return;
    out.mean = quality_mean(out.images);
    out.storage = backend.storage();
    opts.progress(out);
  };
  report();
  if (opts.impulse && plan_warns_of_cost(plan)) {
    // The recipe warned of its cost (a direct 2D window past its bound): the impulse image, some 8 sigma a side,
    // would cost that window at every pixel (gauss-2d at sigma 512 on a 4105^2 impulse: hours), for a side measure.
    spdlog::warn("impulse response of {} skipped: its plan warns of its cost; impulse_sigma null", plan.method);
  } else if (opts.impulse && !find_method(plan.method)->linear) {
    // Not a linear filter: its response to an impulse is no kernel (bilateral gives the impulse back, sd 0).
    spdlog::warn("impulse response of {} skipped: it is not a linear filter (its weights depend on the image), so an "
                 "impulse's response is no kernel; impulse_sigma null",
                 plan.method);
  } else if (opts.impulse && !plan.blur) {
    // Negative weights or a zero sum: its response has no standard deviation (negative over a negative sum read as
    // one: 0.707 for an all-negative 3 x 3), as pred_sd says 0.
    spdlog::warn("impulse response of {} skipped: its kernel has negative weights or sums to 0, so it is not a blur "
                 "and has no standard deviation; impulse_sigma null",
                 plan.method);
  } else if (opts.impulse) {  // a side measure: where it cannot be had, said, and the images are still measured
    if (Status s = kernel_sigma_of_method(plan, backend, out.impulse_sigma); !s)
      spdlog::warn("impulse response of {}: {}; impulse_sigma null", plan.method, s.error);
    else
      out.has_impulse = true;
  }
  const double guess = fit_guess(plan, opts.fit);

  for (const QualityInput& in : inputs) {
    ImageQuality q;
    q.name = in.name;
    q.width = in.image.width, q.height = in.image.height, q.channels = in.image.channels;
    q.error = in.error;
    if (q.error.empty() && constant_channels(in.image))
      q.error = in.name + ": every channel is constant: any blur returns it unchanged, so it shows no effective sigma";
    const auto t0 = Clock::now();
    q.warnings = in.warnings;
    if (q.error.empty()) {
      const WarningCapture capture(q.warnings);  // ends before q is moved into the result
      const Status s = guarded_run(backend, plan, q.width, q.height, [&] {
        Resident resident(backend, in.image, in.alphas);
        Image target, at_sigma;
        Status s = resident.run(plan, target);
        if (s && !all_finite(target))  // the inputs are finite (checked when read)
          s = Status::fail("the method's output has values that are not finite: " + overflow_reason(in.image) +
                           (is_half_storage(backend.storage())
                                ? ", or beyond the half floats of --gl-storage rgba16f (65504)"
                                : ""));
        std::unique_ptr<Resident> own;  // the input on the judge's backend, where that is another
        if (&judge != &backend) own = std::make_unique<Resident>(judge, in.image, in.alphas);
        Resident& gauss = own ? *own : resident;
        if (s) s = gauss.run(reference, at_sigma);
        if (s) {
          q.vs_sigma = compare_images(target, at_sigma);
          MadFunction f(gauss, target);
          f.seed(plan.sigma, q.vs_sigma.mean_abs);  // MAD(sigma) is the mean abs error just measured
          SigmaFit fit;
          s = fit_with(f, guess, opts.fit, fit);
          if (s) {
            q.effective_sigma = fit.sigma;
            q.fit_mad = fit.mad;
            q.fit_evaluations = fit.evaluations;
            q.fit_at_limit = fit.at_limit;
            Plan g;
            int reach = reference.radius;
            if (exact_gaussian_plan(fit.sigma, g)) q.fit_kernel_sigma = g.effective_sigma;
            // Against S's kernel, or the fit's where the fit is over 1.25 S: a method far wider than S (box --width
            // 4097 on a 16^2 image, S 2) was not flagged. (Not at every fit above S: one a hair above moved images
            // as wide as S's kernel across the line.)
            if (fit.sigma > 1.25 * plan.sigma) reach = std::max(reach, g.radius);
            q.border_dominated = 2.0 * reach + 1 > q.width && 2.0 * reach + 1 > q.height;
          }
        }
        return s;
      });
      if (!s) q.error = in.name + ": " + s.error;
    }
    q.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (q.error.empty())
      spdlog::info("{}: effective sigma {:.4f} ({} Gaussians, {:.0f} ms){}", q.name, q.effective_sigma,
                   q.fit_evaluations, q.ms, q.fit_at_limit ? ", at the search limit" : "");
    else
      spdlog::error("{}", q.error);
    out.images.push_back(std::move(q));
    report();
  }

  int dominated = 0, measured = 0;  // of the images measured (a failed one is neither)
  for (const ImageQuality& q : out.images)
    if (q.error.empty()) ++measured, dominated += q.border_dominated;
  if (dominated > 0)
    spdlog::warn("quality: {} of {} image(s) are smaller than the reference kernel ({} pixels wide at sigma {}, or "
                 "the fitted sigma's where over 1.25 times it) each way: every pixel's window reaches past the "
                 "edges, so their fits weigh the clamp border as much as the kernel's shape; a larger image measures "
                 "the method better",
                 dominated, measured, 2 * reference.radius + 1, plan.sigma);
  out.mean = quality_mean(out.images);
  out.storage = backend.storage();
  return Status::success();
}

// ---------------------------------------------------------------------------------------------------------
// Output

namespace {

std::string fixed(double v, int decimals) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
std::string general(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
nlohmann::json psnr_json(double v) { return std::isinf(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

}  // namespace

std::string quality_table(const QualityResult& r) {
  std::ostringstream o;
  o << "quality of " << r.method;
  for (const auto& [k, v] : r.params) o << " " << k << "=" << v;
  o << " on " << r.backend << " (" << r.device << (r.storage.empty() ? "" : ", " + r.storage) << ")\n";
  o << "reference: exact Gaussian (gauss-sep, clamp, radius ceil(3 sigma)"
    << (r.reference_backend.empty() || r.reference_backend == r.backend ? "" : ", on " + r.reference_backend)
    << "); effective sigma = the one closest in mean abs difference (to " << general(r.tolerance)
    << "); errors against sigma " << general(r.sigma) << "\n";
  o << "predicted sigma (sd of the method's kernel) " << fixed(r.predicted_sigma, 4);
  if (r.has_impulse) o << ", impulse-response sd " << fixed(r.impulse_sigma, 4);
  o << "\n";
  // The name column fits the longest name up to 60 characters; longer ones keep their end (the file name).
  int width = 12;
  for (const auto& q : r.images) width = std::max(width, int(std::min<size_t>(q.name.size(), 60)));
  char line[400];
  std::snprintf(line, sizeof line, "%-*s %11s %10s %10s %10s %9s %10s %10s\n", width, "image", "size", "eff_sigma",
                "fit_sd", "pred_sd", "PSNR_dB", "max_abs", "mean_abs");
  o << line;
  for (const auto& q : r.images) {
    const std::string size = std::to_string(q.width) + "x" + std::to_string(q.height) + "x" + std::to_string(q.channels);
    const std::string name = int(q.name.size()) > width ? "..." + q.name.substr(q.name.size() - size_t(width - 3)) : q.name;
    if (!q.error.empty()) {
      o << name << std::string(size_t(width) + 1 - name.size(), ' ') << "error: " << q.error << "\n";
      continue;
    }
    std::snprintf(line, sizeof line, "%-*s %11s %10s %10s %10s %9s %10s %10s%s\n", width, name.c_str(), size.c_str(),
                  fixed(q.effective_sigma, 4).c_str(), fixed(q.fit_kernel_sigma, 4).c_str(),
                  fixed(r.predicted_sigma, 4).c_str(), fixed(q.vs_sigma.psnr_db, 2).c_str(),
                  general(q.vs_sigma.max_abs).c_str(), general(q.vs_sigma.mean_abs).c_str(),
                  (std::string(q.fit_at_limit ? "  (at search limit)" : "") +
                   (q.border_dominated ? "  (border-dominated)" : ""))
                      .c_str());
    o << line;
  }
  const QualityMean& m = r.mean;
  if (m.count > 0) {
    const std::string label = "mean of " + std::to_string(m.count);
    std::snprintf(line, sizeof line, "%-*s %11s %10s %10s %10s %9s %10s %10s\n", width, label.c_str(), "",
                  fixed(m.effective_sigma, 4).c_str(), fixed(m.fit_kernel_sigma, 4).c_str(),
                  fixed(r.predicted_sigma, 4).c_str(), fixed(m.psnr_db, 2).c_str(), general(m.max_abs).c_str(),
                  general(m.mean_abs).c_str());
    o << line;
    if (m.count > 1)
      o << "effective sigma: median " << fixed(m.effective_sigma_median, 4) << ", standard deviation "
        << fixed(m.effective_sigma_stddev, 4) << "\n";
    if (m.at_limit > 0)
      o << m.at_limit << " of the " << m.count << " fits in the mean are at a search limit (the true effective sigma "
        << "may lie beyond it)\n";
  }
  return o.str();
}

nlohmann::json quality_json(const QualityResult& r) {
  using nlohmann::json;
  json images = json::array();
  for (const auto& q : r.images) {
    json j{{"name", q.name},
           {"width", q.width},
           {"height", q.height},
           {"channels", q.channels},
           {"status", q.error.empty() ? "ok" : "error"},
           {"error", q.error},
           {"ms", q.ms}};
    if (q.error.empty()) {
      j["effective_sigma"] = q.effective_sigma;
      j["fit_kernel_sigma"] = q.fit_kernel_sigma;
      j["fit_mad"] = q.fit_mad;
      j["fit_evaluations"] = q.fit_evaluations;
      j["fit_at_limit"] = q.fit_at_limit;
      j["border_dominated"] = q.border_dominated;
      j["psnr_db"] = psnr_json(q.vs_sigma.psnr_db);
      j["identical"] = std::isinf(q.vs_sigma.psnr_db);
      j["max_abs"] = q.vs_sigma.max_abs;
      j["mean_abs"] = q.vs_sigma.mean_abs;
    }
    if (!q.warnings.empty()) j["warnings"] = q.warnings;  // present where there are any, as in blur's report
    images.push_back(std::move(j));
  }
  json params = json::object();
  for (const auto& [k, v] : r.params) params[k] = v;
  const QualityMean& m = r.mean;
  json mean{{"count", m.count}};
  if (m.count > 0) {
    mean["effective_sigma"] = m.effective_sigma;
    mean["effective_sigma_median"] = m.effective_sigma_median;
    mean["effective_sigma_stddev"] = m.effective_sigma_stddev;
    mean["fit_kernel_sigma"] = m.fit_kernel_sigma;
    mean["psnr_db"] = psnr_json(m.psnr_db);
    mean["identical"] = m.identical == m.count;  // every image; identical_images counts them
    mean["identical_images"] = m.identical;
    mean["max_abs"] = m.max_abs;
    mean["mean_abs"] = m.mean_abs;
    mean["fits_at_limit"] = m.at_limit;  // images whose fit is at a search limit (each fit_at_limit), in the mean
  }
  json doc{{"schema_version", 1},
           {"tool", {{"name", "gpublur"}, {"version", GPUBLUR_VERSION}, {"command", "quality"}}},
           {"method", r.method},
           {"params", params},
           {"details", json(r.details)},
           {"sigma", r.sigma},
           {"predicted_sigma", r.predicted_sigma},
           {"impulse_sigma", r.has_impulse ? json(r.impulse_sigma) : json(nullptr)},
           {"backend", r.backend},
           {"device", r.device},
           {"storage", r.storage},
           {"colour", {{"linear", r.linear}, {"premultiply", r.premultiply}}},
           {"io", r.io},
           {"reference",
            {{"method", quality_reference_method() ? quality_reference_method()->name : ""},
             {"backend", r.reference_backend},
             {"border", "clamp"},
             {"radius", "ceil(3 sigma)"},
             {"fit_metric", "mean absolute difference over all pixels and channels"},
             {"fit_tolerance", r.tolerance}}},
           {"images", images},
           {"mean", mean},
           {"summary", r.interrupted
                           ? json{{"images", r.images.size()}, {"failed", r.failed()}, {"interrupted", true}}
                           : json{{"images", r.images.size()}, {"failed", r.failed()}}}};
  if (!r.warnings.empty()) doc["warnings"] = r.warnings;
  return doc;
}

}  // namespace gpublur
