// Down2 and Up2's CUDA per-pixel logic (gpu/cuda/passes/resample.cuh) run on the host for every stored pixel of
// the destination (the kernels' grid: one thread each, no shared memory), against the CPU reference passes, on
// padded and unpadded images (the pyramid's clamp rings), odd and even sizes, every border, 1, 2 and 4 device
// channels, and longer kernels (8, the folded 28, 64 taps) rows then columns through scratch (the launcher's
// choice for them, resample_fused.cuh). Destinations start as NaN, so a pixel no thread writes shows. No device
// needed; the compiled kernels are checked on a GPU by the registry test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/reference/pass_table.hpp"
#include "core/resample.hpp"
#include "gpu/cuda/passes/resample_fused.cuh"
#include "tests/cuda/stored_image.hpp"

namespace gpublur::testing {
namespace {

using namespace gpublur::cuda;

// The long Down2's two kernels: every scratch entry (dst's stored columns x src's stored rows), then every output.
template <typename T>
void emulate_sep(const Pass& pass, const T* in, const CpuImage& src, const CpuImage& ref, T* out) {
  const int n = int(pass.taps.size()), dstride = ref.stride();
  std::vector<T> rows(size_t(dstride) * size_t(src.height + 2 * src.pad));
  for (int sy = 0; sy < src.height + 2 * src.pad; ++sy)
    for (int tx = 0; tx < dstride; ++tx)
      rows[size_t(sy) * dstride + tx] = resample::down2_rows_at(in, src.width, src.pad, tx, sy, ref.pad, pass.border,
                                                                n, pass.widths[0], pass.taps.data());
  for (int ty = 0; ty < ref.height + 2 * ref.pad; ++ty)
    for (int tx = 0; tx < dstride; ++tx)
      out[size_t(ty) * dstride + tx] = resample::down2_cols_at(rows.data(), src.height, src.pad, dstride, tx, ty,
                                                               ref.pad, pass.border, n, pass.widths[0],
                                                               pass.taps.data());
}

template <typename T>
double worst_down_or_up(const Pass& pass, const CpuImage& src, CpuImage& ref) {
  std::vector<float> got(ref.own_f.size(), std::numeric_limits<float>::quiet_NaN());
  const T* in = reinterpret_cast<const T*>(src.own_f.data());
  T* out = reinterpret_cast<T*>(got.data());
  const bool sep = pass.op == Op::Down2 && pass.taps.size() > 4;  // the kernel the launcher picks
  if (sep) emulate_sep(pass, in, src, ref, out);
  for (int ty = 0; ty < ref.height + 2 * ref.pad && !sep; ++ty)
    for (int tx = 0; tx < ref.stride(); ++tx)
      out[size_t(ty) * ref.stride() + tx] =
          pass.op == Op::Down2 ? resample::down2_at(in, src.width, src.height, src.pad, tx, ty, ref.pad, pass.border,
                                                    int(pass.taps.size()), pass.widths[0], pass.taps.data())
                               : resample::up2_at(in, src.width, src.height, src.pad, tx, ty, ref.pad, pass.border);
  return worst_of(got, ref);
}

TEST(CudaResampleEmulated, PixelLogicMatchesTheReference) {
  std::vector<float> folded(28);
  for (int i = 0; i < 28; ++i) folded[size_t(i)] = float(std::exp(-0.02 * (i - 13.5) * (i - 13.5))) / 12.f;
  std::vector<float> longest(64, 1.f / 64);  // the most a pass may have
  const std::vector<std::vector<float>> kernels = {analysis_taps(DownFilter::Quasi), analysis_taps(DownFilter::Box2),
                                                   {0.05f, 0.1f, 0.15f, 0.2f, 0.2f, 0.15f, 0.1f, 0.05f}, folded,
                                                   longest};
  for (int b = 0; b < 4; ++b)
    for (int c : {1, 2, 4})
      for (auto [w, h] : {std::pair<int, int>{1, 1}, {7, 3}, {16, 9}, {33, 20}})
        for (auto [spad, dpad] : {std::pair<int, int>{0, 0}, {0, 2}, {2, 2}, {2, 0}}) {
          for (const auto& taps : kernels) {
            const Pass pass = down2_pass(taps, Border(b), 2, 3);
            const CpuImage src = random_stored(w, h, c, spad, unsigned(w * 13 + c));
            CpuImage ref = CpuImage::make(coarse_length(w), coarse_length(h), c, ImageDecl{dpad, 2, false});
            ASSERT_TRUE(cpu_down2(pass, src, ref, 1).ok());
            double worst = 0;
            if (c == 1) worst = worst_down_or_up<float>(pass, src, ref);
            if (c == 2) worst = worst_down_or_up<float2>(pass, src, ref);
            if (c == 4) worst = worst_down_or_up<float4>(pass, src, ref);
            EXPECT_LE(worst, 1e-6) << "down2 " << taps.size() << " taps border " << b << " c" << c << " " << w << "x"
                                   << h << " pads " << spad << "," << dpad;
          }
          const Pass pass = up2_pass(Border(b), 2, 3);
          const CpuImage src = random_stored(coarse_length(w), coarse_length(h), c, spad, unsigned(w * 7 + c));
          CpuImage ref = CpuImage::make(w, h, c, ImageDecl{dpad, 1, false});
          ASSERT_TRUE(cpu_up2(pass, src, ref, 1).ok());
          double worst = 0;
          if (c == 1) worst = worst_down_or_up<float>(pass, src, ref);
          if (c == 2) worst = worst_down_or_up<float2>(pass, src, ref);
          if (c == 4) worst = worst_down_or_up<float4>(pass, src, ref);
          EXPECT_LE(worst, 1e-6) << "up2 border " << b << " c" << c << " " << w << "x" << h << " pads " << spad << ","
                                 << dpad;
        }
}

}  // namespace
}  // namespace gpublur::testing
