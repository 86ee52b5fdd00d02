// Kernel timing for tuning the CUDA backend (the user-facing benchmark is `gpublur bench`).
// Usage: cuda_kernel_timing [size=4096] [channels=4] [repeats=20] [sep-only]
// sep-only: just copy and the default gauss-sep at sigma 3, 12, 48 (for profiling under ncu).
// Random image, CUDA-event time of each run(), 3 warm-ups, median and min of `repeats`, ratio to copy.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/gauss.hpp"
#include "core/plan.hpp"
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

  if (argc > 4 && std::string(argv[4]) == "sep-only") {
    for (double sigma : {3.0, 12.0, 48.0}) {
      Result r;
      if (time_plan(*b, plan_for("gauss-sep", sigma), repeats, r)) row("gauss-sep sigma=" + std::to_string(int(sigma)), r);
    }
    return 0;
  }
  auto& tune = cuda::sep_tuning();
  const cuda::SepTuning defaults = tune;
  for (double sigma : {1.0, 3.0, 5.0, 12.0, 48.0}) {
    const std::string s = " sigma=" + std::to_string(int(sigma));
    Result r;
    tune = defaults;
    if (time_plan(*b, plan_for("gauss-sep", sigma), repeats, r)) row("gauss-sep" + s, r);
    if (default_radius(sigma) <= 24) {
      // Alternatives for tuning: the other fused tile height, and the two-pass kernel.
      tune.fused_max_radius = 24;
      tune.fused_tile_h = defaults.fused_tile_h == 32 ? 64 : 32;
      if (time_plan(*b, plan_for("gauss-sep", sigma), repeats, r)) row("gauss-sep (alt tile)" + s, r);
      tune = defaults;
      tune.fused_max_radius = -1;
      if (time_plan(*b, plan_for("gauss-sep", sigma), repeats, r)) row("gauss-sep (two-pass)" + s, r);
      tune = defaults;
    }
  }
  for (double sigma : {3.0, 12.0, 48.0}) {
    const std::string s = " sigma=" + std::to_string(int(sigma));
    Result r;
    for (const char* interp : {"exact", "hardware"})
      if (time_plan(*b, plan_for("gauss-linear", sigma, {{"interp", interp}}), repeats, r))
        row(std::string("gauss-linear/") + interp + s, r);
  }
  for (double sigma : {3.0, 12.0, 48.0}) {
    Result r;
    if (time_plan(*b, plan_for("gauss-2d", sigma), sigma > 20 ? 3 : repeats, r))
      row("gauss-2d sigma=" + std::to_string(int(sigma)), r);
  }
  return 0;
}
