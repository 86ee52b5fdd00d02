// The fused and separable Down2 / Up2 schedules' block logic (gpu/cuda/passes/resample_fused.cuh) run on the host
// as the kernels run it (per block: phase 1 by every thread, strided over the block's threads, then phase 2 for
// every pixel of the tile), against the CPU reference's unfused passes: two Down2 passes (level 1 kept only in
// the block's window), two Up2 passes, and the long Down2 as rows then columns. Odd and even sizes (1x1 up to
// several tiles, tiles cut by the image's edge), padded and unpadded levels (the pyramid's clamp rings), every
// border (also different borders for the two passes), 1, 2 and 4 device channels. Destinations start as NaN, so a
// pixel no thread writes shows. No device needed; tests/cuda/test_cuda_resample_fused.cpp runs the kernels.
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

resample::Level level(const CpuImage& im) { return {im.width, im.height, im.pad}; }

// down2x2_kernel's grid and phases.
template <typename T>
double emulate_down2x2(const Pass& p, const Pass& q, const CpuImage& src, const CpuImage& mid, const CpuImage& ref) {
  std::vector<float> got(ref.own_f.size(), std::numeric_limits<float>::quiet_NaN());
  const T* in = reinterpret_cast<const T*>(src.own_f.data());
  T* out = reinterpret_cast<T*>(got.data());
  std::vector<T> win(size_t(resample::kDownWinX * resample::kDownWinY));
  const int dstride = ref.stride(), drows = ref.height + 2 * ref.pad;
  for (int by = 0; by < (drows + resample::kDownTileY - 1) / resample::kDownTileY; ++by)
    for (int bx = 0; bx < (dstride + resample::kDownTileX - 1) / resample::kDownTileX; ++bx) {
      for (T& v : win) v = resample::scaled(std::numeric_limits<float>::quiet_NaN(), vzero<T>());  // unfilled: NaN
      for (int tid = 0; tid < resample::kFuseThreads; ++tid)
        if (p.taps.size() == 4)
          resample::down2x2_fill<T, 4>(in, level(src), level(mid), level(ref), p.border, p.widths[0], p.taps.data(),
                                       q.border, int(q.taps.size()), q.widths[0], bx, by, tid, resample::kFuseThreads,
                                       win.data());
        else
          resample::down2x2_fill<T, 2>(in, level(src), level(mid), level(ref), p.border, p.widths[0], p.taps.data(),
                                       q.border, int(q.taps.size()), q.widths[0], bx, by, tid, resample::kFuseThreads,
                                       win.data());
      for (int ly = 0; ly < resample::kDownTileY; ++ly)
        for (int lx = 0; lx < resample::kFuseThreadsX; ++lx) {
          const int tx = bx * resample::kDownTileX + lx, ty = by * resample::kDownTileY + ly;
          if (tx < dstride && ty < drows)
            out[size_t(ty) * dstride + tx] = resample::down2x2_out(win.data(), lx, ly, int(q.taps.size()), q.taps.data());
        }
    }
  return worst_of(got, ref);
}

// up2x2_kernel's grid and phases.
template <typename T>
double emulate_up2x2(const Pass& p, const Pass& q, const CpuImage& src, const CpuImage& mid, const CpuImage& ref) {
  std::vector<float> got(ref.own_f.size(), std::numeric_limits<float>::quiet_NaN());
  const T* in = reinterpret_cast<const T*>(src.own_f.data());
  T* out = reinterpret_cast<T*>(got.data());
  std::vector<T> win(size_t(resample::kUpWinX * resample::kUpWinY));
  const int dstride = ref.stride(), drows = ref.height + 2 * ref.pad;
  for (int by = 0; by < (drows + resample::kUpTileY - 1) / resample::kUpTileY; ++by)
    for (int bx = 0; bx < (dstride + resample::kUpTileX - 1) / resample::kUpTileX; ++bx) {
      for (T& v : win) v = resample::scaled(std::numeric_limits<float>::quiet_NaN(), vzero<T>());
      for (int tid = 0; tid < resample::kFuseThreads; ++tid)
        resample::up2x2_fill(in, level(src), level(mid), ref.pad, p.border, q.border, bx, by, tid,
                             resample::kFuseThreads, win.data());
      for (int ly = 0; ly < resample::kUpTileY; ++ly)
        for (int lx = 0; lx < resample::kUpTileX; ++lx) {
          const int tx = bx * resample::kUpTileX + lx, ty = by * resample::kUpTileY + ly;
          if (tx < dstride && ty < drows)
            out[size_t(ty) * dstride + tx] = resample::up2x2_out(win.data(), bx, by, tx, ty, ref.pad);
        }
    }
  return worst_of(got, ref);
}

// down2_rows_kernel then down2_cols_kernel.
template <typename T>
double emulate_rows_cols(const Pass& p, const CpuImage& src, const CpuImage& ref) {
  std::vector<float> got(ref.own_f.size(), std::numeric_limits<float>::quiet_NaN());
  const T* in = reinterpret_cast<const T*>(src.own_f.data());
  T* out = reinterpret_cast<T*>(got.data());
  const int dstride = ref.stride(), n = int(p.taps.size());
  std::vector<T> rows(size_t(dstride) * size_t(src.height + 2 * src.pad),
                      resample::scaled(std::numeric_limits<float>::quiet_NaN(), vzero<T>()));
  for (int sy = 0; sy < src.height + 2 * src.pad; ++sy)
    for (int tx = 0; tx < dstride; ++tx)
      rows[size_t(sy) * dstride + tx] =
          resample::down2_rows_at(in, src.width, src.pad, tx, sy, ref.pad, p.border, n, p.widths[0], p.taps.data());
  for (int ty = 0; ty < ref.height + 2 * ref.pad; ++ty)
    for (int tx = 0; tx < dstride; ++tx)
      out[size_t(ty) * dstride + tx] = resample::down2_cols_at(rows.data(), src.height, src.pad, dstride, tx, ty,
                                                               ref.pad, p.border, n, p.widths[0], p.taps.data());
  return worst_of(got, ref);
}

template <typename F>
double by_channels(int c, F&& f) {
  if (c == 1) return f(float{});
  if (c == 2) return f(float2{});
  return f(float4{});
}

struct Pads {
  int p0, p1, p2;  // finest, middle, coarsest level
};
const std::vector<Pads> kPads = {{0, 0, 0}, {0, 2, 2}, {2, 2, 2}, {0, 2, 0}, {1, 0, 3}};
const std::vector<std::pair<int, int>> kSizes = {{1, 1}, {2, 5}, {7, 3}, {33, 20}, {131, 67}, {260, 9}};

TEST(CudaResampleFusedEmulated, TwoDownPassesMatchTheReference) {
  const std::vector<std::vector<float>> kernels = {analysis_taps(DownFilter::Quasi), analysis_taps(DownFilter::Box2),
                                                   analysis_taps(DownFilter::Box4)};
  int cases = 0;
  for (int b = 0; b < 4; ++b)
    for (int c : {1, 2, 4})
      for (auto [w, h] : kSizes)
        for (const Pads& pd : kPads)
          for (size_t k = 0; k < kernels.size(); ++k) {
            // The second pass: the same kernel, except one case per size with the next kernel and border.
            const bool mixed = k == 0 && c == 4;
            const Pass p = down2_pass(kernels[k], Border(b), 2, 3);
            const Pass q = down2_pass(kernels[mixed ? 1 : k], Border(mixed ? (b + 1) % 4 : b), 3, 4);
            const CpuImage src = random_stored(w, h, c, pd.p0, unsigned(w * 31 + h + c));
            CpuImage mid = CpuImage::make(coarse_length(w), coarse_length(h), c, ImageDecl{pd.p1, 2, false});
            CpuImage ref =
                CpuImage::make(coarse_length(mid.width), coarse_length(mid.height), c, ImageDecl{pd.p2, 4, false});
            ASSERT_TRUE(cpu_down2(p, src, mid, 1).ok());
            ASSERT_TRUE(cpu_down2(q, mid, ref, 1).ok());
            const double worst =
                by_channels(c, [&](auto t) { return emulate_down2x2<decltype(t)>(p, q, src, mid, ref); });
            EXPECT_LE(worst, 1e-6) << "down2 x 2, " << kernels[k].size() << " taps, border " << b << (mixed ? " mixed" : "")
                                   << " c" << c << " " << w << "x" << h << " pads " << pd.p0 << "," << pd.p1 << ","
                                   << pd.p2;
            ++cases;
          }
  EXPECT_GT(cases, 1000);
}

TEST(CudaResampleFusedEmulated, TwoUpPassesMatchTheReference) {
  for (int b = 0; b < 4; ++b)
    for (int c : {1, 2, 4})
      for (auto [w, h] : kSizes)
        for (const Pads& pd : kPads)
          for (bool mixed : {false, true}) {
            const Pass p = up2_pass(Border(b), 2, 3);
            const Pass q = up2_pass(Border(mixed ? (b + 3) % 4 : b), 3, 4);
            // Fine size w x h (pad p0), middle ceil / 2 (pad p1), coarse ceil / 4 (pad p2).
            CpuImage ref = CpuImage::make(w, h, c, ImageDecl{pd.p0, 1, false});
            CpuImage mid = CpuImage::make(coarse_length(w), coarse_length(h), c, ImageDecl{pd.p1, 2, false});
            const CpuImage src = random_stored(coarse_length(mid.width), coarse_length(mid.height), c, pd.p2,
                                               unsigned(w * 17 + h + c));
            ASSERT_TRUE(cpu_up2(p, src, mid, 1).ok());
            ASSERT_TRUE(cpu_up2(q, mid, ref, 1).ok());
            const double worst = by_channels(c, [&](auto t) { return emulate_up2x2<decltype(t)>(p, q, src, mid, ref); });
            EXPECT_LE(worst, 1e-6) << "up2 x 2, border " << b << (mixed ? " mixed" : "") << " c" << c << " " << w
                                   << "x" << h << " pads " << pd.p0 << "," << pd.p1 << "," << pd.p2;
          }
}

TEST(CudaResampleFusedEmulated, LongDownAsRowsThenColumnsMatchesTheReference) {
  std::vector<float> folded(28);
  for (int i = 0; i < 28; ++i) folded[size_t(i)] = float(std::exp(-0.02 * (i - 13.5) * (i - 13.5))) / 12.f;
  std::vector<float> longest(64, 1.f / 64);
  const std::vector<std::vector<float>> kernels = {{0.05f, 0.1f, 0.15f, 0.2f, 0.2f, 0.15f, 0.1f, 0.05f}, folded,
                                                   longest};
  for (int b = 0; b < 4; ++b)
    for (int c : {1, 2, 4})
      for (auto [w, h] : kSizes)
        for (const Pads& pd : kPads)
          for (const auto& taps : kernels) {
            const Pass p = down2_pass(taps, Border(b), 2, 3);
            const CpuImage src = random_stored(w, h, c, pd.p1, unsigned(w * 13 + c));
            CpuImage ref = CpuImage::make(coarse_length(w), coarse_length(h), c, ImageDecl{pd.p2, 2, false});
            ASSERT_TRUE(cpu_down2(p, src, ref, 1).ok());
            const double worst = by_channels(c, [&](auto t) { return emulate_rows_cols<decltype(t)>(p, src, ref); });
            EXPECT_LE(worst, 1e-6) << "down2 rows/cols " << taps.size() << " taps, border " << b << " c" << c << " "
                                   << w << "x" << h << " pads " << pd.p1 << "," << pd.p2;
          }
}

}  // namespace
}  // namespace gpublur::testing
