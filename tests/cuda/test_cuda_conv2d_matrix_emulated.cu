// conv2d-matrix's CUDA block logic (gpu/cuda/passes/conv2d_matrix.cuh) run on the host: every block's phase 1
// (each thread's share of the tile load) for all its threads, then phase 2 (each thread's outputs), which is
// the kernel's order exactly (one barrier between the phases, no writes to shared memory after it). Outputs
// start as NaN, so an output no thread writes shows. Compared with the CPU reference for asymmetric
// non-square matrices, every border, 1, 2 and 4 device channels, sizes below one tile and over several. No
// device needed; the compiled kernels are checked on a GPU by the registry test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/program.hpp"
#include "core/reference/pass_table.hpp"
#include "gpu/cuda/passes/conv2d_matrix.cuh"
#include "tests/core/random_image.hpp"

namespace gpublur::testing {
namespace {

using namespace gpublur::cuda;

struct Weights {  // callable from compute() (host and device code)
  const float* w;
  __host__ __device__ float operator()(int k) const { return w[k]; }
};

template <typename T>
void emulate(const Pass& pass, const Image& src, Image& out) {
  const int W = src.width, H = src.height, kw = pass.widths[0], kh = pass.widths[1];
  out = Image(W, H, src.channels);
  for (float& v : out.data) v = std::numeric_limits<float>::quiet_NaN();
  const T* in = reinterpret_cast<const T*>(src.data.data());
  T* dst = reinterpret_cast<T*>(out.data.data());
  std::vector<T> s(size_t(matrix::tile_values(kw, kh)));
  const Weights weight{pass.taps.data()};
  for (int by = 0; by < (H + matrix::TH - 1) / matrix::TH; ++by)
    for (int bx = 0; bx < (W + matrix::TW - 1) / matrix::TW; ++bx) {
      for (int tid = 0; tid < matrix::BX * matrix::BY; ++tid)
        matrix::load_tile(in, s.data(), tid, bx, by, W, H, pass.border, kw, kh);
      for (int ly = 0; ly < matrix::BY; ++ly)
        for (int lx = 0; lx < matrix::BX; ++lx)
          matrix::compute(s.data(), dst, lx, ly, bx, by, W, H, kw, kh, weight);
    }
}

TEST(CudaConv2dMatrixEmulated, BlockLogicMatchesTheReference) {
  const std::vector<std::pair<int, int>> shapes = {{5, 3}, {3, 7}, {1, 1}, {9, 9}};
  const std::vector<std::pair<int, int>> sizes = {{1, 1}, {7, 3}, {33, 31}, {70, 45}};
  for (auto [kw, kh] : shapes)
    for (int b = 0; b < 4; ++b)
      for (int c : {1, 2, 4})
        for (auto [w, h] : sizes) {
          Pass pass;
          pass.op = Op::Conv2dMatrix;
          pass.border = Border(b);
          pass.widths = {kw, kh};
          for (int k = 0; k < kw * kh; ++k) pass.taps.push_back(float(std::sin(1.7 * k + 0.3) * 0.2));
          Program prog;
          prog.passes = {pass};
          const Image src = random_image(w, h, c, 11u + unsigned(c));
          Image ref, got;
          ASSERT_TRUE(run_program_cpu(prog, src, ref, 1).ok());
          if (c == 1) emulate<float>(pass, src, got);
          if (c == 2) emulate<float2>(pass, src, got);
          if (c == 4) emulate<float4>(pass, src, got);
          double worst = 0;
          for (size_t i = 0; i < ref.data.size(); ++i) {
            const double d = std::abs(double(got.data[i]) - ref.data[i]);
            if (!(d <= worst)) worst = d;  // NaN: an unwritten output
          }
          EXPECT_LE(worst, 1e-6) << kw << "x" << kh << " border " << b << " c" << c << " " << w << "x" << h;
        }
}

}  // namespace
}  // namespace gpublur::testing
