// conv2d-matrix's CUDA paths on the device against the CPU reference: the ring kernel (passes/conv2d_ring.cuh) with
// weights in constant memory (up to kConv2dMatrixConstTaps) and in global memory (a 101 x 101 matrix), odd and
// non-square matrices, a matrix wider than a block's 128 columns, and the global kernel (RGBA wider than the ring
// holds). Every border, 1, 2 and 4 channels, an image smaller than the matrix and one over several blocks; outputs
// poisoned with NaN first. Skips without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/random_image.hpp"
#include "cuda/cuda_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(CudaConv2dMatrix, EveryPathMatchesTheReference) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  struct Case {
    int kw, kh, channels;
  };
  const std::vector<Case> cases = {{9, 5, 1}, {3, 11, 2}, {19, 19, 4}, {201, 3, 4}, {101, 101, 1}, {1001, 1, 4}};
  const std::vector<std::pair<int, int>> sizes = small_mode()
                                                     ? std::vector<std::pair<int, int>>{{7, 3}, {150, 37}}
                                                     : std::vector<std::pair<int, int>>{{7, 3}, {301, 117}};
  std::set<std::string> paths;
  double worst = 0;
  for (const Case& k : cases) {
    Pass pass;
    pass.op = Op::Conv2dMatrix;
    pass.widths = {k.kw, k.kh};
    for (int i = 0; i < k.kw * k.kh; ++i) pass.taps.push_back(float((1.5 + std::cos(0.37 * i)) / (k.kw * k.kh)));
    for (auto [w, h] : sizes) {
      const Image src = random_image(w, h, k.channels, 53u + unsigned(w + k.channels));
      double ms = 0;
      ASSERT_TRUE(backend->upload(src, ms).ok());
      for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero}) {
        pass.border = b;
        Plan plan;
        plan.method = "program";
        plan.border = b;
        plan.program.passes = {pass};
        ASSERT_TRUE(validate_program(plan.program).ok());
        std::string path;
        const double err = run_vs_reference(*backend, plan, src, path);
        EXPECT_LE(err, 1e-5) << k.kw << "x" << k.kh << " c" << k.channels << " " << w << "x" << h << " "
                             << border_name(b) << " path " << path;
        paths.insert(path);
        worst = std::max(worst, err);
      }
    }
  }
  for (const char* p : {"matrix-2d-ring-const", "matrix-2d-ring-global-weights", "matrix-2d-global-const"})
    EXPECT_EQ(paths.count(p), 1u) << p << " not run";
  std::printf("[ measured ] conv2d-matrix, every CUDA path: max abs error %.3g\n", worst);
}

}  // namespace
}  // namespace gpublur::testing
