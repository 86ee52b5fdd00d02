// The dual filter's CUDA per-thread logic (gpu/cuda/passes/dual.cuh) run on the host for every thread of the
// grid the kernels launch, against the CPU reference passes (core/reference/passes/dual.cpp): down and up, every
// border, 1, 2 and 4 device channels, odd and even sizes (the coarse image ceil(n / 2)). Outputs start as NaN,
// so an output no thread writes shows. No device needed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/reference/pass_table.hpp"
#include "gpu/cuda/passes/dual.cuh"
#include "tests/core/random_image.hpp"

namespace gpublur::testing {
namespace {

using namespace gpublur::cuda;

template <typename T>
void emulate(bool down, Border b, const Image& src, Image& out, int Wd, int Hd) {
  out = Image(Wd, Hd, src.channels);
  for (float& v : out.data) v = std::numeric_limits<float>::quiet_NaN();
  const T* in = reinterpret_cast<const T*>(src.data.data());
  T* dst = reinterpret_cast<T*>(out.data.data());
  if (down) {
    for (int Y = 0; Y < Hd; ++Y)
      for (int X = 0; X < Wd; ++X) dual::down_pixel(in, dst, X, Y, src.width, src.height, Wd, b);
  } else {
    for (int Y = 0; Y < (Hd + 1) / 2; ++Y)
      for (int X = 0; X < (Wd + 1) / 2; ++X) dual::up_quad(in, dst, X, Y, src.width, src.height, Wd, Hd, b);
  }
}

TEST(CudaDualEmulated, ThreadLogicMatchesTheReference) {
  const std::vector<std::pair<int, int>> fine_sizes = {{1, 1}, {2, 3}, {7, 3}, {16, 9}, {33, 20}};
  for (bool down : {true, false})
    for (int b = 0; b < 4; ++b)
      for (int c : {1, 2, 4})
        for (auto [w, h] : fine_sizes) {
          const int cw = (w + 1) / 2, ch = (h + 1) / 2;
          const int sw = down ? w : cw, sh = down ? h : ch, dw = down ? cw : w, dh = down ? ch : h;
          Pass pass;
          pass.op = down ? Op::DualDown : Op::DualUp;
          pass.border = Border(b);
          Image src = random_image(sw, sh, c, 21u + unsigned(c)), ref(dw, dh, c), got;
          const CpuImage s = CpuImage::view(src);
          CpuImage r = CpuImage::view(ref);
          ASSERT_TRUE(cpu_pass(pass.op)(pass, s, r, 1).ok());
          if (c == 1) emulate<float>(down, pass.border, src, got, dw, dh);
          if (c == 2) emulate<float2>(down, pass.border, src, got, dw, dh);
          if (c == 4) emulate<float4>(down, pass.border, src, got, dw, dh);
          double worst = 0;
          for (size_t i = 0; i < ref.data.size(); ++i) {
            const double d = std::abs(double(got.data[i]) - ref.data[i]);
            if (!(d <= worst)) worst = d;
          }
          EXPECT_LE(worst, 1e-6) << (down ? "down" : "up") << " border " << b << " c" << c << " " << w << "x" << h;
        }
}

}  // namespace
}  // namespace gpublur::testing
