// Shared helpers of the CUDA tests: the backend (one per process), skip reasons, plans.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "core/plan.hpp"
#include "gpu/cuda/cuda_backend.hpp"

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

}  // namespace gpublur::testing
