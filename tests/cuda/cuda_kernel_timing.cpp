// Kernel timing for tuning the CUDA backend (the user-facing benchmark is `gpublur bench`).
// Usage: cuda_kernel_timing [size=4096] [channels=4] [repeats=20] [mode=all]
// mode sep-only: just copy and the default gauss-sep at sigma 3, 12, 48 (for profiling under ncu).
// mode sep: copy, then gauss-sep at sigma 1, 3, 4, 5, 8, 12, 16, 24, 48, 64, 100: the default path and every kernel variant.
// mode check: every gauss-sep variant (not only the default the tests run) against the CPU reference on
// random images (4 borders, 1-4 channels, sizes off the tile grid, sigma 0.5-64); exit 1 if any is off
// by more than 1e-5. mode 2d: copy and gauss-2d at sigma 3, 12, 48. Modes combine with commas ("sep,check");
// "all" = sep + gauss-linear + 2d.
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

#include "core/gauss.hpp"
#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "gpu/cuda/cuda_backend.hpp"
#include "gpu/cuda/cuda_kernels.hpp"

using namespace gpublur;

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

// gauss-sep kernel variants selectable through cuda::SepTuning (radius limits: when the variant applies).
struct SepVariant {
  const char* name;
  int max_radius;  // the variant is a different kernel only up to this radius
  std::function<void(cuda::SepTuning&)> set;
};

std::vector<SepVariant> sep_variants() {
  return {
      {"fused-fixed 64x64", 12, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = 12, t.fused_kind = 1, t.fused_tile_h = 64; }},
      {"fused-fixed 64x32", 12, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = 12, t.fused_kind = 1, t.fused_tile_h = 32; }},
      {"fused-32x32 (old)", 16, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = 16, t.fused_kind = 0, t.fused_tile_h = 32; }},
      {"two-pass", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 0, t.pass_pipelined = 0, t.pass_pad_taps = false; }},
      {"two-pass wide 16x256", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 0, t.pass_pipelined = 0, t.pass_wide = true; }},
      {"two-pass padded (old)", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 0, t.pass_pipelined = 0, t.pass_pad_taps = true; }},
      {"two-pass-pipelined", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 0, t.pass_pipelined = 1; }},
      {"two-pass 8x256 k16", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 1; }},
      {"two-pass 8x256 k8", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 0, t.fused_max_radius = -1, t.pass_shape = 2; }},
      {"two-pass tc 2xFP16", 1 << 20, [](cuda::SepTuning& t) { t.pass_tc16 = 1, t.fused_max_radius = -1; }},
  };
}

Image random_image(int w, int h, int c, uint32_t seed) {
  Image img(w, h, c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (float& v : img.data) v = u(rng);
  return img;
}

// Max abs error of every variant (and the default) vs reference_run; false if any exceeds 1e-5.
bool check_variants(Backend& b) {
  auto& tune = cuda::sep_tuning();
  const cuda::SepTuning defaults = tune;
  std::vector<SepVariant> vars = sep_variants();
  vars.insert(vars.begin(), {"default", 1 << 20, [](cuda::SepTuning&) {}});
  std::vector<double> worst(vars.size(), 0.0);
  std::vector<std::string> worst_case(vars.size());
  struct Sz { int w, h; };
  const Sz sizes[] = {{1023, 517}, {37, 29}, {4097, 33}, {1, 1}};
  uint32_t seed = 99;
  bool ok = true;
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
            Image got;
            double d_ms = 0;
            if (!cuda_fill_output(b, std::numeric_limits<float>::quiet_NaN()) || !b.run(plan, info) ||
                !b.download(got, d_ms) || got.data.size() != want.data.size()) {
              std::fprintf(stderr, "check: %s failed to run\n", vars[v].name);
              tune = defaults;
              return false;
            }
            double err = 0;
            for (size_t i = 0; i < want.data.size(); ++i) {
              const double d = std::fabs(double(got.data[i]) - double(want.data[i]));
              err = std::max(err, std::isnan(d) ? std::numeric_limits<double>::infinity() : d);
            }
            if (err > 1e-5) ok = false;
            if (err > 1e-5 || err > worst[v]) {
              if (err > 1e-5)
                std::printf("CHECK FAIL %s path=%s %dx%dx%d border=%s sigma=%g: max abs error %.3g\n",
                            vars[v].name, info.path.c_str(), sz.w, sz.h, c, border, sigma, err);
              if (err > worst[v]) {
                worst[v] = err;
                char buf[160];
                std::snprintf(buf, sizeof buf, "%s %dx%dx%d %s sigma=%g", info.path.c_str(), sz.w, sz.h, c,
                              border, sigma);
                worst_case[v] = buf;
              }
            }
          }
        }
    }
  tune = defaults;
  for (size_t v = 0; v < vars.size(); ++v)
    std::printf("check %-20s max abs error %.3g (%s)\n", vars[v].name, worst[v], worst_case[v].c_str());
  std::printf("check: %s\n", ok ? "all variants within 1e-5" : "FAILED");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
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
  std::printf("%-34s %-22s %9s %9s %9s %7s\n", "case", "path", "median", "min", "GB/s", "x copy");
  auto row = [&](const std::string& name, const Result& r) {
    std::printf("%-34s %-22s %9.3f %9.3f %9.1f %7.2f\n", name.c_str(), r.path.c_str(), r.median, r.min,
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
      for (const SepVariant& v : sep_variants()) {
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
  if (has("check")) return check_variants(*b) ? 0 : 1;
  return 0;
}
