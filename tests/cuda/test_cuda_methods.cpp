// Every CUDA method against the CPU reference (reference_run) on random images: every border mode,
// 1-4 channels, sizes that are not tile multiples, sigma 0.5 to 64 (and a radius far beyond the image).
// The output buffer is poisoned with NaN before each run, so pixels a kernel does not write fail.
// GPUBLUR_CUDA_TEST_SMALL=1 swaps the large sizes for 200x150 (for compute-sanitizer runs);
// GPUBLUR_CUDA_TEST_MAX_SIGMA=12 also drops the larger sigmas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <tuple>
#include <vector>

#include "core/reference/reference.hpp"
#include "core/random_image.hpp"
#include "cuda/cuda_test_util.hpp"

namespace gpublur::testing {
namespace {

struct Variant {
  const char* name;    // test name part
  const char* method;  // registry name
  const char* interp;  // gauss-linear interp, or nullptr
};

const Variant kVariants[] = {
    {"copy", "copy", nullptr},
    {"gauss_2d", "gauss-2d", nullptr},
    {"gauss_sep", "gauss-sep", nullptr},
    {"gauss_linear_exact", "gauss-linear", "exact"},
    {"gauss_linear_hardware", "gauss-linear", "hardware"},
};
const char* kBorders[] = {"clamp", "mirror", "wrap", "zero"};

struct Size {
  int w, h;
};

bool small_mode() {
  const char* e = std::getenv("GPUBLUR_CUDA_TEST_SMALL");
  return e && std::string(e) == "1";
}

std::vector<Size> sizes() {
  if (small_mode()) return {{1, 1}, {7, 3}, {200, 150}};
  return {{1, 1}, {7, 3}, {1023, 517}, {4097, 33}};
}

// Sigmas per method and size: the direct 2D reference costs (2r+1)^2 taps per pixel, so large sigmas run
// on small images only. 3 (radius 9) is the largest fused gauss-sep radius, 5.4 (radius 17) runs two
// passes; 200 (radius 600) exceeds every image here and the shared-memory tiles (global-memory fallbacks).
std::vector<double> sigmas_all(const std::string& method, const Size& s);

// GPUBLUR_CUDA_TEST_MAX_SIGMA caps the sigmas (racecheck is slow on wide kernels).
std::vector<double> sigmas(const std::string& method, const Size& s) {
  std::vector<double> all = sigmas_all(method, s);
  if (const char* e = std::getenv("GPUBLUR_CUDA_TEST_MAX_SIGMA")) {
    const double cap = std::atof(e);
    all.erase(std::remove_if(all.begin(), all.end(), [&](double v) { return v > cap && v != all.front(); }),
              all.end());
  }
  return all;
}

std::vector<double> sigmas_all(const std::string& method, const Size& s) {
  if (method == "copy") return {1.0};
  const bool tiny = size_t(s.w) * s.h <= 64;
  if (method == "gauss-2d") {
    if (tiny) return {0.5, 3, 12, 64, 200};
    return {0.5, 3};
  }
  if (tiny) return {0.5, 3, 5.4, 12, 64, 200};
  return {0.5, 3, 5.4, 12, 64};
}

class CudaMethods : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(CudaMethods, MatchReference) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  const Variant& v = kVariants[std::get<0>(GetParam())];
  const std::string border = kBorders[std::get<1>(GetParam())];
  const bool hardware = v.interp && std::string(v.interp) == "hardware";
  std::map<std::string, std::string> extra;
  if (v.interp) extra["interp"] = v.interp;

  double worst = 0;
  std::string worst_case;
  uint32_t seed = 1234u + 97u * std::get<0>(GetParam()) + 13u * std::get<1>(GetParam());
  for (const Size& sz : sizes()) {
    for (int c = 1; c <= 4; ++c) {
      const Image src = random_image(sz.w, sz.h, c, seed++);
      double up_ms = 0;
      const Status us = backend->upload(src, up_ms);
      ASSERT_TRUE(us.ok()) << us.error;
      for (double sigma : sigmas(v.method, sz)) {
        const Plan plan = make_plan(v.method, sigma, border, extra);
        const std::string what = std::string(v.method) + (v.interp ? std::string("/") + v.interp : "") +
                                 " border=" + border + " " + std::to_string(sz.w) + "x" +
                                 std::to_string(sz.h) + "x" + std::to_string(c) + " sigma=" + num_text(sigma) +
                                 " radius=" + std::to_string(plan.radius);
        SCOPED_TRACE(what);
        Image want;
        ASSERT_TRUE(reference_run(plan, src, want).ok());

        ASSERT_TRUE(cuda_fill_output(*backend, std::numeric_limits<float>::quiet_NaN()).ok());
        RunInfo info;
        const Status rs = backend->run(plan, info);
        ASSERT_TRUE(rs.ok()) << rs.error;
        EXPECT_GE(info.compute_ms, 0.0);
        if (v.interp && hardware) EXPECT_EQ(info.path, "texture-hw");
        if (v.interp && !hardware) EXPECT_EQ(info.path.rfind("exact-split-taps/", 0), 0u) << info.path;
        Image got;
        double down_ms = 0;
        const Status ds = backend->download(got, down_ms);
        ASSERT_TRUE(ds.ok()) << ds.error;
        ASSERT_EQ(got.width, sz.w);
        ASSERT_EQ(got.height, sz.h);
        ASSERT_EQ(got.channels, c);

        double err = 0;
        size_t bad = 0;
        for (size_t i = 0; i < want.data.size(); ++i) {
          const double d = std::fabs(double(got.data[i]) - double(want.data[i]));
          if (!(d <= 1.0)) ++bad;  // NaN (unwritten) or wildly wrong
          err = std::max(err, std::isnan(d) ? std::numeric_limits<double>::infinity() : d);
        }
        EXPECT_EQ(bad, 0u) << "values not written or far off (path " << info.path << ")";
        // Hardware interpolation: the texture unit's weights have 8 fractional bits, so each pass may
        // be off by up to (sum of weights = 1) x (value range = 1) / 256; two passes: 2/256.
        const double tol = hardware ? 2.0 / 256.0 : 1e-5;
        EXPECT_LE(err, tol) << "max abs error " << err << " (path " << info.path << ")";
        if (err > worst) {
          worst = err;
          worst_case = what + " path=" + info.path;
        }
      }
    }
  }
  std::printf("[ measured ] %s/%s border=%s: max abs error %.3g (%s)\n", v.method, v.interp ? v.interp : "-",
              border.c_str(), worst, worst_case.c_str());
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<int, int>>& info) {
  return std::string(kVariants[std::get<0>(info.param)].name) + "_" + kBorders[std::get<1>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(AllMethodsAllBorders, CudaMethods,
                         ::testing::Combine(::testing::Range(0, int(std::size(kVariants))),
                                            ::testing::Range(0, 4)),
                         case_name);

}  // namespace
}  // namespace gpublur::testing
