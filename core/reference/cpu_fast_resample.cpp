// The cpu backend's schedule for Down2 / Up2 between float32 images (--downsample's and kawase's levels, the
// pyramid's padded rings): the reference's functions (passes/down2.cpp, up2.cpp: dst's whole stored area, reads
// through resample_index over src's stored area) with the source columns' offsets in tables made once a pass and
// each source row's offset once a row, where the reference remaps both coordinates of every read
// (docs/performance.md, "The cpu backend's box cascades and iir").
#include <vector>

#include "core/reference/cpu_fast.hpp"
#include "core/reference/row_threads.hpp"
#include "core/resample.hpp"

namespace gpublur {
namespace {

// Offsets in values: of source column x (resample_index's result) within a stored row, of row y from src.f;
// -1 where the zero border reads 0.
long long column_at(const CpuImage& src, int x) {
  return x < -src.pad ? -1 : (long long)(x + src.pad) * src.channels;
}
long long row_at(const CpuImage& src, int y) { return y < -src.pad ? -1 : (long long)src.offset(-src.pad, y); }

}  // namespace

void cpu_fast_down2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = src.channels, o = pass.widths[0], n = int(pass.taps.size()), P = dst.pad;
  const int DW = dst.width + 2 * P;  // stored outputs a row, X = -P ..
  std::vector<long long> xs(size_t(DW) * size_t(n));  // tap i of output X: its column's offset, or -1
  for (int X = -P; X < dst.width + P; ++X)
    for (int i = 0; i < n; ++i)
      xs[size_t(X + P) * n + i] = column_at(src, resample_index(2 * X + o + i, src.width, src.pad, pass.border));
  for_rows(dst.height + 2 * P, threads, [&](int row) {
    const int Y = row - P;
    thread_local std::vector<double> acc;
    acc.assign(size_t(DW) * C, 0.0);
    for (int j = 0; j < n; ++j) {
      const long long r = row_at(src, resample_index(2 * Y + o + j, src.height, src.pad, pass.border));
      if (r < 0) continue;
      const float* line = src.f + r;
      const double tj = pass.taps[size_t(j)];
      for (int X = 0; X < DW; ++X) {
        double* a = acc.data() + size_t(X) * C;
        for (int i = 0; i < n; ++i) {
          const long long x = xs[size_t(X) * n + i];
          if (x < 0) continue;
          const double w = tj * double(pass.taps[size_t(i)]);
          for (int c = 0; c < C; ++c) a[c] += w * double(line[x + c]);
        }
      }
    }
    float* out = dst.f + dst.offset(-P, Y);
    for (size_t k = 0; k < acc.size(); ++k) out[k] = float(acc[k]);
  });
}

void cpu_fast_up2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = src.channels, P = dst.pad, DW = dst.width + 2 * P;
  // The near (3/4) and far (1/4) source columns' offsets of output x = -P ..; -1: the zero border.
  std::vector<long long> xn(static_cast<size_t>(DW)), xf(static_cast<size_t>(DW));
  for (int x = -P; x < dst.width + P; ++x) {
    xn[size_t(x + P)] = column_at(src, resample_index(up2_near(x), src.width, src.pad, pass.border));
    xf[size_t(x + P)] = column_at(src, resample_index(up2_far(x), src.width, src.pad, pass.border));
  }
  for_rows(dst.height + 2 * P, threads, [&](int row) {
    const int y = row - P;
    const long long rn = row_at(src, resample_index(up2_near(y), src.height, src.pad, pass.border)),
                    rf = row_at(src, resample_index(up2_far(y), src.height, src.pad, pass.border));
    const auto at = [&](long long r, long long x, int c) { return r < 0 || x < 0 ? 0.0 : double(src.f[r + x + c]); };
    float* out = dst.f + dst.offset(-P, y);
    for (int x = 0; x < DW; ++x) {
      const long long a = xn[size_t(x)], b = xf[size_t(x)];
      for (int c = 0; c < C; ++c)
        out[size_t(x) * C + c] = float(0.75 * (0.75 * at(rn, a, c) + 0.25 * at(rn, b, c)) +
                                       0.25 * (0.75 * at(rf, a, c) + 0.25 * at(rf, b, c)));
    }
  });
}

}  // namespace gpublur
