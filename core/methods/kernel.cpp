// kernel: any user kernel from a file (--kernel FILE, core/kernel_file.hpp: a text matrix, a single row, or a
// single-channel EXR), applied as a true convolution: out(x, y) = sum_{a, b} K(a, b) in(x - a, y - b), (a, b)
// relative to the kernel's centre pixel, x to the right along a row of the file, y down its rows. The
// primitives correlate (Conv1d, Conv2dMatrix), so the recipe flips the kernel in both axes.
// Paths (the report's "path" detail says which ran):
// - a 1D file (one row): the row along x, then along y (gauss-sep's Conv1d pair);
// - a matrix of rank 1 (core/kernel_file.hpp rank_one, float64, tolerance 1e-7 of the largest weight):
//   K = col (x) row, row along x then col along y (the same taps on both passes, the fused pair, where the
//   balanced factors are equal, as for any symmetric outer product);
// - separable passes from gauss-sep's measured hand-over radius on (sep_fft_min_radius(), 301) run as FftConv1d
//   (the same function): the crossover measured for gauss-sep's 1D passes (docs/performance.md);
// - anything else: Op::Conv2dMatrix, the direct 2D convolution with every weight: width x height products per
//   pixel, whatever the size (up to 4097 x 4097). No 2D FFT: a large non-separable kernel is slow.
// --impl 2d takes the direct 2D path whatever the kernel (to compare against the separable ones).
// Weights are used as written; --normalize divides them by their sum (a usage error where the sum is about 0:
// |sum| <= 1e-6 * sum |w|). The effective sigma is the kernel's own: the square root of its variance per axis
// (weights taken as a distribution), only for non-negative kernels (a blur); sigma is not used by the kernel
// (it is the Gaussian `gpublur quality` compares against).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/fft.hpp"
#include "core/kernel_file.hpp"
#include "core/methods/recipe.hpp"
#include "core/nonfinite.hpp"

namespace gpublur {
namespace {

// The radius from which a separable pass runs as FftConv1d; GPUBLUR_KERNEL_FFT_MIN_RADIUS=R sets another (for
// measuring the crossover, and for tests that reach the FFT form with small kernels).
int fft_min_radius() {
  if (const char* e = std::getenv("GPUBLUR_KERNEL_FFT_MIN_RADIUS"); e && *e) return std::max(1, std::atoi(e));
  return sep_fft_min_radius();
}
constexpr double kZeroSum = 1e-6;
// A blur kernel whose weights sum further than this from 1 is said to change brightness (weights rounded by hand to
// four decimals stay within it).
constexpr double kGainTolerance = 1e-3;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The weights run in float: one beyond its range (|w| > 3.4e38, after --normalize's scale) would make every output
// it touches infinite.
Status weights_fit_float(const std::vector<float>& taps, const std::string& file) {
  bool any = false;
  for (float w : taps) {
    if (!std::isfinite(w))
      return Status::fail("kernel file '" + file + "': a weight (after --normalize, if given) is beyond float's "
                          "range (|w| > 3.4e38)");
    any = any || w != 0;
  }
  // Weights below float's smallest (1.4e-45: a file of 1e-50) run as 0: black outputs, as a file of zeros gives.
  if (!any)
    return Status::fail("kernel file '" + file + "': every weight is below float's smallest (1.4e-45 after "
                        "--normalize, if given) and would run as 0; scale the file or give --normalize");
  return Status::success();
}

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float w : v) m = std::max(m, double(std::abs(w)));
  return m;
}

std::vector<float> flipped(const std::vector<double>& v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = float(v[v.size() - 1 - i]);
  return out;
}

Pass line_pass(std::vector<float> taps, Border border) {
  Pass p;
  p.op = int(taps.size() / 2) >= fft_min_radius() ? Op::FftConv1d : Op::Conv1d;
  p.border = border;
  p.taps = std::move(taps);
  return p;
}

std::vector<int8_t> signs(const std::vector<float>& taps) {
  std::vector<int8_t> s(taps.size());
  for (size_t i = 0; i < taps.size(); ++i) s[i] = int8_t(taps[i] > 0 ? 1 : taps[i] < 0 ? -1 : 0);
  return s;
}

// Non-finite inputs go through the pipeline's footprint path with the weights that run (correlation form, as the
// passes take them): each backend's arithmetic had its own way with them (GL's taps padded with zero weights made
// 0 x Inf = NaN beyond the kernel, CPU's skipped a matrix's zeros), now the direct convolution's on every backend.
void set_nonfinite_taps(Plan& plan, std::shared_ptr<NonfiniteTaps> t) {
  plan.nonfinite_reach = std::max(t->rx, t->ry);
  plan.nonfinite_taps = std::move(t);
}

double l1(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += std::abs(double(x));
  return s;
}

}  // namespace

Recipe kernel_recipe() {
  Recipe r;
  r.spec.name = "kernel";
  r.spec.summary = "any user kernel from a file (text matrix, 1D row or 1-channel EXR): direct 2D, separable or FFT";
  r.spec.sigma_mapping =
      "sigma is not used (it is the Gaussian `quality` compares against); effective sigma = sqrt of the kernel's "
      "variance per axis, for kernels without negative weights";
  r.spec.params = {sigma_param(), border_param()};
  r.spec.params.push_back({"kernel", ParamType::Path, "", false, 0, 0, {},
                           "the kernel: a text file of rows of numbers (whitespace or commas; '#' comments), one "
                           "row for a separable kernel (x then y), or a single-channel EXR; odd sizes up to 4097"});
  r.spec.params.push_back({"normalize", ParamType::Flag, "false", false, 0, 0, {},
                           "divide the weights by their sum (default: as written)"});
  r.spec.params.push_back({"impl", ParamType::Enum, "auto", false, 0, 0, {"auto", "2d"},
                           "kernel: auto (separable for a 1D or rank-1 kernel, FFT from radius 301) or 2d (the "
                           "direct 2D convolution with every weight)"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.spec.nonfinite_footprint = true;  // the weights' own taps (set_nonfinite_taps); --downsample: the reach's square
  r.build = [](const Params& p, Plan& plan) {
    const std::string& file = p.text("kernel");
    KernelMatrix m;
    if (Status s = read_kernel_file(file, m); !s) return s;
    // The 2D kernel's sum: the row's sum squared for a 1D kernel (applied along x and y).
    // Summed in units of the largest weight, so that finite weights whose sum passes double's range (1e308 three
    // times) still normalise (they were refused as summing to inf, "about 0").
    double unit = 1, sum_u = 0, abs_u = 0;
    const auto sums = [&] {
      unit = 0, sum_u = 0, abs_u = 0;
      for (double v : m.w) unit = std::max(unit, std::abs(v));
      unit = unit > 0 ? unit : 1;
      for (double v : m.w) sum_u += v / unit, abs_u += std::abs(v) / unit;
    };
    sums();
    // Every weight 0 (a file of zeros, an EXR of black): the output would be black, written with exit 0 and nothing
    // said, and quality fitted it a sigma. Not a kernel anyone means.
    if (abs_u == 0)
      return Status::fail("kernel file '" + file + "': every weight is 0, so every output pixel would be 0");
    if (p.num("normalize") != 0) {  // divided by the file's sum (1D: the row's, which then runs on both axes)
      if (!(std::abs(sum_u) > kZeroSum * abs_u))
        return Status::fail("kernel file '" + file + "': --normalize: the " + (m.one_d ? "row's " : "") +
                            "weights sum to " + num(sum_u * unit) + ", about 0: nothing to divide by");
      // Each weight in units of the largest, then over the sum in those units: 1 / unit overflows for subnormal
      // weights (1e-320 was refused as beyond float's range).
      for (double& v : m.w) v = v / unit / sum_u;
      sums();
    }
    const double applied_sum = sum_u * unit;  // the sum as it runs (inf where it passes double's range)
    const double sum2d = m.one_d ? applied_sum * applied_sum : applied_sum;
    plan.details["kernel"] = std::to_string(m.width) + "x" + std::to_string(m.height) +
                             (m.one_d ? " (1D: along x, then y; the row's weights sum to " + num(applied_sum) + ")"
                                      : "") +
                             ", weights sum to " + num(sum2d);
    const int rx = m.width / 2, ry = m.one_d ? rx : m.height / 2;
    plan.radius = std::max(rx, ry);

    // The variance of the kernel as it runs (after --normalize: an all-negative kernel with it is a plain blur), a
    // 1D row's sign squared away (it runs along x and then y).
    KernelMatrix applied = m;
    bool all_nonpositive = true;
    for (double v : applied.w) all_nonpositive = all_nonpositive && v <= 0;
    if (m.one_d && all_nonpositive)
      for (double& v : applied.w) v = -v;
    double vx = 0, vy = 0;
    if (kernel_variance(applied, vx, vy)) {
      plan.effective_sigma = std::sqrt((vx + vy) / 2);
      plan.details["effective_sigma_xy"] = num(std::sqrt(vx)) + ", " + num(std::sqrt(vy));
    } else {
      plan.effective_sigma = 0;
      plan.blur = false;
      plan.details["effective_sigma_xy"] = "none: negative weights or a zero sum (not a blur)";
    }
    // A blur whose weights do not sum to 1 (a file of 1 2 1, not 0.25 0.5 0.25) brightens or darkens every flat area
    // by that factor: used as written, but said (quality fitted such a 16x kernel a sigma of 0.1 to 13 in silence).
    if (plan.blur && std::abs(sum2d - 1) > kGainTolerance)
      set_plan_warning(plan, PlanWarning::Gain,
                       "kernel file '" + file + "': the weights sum to " + num(sum2d) +
                           ", not 1, so a flat area comes out " + num(sum2d) + " times as bright (" +
                           (m.one_d ? "the row's weights sum to " + num(applied_sum) + ", along x then y; " : "") +
                           "--normalize divides by the sum)");

    const bool force_2d = p.text("impl") == "2d";
    std::vector<double> col, row;
    if (m.one_d) {
      row = m.w, col = m.w;
    } else if (!force_2d && rank_one(m, col, row)) {
      // Balance the factors (equal sums of magnitudes): a symmetric outer product gets equal taps. Each sum in
      // units of its largest magnitude (weights of 1e308 summed to inf).
      double mc = 0, mr = 0, sc = 0, sr = 0;
      for (double v : col) mc = std::max(mc, std::abs(v));
      for (double v : row) mr = std::max(mr, std::abs(v));
      for (double v : col) sc += std::abs(v) / mc;
      for (double v : row) sr += std::abs(v) / mr;
      const double f = std::sqrt(sc / sr) * std::sqrt(mc) / std::sqrt(mr);
      for (double& v : col) v /= f;
      for (double& v : row) v *= f;
    }
    Program& prog = plan.program;
    if (!force_2d && !row.empty()) {
      Pass x = line_pass(flipped(row), plan.border);
      Pass y = line_pass(flipped(col), plan.border);
      for (const Pass* axis : {&x, &y})
        if (Status s = weights_fit_float(axis->taps, file); !s) return s;
      // The 2D weights are the two axes' products: each factor of a 3 x 3 of 1e-50 fits float (balanced, ~1e-25),
      // their products run as 0 (the second pass's sums underflow: a black output, exit 0).
      if (max_abs(x.taps) * max_abs(y.taps) < double(std::numeric_limits<float>::denorm_min()))
        return Status::fail("kernel file '" + file + "': every weight (a product of its row and column, after "
                            "--normalize, if given) is below float's smallest (1.4e-45) and would run as 0; scale the "
                            "file or give --normalize");
      // And past float's largest, as the direct 2D path refuses it: a row of 1e20 ran as 1e40 along x then y, every
      // output inf, exit 0.
      if (max_abs(x.taps) * max_abs(y.taps) > double(std::numeric_limits<float>::max()))
        return Status::fail("kernel file '" + file + "': a weight (a product of its row and column, after "
                            "--normalize, if given) is beyond float's range (|w| > 3.4e38); scale the file or give "
                            "--normalize");
      plan.tolerance = 1e-5 * std::max(1.0, l1(x.taps) * l1(y.taps));
      bool same = x.taps == y.taps;
      if (!same && x.taps.size() == y.taps.size()) {  // equal within float64 rounding of the balance
        same = true;
        for (size_t i = 0; i < x.taps.size(); ++i)
          same = same && std::abs(x.taps[i] - y.taps[i]) <= 1e-6f * std::abs(x.taps[i]);
        if (same) y.taps = x.taps;
      }
      auto taps = std::make_shared<NonfiniteTaps>();
      taps->rx = int(x.taps.size() / 2), taps->ry = int(y.taps.size() / 2), taps->separable = true;
      taps->sx = signs(x.taps), taps->sy = signs(y.taps);
      set_nonfinite_taps(plan, std::move(taps));
      plan.details["path"] = std::string(m.one_d ? "separable (1D kernel)" : "separable (rank 1)") +
                             (x.op == Op::FftConv1d || y.op == Op::FftConv1d
                                  ? ", fft from radius " + std::to_string(fft_min_radius())
                                  : "");
      if (same) {
        separable_passes(plan, x);
      } else {
        const int mid = prog.add_image({});
        x.axis = 0, x.src = 0, x.dst = mid;
        y.axis = 1, y.src = mid, y.dst = 1;
        prog.passes = {x, y};
      }
      return Status::success();
    }
    // The direct 2D path: the whole matrix, flipped (1D: the outer product row (x) row).
    Pass pass;
    pass.op = Op::Conv2dMatrix;
    pass.border = plan.border;
    const int kw = m.width, kh = m.one_d ? m.width : m.height;
    pass.widths = {kw, kh};
    pass.taps.resize(size_t(kw) * size_t(kh));
    for (int j = 0; j < kh; ++j)
      for (int i = 0; i < kw; ++i) {
        const double v = m.one_d ? m.w[size_t(kh - 1 - j)] * m.w[size_t(kw - 1 - i)] : m.at(kw - 1 - i, kh - 1 - j);
        pass.taps[size_t(j) * size_t(kw) + size_t(i)] = float(v);
      }
    if (Status s = weights_fit_float(pass.taps, file); !s) return s;
    auto taps = std::make_shared<NonfiniteTaps>();
    taps->rx = kw / 2, taps->ry = kh / 2, taps->s2d = signs(pass.taps);
    set_nonfinite_taps(plan, std::move(taps));
    plan.tolerance = 1e-5 * std::max(1.0, l1(pass.taps));
    plan.details["path"] = "direct 2D (" + std::to_string(kw) + "x" + std::to_string(kh) + " weights per pixel)";
    // Its cost is the matrix's area at every pixel, as gauss-2d's (quality then skips the impulse response, whose
    // image grows with the kernel: a 351 x 351 matrix took 23 s on 16^2 images, nearly all of it that).
    std::vector<double> c1, r1;
    warn_direct_2d_window(plan, force_2d ? "kernel --impl 2d" : "kernel (a matrix that is not rank 1)", kw, kh,
                          force_2d && (m.one_d || rank_one(m, c1, r1))
                              ? "--impl auto runs this kernel as two 1D passes"
                              : "a separable kernel (one row, or a rank-1 matrix) runs as two 1D passes");
    prog.passes.push_back(pass);
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
