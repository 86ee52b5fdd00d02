// The cpu backend's line batches for its float64 line schedules (cpu_fast_boxes.cpp, cpu_fast_iir.cpp): a pass
// along x takes rows kRowValues values at a time (rows x channels), a pass along y strips of kColumnValues values
// of every row; each batch is gathered position-major into float64 (value v of position q at q * vec + v, the
// line extended by R with the border mode), so a schedule's inner loop runs over the batch's values, vectorised.
#pragma once
#include <algorithm>
#include <vector>

#include "core/reference/cpu_image.hpp"
#include "core/reference/row_threads.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// Built for the x86-64 baseline (the binary must run anywhere); AVX2+FMA clones are picked at load time.
#define GPUBLUR_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GPUBLUR_SIMD_CLONES
#endif

namespace gpublur {

constexpr int kRowValues = 16;     // values a position in a batch of rows (at least one row)
constexpr int kColumnValues = 64;  // values a position in a strip of columns

// Per thread: the gathered lines (a), a second buffer of their size (b) and `lanes` arrays of vec values.
struct LineBuffers {
  std::vector<double> a, b;
  std::vector<std::vector<double>> lane;
  void size(size_t n, size_t vec, int lanes) {
    if (a.size() < n) a.resize(n), b.resize(n);
    lane.resize(size_t(lanes));
    for (auto& l : lane)
      if (l.size() < vec) l.resize(vec);
  }
};

// Runs fn(LineBuffers&, size_t len, size_t vec) -> const double* (the n outputs, position-major) over every batch
// of src's lines along `axis`, each extended by R with border b (len = n + 2R positions), and writes the outputs,
// rounded to float, into dst.
template <class F>
void for_fast_lines(const CpuImage& src, CpuImage& dst, int axis, int R, Border border, int lanes, int threads,
                    F&& fn) {
  const int W = src.width, H = src.height, C = src.channels;
  if (axis == 0) {
    const int G = std::max(1, kRowValues / C), batches = (H + G - 1) / G;
    const size_t len = size_t(W + 2 * R);
    for_rows(batches, threads, [&](int bi) {
      thread_local LineBuffers buf;
      const int y0 = bi * G, rows = std::min(G, H - y0);
      const size_t vec = size_t(rows) * size_t(C);
      buf.size(len * vec, vec, lanes);
      for (int x = -R; x < W + R; ++x) {
        const int sx = remap_index(x, W, border);
        double* at = buf.a.data() + size_t(x + R) * vec;
        for (int k = 0; k < rows; ++k)
          for (int c = 0; c < C; ++c)
            at[k * C + c] = sx < 0 ? 0.0 : double(src.f[(size_t(y0 + k) * size_t(W) + size_t(sx)) * C + c]);
      }
      const double* out = fn(buf, len, vec);
      for (int x = 0; x < W; ++x)
        for (int k = 0; k < rows; ++k)
          for (int c = 0; c < C; ++c)
            dst.f[(size_t(y0 + k) * size_t(W) + size_t(x)) * C + c] = float(out[size_t(x) * vec + k * C + c]);
    });
    return;
  }
  const size_t n = size_t(W) * size_t(C), len = size_t(H + 2 * R);
  const int strips = int((n + kColumnValues - 1) / kColumnValues);
  for_rows(strips, threads, [&](int s) {
    thread_local LineBuffers buf;
    const size_t x0 = size_t(s) * kColumnValues, vec = std::min(size_t(kColumnValues), n - x0);
    buf.size(len * vec, vec, lanes);
    for (int y = -R; y < H + R; ++y) {
      const int sy = remap_index(y, H, border);
      double* at = buf.a.data() + size_t(y + R) * vec;
      const float* row = sy < 0 ? nullptr : src.f + size_t(sy) * n + x0;
      for (size_t v = 0; v < vec; ++v) at[v] = row ? double(row[v]) : 0.0;
    }
    const double* out = fn(buf, len, vec);
    for (int y = 0; y < H; ++y) {
      float* row = dst.f + size_t(y) * n + x0;
      for (size_t v = 0; v < vec; ++v) row[v] = float(out[size_t(y) * vec + v]);
    }
  });
}

}  // namespace gpublur
