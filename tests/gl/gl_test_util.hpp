// Helpers shared by the GL tests: one backend per process (context creation and shader compiles cost
// seconds on llvmpipe), plans, error measures.
#pragma once
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/plan.hpp"
#include "core/program.hpp"
#include "core/reference/reference.hpp"
#include "gpu/gl/gl_backend.hpp"
#include "tests/core/image_diff.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur::testing {

// Skips only where no EGL display can be made; GPUBLUR_REQUIRE_GL=1 makes that a failure instead.
#define GPUBLUR_GL_OR_SKIP(backend_ptr, error)                                          \
  do {                                                                                  \
    if (!(backend_ptr)) {                                                               \
      const char* req = std::getenv("GPUBLUR_REQUIRE_GL");                              \
      if ((error).rfind("GL: no usable EGL display", 0) == 0 && !(req && *req == '1'))  \
        GTEST_SKIP() << (error);                                                        \
      FAIL() << (error);                                                                \
    }                                                                                   \
  } while (0)

inline Backend* shared_gl(bool half, std::string& error) {
  static std::map<bool, std::unique_ptr<Backend>> backends;
  static std::map<bool, std::string> errors;
  if (!backends.count(half)) {
    BackendOptions o;
    o.half_storage = half;
    backends[half] = make_gl_backend(o, errors[half]);
  }
  error = errors[half];
  return backends[half].get();
}

// Whether the backend runs on Mesa's llvmpipe (some schedules are chosen only there).
inline bool on_llvmpipe(const Backend& be) { return be.device_name().find("llvmpipe") != std::string::npos; }

inline Plan make_plan(const std::string& method, std::map<std::string, std::string> params) {
  Plan p;
  const Status s = resolve_plan(method, params, p);
  EXPECT_TRUE(s.ok()) << s.error;
  return p;
}

// A plan around a hand-built program (schedules no recipe builds yet: lone passes, arbitrary widths, padded
// copies); validated like a recipe's.
inline Plan program_plan(const Program& program, Border border = Border::Clamp) {
  Plan p;
  p.method = "program";
  p.border = border;
  p.program = program;
  const Status s = validate_program(program);
  EXPECT_TRUE(s.ok()) << s.error;
  return p;
}

inline Pass make_pass(Op op, int src, int dst, int axis, Border border) {
  Pass p;
  p.op = op, p.src = src, p.dst = dst, p.axis = axis, p.border = border;
  return p;
}

// Sets environment variables (GPUBLUR_GL_* knobs, read per run) for a scope; restores them however it ends.
class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const char* name, const std::string& value) { set(name, value); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  void set(const char* name, const std::string& value) {  // "" unsets
    const char* old = std::getenv(name);
    saved_.push_back({name, old != nullptr, old ? old : ""});
    if (value.empty())
      unsetenv(name);
    else
      setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->had)
        setenv(it->name, it->value.c_str(), 1);
      else
        unsetenv(it->name);
    }
  }

 private:
  struct Saved {
    const char* name;
    bool had;
    std::string value;
  };
  std::vector<Saved> saved_;
};

// Runs `plan` on the backend; `out` is poisoned with NaN before the download.
inline Status gl_run(Backend& be, const Plan& plan, const Image& src, Image& out, RunInfo* info = nullptr) {
  double ms = 0;
  if (Status s = be.upload(src, ms); !s) return s;
  RunInfo ri;
  if (Status s = be.run(plan, ri); !s) return s;
  if (info) *info = ri;
  out = Image(src.width, src.height, src.channels);
  for (float& v : out.data) v = NAN;
  return be.download(out, ms);
}

// Max abs difference between the GL result of `plan` on `src` and the CPU reference's, in `err`.
inline Status gl_error_vs_reference(Backend& be, const Plan& plan, const Image& src, double& err,
                                    RunInfo* info = nullptr) {
  Image want, got;
  if (Status s = reference_run(plan, src, want); !s) return Status::fail("reference: " + s.error);
  if (Status s = gl_run(be, plan, src, got, info); !s) return s;
  err = max_abs_diff(got, want);
  return Status::success();
}

// Expects the GL result of `plan` on `src` within `bound` of the reference (values in [0, 1)) and, unless
// empty, RunInfo.path == `path`; returns the error (infinity where the run failed).
inline double expect_matches_reference(Backend& be, const Plan& plan, const Image& src, const std::string& path,
                                       double bound = 1e-5) {
  RunInfo info;
  double err = 0;
  const Status s = gl_error_vs_reference(be, plan, src, err, &info);
  EXPECT_TRUE(s.ok()) << s.error;
  if (!s.ok()) return INFINITY;
  if (!path.empty()) {
    EXPECT_EQ(info.path, path);
  }
  EXPECT_LE(err, bound);
  return err;
}

constexpr Border kBorders[] = {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero};

}  // namespace gpublur::testing
