// The end-to-end tests' fixture (test_e2e*.cpp): a temporary folder per test, the binary run in it, images made
// with the lean adapter. Named (not in an anonymous namespace) so every file's TEST_F(E2E, ...) shares one fixture.
#pragma once
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/io/image_io.hpp"
#include "tests/e2e/run_binary.hpp"
#include "tests/test_paths.hpp"

namespace gpublur::e2e {

namespace fs = std::filesystem;
using nlohmann::json;
using Result = gpublur::testing::RunResult;
using gpublur::testing::quote;
using gpublur::testing::slurp;

// What gpublur says of a backend this build left out (GPUBLUR_CUDA / GPUBLUR_GL off): the tests skip that backend.
constexpr const char* kNotBuiltIn = "is not compiled into this binary";

class E2E : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("gpublur-e2e-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    io_ = make_lean_io();
    ASSERT_TRUE(io_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path at(const std::string& rel) const { return dir_ / rel; }

  Image write_nonfinite_exr();
  // img as in.exr, float R, G, B, A (alpha the last).
  void write_rgba_exr(const Image& img);
  // in.exr blurred by `args` (a method and its parameters) on cpu, gl and cuda, each where it runs here.
  std::map<std::string, Image> blur_on_every_backend(const std::string& args);

  // Runs the binary with `args` (already shell-quoted where needed); stdin from `stdin_text` if given.
  Result run(const std::string& args, const std::string& stdin_text = "", const std::string& env = "") {
    return gpublur::testing::run_gpublur(args, dir_, stdin_text, env);
  }

  // Random pixels (never constant), written with the lean adapter.
  void make_image(const std::string& rel, int w, int h, int c, PixelType t, uint32_t seed) {
    Image img(w, h, c);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (float& v : img.data) v = u(rng);
    ImageMeta meta;
    meta.format = format_from_extension(rel);
    meta.pixel_type = t;
    static const char* rgba[] = {"R", "G", "B", "A"};
    for (int k = 0; k < c; ++k)
      meta.channel_names.push_back(meta.format == "png" ? (c <= 2 ? (k ? "A" : "Y") : rgba[k])
                                   : c <= 4                ? rgba[k]
                                                           : "ch" + std::to_string(k));
    meta.alpha_channel = (c == 2 || c == 4) ? c - 1 : -1;
    meta.srgb = meta.format == "png";
    fs::create_directories(at(rel).parent_path());
    ASSERT_TRUE(io_->write(at(rel).string(), img, meta).ok()) << rel;
  }

  void make_bad_files(const std::string& folder) {
    std::ofstream(at(folder + "/zero.png"));  // zero bytes
    make_image(folder + "/.full.exr", 64, 48, 4, PixelType::Half, 99);
    const std::string full = slurp(at(folder + "/.full.exr"));
    fs::remove(at(folder + "/.full.exr"));
    std::ofstream(at(folder + "/truncated.exr"), std::ios::binary) << full.substr(0, full.size() / 2);
    make_image(folder + "/.real.png", 8, 8, 3, PixelType::UInt8, 98);
    fs::rename(at(folder + "/.real.png"), at(folder + "/mislabelled.exr"));
  }

  LoadedImage decode(const fs::path& p) {
    LoadedImage li;
    const Status s = io_->read(p.string(), ReadLimits{}, li);
    EXPECT_TRUE(s.ok()) << s.error;
    return li;
  }

  // Anything in `folder` (recursively) that is not a finished output: hidden temporaries.
  static std::vector<std::string> leftovers(const fs::path& folder) {
    std::vector<std::string> v;
    if (!fs::exists(folder)) return v;
    for (const auto& e : fs::recursive_directory_iterator(folder))
      if (e.path().filename().string()[0] == '.' || e.path().string().find(".tmp-") != std::string::npos)
        v.push_back(e.path().string());
    return v;
  }

  fs::path dir_;
  std::unique_ptr<ImageIO> io_;
};

// docs/NAME.schema.json: report (blur's report), bench (bench --json) or quality (quality --json).
inline json load_schema(const std::string& name = "report") {
  return json::parse(slurp(gpublur::testing::source_dir() + "/docs/" + name + ".schema.json"));
}

}  // namespace gpublur::e2e
