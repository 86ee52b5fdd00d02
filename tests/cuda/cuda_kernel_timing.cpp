// Kernel timing for tuning the CUDA backend (the user-facing benchmark is `gpublur bench`).
// Usage: cuda_kernel_timing [size=4096] [channels=4] [repeats=20] [mode=all]
// mode sep-only: just copy and the default gauss-sep at sigma 3, 12, 48 (for profiling under ncu).
// mode sep: copy, then gauss-sep at sigma 1, 3, 4, 5, 8, 12, 16, 24, 48, 64, 100: the default path and every
// kernel variant (SepTuning). mode check: every gauss-sep variant (not only the default the tests run) against
// the CPU reference on random images (4 borders, 1-4 channels, sizes off the tile grid, sigma 0.5-64); exit 1 if
// any is off by more than 1e-5. mode 2d: copy and gauss-2d at sigma 3, 12, 48.
// mode box: copy, then box (3 passes, Kovesi widths) at sigma 3, 12, 48, 200: every Box1d schedule (the default
// separate passes, fused x/y tiles, whole lines at one block/SM, the global moving-average kernel), then the
// impls moving-average and sat, and 2d at sigma 3 and 12; the default's spread over the sigmas is printed.
// mode box-check: every box schedule and impl against the CPU reference (4 borders, 1-4 channels, sizes from 1x1
// to 1023x517, sigma 0.5-200, 1/3/8 passes, width 4097); exit 1 if any is off by more than 1e-5.
// Modes combine with commas ("sep,check"); "all" = sep + gauss-linear + 2d.
// Random image, CUDA-event time of each run(), 3 warm-ups, median and min of `repeats`, ratio to copy.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/box.hpp"
#include "core/gauss.hpp"
#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "gpu/cuda/cuda_backend.hpp"
#include "gpu/cuda/cuda_kernels.hpp"
#include "cuda/schedule_variants.hpp"

using namespace gpublur;
using gpublur::testing::BoxVariant;
using gpublur::testing::SepVariant;

namespace {

struct Result {
  double median = 0, min = 0;
  std::string path;
};

bool time_plan(Backend& b, const Plan& plan, int repeats, Result& r) {
  RunInfo info;
  for (int i = 0; i < 3; ++i)
    if (Status s = b.run(plan, info); !s) {
      std::fprintf(stderr, "%s: %s\n", plan.method.c_str(), s.error.c_str());
      return false;
    }
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    if (!b.run(plan, info)) return false;
    t.push_back(info.compute_ms);
  }
  std::sort(t.begin(), t.end());
  r.median = t[t.size() / 2];
  r.min = t.front();
  r.path = info.path;
  return true;
}

Plan plan_for(const std::string& method, double sigma, std::map<std::string, std::string> extra = {}) {
  extra["sigma"] = std::to_string(sigma);
  Plan p;
  if (Status s = resolve_plan(method, extra, p); !s) {
    std::fprintf(stderr, "%s\n", s.error.c_str());
    std::exit(2);
  }
  return p;
}

Image random_image(int w, int h, int c, uint32_t seed) {
  Image img(w, h, c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (float& v : img.data) v = u(rng);
  return img;
}

// Max abs error of plan on the uploaded src vs reference_run (infinity where a value is NaN); info gets the path.
double error_vs_reference(Backend& b, const Plan& plan, const Image& want, RunInfo& info, bool& ran) {
  Image got;
  double ms = 0;
  ran = cuda_fill_output(b, std::numeric_limits<float>::quiet_NaN()) && b.run(plan, info) && b.download(got, ms) &&
        got.data.size() == want.data.size();
  if (!ran) return std::numeric_limits<double>::infinity();
  double err = 0;
  for (size_t i = 0; i < want.data.size(); ++i) {
    const double d = std::fabs(double(got.data[i]) - double(want.data[i]));
    err = std::max(err, std::isnan(d) ? std::numeric_limits<double>::infinity() : d);
  }
  return err;
}

// The worst error per variant and where it happened; any error above 1e-5 is printed and fails the check.
struct VariantLog {
  std::vector<std::string> names;
  std::vector<double> worst;
  std::vector<std::string> worst_case;
  bool ok = true;

  explicit VariantLog(std::vector<std::string> n)
      : names(std::move(n)), worst(names.size(), 0.0), worst_case(names.size()) {}
  void record(size_t v, double err, const std::string& what) {
    if (err > 1e-5) {
      ok = false;
      std::printf("CHECK FAIL %s %s: max abs error %.3g\n", names[v].c_str(), what.c_str(), err);
    }
    if (err > worst[v]) worst[v] = err, worst_case[v] = what;
  }
  bool print(const char* mode) const {
    for (size_t v = 0; v < names.size(); ++v)
      std::printf("%s %-32s max abs error %.3g (%s)\n", mode, names[v].c_str(), worst[v], worst_case[v].c_str());
    std::printf("%s: %s\n", mode, ok ? "all variants within 1e-5" : "FAILED");
    return ok;
  }
};

// "<path> WxHxC <border> <what>", what formatted from fmt with up to three numbers.
std::string case_text(const RunInfo& info, int w, int h, int c, const char* border, const char* fmt, double a,
                      int b = 0, int d = 0) {
  char tail[96], buf[224];
  std::snprintf(tail, sizeof tail, fmt, a, b, d);
  std::snprintf(buf, sizeof buf, "%s %dx%dx%d %s %s", info.path.c_str(), w, h, c, border, tail);
  return buf;
}

// Every conv1d pair variant (and the default) vs reference_run; false if any exceeds 1e-5.
bool check_variants(Backend& b) {
  auto& tune = cuda::sep_tuning();
  const cuda::SepTuning defaults = tune;
  std::vector<SepVariant> vars = testing::sep_variants();
  vars.insert(vars.begin(), {"default", 1 << 20, [](cuda::SepTuning&) {}});
  std::vector<std::string> names;
  for (const SepVariant& v : vars) names.push_back(v.name);
  VariantLog log(names);
  struct Sz { int w, h; };
  const Sz sizes[] = {{1023, 517}, {37, 29}, {4097, 33}, {1, 1}};
  uint32_t seed = 99;
  for (const Sz& sz : sizes)
    for (int c = 1; c <= 4; ++c) {
      if (sz.w == 4097 && c != 4 && c != 1) continue;
      const Image src = random_image(sz.w, sz.h, c, seed++);
      double ms = 0;
      if (Status s = b.upload(src, ms); !s) {
        std::fprintf(stderr, "%s\n", s.error.c_str());
        return false;
      }
      for (const char* border : {"clamp", "mirror", "wrap", "zero"})
        for (double sigma : {0.5, 1.0, 2.0, 3.0, 4.0, 5.4, 12.0, 24.0, 48.0, 64.0}) {
          Plan plan = plan_for("gauss-sep", sigma, {{"border", border}});
          Image want;
          if (!reference_run(plan, src, want)) return false;
          for (size_t v = 0; v < vars.size(); ++v) {
            if (plan.radius > vars[v].max_radius) continue;
            tune = defaults;
            vars[v].set(tune);
            RunInfo info;
            bool ran = false;
            const double err = error_vs_reference(b, plan, want, info, ran);
            tune = defaults;
            if (!ran) {
              std::fprintf(stderr, "check: %s failed to run\n", vars[v].name);
              return false;
            }
            log.record(v, err, case_text(info, sz.w, sz.h, c, border, "sigma=%g", sigma));
          }
        }
    }
  return log.print("check");
}

// Every Box1d schedule (BoxTuning) and every box impl against the reference; false if any exceeds 1e-5.
bool check_box(Backend& b) {
  auto& tune = cuda::box_tuning();
  const cuda::BoxTuning defaults = tune;
  struct Var {
    std::string name, impl;
    std::function<void(cuda::BoxTuning&)> set;
  };
  std::vector<Var> vars;
  for (const BoxVariant& v : testing::box_variants()) vars.push_back({v.name, "separable", v.set});
  for (const char* impl : {"moving-average", "sat", "2d"}) vars.push_back({impl, impl, [](cuda::BoxTuning&) {}});
  std::vector<std::string> names;
  for (const Var& v : vars) names.push_back(v.name);
  VariantLog log(names);
  struct Sz { int w, h; };
  const Sz sizes[] = {{1, 1}, {7, 3}, {37, 29}, {1023, 517}, {4097, 33}};
  struct Cfg { double sigma; int passes; int width; };  // width 0: Kovesi's widths
  const Cfg cfgs[] = {{0.5, 3, 0}, {3, 3, 0}, {3, 8, 0}, {12, 1, 0}, {12, 3, 0}, {48, 3, 0}, {200, 3, 0},
                      {200, 8, 0}, {0, 1, 4097}, {0, 8, 4097}};
  uint32_t seed = 199;
  for (const Sz& sz : sizes)
    for (int c = 1; c <= 4; ++c) {
      if (sz.w == 4097 && c != 4 && c != 1) continue;
      const Image src = random_image(sz.w, sz.h, c, seed++);
      double ms = 0;
      if (Status s = b.upload(src, ms); !s) {
        std::fprintf(stderr, "%s\n", s.error.c_str());
        return false;
      }
      const bool tiny = size_t(sz.w) * sz.h <= 64;
      for (const char* border : {"clamp", "mirror", "wrap", "zero"})
        for (const Cfg& cfg : cfgs) {
          // Every impl computes the same function: one reference serves all variants of this case.
          Image want;
          bool have_want = false;
          for (size_t v = 0; v < vars.size(); ++v) {
            const std::string& impl = vars[v].impl;
            // Tables and direct 2D boxes grow with the reach: the wide ones only on tiny images, never 4097.
            if (impl == "sat" && (cfg.width > 0 || (cfg.sigma > 48 && !tiny))) continue;
            if (impl == "2d" && (cfg.width > 0 || (cfg.sigma > 12 && !tiny))) continue;
            std::map<std::string, std::string> given = {{"border", border}, {"impl", impl},
                                                        {"passes", std::to_string(cfg.passes)}};
            if (cfg.width > 0) given["width"] = std::to_string(cfg.width);
            const Plan plan = plan_for("box", cfg.width > 0 ? 1.0 : cfg.sigma, given);
            if (!have_want && !reference_run(plan, src, want)) return false;
            have_want = true;
            tune = defaults;
            vars[v].set(tune);
            RunInfo info;
            bool ran = false;
            const double err = error_vs_reference(b, plan, want, info, ran);
            tune = defaults;
            if (!ran) {
              std::fprintf(stderr, "box-check: %s failed to run\n", vars[v].name.c_str());
              return false;
            }
            log.record(v, err,
                       case_text(info, sz.w, sz.h, c, border, "sigma=%g passes=%d width=%d", cfg.sigma, cfg.passes,
                                 cfg.width));
          }
        }
    }
  tune = defaults;
  return log.print("box-check");
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows in logs even when the run is cut off
  const int size = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int channels = argc > 2 ? std::atoi(argv[2]) : 4;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 20;
  std::string err;
  BackendOptions opts;
  auto b = make_cuda_backend(opts, err);
  if (!b) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  Image img(size, size, channels);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (float& v : img.data) v = u(rng);
  double up = 0, down = 0;
  if (Status s = b->upload(img, up); !s) {
    std::fprintf(stderr, "%s\n", s.error.c_str());
    return 1;
  }
  const double bytes = double(img.byte_count()) * (channels == 3 ? 4.0 / 3.0 : 1.0);
  std::printf("device: %s, image %dx%dx%d float32, %d repeats (median/min of CUDA-event times)\n",
              b->device_name().c_str(), size, size, channels, repeats);

  Result copy;
  if (!time_plan(*b, plan_for("copy", 1), repeats, copy)) return 1;
  Image out;
  b->download(out, down);
  std::printf("upload %.2f ms, download %.2f ms (%.1f GB/s each way)\n", up, down,
              img.byte_count() / 1e6 / std::max(up, down));
  std::printf("%-34s %-32s %9s %9s %9s %7s\n", "case", "path", "median", "min", "GB/s", "x copy");
  auto row = [&](const std::string& name, const Result& r) {
    std::printf("%-34s %-32s %9.3f %9.3f %9.1f %7.2f\n", name.c_str(), r.path.c_str(), r.median, r.min,
                2 * bytes / 1e6 / r.median, r.median / copy.median);
    std::fflush(stdout);
  };
  row("copy", copy);

  const std::string mode = argc > 4 ? argv[4] : "all";
  auto has = [&](const char* m) { return ("," + mode + ",").find("," + std::string(m) + ",") != std::string::npos; };
  if (has("sep-only")) {
    for (double sigma : {3.0, 12.0, 48.0}) {
      Result r;
      if (time_plan(*b, plan_for("gauss-sep", sigma), repeats, r)) row("gauss-sep sigma=" + std::to_string(int(sigma)), r);
    }
    return 0;
  }
  auto& tune = cuda::sep_tuning();
  const cuda::SepTuning defaults = tune;
  if (has("sep") || has("all")) {
    for (double sigma : {1.0, 3.0, 4.0, 5.0, 8.0, 12.0, 16.0, 24.0, 48.0, 64.0, 100.0}) {
      const std::string s = " sigma=" + std::to_string(int(sigma));
      Result r;
      tune = defaults;
      if (time_plan(*b, plan_for("gauss-sep", sigma), repeats, r)) row("gauss-sep" + s, r);
      for (const SepVariant& v : testing::sep_variants()) {
        if (default_radius(sigma) > v.max_radius) continue;
        tune = defaults;
        v.set(tune);
        if (time_plan(*b, plan_for("gauss-sep", sigma), repeats, r)) row(std::string("  ") + v.name + s, r);
      }
      tune = defaults;
    }
  }
  if (has("all")) {
    for (double sigma : {3.0, 12.0, 48.0}) {
      const std::string s = " sigma=" + std::to_string(int(sigma));
      Result r;
      for (const char* interp : {"exact", "hardware"})
        if (time_plan(*b, plan_for("gauss-linear", sigma, {{"interp", interp}}), repeats, r))
          row(std::string("gauss-linear/") + interp + s, r);
    }
  }
  if (has("all") || has("2d")) {
    for (double sigma : {3.0, 12.0, 48.0}) {
      Result r;
      if (time_plan(*b, plan_for("gauss-2d", sigma), sigma > 20 ? 3 : repeats, r))
        row("gauss-2d sigma=" + std::to_string(int(sigma)), r);
    }
  }
  if (has("box")) {
    auto& bt = cuda::box_tuning();
    const cuda::BoxTuning box_defaults = bt;
    std::vector<double> def_ms;
    for (double sigma : {3.0, 12.0, 48.0, 200.0}) {
      const std::string s = " sigma=" + std::to_string(int(sigma));
      const Plan plan = plan_for("box", sigma, {{"impl", "separable"}});
      bool first = true;
      for (const BoxVariant& v : testing::box_variants()) {
        bt = box_defaults;
        v.set(bt);
        Result r;
        const bool slow = std::string(v.name).find("global") != std::string::npos;
        if (time_plan(*b, plan, slow ? std::min(repeats, 5) : repeats, r)) {
          row((first ? std::string("box ") : std::string("  ")) + v.name + s, r);
          if (first) def_ms.push_back(r.median);
        }
        first = false;
      }
      bt = box_defaults;
      for (const char* impl : {"moving-average", "sat", "2d"}) {
        if (std::string(impl) == "2d" && sigma > 12) continue;
        Result r;
        if (time_plan(*b, plan_for("box", sigma, {{"impl", impl}}), std::min(repeats, 5), r))
          row(std::string("box/") + impl + s, r);
      }
    }
    if (def_ms.size() == 4) {
      const auto [lo, hi] = std::minmax_element(def_ms.begin(), def_ms.end());
      std::printf("box (default schedule) sigma 3/12/48/200: %.2f / %.2f / %.2f / %.2f x copy; slowest / fastest "
                  "%.3f (target: <= 2.5x copy, <= 1.2)\n",
                  def_ms[0] / copy.median, def_ms[1] / copy.median, def_ms[2] / copy.median, def_ms[3] / copy.median,
                  *hi / *lo);
    }
  }
  bool ok = true;
  if (has("check")) ok = check_variants(*b) && ok;
  if (has("box-check")) ok = check_box(*b) && ok;
  return ok ? 0 : 1;
}
