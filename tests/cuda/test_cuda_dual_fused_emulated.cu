// The fused dual schedule's block logic (gpu/cuda/passes/dual_fused.cuh) run on the host as the kernel runs it
// (per block: phase 1 by every thread, strided over the block's threads, then phase 2 for every output of the
// tile), against the CPU reference's two unfused passes (core/reference/passes/dual.cpp): two DualDown passes
// (level 1 kept only in the block's window). Odd and even sizes (1x1 up to several tiles,
// tiles cut by the image's edge), every border (also a different border for the second pass), 1, 2 and 4 device
// channels. The window and the destination start as NaN, so a cell or pixel no thread writes shows. No device
// needed; tests/cuda/test_cuda_resample_fused.cpp runs the kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/reference/pass_table.hpp"
#include "gpu/cuda/passes/dual_fused.cuh"
#include "tests/core/random_image.hpp"

namespace gpublur::testing {
namespace {

using namespace gpublur::cuda;

template <typename T>
T nan_value() {
  T v = vzero<T>();
  float* f = reinterpret_cast<float*>(&v);
  for (size_t i = 0; i < sizeof(T) / sizeof(float); ++i) f[i] = std::numeric_limits<float>::quiet_NaN();
  return v;
}

// dual_down2x_kernel's grid and phases; returns the output (NaN where nothing was written).
template <typename T>
Image emulate(Border b1, Border b2, const Image& src, dual::Size mid, dual::Size dst) {
  Image out(dst.w, dst.h, src.channels);
  for (float& v : out.data) v = std::numeric_limits<float>::quiet_NaN();
  const T* in = reinterpret_cast<const T*>(src.data.data());
  T* o = reinterpret_cast<T*>(out.data.data());
  const dual::Size s{src.width, src.height};
  std::vector<T> win(size_t(dual::kDownWinX * dual::kDownWinY));
  for (int by = 0; by < (dst.h + dual::kDownTileY - 1) / dual::kDownTileY; ++by)
    for (int bx = 0; bx < (dst.w + dual::kDownTileX - 1) / dual::kDownTileX; ++bx) {
      for (T& v : win) v = nan_value<T>();
      for (int tid = 0; tid < dual::kFuseThreads; ++tid)
        dual::down2x2_fill(in, s, mid, b1, b2, bx, by, tid, dual::kFuseThreads, win.data());
      for (int ly = 0; ly < dual::kDownTileY; ++ly)
        for (int lx = 0; lx < dual::kDownTileX; ++lx) {
          const int X = bx * dual::kDownTileX + lx, Y = by * dual::kDownTileY + ly;
          if (X < dst.w && Y < dst.h) o[size_t(Y) * dst.w + X] = dual::down2x2_out(win.data(), lx, ly);
        }
    }
  return out;
}

// The reference: the two passes one after the other (float64 inside each, float images between, as the CPU
// backend runs them).
Image reference(Border b1, Border b2, Image src, dual::Size mid, dual::Size dst) {
  Pass p;
  p.op = Op::DualDown;
  p.border = b1;
  Pass q = p;
  q.border = b2;
  Image m(mid.w, mid.h, src.channels), out(dst.w, dst.h, src.channels);
  const CpuImage s = CpuImage::view(src);
  CpuImage mv = CpuImage::view(m), ov = CpuImage::view(out);
  EXPECT_TRUE(cpu_pass(p.op)(p, s, mv, 1).ok());
  const CpuImage mc = CpuImage::view(m);
  EXPECT_TRUE(cpu_pass(q.op)(q, mc, ov, 1).ok());
  return out;
}

TEST(CudaDualFusedEmulated, BlockLogicMatchesTheUnfusedReference) {
  // Fine (level-0) sizes: 1x1 up to several tiles (128 x 64 level-0 pixels).
  const std::vector<std::pair<int, int>> sizes = {{1, 1}, {2, 3}, {7, 5}, {33, 20}, {131, 70}, {260, 133}};
  double worst_all = 0;
  for (int b = 0; b < 4; ++b)
    for (int b2 : {b, (b + 1) % 4})
      for (int c : {1, 2, 4})
        for (auto [w, h] : sizes) {
          const dual::Size l0{w, h}, l1{(w + 1) / 2, (h + 1) / 2}, l2{(l1.w + 1) / 2, (l1.h + 1) / 2};
          const Image src = random_image(l0.w, l0.h, c, 31u + unsigned(w * 7 + c));
          const Image ref = reference(Border(b), Border(b2), src, l1, l2);
          Image got;
          if (c == 1) got = emulate<float>(Border(b), Border(b2), src, l1, l2);
          if (c == 2) got = emulate<float2>(Border(b), Border(b2), src, l1, l2);
          if (c == 4) got = emulate<float4>(Border(b), Border(b2), src, l1, l2);
          ASSERT_EQ(got.data.size(), ref.data.size());
          double worst = 0;
          for (size_t i = 0; i < ref.data.size(); ++i) {
            const double e = std::abs(double(got.data[i]) - double(ref.data[i]));
            if (!(e <= worst)) worst = e;  // NaN too
          }
          EXPECT_LE(worst, 1e-6) << "borders " << b << "," << b2 << " c" << c << " "
                                 << w << "x" << h;
          if (!(worst <= worst_all)) worst_all = worst;
        }
  std::printf("[ measured ] dual fused block logic vs two reference passes: max abs error %.3g\n", worst_all);
}

}  // namespace
}  // namespace gpublur::testing
