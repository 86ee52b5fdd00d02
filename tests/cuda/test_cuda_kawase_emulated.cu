// The kawase pass's CUDA per-thread logic (gpu/cuda/passes/kawase.cuh) run on the host for every thread of the
// launcher's grids: the runs of kawase::kRun outputs for offsets 0-3 and the pixel form for any offset, against the
// CPU reference pass, every border, 1, 2 and 4 device channels, sizes below, at and past a run and the offsets'
// reach. Destinations start as NaN, so an output no thread writes shows. No device needed; the compiled kernels
// are checked on a GPU by the registry test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "core/reference/pass_table.hpp"
#include "gpu/cuda/passes/kawase.cuh"
#include "tests/cuda/stored_image.hpp"

namespace gpublur::testing {
namespace {

using namespace gpublur::cuda;

// The worst difference to ref of every output of the run form (runs = true; offsets 0-3) or the pixel form.
template <typename T>
double worst(const CpuImage& src, const CpuImage& ref, Border b, int k, bool runs) {
  std::vector<float> got(ref.own_f.size(), std::numeric_limits<float>::quiet_NaN());
  const T* in = reinterpret_cast<const T*>(src.own_f.data());
  T* out = reinterpret_cast<T*>(got.data());
  const int W = src.width, H = src.height;
  for (int y = 0; y < H; y += runs ? kawase::kRun : 1)
    for (int x = 0; x < W; ++x) {
      if (!runs) kawase::pixel(in, out, W, H, b, k, x, y);
      else if (k == 0) kawase::run<T, 0>(in, out, W, H, b, x, y);
      else if (k == 1) kawase::run<T, 1>(in, out, W, H, b, x, y);
      else if (k == 2) kawase::run<T, 2>(in, out, W, H, b, x, y);
      else kawase::run<T, 3>(in, out, W, H, b, x, y);
    }
  return worst_of(got, ref);
}

TEST(CudaKawaseEmulated, RunsAndPixelsMatchTheReference) {
  for (int b = 0; b < 4; ++b)
    for (int c : {1, 2, 4})
      for (auto [w, h] : {std::pair<int, int>{1, 1}, {7, 3}, {5, 9}, {33, 20}})
        for (int k : {0, 1, 2, 3, 5, 11}) {
          Pass pass;
          pass.op = Op::Kawase;
          pass.border = Border(b);
          pass.widths = {k};
          const CpuImage src = random_stored(w, h, c, 0, unsigned(w * 31 + h * 7 + c + k));
          CpuImage ref = CpuImage::make(w, h, c, ImageDecl{0, 1, false});
          ASSERT_TRUE(cpu_kawase(pass, src, ref, 1).ok());
          for (bool runs : {false, true}) {
            if (runs && k > 3) continue;
            double e = 0;
            if (c == 1) e = worst<float>(src, ref, Border(b), k, runs);
            if (c == 2) e = worst<float2>(src, ref, Border(b), k, runs);
            if (c == 4) e = worst<float4>(src, ref, Border(b), k, runs);
            EXPECT_LE(e, 1e-6) << (runs ? "runs" : "pixels") << " k " << k << " border " << b << " c" << c << " "
                               << w << "x" << h;
          }
        }
}

}  // namespace
}  // namespace gpublur::testing
