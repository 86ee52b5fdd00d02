// reshuffle's CUDA block logic (gpu/cuda/passes/reshuffle.cuh) run on the host: the tile path as the kernel
// runs it (every thread's share of the tile load, then, after the one barrier, every thread's outputs over the
// packed tile offsets) and the global path (one output per thread over the packed (dx, dy) links), both from
// the host's own packing (reshuffle::pack_links). Outputs start as NaN, so an output no thread writes shows.
// Compared with the CPU reference for the Gaussian and a grouped non-square matrix, every border, 1, 2 and 4
// device channels, sizes below one tile and over several. No device needed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/program.hpp"
#include "core/reference/pass_table.hpp"
#include "core/reshuffle.hpp"
#include "gpu/cuda/passes/reshuffle.cuh"
#include "tests/core/random_image.hpp"

namespace gpublur::testing {
namespace {

using namespace gpublur::cuda;

struct Links {  // callable from the block logic (host and device code)
  const int* l;
  __host__ __device__ int operator()(int i) const { return l[i]; }
};
struct Weights {
  const float* w;
  __host__ __device__ float operator()(int u) const { return w[u]; }
};

template <typename T>
void emulate(const Pass& pass, const Image& src, Image& out, bool tile) {
  const int W = src.width, H = src.height, R = pass.widths[0], U = int(pass.taps.size());
  out = Image(W, H, src.channels);
  for (float& v : out.data) v = std::numeric_limits<float>::quiet_NaN();
  const T* in = reinterpret_cast<const T*>(src.data.data());
  T* dst = reinterpret_cast<T*>(out.data.data());
  const std::vector<int> links = reshuffle::pack_links(pass, tile);
  const Links link{links.data()};
  const Weights weight{pass.taps.data()};
  if (!tile) {
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) dst[size_t(y) * W + x] = reshuffle::pixel(in, x, y, W, H, pass.border, R, U, link, weight);
    return;
  }
  std::vector<T> s(size_t(reshuffle::tile_values(R)));
  for (int by = 0; by < (H + reshuffle::TH - 1) / reshuffle::TH; ++by)
    for (int bx = 0; bx < (W + reshuffle::TW - 1) / reshuffle::TW; ++bx) {
      for (int tid = 0; tid < reshuffle::BX * reshuffle::BY; ++tid)
        tile::load_tile(in, s.data(), tid, bx, by, W, H, pass.border, 2 * R + 1, 2 * R + 1);
      for (int ly = 0; ly < reshuffle::BY; ++ly)
        for (int lx = 0; lx < reshuffle::BX; ++lx)
          reshuffle::compute(s.data(), dst, lx, ly, bx, by, W, H, R, U, link, weight);
    }
}

TEST(CudaReshuffleEmulated, BlockLogicMatchesTheReference) {
  const std::vector<double> m = {0.1, -0.2, 0.1, 0.05, 0.3, 0.05, 0.1, 0.3, 0.1, 0.0, 0.2, -0.2, 0.05, 0.1, 0.3};
  const std::vector<ReshuffleKernel> kernels = {gaussian_reshuffle(1.5, 5), gaussian_reshuffle(0.7, 1),
                                                reshuffle_matrix(m, 5, 3)};
  const std::vector<std::pair<int, int>> sizes = {{1, 1}, {7, 3}, {33, 31}, {70, 45}};
  for (const ReshuffleKernel& k : kernels)
    for (int b = 0; b < 4; ++b)
      for (int c : {1, 2, 4})
        for (auto [w, h] : sizes)
          for (bool tile : {true, false}) {
            const Pass pass = reshuffle_pass(k, Border(b));
            Program prog;
            prog.passes = {pass};
            ASSERT_TRUE(validate_program(prog).ok());
            const Image src = random_image(w, h, c, 13u + unsigned(c));
            Image ref, got;
            ASSERT_TRUE(run_program_cpu(prog, src, ref, 1).ok());
            if (c == 1) emulate<float>(pass, src, got, tile);
            if (c == 2) emulate<float2>(pass, src, got, tile);
            if (c == 4) emulate<float4>(pass, src, got, tile);
            double worst = 0;
            for (size_t i = 0; i < ref.data.size(); ++i) {
              const double d = std::abs(double(got.data[i]) - ref.data[i]);
              if (!(d <= worst)) worst = d;  // NaN: an unwritten output
            }
            EXPECT_LE(worst, 1e-6) << "radius " << k.radius << " border " << b << " c" << c << " " << w << "x" << h
                                   << (tile ? " tile" : " global");
          }
}

}  // namespace
}  // namespace gpublur::testing
