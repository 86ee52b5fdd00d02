// Iir1d along columns with whole column lines in one block (passes/iir1d.cu; docs/performance.md "The column pass in
// one kernel" under iir): for lines of at most kIirColsBlockMaxTiles tiles (images up to 1024 tall), one kernel
// reads the image once and writes it once where the tile schedule (iir_tiles.cuh) takes three kernels, reads it
// twice and moves its aggregates through global memory. A block takes G neighbouring value lines (one channel of a
// column each) and all their tiles: thread tid runs tile tid / G of line tid % G, so a warp's loads are 32 / G rows
// of G * 4 contiguous bytes (G = 8 at 32 tiles: whole 32-byte sectors). Its tile stays in the thread's registers
// from the load to the store, through three phases a barrier apart:
//   1. sums: the tile's first-order sums from zero (iir_tile_sums_weighted) into the block's aggregates in shared
//      memory, and each line's first and last values (clamp's border values);
//   2. chains: the whole rows' chains (iir_rows.cuh, iir_block_chains) on a plan of G one-channel lines;
//   3. outputs: the tile rerun from its true states (iir_tile_final_inplace), then stored.
// Written against a block policy (device_block.cuh) and pointer types, so that tests/cuda runs the same phases on
// the host with an emulated block and race-checking shared memory.
#pragma once
#include <cstddef>

#include "gpu/cuda/passes/iir_rows.cuh"

namespace gpublur::cuda {

constexpr int kIirColsBlockMaxTiles = 32;
constexpr int kIirColsBlockMinTiles = 16;  // the product's rule (iir1d.cu's plan_cols_block): fewer measured slower
constexpr int kIirColsBlockThreads = 256;  // G lines x up to 256 / G tiles
constexpr int kIirColsBlockMaxLines = 32;  // G at most: a warp's loads one 128-byte piece of a row

struct IirColsPlan {
  // The block's lines as the whole rows' chains take them: R.rows = G lines of one channel, R.n the column's
  // length, R.nth the block's threads; its aggregates and chains' ends in shared memory (R.agg_off, R.ends_off).
  IirRowsPlan R;
  int lines = 0;          // value lines, w * ch
  int gshift = 0;         // log2 G
  size_t rowv = 0;        // floats a row: the step between a line's values
  size_t edges_off = 0;   // the lines' first and last values (2 G floats)
  size_t bytes = 0;       // shared memory a block
  GPUBLUR_HD int group() const { return R.rows; }
  GPUBLUR_HD int line_of(int tid) const { return tid & (R.rows - 1); }
  GPUBLUR_HD int tile_of(int tid) const { return tid >> gshift; }
  GPUBLUR_HD int lines_here(int block) const {
    const int rest = lines - block * R.rows;
    return rest < R.rows ? rest : R.rows;
  }
  long long blocks() const { return ((long long)lines + R.rows - 1) / R.rows; }
};

// The plan for the columns of a w x h image of ch channels and k terms; false where a line has more than
// kIirColsBlockMaxTiles tiles.
inline bool iir_cols_plan(int w, int h, int ch, int k, IirColsPlan& C) {
  if (w <= 0 || h <= 0 || ch < 1 || k < 1 || k > kMaxIirTerms) return false;
  const int ntiles = (h + kIirTile - 1) / kIirTile;
  if (ntiles > kIirColsBlockMaxTiles) return false;
  C = IirColsPlan{};
  int g = kIirColsBlockMaxLines, gs = 5;
  while (g > 1 && g * ntiles > kIirColsBlockThreads) g /= 2, --gs;
  C.lines = w * ch, C.gshift = gs, C.rowv = size_t(w) * size_t(ch);
  IirRowsPlan& P = C.R;
  P.n = h, P.ch = 1, P.k = k, P.ntiles = ntiles, P.rows = g;
  P.nth = (g * ntiles + 31) / 32 * 32;
  // Aggregates as the whole rows keep them (their bank rule: 3 k astride = 4 mod 8 float2s where it can).
  P.astride = ntiles;
  for (int a = ntiles; a < ntiles + 8; ++a)
    if ((3 * k * a) % 8 == 4) {
      P.astride = a;
      break;
    }
  P.agg_off = 0;
  P.ends_off = (size_t(g) * size_t(3 * k) * size_t(P.astride) * 2 * sizeof(float) + 15) / 16 * 16;
  P.bytes = P.ends_off + size_t(P.chains(g)) * sizeof(Cplx);
  P.lanes = P.chains(g) > P.nth / 32 ? 8 : 32;  // (as iir_rows_plan: the chains in one round where they can)
  C.edges_off = P.bytes;
  C.bytes = C.edges_off + size_t(2 * g) * sizeof(float);
  return true;
}

// Thread tid's tile: line l of the block (block: the grid's block), tile j, its first value's offset in the image and
// its length; false for the threads past the block's lines or the line's tiles.
GPUBLUR_HD bool iir_cols_item(const IirColsPlan& C, int tid, int block, int& l, int& j, size_t& at, int& cnt) {
  l = C.line_of(tid), j = C.tile_of(tid);
  if (j >= C.R.ntiles || l >= C.lines_here(block)) return false;
  at = size_t(block) * size_t(C.group()) + size_t(l) + size_t(j) * kIirTile * C.rowv;
  cnt = C.R.len(j);
  return true;
}

// 1. Thread tid's tile of the block's lines into xs (zero past the line's end), its sums
// into agg, and its line's first (edges[l]) and last value (edges[G + l]). Threads past the lines or tiles idle.
#pragma nv_exec_check_disable
template <int KT, bool REAL1, bool FULL, typename AP, typename FP>
GPUBLUR_HD void iir_cols_sums_tile(const float* src, float (&xs)[kIirTile], AP agg, FP edges, const IirColsPlan& C,
                                   const IirCoeffs& co, const IirPowers& pw, int l, int j, size_t at, int cnt) {
#pragma unroll
  for (int q = 0; q < kIirTile; ++q) xs[q] = FULL || q < cnt ? src[at + size_t(q) * C.rowv] : 0.0f;
  if (j == 0) edges[l] = xs[0];
  if (j == C.R.ntiles - 1) {
    float e = xs[0];
#pragma unroll
    for (int q = 1; q < kIirTile; ++q)
      if (q == cnt - 1) e = xs[q];  // (a register array takes compile-time indices only)
    edges[C.group() + l] = e;
  }
  iir_tile_sums_weighted<KT, REAL1, FULL>(xs, 1, cnt, agg, C.R.agg(l, 0, j), size_t(C.R.astride), co, pw);
}
#pragma nv_exec_check_disable
template <int KT, bool REAL1, typename AP, typename FP>
GPUBLUR_HD void iir_cols_sums(int tid, const float* src, float (&xs)[kIirTile], AP agg, FP edges, const IirColsPlan& C,
                              const IirCoeffs& co, const IirPowers& pw, int block) {
  int l, j, cnt;
  size_t at;
  if (!iir_cols_item(C, tid, block, l, j, at, cnt)) return;
  if (cnt == kIirTile) iir_cols_sums_tile<KT, REAL1, true>(src, xs, agg, edges, C, co, pw, l, j, at, cnt);
  else iir_cols_sums_tile<KT, REAL1, false>(src, xs, agg, edges, C, co, pw, l, j, at, cnt);
}

// 2. The chains (every thread of the block calls it).
#pragma nv_exec_check_disable
template <typename Blk, int L, typename AP, typename EP, typename FP>
GPUBLUR_HD void iir_cols_chains(AP agg, EP ends, FP edges, const IirColsPlan& C, const IirBorder& b,
                                const IirCoeffs& co, const IirRowsChain& chain, int block) {
  const int g = C.group();
  const auto edge = [&](int l, bool back) { return float(edges[back ? g + l : l]); };
  iir_block_chains<Blk, L>(edge, agg, ends, C.R, b, co, chain, C.lines_here(block));
}

// 3. Thread tid's outputs from its tile's true states, stored.
#pragma nv_exec_check_disable
template <int KT, bool REAL1, typename AP>
GPUBLUR_HD void iir_cols_final(int tid, float* dst, float (&xs)[kIirTile], AP agg, const IirColsPlan& C,
                               const IirCoeffs& co, const IirPowers& pw, int block) {
  int l, j, cnt;
  size_t at;
  if (!iir_cols_item(C, tid, block, l, j, at, cnt)) return;
  const size_t base = C.R.agg(l, 0, j), stride = size_t(C.R.astride);
  if (cnt == kIirTile) {
    iir_tile_final_inplace<KT, REAL1, true>(xs, 1, cnt, agg, base, stride, co, pw);
#pragma unroll
    for (int q = 0; q < kIirTile; ++q) dst[at + size_t(q) * C.rowv] = xs[q];
  } else {
    iir_tile_final_inplace<KT, REAL1, false>(xs, 1, cnt, agg, base, stride, co, pw);
#pragma unroll
    for (int q = 0; q < kIirTile; ++q)
      if (q < cnt) dst[at + size_t(q) * C.rowv] = xs[q];
  }
}

}  // namespace gpublur::cuda
