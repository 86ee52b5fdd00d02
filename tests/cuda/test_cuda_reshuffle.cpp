// reshuffle's four CUDA paths on the device against the CPU reference (the registry test reaches only the first:
// its sigmas keep the tile in shared memory and the links in constant memory). Radii and channel counts chosen
// for each path: RGBA r 9 (tile, constant links), 1 channel r 60 (tile, links in global memory: 14641 offsets),
// RGBA r 48 (the 128^2 RGBA tile exceeds shared memory: global reads, constant links), RGBA r 60 (global reads
// and links). Every border, an image smaller than the kernel and one over several tiles; outputs poisoned with
// NaN first. Skips without a device (tests/cuda/test_cuda_reshuffle_emulated.cu runs the block logic anywhere).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/random_image.hpp"
#include "cuda/cuda_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(CudaReshuffle, EveryPathMatchesTheReference) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  struct Case {
    double sigma;
    int radius, channels;
  };
  const std::vector<Case> cases = {{3, 9, 4}, {20, 60, 1}, {16, 48, 4}, {20, 60, 4}};
  const std::vector<std::pair<int, int>> sizes =
      small_mode() ? std::vector<std::pair<int, int>>{{7, 3}, {61, 37}} : std::vector<std::pair<int, int>>{{7, 3}, {203, 117}};
  std::set<std::string> paths;
  double worst = 0;
  for (const Case& k : cases)
    for (auto [w, h] : sizes) {
      const Image src = random_image(w, h, k.channels, 41u + unsigned(w + k.channels));
      double ms = 0;
      ASSERT_TRUE(backend->upload(src, ms).ok());
      for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
        const Plan plan = make_plan("reshuffle", k.sigma, border, {{"radius", std::to_string(k.radius)}});
        std::string path;
        const double err = run_vs_reference(*backend, plan, src, path);
        EXPECT_LE(err, plan.tolerance) << "r " << k.radius << " c" << k.channels << " " << w << "x" << h << " "
                                       << border << " path " << path;
        paths.insert(path);
        worst = std::max(worst, err);
      }
    }
  for (const char* p : {"reshuffle-smem-const", "reshuffle-smem-global-links", "reshuffle-global-const",
                        "reshuffle-global"})
    EXPECT_EQ(paths.count(p), 1u) << p << " not run";
  std::printf("[ measured ] reshuffle, every CUDA path: max abs error %.3g\n", worst);
}

// A constant image at large sigma: the float32 sum over up to 1.2M sets (radius 1536) adds the smallest weights first
// (core/reshuffle.cpp). With the centre first GL on llvmpipe lost 8e-5 of 0.7 at sigma 200 and 1.4e-3 at 512; the
// bounds are GL's measured errors in this order (1.5e-7, 1.5e-5) with room (tests/gl/gl_reshuffle_test.cpp).
TEST(CudaReshuffle, AConstantImageStaysConstantAtLargeSigma) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  for (int c : {1, 4}) {
    Image src(3, 2, c);
    std::fill(src.data.begin(), src.data.end(), 0.7f);
    double ms = 0;
    ASSERT_TRUE(backend->upload(src, ms).ok());
    for (const auto& [sigma, bound] : std::vector<std::pair<double, double>>{{200, 2e-6}, {512, 3e-5}}) {
      std::string path;
      const double err = run_vs_reference(*backend, make_plan("reshuffle", sigma, "clamp"), src, path);
      EXPECT_LE(err, bound) << "sigma " << sigma << " c" << c << " path " << path;
      std::printf("[ measured ] reshuffle of a constant 0.7, sigma %g, %d channel(s): max abs error %.3g (%s)\n", sigma,
                  c, err, path.c_str());
    }
  }
}

}  // namespace
}  // namespace gpublur::testing
