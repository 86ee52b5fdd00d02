// Shared helpers of the CUDA tests: the backend (one per process), skip reasons, plans.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <string>

#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "gpu/cuda/cuda_backend.hpp"
#include "tests/core/image_diff.hpp"

namespace gpublur::testing {

// The process-wide CUDA backend, or null with `why` set when no device is usable.
inline Backend* cuda_backend_or_null(std::string& why) {
  static std::string reason;
  static std::unique_ptr<Backend> backend = [] {
    std::string err;
    if (!cuda_device_present(&err)) {
      reason = "no CUDA device: " + err;
      return std::unique_ptr<Backend>();
    }
    BackendOptions opts;
    auto b = make_cuda_backend(opts, err);
    if (!b) reason = err;
    return b;
  }();
  why = reason;
  return backend.get();
}

#define GPUBLUR_CUDA_BACKEND_OR_SKIP(var)                        \
  std::string var##_why;                                         \
  Backend* var = cuda_backend_or_null(var##_why);                \
  if (!var) GTEST_SKIP() << "skipped: " << var##_why

inline std::string num_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

inline Plan make_plan(const std::string& method, double sigma, const std::string& border,
                      const std::map<std::string, std::string>& extra = {}) {
  std::map<std::string, std::string> given = extra;
  given["sigma"] = num_text(sigma);
  given["border"] = border;
  Plan p;
  const Status s = resolve_plan(method, given, p);
  EXPECT_TRUE(s.ok()) << s.error;
  return p;
}

// GPUBLUR_CUDA_TEST_SMALL=1: small images only (compute-sanitizer runs).
inline bool small_mode() {
  const char* e = std::getenv("GPUBLUR_CUDA_TEST_SMALL");
  return e && std::string(e) == "1";
}

// Runs `plan` on the uploaded `src` (output poisoned with NaN first, so unwritten pixels fail) and compares with
// the CPU reference: max abs difference (infinity where a value is NaN or the shapes differ). Fails the test
// (ADD_FAILURE) if the run fails. `path`: the schedule the backend reports.
inline double run_vs_reference(Backend& b, const Plan& plan, const Image& src, std::string& path) {
  Image want, got;
  if (Status s = reference_run(plan, src, want); !s) {
    ADD_FAILURE() << "reference: " << s.error;
    return std::numeric_limits<double>::infinity();
  }
  RunInfo info;
  double ms = 0;
  Status s = cuda_fill_output(b, std::numeric_limits<float>::quiet_NaN());
  if (s) s = b.run(plan, info);
  if (s) s = b.download(got, ms);
  path = info.path;
  if (!s) {
    ADD_FAILURE() << s.error;
    return std::numeric_limits<double>::infinity();
  }
  return max_abs_diff(got, want);
}

}  // namespace gpublur::testing
