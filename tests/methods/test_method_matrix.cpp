// The registry-driven test: every method x every variant of its enum parameters x backend x border mode x
// channel count x odd sizes, on random images, against the CPU reference (core/reference/). A method gets in
// by being in the registry. The bound is the plan's tolerance: 1e-5 where a backend's arithmetic is the
// reference's up to float rounding, a recipe's measured bound elsewhere. Backends that are not compiled in
// or have no device skip with the reason; the GL backend runs for real on Mesa's llvmpipe.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "core/backend.hpp"
#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "core/registry.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur {
namespace {

struct Case {
  std::string method, backend;
  std::map<std::string, std::string> params;  // sigma, border, and the variant's enum choices
  std::string variant;                        // e.g. "impl-sat" (for the test name)
  int channels = 1;
  int width = 1, height = 1;
};

// Sizes: a single pixel, a tiny image smaller than most kernels, and an odd size bigger than the GPUs'
// tiles: 203x117 in CI (llvmpipe runs every case of the GL column there), 1023x517 where
// GPUBLUR_MATRIX_LARGE=1 (the GPU check sets it).
std::vector<std::pair<int, int>> sizes() {
  const char* large = std::getenv("GPUBLUR_MATRIX_LARGE");
  if (large && std::string(large) == "1") return {{1, 1}, {7, 3}, {1023, 517}};
  return {{1, 1}, {7, 3}, {203, 117}};
}
// Sigmas: a small kernel and one whose reach exceeds the tiny sizes.
const std::vector<double> kSigmas = {1.5, 5.0};

// Files for Path parameters (a method's input file), by parameter name: (short name, path) pairs, written once
// into a temporary folder. kernel: user kernels of every shape the recipe tells apart -- a non-separable
// matrix with negative weights (the direct 2D path), an asymmetric 1D row, an asymmetric rank-1 matrix of
// different factors, a symmetric outer product (equal factors: the fused pair), and a 1D row of radius 20,
// with GPUBLUR_KERNEL_FFT_MIN_RADIUS=16 set here so that it takes the FFT form.
const std::map<std::string, std::vector<std::pair<std::string, std::string>>>& path_files() {
  static const auto files = [] {
    namespace fs = std::filesystem;
    setenv("GPUBLUR_KERNEL_FFT_MIN_RADIUS", "16", 1);
    const fs::path dir = fs::temp_directory_path() / ("gpublur_matrix_" + std::to_string(getpid()));
    fs::create_directories(dir);
    static struct Cleanup {  // removed when the test exits
      fs::path d;
      ~Cleanup() {
        std::error_code ec;
        fs::remove_all(d, ec);
      }
    } cleanup{dir};
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> out;
    auto write = [&](const std::string& param, const std::string& name, const std::string& text) {
      const fs::path f = dir / (name + ".txt");
      std::ofstream(f) << text;
      out[param].emplace_back(name, f.string());
    };
    write("kernel", "m5x3", "0.05 -0.1 0.2 0.1 0.02\n0.1 0.3 -0.05 0.15 0.05\n0 0.08 0.1 -0.02 0.04\n");
    write("kernel", "row7", "# asymmetric\n0.05, 0.1, 0.2, 0.3, 0.2, 0.1, 0.02\n");
    std::string rank1, outer, fft;
    const double col[5] = {0.1, 0.25, 0.4, 0.2, 0.05}, row[3] = {0.2, 0.5, 0.3};
    for (double c : col) rank1 += fmt::format("{:.17g} {:.17g} {:.17g}\n", c * row[0], c * row[1], c * row[2]);
    const double g[7] = {0.03, 0.11, 0.22, 0.28, 0.22, 0.11, 0.03};
    for (double a : g) {
      for (double b : g) outer += fmt::format("{:.17g} ", a * b);
      outer += "\n";
    }
    for (int k = -20; k <= 20; ++k) fft += fmt::format("{:.17g} ", std::exp(-0.5 * (k - 2) * (k - 2) / 49.0));
    write("kernel", "rank1", rank1);
    write("kernel", "outer7", outer);
    write("kernel", "fft41", fft + "\n");
    return out;
  }();
  return files;
}

bool has_path_param(const MethodSpec& m) {
  for (const ParamSpec& p : m.params)
    if (p.type == ParamType::Path) return true;
  return false;
}

// Every combination of a method's enum parameters other than the border, and of its Path parameters over
// path_files(). "@name" values stand for files in variant names.
std::vector<std::map<std::string, std::string>> variants(const MethodSpec& m) {
  std::vector<std::map<std::string, std::string>> out{{}};
  for (const ParamSpec& p : m.params) {
    std::vector<std::string> values;
    if (p.type == ParamType::Enum && p.name != "border") values = p.choices;
    if (p.type == ParamType::Path) {
      auto it = path_files().find(p.name);
      if (it != path_files().end())
        for (const auto& f : it->second) values.push_back(f.second);
    }
    if (values.empty()) continue;
    std::vector<std::map<std::string, std::string>> next;
    for (const auto& v : out)
      for (const auto& c : values) {
        auto w = v;
        w[p.name] = c;
        next.push_back(w);
      }
    out = next;
  }
  return out;
}

// A variant's value as it appears in the test name: a file by its short name.
std::string value_name(const std::string& param, const std::string& value) {
  auto it = path_files().find(param);
  if (it != path_files().end())
    for (const auto& f : it->second)
      if (f.second == value) return f.first;
  return value;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  // The backend varies fastest, so the backends of one case share its reference (see the test body).
  for (const MethodSpec& m : method_registry())
    for (const auto& var : variants(m))
      for (const std::string border : {"clamp", "mirror", "wrap", "zero"})
        for (int c = 1; c <= 4; ++c)
          for (auto [w, h] : sizes())
            for (double sigma : kSigmas)
              for (const std::string& backend : m.backends) {
                // copy ignores sigma; a method with an input file takes its reach from the file.
                if ((m.bandwidth_floor || has_path_param(m)) && sigma != kSigmas[0]) continue;
                Case k;
                k.method = m.name, k.backend = backend, k.channels = c, k.width = w, k.height = h;
                k.params = var;
                k.params["border"] = border;
                k.params["sigma"] = std::to_string(sigma);
                for (const auto& [name, value] : var)
                  k.variant += (k.variant.empty() ? "" : "_") + name + "_" + value_name(name, value);
                cases.push_back(k);
              }
  // --downsample (core/methods/downsample.cpp) around every method that takes it: the resampling passes and
  // the method's program at 1/2 resolution, on every backend.
  for (const MethodSpec& m : method_registry())
    if (find_param(m, "downsample") && !has_path_param(m))
      for (const std::string border : {"clamp", "zero"})
        for (int c : {1, 3})
          for (auto [w, h] : sizes())
            for (const std::string& backend : m.backends) {
              Case k;
              k.method = m.name, k.backend = backend, k.channels = c, k.width = w, k.height = h;
              k.params = {{"border", border}, {"sigma", std::to_string(kSigmas[1])}, {"downsample", "2"}};
              k.variant = "downsample_2";
              cases.push_back(k);
            }
  // A method that picks its working resolution from sigma (downsample's default derived from sigma): its own
  // choice at sigma 12 and 48 (kawase: 1/4 and 1/8 resolution), down to images smaller than F.
  for (const MethodSpec& m : method_registry())
    if (const ParamSpec* d = find_param(m, "downsample"); d && d->derived)
      for (const std::string border : {"clamp", "zero"})
        for (int c : {1, 3})
          for (auto [w, h] : sizes())
            for (double sigma : {12.0, 48.0})
              for (const std::string& backend : m.backends) {
                Case k;
                k.method = m.name, k.backend = backend, k.channels = c, k.width = w, k.height = h;
                k.params = {{"border", border}, {"sigma", std::to_string(sigma)}};
                k.variant = "downsample_auto";
                cases.push_back(k);
              }
  // Tall images on CUDA: more tile rows than gridDim.y's 65535 (tiles of 64 rows from 4194240 rows on; the GL backend
  // refuses sides past its texture limit). Every method and variant at sigma 1.5 (radius 5: the fixed-radius and
  // 8- to 32-row tiles), gauss-sep also at sigma 5 (the 16-row pass tiles). gauss-linear's sampler arrays take at most
  // 65536 rows (a clean refusal: cudaMallocArray's error).
  for (const MethodSpec& m : method_registry())
    if (m.name != "gauss-linear" && std::find(m.backends.begin(), m.backends.end(), "cuda") != m.backends.end())
      for (const auto& var : variants(m))
        for (double sigma : {1.5, 5.0}) {
          if (sigma != 1.5 && m.name != "gauss-sep") continue;
          Case k;
          k.method = m.name, k.backend = "cuda", k.channels = 1, k.width = 2, k.height = 4200007;
          k.params = var;
          k.params["border"] = "clamp";
          k.params["sigma"] = std::to_string(sigma);
          k.variant = "tall";
          for (const auto& [name, value] : var) k.variant += "_" + name + "_" + value_name(name, value);
          cases.push_back(k);
        }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& k = info.param;
  std::string s = k.method + (k.variant.empty() ? "" : "_" + k.variant) + "_" + k.backend + "_" +
                  k.params.at("border") + "_c" + std::to_string(k.channels) + "_" + std::to_string(k.width) + "x" +
                  std::to_string(k.height) + "_s" + k.params.at("sigma").substr(0, 3);
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

// One backend of each kind for the whole run (GL contexts and CUDA setup are not free).
Backend* backend_for(const std::string& name, std::string& why) {
  static std::map<std::string, std::pair<std::unique_ptr<Backend>, std::string>> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    std::string error;
    auto b = make_backend(name, BackendOptions{}, error);
    it = cache.emplace(name, std::make_pair(std::move(b), error)).first;
  }
  why = it->second.second;
  return it->second.first.get();
}

class MethodMatrix : public ::testing::TestWithParam<Case> {};

TEST_P(MethodMatrix, MatchesTheCpuReference) {
  const Case& k = GetParam();
  Plan plan;
  ASSERT_TRUE(resolve_plan(k.method, k.params, plan).ok());
  std::string why;
  Backend* b = backend_for(k.backend, why);
  if (!b) {
    // The GPU check sets GPUBLUR_REQUIRE_GL / GPUBLUR_REQUIRE_CUDA: there a missing backend is a failure.
    std::string var = "GPUBLUR_REQUIRE_" + k.backend;
    for (char& ch : var) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    const char* required = std::getenv(var.c_str());
    if (required && std::string(required) == "1") FAIL() << "backend " << k.backend << " required but unavailable: " << why;
    GTEST_SKIP() << "backend " << k.backend << " unavailable: " << why;
  }

  const Image src = testing::random_image(k.width, k.height, k.channels, 1234u + unsigned(k.channels));
  // The reference of a case serves every backend (the GPU check runs all three in one process).
  static std::map<std::string, Image> references;
  std::string key = k.method + "/" + std::to_string(k.channels) + "/" + std::to_string(k.width) + "x" +
                    std::to_string(k.height);
  for (const auto& [n, v] : k.params) key += "/" + n + "=" + v;
  if (!references.count(key)) {
    if (references.size() > 64) references.clear();  // cases of one key run together (gtest order); memory stays flat
    ASSERT_TRUE(reference_run(plan, src, references[key]).ok());
  }
  const Image& ref = references[key];
  Image out;
  double ms = 0;
  ASSERT_TRUE(b->upload(src, ms).ok());
  RunInfo info;
  const Status run = b->run(plan, info);
  ASSERT_TRUE(run.ok()) << run.error;
  ASSERT_TRUE(b->download(out, ms).ok());
  ASSERT_EQ(out.width, src.width);
  ASSERT_EQ(out.height, src.height);
  ASSERT_EQ(out.channels, src.channels);
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < ref.data.size(); ++i) {
    const double d = std::abs(double(out.data[i]) - double(ref.data[i]));
    if (!(d <= worst)) worst = d, at = i;  // NaN (an unwritten pixel) counts as worst
  }
  EXPECT_LE(worst, plan.tolerance) << "path " << info.path << ", program " << plan.details.at("program")
                                   << ", worst at value " << at << ": " << out.data[at] << " vs " << ref.data[at];
}

INSTANTIATE_TEST_SUITE_P(Registry, MethodMatrix, ::testing::ValuesIn(all_cases()), case_name);

// The matrix really covers the registry: every method, every backend it declares, every enum choice.
TEST(MethodMatrixCoverage, EveryMethodVariantAndBackendIsWalked) {
  const std::vector<Case> cases = all_cases();
  for (const MethodSpec& m : method_registry())
    for (const std::string& backend : m.backends)
      for (const auto& var : variants(m)) {
        const bool found = std::any_of(cases.begin(), cases.end(), [&](const Case& k) {
          if (k.method != m.name || k.backend != backend) return false;
          for (const auto& [n, v] : var)
            if (k.params.at(n) != v) return false;
          return true;
        });
        EXPECT_TRUE(found) << m.name << " on " << backend;
      }
}

}  // namespace
}  // namespace gpublur
