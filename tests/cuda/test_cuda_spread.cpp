// spread on the device against the CPU reference with radii whose margins the registry test does not reach:
// the fold from core's taps (the rows' and columns' sums, the folded lines, the corners) at R 6, 40, 118 (sigma 48)
// and 600 (mirror and wrap read the image many times over), every border, 1, 2 and 4 channels, an image smaller
// than the tent and a wider one; outputs poisoned with NaN first (run_vs_reference); the two tables as the sat
// pair. The reference keeps the fold written out (every margin pixel). Skips without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/random_image.hpp"
#include "cuda/cuda_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(CudaSpread, FoldedMarginsMatchTheReference) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  const std::vector<std::pair<int, int>> sizes = {{7, 3}, {203, 117}};
  double worst = 0;
  for (int channels : {1, 2, 4})
    for (auto [w, h] : sizes) {
      const Image src = random_image(w, h, channels, 71u + unsigned(w + channels));
      double ms = 0;
      ASSERT_TRUE(backend->upload(src, ms).ok());
      for (int R : {6, 40, 118, 600})
        for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
          const Plan plan = make_plan("spread", 1.0, border, {{"radius", std::to_string(R)}});
          std::string path;
          const double err = run_vs_reference(*backend, plan, src, path);
          EXPECT_EQ(path, "spread+sat-pair+scale");
          EXPECT_LE(err, plan.tolerance) << "R " << R << " c" << channels << " " << w << "x" << h << " " << border;
          worst = std::max(worst, err);
        }
    }
  std::printf("[ measured ] spread, folded margins on CUDA: max abs error %.3g\n", worst);
}

}  // namespace
}  // namespace gpublur::testing
