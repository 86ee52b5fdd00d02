// Iir1d's CUDA line code (gpu/cuda/passes/iir_line.cuh) run on the host: every value line of an image, placed
// as the kernel places them (iir_line_place: rows as row * ch + channel, columns as value columns), for 1, 2 and
// 4 device channels, both axes, every border, both filters and sigmas up to 200, against the CPU reference.
// No device needed: this checks the indexing and the border states; the compiled kernel is checked on a GPU by
// the method matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/plan.hpp"
#include "gpu/cuda/passes/iir_line.cuh"
#include "tests/core/image_diff.hpp"
#include "tests/core/random_image.hpp"
#include "tests/cuda/iir_emulation.hpp"

namespace gpublur {
namespace {

TEST(CudaIirEmulated, LinesMatchTheReference) {
  double worst_all = 0;
  testing::for_each_iir_plan([&](const Plan& plan, const char* impl, double sigma, const char* border) {
    for (int ch : {1, 2, 4})
      for (int axis : {0, 1}) {
        const int w = 37, h = 23;
        const Image src = testing::random_image(w, h, ch, 5u + unsigned(ch));
        testing::IirPassCase ic;
        ASSERT_TRUE(testing::iir_pass_case(plan, axis, src, ic));
        Image got(w, h, ch);
        for (float& v : got.data) v = NAN;  // every value must be written
        const int lines = axis == 0 ? h * ch : w * ch;
        for (int line = 0; line < lines; ++line) {
          size_t base = 0, step = 0;
          int n = 0;
          cuda::iir_line_place(axis, w, h, ch, line, base, step, n);
          cuda::iir_value_line(src.data.data(), got.data.data(), base, step, n,
                               cuda::iir_border(ic.co, n, ic.pass.border), ic.co);
        }
        const double worst = testing::max_abs_diff(got, ic.want);
        worst_all = std::max(worst_all, worst);
        EXPECT_LE(worst, 1e-6) << impl << " sigma " << sigma << " ch " << ch << " axis " << axis << " " << border;
      }
  });
  std::printf("iir line emulation vs reference: max abs %.3g\n", worst_all);
}

}  // namespace
}  // namespace gpublur
