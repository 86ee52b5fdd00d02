// The cpu backend's schedule for Conv1d passes (gauss-sep, fft's function, gauss-linear's exact taps): float32 like
// the GPUs, vectorised over a row's interleaved values, on all threads. The float64 line batches of passes/conv1d.cpp
// stay the reference the tests compare against; this is what `--backend cpu` runs, since the reference took 1.4 s
// per 4K RGB image at sigma 8 (docs/performance.md, the folder job).
#include <algorithm>
#include <vector>

#include "core/reference/cpu_fast.hpp"
#include "core/reference/cpu_fast_lines.hpp"  // GPUBLUR_SIMD_CLONES
#include "core/reference/row_threads.hpp"

namespace gpublur {
namespace {

// Values per block of a row: the block's accumulators and the taps' inputs stay in L1 across all taps.
constexpr size_t kBlock = 1024;

struct Kernel {
  const float* w = nullptr;
  int r = 0;
  bool symmetric = false;
};

Kernel kernel_of(const Pass& p) {
  Kernel k{p.taps.data(), int(p.taps.size() / 2), true};
  for (int i = 1; i <= k.r; ++i)
    if (p.taps[size_t(k.r - i)] != p.taps[size_t(k.r + i)]) k.symmetric = false;
  return k;
}

// out[i] = sum_j w[j + r] * lines[j + r][i], i in [0, n): lines are a row's extended values shifted by j pixels
// (x) or the rows y + j (y); null for the zero border's missing rows.
GPUBLUR_SIMD_CLONES void weigh_lines(const Kernel& k, const float* const* lines, float* out, size_t n) {
  const float w0 = k.w[k.r];
  const float* c = lines[k.r];
  if (c)
    for (size_t i = 0; i < n; ++i) out[i] = w0 * c[i];
  else
    std::fill(out, out + n, 0.f);
  for (int j = 1; j <= k.r; ++j) {
    const float* a = lines[k.r - j];
    const float* b = lines[k.r + j];
    const float wa = k.w[k.r - j], wb = k.w[k.r + j];
    if (k.symmetric && a && b) {
      for (size_t i = 0; i < n; ++i) out[i] += wa * (a[i] + b[i]);
    } else {
      if (a)
        for (size_t i = 0; i < n; ++i) out[i] += wa * a[i];
      if (b)
        for (size_t i = 0; i < n; ++i) out[i] += wb * b[i];
    }
  }
}

// Along x: each row extended by r pixels with the border mode, then weighed in blocks of kBlock values.
void rows_pass(const Pass& p, const CpuImage& src, CpuImage& dst, int threads) {
  const Kernel k = kernel_of(p);
  const int W = src.width, H = src.height, C = src.channels;
  const size_t n = size_t(W) * size_t(C);
  for_rows(H, threads, [&](int y) {
    thread_local std::vector<float> ext;
    ext.assign(size_t(W + 2 * k.r) * size_t(C), 0.f);
    const float* row = src.f + size_t(y) * n;
    for (int x = -k.r; x < W + k.r; ++x) {
      const int sx = remap_index(x, W, p.border);
      if (sx >= 0) std::copy_n(row + size_t(sx) * C, C, ext.data() + size_t(x + k.r) * C);
    }
    thread_local std::vector<const float*> lines;
    lines.resize(size_t(2 * k.r + 1));
    float* out = dst.f + size_t(y) * n;
    for (size_t b0 = 0; b0 < n; b0 += kBlock) {
      for (int j = 0; j <= 2 * k.r; ++j) lines[size_t(j)] = ext.data() + size_t(j) * C + b0;
      weigh_lines(k, lines.data(), out + b0, std::min(kBlock, n - b0));
    }
  });
}

// Along y: strips of kBlock values walked down the image; a strip's 2r + 1 source rows stay in cache.
void columns_pass(const Pass& p, const CpuImage& src, CpuImage& dst, int threads) {
  const Kernel k = kernel_of(p);
  const int H = src.height;
  const size_t n = size_t(src.width) * size_t(src.channels);
  const int strips = int((n + kBlock - 1) / kBlock);
  for_rows(strips, threads, [&](int s) {
    const size_t b0 = size_t(s) * kBlock, len = std::min(kBlock, n - b0);
    std::vector<const float*> lines(size_t(2 * k.r + 1));
    for (int y = 0; y < H; ++y) {
      for (int j = -k.r; j <= k.r; ++j) {
        const int sy = remap_index(y + j, H, p.border);
        lines[size_t(j + k.r)] = sy < 0 ? nullptr : src.f + size_t(sy) * n + b0;
      }
      weigh_lines(k, lines.data(), dst.f + size_t(y) * n + b0, len);
    }
  });
}

}  // namespace

void cpu_fast_conv1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  if (pass.axis == 0)
    rows_pass(pass, src, dst, threads);
  else
    columns_pass(pass, src, dst, threads);
}

}  // namespace gpublur
