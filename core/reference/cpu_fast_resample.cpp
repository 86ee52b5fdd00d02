// The cpu backend's schedule for Down2 / Up2 between unpadded float32 images (--downsample's and kawase's levels;
// the pyramid's padded rings run the reference): the reference's functions (passes/down2.cpp, up2.cpp) with the
// border-remapped source columns in tables made once a pass and source rows taken whole, where the reference remaps
// both coordinates of every read (docs/performance.md, "The cpu backend's box cascades and iir").
#include <vector>

#include "core/reference/cpu_fast.hpp"
#include "core/reference/row_threads.hpp"
#include "core/resample.hpp"

namespace gpublur {

void cpu_fast_down2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = src.channels, W = src.width, H = src.height, o = pass.widths[0], n = int(pass.taps.size());
  const int DW = dst.width;
  std::vector<int> xs(size_t(DW) * size_t(n));  // source column of tap i of output X; -1: the zero border
  for (int X = 0; X < DW; ++X)
    for (int i = 0; i < n; ++i) xs[size_t(X) * n + i] = remap_index(2 * X + o + i, W, pass.border);
  for_rows(dst.height, threads, [&](int Y) {
    thread_local std::vector<double> acc;
    acc.assign(size_t(DW) * C, 0.0);
    for (int j = 0; j < n; ++j) {
      const int sy = remap_index(2 * Y + o + j, H, pass.border);
      if (sy < 0) continue;
      const float* row = src.f + size_t(sy) * W * C;
      for (int X = 0; X < DW; ++X)
        for (int i = 0; i < n; ++i) {
          const int sx = xs[size_t(X) * n + i];
          if (sx < 0) continue;
          const double w = double(pass.taps[size_t(j)]) * double(pass.taps[size_t(i)]);
          for (int c = 0; c < C; ++c) acc[size_t(X) * C + c] += w * double(row[size_t(sx) * C + c]);
        }
    }
    float* out = dst.f + size_t(Y) * DW * C;
    for (size_t k = 0; k < acc.size(); ++k) out[k] = float(acc[k]);
  });
}

void cpu_fast_up2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = src.channels, W = src.width, H = src.height, DW = dst.width;
  // The near (3/4) and far (1/4) source columns of output x; -1: the zero border.
  std::vector<int> xn(static_cast<size_t>(DW)), xf(static_cast<size_t>(DW));
  for (int x = 0; x < DW; ++x)
    xn[size_t(x)] = remap_index(up2_near(x), W, pass.border), xf[size_t(x)] = remap_index(up2_far(x), W, pass.border);
  for_rows(dst.height, threads, [&](int y) {
    const int yn = remap_index(up2_near(y), H, pass.border), yf = remap_index(up2_far(y), H, pass.border);
    const float* rn = yn < 0 ? nullptr : src.f + size_t(yn) * W * C;
    const float* rf = yf < 0 ? nullptr : src.f + size_t(yf) * W * C;
    const auto at = [&](const float* row, int sx, int c) {
      return row && sx >= 0 ? double(row[size_t(sx) * C + c]) : 0.0;
    };
    float* out = dst.f + size_t(y) * DW * C;
    for (int x = 0; x < DW; ++x) {
      const int a = xn[size_t(x)], b = xf[size_t(x)];
      for (int c = 0; c < C; ++c)
        out[size_t(x) * C + c] = float(0.75 * (0.75 * at(rn, a, c) + 0.25 * at(rn, b, c)) +
                                       0.25 * (0.75 * at(rf, a, c) + 0.25 * at(rf, b, c)));
    }
  });
}

}  // namespace gpublur
