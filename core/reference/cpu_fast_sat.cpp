// The cpu backend's summed-area tables (Sat), their window lookups (SatBox), spread's table of the tent's second
// derivatives (Spread) and its scaling (Scale): the reference's functions (passes/sat.cpp, sat_box.cpp, spread.cpp,
// scale.cpp) with the border remapping in a column table made once a pass and a row's once a row, and the lookups as
// plain loops over a row's values, where the reference remapped and offset every read.
#include <algorithm>
#include <vector>

#include "core/reference/cpu_fast.hpp"
#include "core/reference/pass_table.hpp"
#include "core/reference/row_threads.hpp"
#include "core/spread_fold.hpp"

namespace gpublur {
namespace {

// Source row y of spread's E (src read with the border mode inside [-X, W + X) x [-X, H + X), 0 beyond) at a list of
// positions, float64, interleaved: out[i * C + c] for the i-th; cols: E's columns of those positions (-1: 0).
void spread_row(const CpuImage& src, int y, int X, Border b, const std::vector<int>& cols, std::vector<double>& out) {
  const int C = src.channels;
  out.assign(cols.size() * size_t(C), 0.0);
  if (y < -X || y >= src.height + X) return;
  const int ry = remap_index(y, src.height, b);
  if (ry < 0) return;
  const float* row = src.f + src.offset(0, ry);
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i] >= 0)
      for (int c = 0; c < C; ++c) out[i * C + c] = double(row[size_t(cols[i]) * C + c]);
}

}  // namespace

void cpu_fast_sat(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int P = dst.pad, C = dst.channels, W = dst.width, H = dst.height, SW = W + 2 * P;
  // CpuImage::read's rule: a stored pixel as it is; outside the stored area both coordinates border-remapped (zero:
  // nothing). The remapped columns in a table, a row's remapped index once a row.
  std::vector<int> cols(static_cast<size_t>(SW));
  for (int x = -P; x < W + P; ++x) cols[size_t(x + P)] = remap_index(x, src.width, pass.border);
  // Rows: running sums along x.
  for_rows(H + 2 * P, threads, [&](int row) {
    const int y = row - P, ry = remap_index(y, src.height, pass.border);
    const bool row_stored = y >= -src.pad && y < src.height + src.pad;
    double* out = dst.d + dst.offset(-P, y);
    double run[4] = {0, 0, 0, 0};
    for (int i = 0; i < SW; ++i) {
      const int x = i - P;
      long long o = -1;
      if (row_stored && x >= -src.pad && x < src.width + src.pad)
        o = (long long)src.offset(x, y);
      else if (ry >= 0 && cols[size_t(i)] >= 0)
        o = (long long)src.offset(cols[size_t(i)], ry);
      if (o >= 0)
        for (int c = 0; c < C; ++c) run[c] += src.get(size_t(o) + size_t(c));
      for (int c = 0; c < C; ++c) out[size_t(i) * C + c] = run[c];
    }
  });
  sat_columns(dst, threads);  // as the reference
}

void cpu_fast_sat_box(const Pass& pass, const CpuImage& table, CpuImage& dst, int threads) {
  const int w = pass.widths[0], h = w / 2, C = dst.channels, p = dst.pad, tp = table.pad;
  const double area = double(w) * w;
  const int DW = dst.width + 2 * p;
  // Stored output column i (x = i - p) reads table columns x + h and x - h - 1: their value offsets, -1 where a
  // lookup falls before the table's first column (the empty sum).
  std::vector<long long> hi(static_cast<size_t>(DW)), lo(static_cast<size_t>(DW));
  for (int i = 0; i < DW; ++i) {
    const int x = i - p;
    hi[size_t(i)] = x + h < -tp ? -1 : (long long)(x + h + tp) * C;
    lo[size_t(i)] = x - h - 1 < -tp ? -1 : (long long)(x - h - 1 + tp) * C;
  }
  for_rows(dst.height + 2 * p, threads, [&](int row) {
    const int y = row - p;
    const double* a = y + h < -tp ? nullptr : table.d + table.offset(-tp, y + h);
    const double* b = y - h - 1 < -tp ? nullptr : table.d + table.offset(-tp, y - h - 1);
    float* out = dst.f + dst.offset(-p, y);
    for (int i = 0; i < DW; ++i) {
      const long long xh = hi[size_t(i)], xl = lo[size_t(i)];
      for (int c = 0; c < C; ++c) {
        double s = 0;
        if (a && xh >= 0) s += a[xh + c];
        if (a && xl >= 0) s -= a[xl + c];
        if (b && xh >= 0) s -= b[xh + c];
        if (b && xl >= 0) s += b[xl + c];
        out[size_t(i) * C + c] = float(s / area);
      }
    }
  });
}

void cpu_fast_spread(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int R = pass.widths[0], X = pass.extend, C = dst.channels, W = src.width, H = src.height;
  const Border border = pass.border;
  // s(x, y) for x in [0, W) reads E at x - 1 + (a - 1) R, a = 0, 1, 2: positions -1 - R .. W - 2 + R in one run
  // while R <= W, else the three runs of W that are read (a row's work bounded by the image at any R). E's values
  // for (x, a) sit at base[a] + x.
  const bool runs = R > W;
  const int n = runs ? 3 * W : W + 2 * R, base[3] = {0, runs ? W : R, runs ? 2 * W : 2 * R};
  std::vector<int> cols(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int x = runs ? i % W - 1 + (i / W - 1) * R : i - 1 - R;
    cols[size_t(i)] = spread_e_index(x, W, X, border);
  }
  // The margin's fold from the rows' and columns' sums over its taps (core/spread_fold.hpp): rs[(t H + j) C + c]
  // is S_t(j) for the lines t = -1 (0) and -2 (1) before the image along x, cs likewise along y.
  const std::vector<SpreadFoldTap> tx = spread_fold_taps(R, X, border, W), ty = spread_fold_taps(R, X, border, H);
  std::vector<double> rs(2 * size_t(H) * C, 0.0), cs(2 * size_t(W) * C, 0.0);
  for_rows(H, threads, [&](int j) {
    const float* row = src.f + src.offset(0, j);
    double s1[4] = {0, 0, 0, 0}, s2[4] = {0, 0, 0, 0};  // in registers: neighbouring rows' sums share cache lines
    for (const SpreadFoldTap& k : tx)
      for (int c = 0; c < C; ++c) {
        const double v = double(row[size_t(k.index) * C + c]);
        s1[c] += k.w1 * v, s2[c] += k.w2 * v;
      }
    for (int c = 0; c < C; ++c) rs[size_t(j) * C + c] = s1[c], rs[(size_t(H) + j) * C + c] = s2[c];
  });
  constexpr int kColumnChunk = 256;  // the columns' sums by chunks of columns, each adding the taps' rows in order
  for_rows((W + kColumnChunk - 1) / kColumnChunk, threads, [&](int chunk) {
    const int i0 = chunk * kColumnChunk, i1 = std::min(W, i0 + kColumnChunk);
    double* s1 = cs.data();
    double* s2 = s1 + size_t(W) * C;
    for (const SpreadFoldTap& k : ty) {
      const float* row = src.f + src.offset(0, k.index);
      for (size_t v = size_t(i0) * C; v < size_t(i1) * C; ++v) {
        const double x = double(row[v]);
        s1[v] += k.w1 * x, s2[v] += k.w2 * x;
      }
    }
  });
  static constexpr double w[3] = {1.0, -2.0, 1.0};
  const size_t line = size_t(W + 2) * size_t(C);
  for_rows(dst.height + 2, threads, [&](int row) {
    const int y = row - 2;
    thread_local std::vector<double> acc, rows[4];
    acc.assign(line, 0.0);
    if (y >= 0) {
      for (int b = 0; b < 3; ++b) spread_row(src, y - 1 + (b - 1) * R, X, border, cols, rows[b]);
      std::vector<double>& V = rows[3];  // sum_b w_b E(., y - 1 + (b - 1) R)
      V.resize(rows[0].size());
      for (size_t k = 0; k < V.size(); ++k) V[k] = rows[0][k] - 2.0 * rows[1][k] + rows[2][k];
      // s(x) = V(x - 1 - R) - 2 V(x - 1) + V(x - 1 + R)
      const double *v0 = V.data() + size_t(base[0]) * C, *v1 = V.data() + size_t(base[1]) * C,
                   *v2 = V.data() + size_t(base[2]) * C;
      for (size_t k = 0; k < size_t(W) * C; ++k) acc[2 * size_t(C) + k] = v0[k] - 2.0 * v1[k] + v2[k];
      for (int b = 0; b < 3; ++b) {  // columns -1 and -2: T(t, y) = sum_b w_b S_t at E's row y - 1 + (b - 1) R
        const int j = spread_e_index(y - 1 + (b - 1) * R, H, X, border);
        if (j < 0) continue;
        for (int c = 0; c < C; ++c) {
          acc[size_t(C) + c] += w[b] * rs[size_t(j) * C + c];
          acc[size_t(c)] += w[b] * rs[(size_t(H) + j) * C + c];
        }
      }
    } else {  // the lines before the image along y (u = y): columns' sums, and the corners from the rows' sums
      const double* su = cs.data() + (y == -1 ? 0 : size_t(W) * C);
      for (int x = 0; x < W; ++x)
        for (int a = 0; a < 3; ++a) {
          const int i = spread_e_index(x - 1 + (a - 1) * R, W, X, border);
          if (i < 0) continue;
          for (int c = 0; c < C; ++c) acc[size_t(x + 2) * C + c] += w[a] * su[size_t(i) * C + c];
        }
      for (const SpreadFoldTap& k : ty) {
        const double f = y == -1 ? k.w1 : k.w2;
        for (int c = 0; c < C; ++c) {
          acc[size_t(C) + c] += f * rs[size_t(k.index) * C + c];
          acc[size_t(c)] += f * rs[(size_t(H) + k.index) * C + c];
        }
      }
    }
    std::copy(acc.begin(), acc.end(), dst.d + dst.offset(-1, row - 1));
  });
}

void cpu_fast_scale(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads) {
  const int C = dst.channels, P = dst.pad, e = pass.extend;
  const double f = double(pass.taps[0]);
  const size_t n = size_t(dst.width + 2 * P) * size_t(C);
  for_rows(dst.height + 2 * P, threads, [&](int row) {
    const int y = row - P;
    const double* in = src.d + src.offset(-P + e, y + e);
    float* out = dst.f + dst.offset(-P, y);
    for (size_t k = 0; k < n; ++k) out[k] = float(f * in[k]);
  });
}

}  // namespace gpublur
