// The fused Down2 / Up2 schedules and the long Down2's rows-then-columns kernels on the device against the CPU
// reference's unfused passes: pyramids of every analysis filter at sigmas that give 1 to 7 levels (2 levels and
// up fuse the first two downs and the last two ups; the folded coarsest level runs rows then columns), and
// gauss-sep --downsample 4 and 8 (box2 Down2 pairs, Up2 pairs), kawase --impl dual at sigmas that give 1 to 6
// levels (the first two DualDown passes fused). Down2 / Up2 pairs fuse where their larger output is large
// (pass_table.cpp kPairMinPixels: 1500 x 900 here). Every border, 1, 3 and 4 channels (3 is stored as 4 on
// the device), odd sizes that cut tiles; outputs poisoned with NaN first. Checks that each schedule ran (the
// backend's path names). Skips without a device (test_cuda_resample_fused_emulated.cu runs the block logic
// anywhere).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/random_image.hpp"
#include "cuda/cuda_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(CudaResampleFused, FusedSchedulesMatchTheReference) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  struct Case {
    const char* method;
    double sigma;
    std::map<std::string, std::string> extra;
  };
  const std::vector<Case> cases = {
      {"pyramid", 12, {{"down", "quasi"}}},  {"pyramid", 48, {{"down", "quasi"}}},
      {"pyramid", 3, {{"down", "box4"}}},    {"pyramid", 12, {{"down", "box2"}}},
      {"pyramid", 20, {{"down", "mipmap"}}}, {"pyramid", 5, {{"down", "quasi"}, {"levels", "2"}}},
      {"pyramid", 200, {{"down", "quasi"}}}, {"gauss-sep", 12, {{"downsample", "4"}}},
      {"gauss-sep", 24, {{"downsample", "8"}}},
      {"kawase", 3, {{"impl", "dual"}}},     {"kawase", 12, {{"impl", "dual"}}},
      {"kawase", 48, {{"impl", "dual"}}},    {"kawase", 200, {{"impl", "dual"}}},
      {"kawase", 6, {{"impl", "dual"}, {"levels", "2"}}}};
  const std::vector<std::pair<int, int>> sizes =
      small_mode() ? std::vector<std::pair<int, int>>{{7, 5}, {77, 45}, {1500, 900}}
                   : std::vector<std::pair<int, int>>{{7, 5}, {203, 117}, {517, 301}, {1500, 900}};
  std::set<std::string> paths;
  double worst = 0;
  for (int c : {1, 3, 4})
    for (auto [w, h] : sizes) {
      const Image src = random_image(w, h, c, 7u + unsigned(w * c));
      double ms = 0;
      ASSERT_TRUE(backend->upload(src, ms).ok());
      for (const Case& k : cases)
        for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
          const Plan plan = make_plan(k.method, k.sigma, border, k.extra);
          std::string path;
          const double err = run_vs_reference(*backend, plan, src, path);
          EXPECT_LE(err, plan.tolerance) << k.method << " sigma " << k.sigma << " c" << c << " " << w << "x" << h
                                         << " " << border << " path " << path;
          // Quasi at sigma 12: 3 levels. At 1500 x 900 the first two downs pair, the folded third (375 x 225 ->
          // 188 x 113) runs rows then columns, the ups pair from their end (the two full-size passes). Where every
          // output is under the pairs' size (kPairMinPixels) each pass runs alone.
          if (std::string(k.method) == "pyramid" && k.sigma == 12 && k.extra.count("down") &&
              k.extra.at("down") == "quasi") {
            if (w == 1500) EXPECT_EQ(path, "down2-fused2+down2-rows-cols+up2+up2-fused2");
            if (w == 203 || w == 77) EXPECT_EQ(path, "down2+down2+down2-rows-cols+up2+up2+up2");
          }
          // kawase --impl dual with 2 levels and more: the first two down passes fused, the ups one per pass.
          if (std::string(k.method) == "kawase" && k.sigma >= 6) {
            EXPECT_EQ(path.rfind("dual-down-fused2+", 0), 0u) << path;
            EXPECT_TRUE(path.size() > 8 && path.compare(path.size() - 8, 8, "+dual-up") == 0) << path;
          }
          for (size_t a = 0, e; a <= path.size(); a = e + 1) {
            e = path.find('+', a);
            if (e == std::string::npos) e = path.size();
            paths.insert(path.substr(a, e - a));
          }
          worst = std::max(worst, err);
        }
    }
  for (const char* p : {"down2-fused2", "down2-mipmap-box-fused2", "up2-fused2", "down2-rows-cols", "dual-down-fused2"})
    EXPECT_EQ(paths.count(p), 1u) << p << " not run";
  std::printf("[ measured ] pyramid and --downsample, fused CUDA schedules: max abs error %.3g\n", worst);
}

}  // namespace
}  // namespace gpublur::testing
