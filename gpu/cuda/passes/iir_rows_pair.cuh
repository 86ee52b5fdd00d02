// The x/y pair (core's iir_pair) where the rows run whole (iir_rows.cuh) and the columns as tiles (iir_tiles.cuh):
// one kernel (iir1d.cu's iir1d_rows_pair_kernel) runs the rows pass's blocks and the column pass's sums, so that
// the sums read the rows' outputs from L2 soon after they were stored, where a sums kernel of their own read them
// back from DRAM (76 us of iir's 452 at 4096^2 RGBA on an H200, at 86% of its bandwidth; docs/performance.md).
// A block takes one item by ticket (an atomic counter): a rows item (one whole-rows block) or a sums item (nth
// column value lines of one column tile-row, a thread each). The order puts the sums of tile-row t `lag`
// tile-rows after t's rows items; a sums item waits (one thread spinning on t's count of stored rows) until those
// have stored. Every item is taken by a block already running, and a sums item waits only on rows items of
// earlier tickets, which need nothing: the wait always ends, whatever the hardware's block order.
#pragma once
#include <algorithm>

#include "gpu/cuda/passes/iir_rows.cuh"

namespace gpublur::cuda {

struct IirRowsPairPlan {
  int rb = 1;    // rows items per column tile-row: tile / rows per block (the rows plan's rows divide the tile)
  int sums = 1;  // sums items per tile-row: ceil(column value lines / threads per block)
  int ntc = 0;   // column tile-rows
  int lag = 0;   // tile-rows of rows items between tile-row t's rows items and its sums items
  GPUBLUR_HD long long total() const { return (long long)ntc * (rb + sums); }
  // Ticket g's item: rows (tile-row t's o-th rows block) or sums (tile-row t's o-th group of lines). The tickets
  // run lag periods of rows items alone, then periods of a tile-row's rows items and the sums of the tile-row lag
  // before it, then the last lag tile-rows' sums.
  GPUBLUR_HD void item(long long g, bool& rows, int& t, int& o) const {
    const long long head = (long long)lag * rb, mid = (long long)(ntc - lag) * (rb + sums);
    if (g < head) {
      rows = true, t = int(g / rb), o = int(g % rb);
    } else if (g < head + mid) {
      const long long p = (g - head) / (rb + sums), e = (g - head) % (rb + sums);
      rows = e < rb;
      t = int(rows ? lag + p : p), o = int(rows ? e : e - rb);
    } else {
      const long long e = g - head - mid;
      rows = false, t = int(ntc - lag + e / sums), o = int(e % sums);
    }
  }
};

// The pair's schedule for a rows plan R (its rows dividing the column tile) and column plan Pc; lag is clamped
// to the tile-rows there are.
inline IirRowsPairPlan iir_rows_pair_plan(const IirRowsPlan& R, const IirTilePlan& Pc, int lag) {
  IirRowsPairPlan Q;
  Q.rb = Pc.tile / R.rows;
  Q.sums = (Pc.lines + R.nth - 1) / R.nth;
  Q.ntc = Pc.ntiles;
  Q.lag = std::max(0, std::min(lag, Q.ntc));
  return Q;
}

// Half a column tile's weighted sums from zero (iir_tile_sums_weighted's form: independent FMAs with the powers
// p^j, j < kIirTile, from the kernel's parameters): n <= kIirTile values x(q0 + d), U = sum p^(n-1-d) x at the
// half's last position and W = sum p^d x at its first. FULL: n == kIirTile, no per-step tests.
#pragma nv_exec_check_disable
template <int KT, bool REAL1, bool FULL, typename LD>
GPUBLUR_HD void iir_col_half_sums(LD x, int q0, int n, float (&u)[KT][2], float (&w)[KT][2], const IirCoeffs& co,
                                  const IirPowers& pw) {
#pragma unroll
  for (int t = 0; t < KT; ++t) u[t][0] = u[t][1] = w[t][0] = w[t][1] = 0.0f;
  const auto step = [&](int d, int e) {
    const float xq = x(q0 + d);
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (!iir_term_on<KT>(t, co)) continue;
      const bool real = REAL1 && t == 1;
      u[t][0] += pw.re[t][e] * xq, w[t][0] += pw.re[t][d] * xq;
      if (!real) u[t][1] += pw.im[t][e] * xq, w[t][1] += pw.im[t][d] * xq;
    }
  };
  if constexpr (FULL) {
#pragma unroll
    for (int d = 0; d < kIirTile; ++d) step(d, kIirTile - 1 - d);
  } else {
#pragma unroll 1  // (the image's last tile-row only: not worth its code in every kernel)
    for (int d = 0; d < n; ++d) step(d, n - 1 - d);
  }
}

// A column tile's aggregates (iir_tile_sums_at's: U at its last position, W at its first, and for long tiles the
// upper half's W from zero) from its cnt values x(q), q < cnt, a half of kIirTile at a time: U = p^n1 U0 + U1,
// W = W0 + p^kIirTile W1 (n1 the upper half's length). tile: kIirTile or kIirColTile.
#pragma nv_exec_check_disable
template <int KT, bool REAL1, bool FULL, typename LD, typename AP>
GPUBLUR_HD void iir_col_tile_sums(LD x, int cnt, int tile, AP agg, size_t base, size_t sstride, const IirCoeffs& co,
                                  const IirPowers& pw) {
  float u0[KT][2], w0[KT][2];
  iir_col_half_sums<KT, REAL1, FULL>(x, 0, FULL ? kIirTile : cnt < kIirTile ? cnt : kIirTile, u0, w0, co, pw);
  if (tile == kIirTile) {
#pragma unroll
    for (int t = 0; t < KT; ++t) {
      if (!iir_term_on<KT>(t, co)) continue;
      agg[long(base + size_t(t) * sstride)] = float2{u0[t][0], u0[t][1]};
      agg[long(base + size_t(co.k + t) * sstride)] = float2{w0[t][0], w0[t][1]};
    }
    return;
  }
  const int n1 = FULL ? kIirTile : cnt > kIirTile ? cnt - kIirTile : 0;
  float u1[KT][2], w1[KT][2];
  if (FULL || n1 > 0) {
    iir_col_half_sums<KT, REAL1, FULL>(x, kIirTile, n1, u1, w1, co, pw);
  } else {
#pragma unroll
    for (int t = 0; t < KT; ++t) u1[t][0] = u1[t][1] = w1[t][0] = w1[t][1] = 0.0f;
  }
#pragma unroll
  for (int t = 0; t < KT; ++t) {
    if (!iir_term_on<KT>(t, co)) continue;
    const float hr = float(co.phr[t]), hi = float(co.phi[t]);  // p^kIirTile
    const float nr = n1 == kIirTile ? hr : pw.re[t][n1], ni = n1 == kIirTile ? hi : pw.im[t][n1];
    agg[long(base + size_t(t) * sstride)] =
        float2{nr * u0[t][0] - ni * u0[t][1] + u1[t][0], nr * u0[t][1] + ni * u0[t][0] + u1[t][1]};
    agg[long(base + size_t(co.k + t) * sstride)] =
        float2{w0[t][0] + hr * w1[t][0] - hi * w1[t][1], w0[t][1] + hr * w1[t][1] + hi * w1[t][0]};
    agg[long(base + size_t(2 * co.k + t) * sstride)] = float2{w1[t][0], w1[t][1]};
  }
}

// Value q of a column tile: ld(first + q step).
template <typename LD>
struct IirColValues {
  LD ld;
  size_t first, step;
#pragma nv_exec_check_disable
  GPUBLUR_HD float operator()(int q) const { return ld(first + size_t(q) * step); }
};

// Sums item thread: column value line l of tile-row t of the pair's intermediate `mid` (read through ld(i), the
// value at offset i: __ldcg on the device, where other blocks of the same kernel stored it).
#pragma nv_exec_check_disable
template <int KT, bool REAL1, typename LD, typename AP>
GPUBLUR_HD void iir_col_sums_item(LD ld, AP agg, const IirTilePlan& Pc, const IirCoeffs& co, const IirPowers& pw, int l,
                                  int t) {
  const IirColValues<LD> x{ld, Pc.at(l, t * Pc.tile), Pc.step};
  const int cnt = Pc.len(t);
  const size_t base = Pc.agg(t, 0, l), sstride = size_t(Pc.lines);
  if (cnt == Pc.tile) iir_col_tile_sums<KT, REAL1, true>(x, cnt, Pc.tile, agg, base, sstride, co, pw);
  else iir_col_tile_sums<KT, REAL1, false>(x, cnt, Pc.tile, agg, base, sstride, co, pw);
}

}  // namespace gpublur::cuda
