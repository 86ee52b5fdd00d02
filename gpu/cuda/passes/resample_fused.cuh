// The block logic of the fused and separable Down2 / Up2 schedules (passes/down2.cu, passes/up2.cu), host and
// device, so that tests/cuda/test_cuda_resample_fused_emulated.cu runs it on the host against the CPU
// reference's unfused passes.
//
// Two Down2 passes as one kernel (level 0 -> level 1 -> level 2, level 1 never in global memory): a block of
// kFuseThreadsX x kFuseThreadsY threads owns a kDownTileX x kDownTileY tile of stored level-2 pixels. Phase 1
// (every thread, strided, then a barrier) computes the level-1 window that tile reads, in level-1 coordinates
// before the border remap: cell (c, r) is level-1 pixel (vx0 + c, vy0 + r), remapped over level 1's stored area
// with the second pass's border exactly as the unfused second pass reads it (zero: the cell is 0), and its value
// is the first pass's down2_at at that stored pixel (the unfused first pass's value there). Phase 2: each thread
// its level-2 pixels from the window with the second pass's taps (rows first, then the column weights, as
// down2_at). Up2 twice likewise: a tile of kUpTileX x kUpTileY stored fine pixels reads a window of the middle
// level around floor(x / 2) - 1 .. floor(x_last / 2) + 1, filled with the first up pass's up2_at at the
// remapped stored pixels.
//
// The long (folded) Down2 as two kernels through a scratch image: rows (every stored source row, every stored
// dst column: the x sum of down2_at) then columns (the column weights over the remapped rows): n + n reads per
// output instead of n^2, no halo recomputed, every thread independent.
#pragma once
#include "gpu/cuda/passes/resample.cuh"

namespace gpublur::cuda::resample {

constexpr int kFuseThreadsX = 32, kFuseThreadsY = 8, kFuseThreads = kFuseThreadsX * kFuseThreadsY;
constexpr int kFuseMaxTaps = 4;  // the analysis kernels proper; longer (folded) levels are not fused

// Down2 x 2: the level-2 tile, and the level-1 window it reads (2 T + n - 2 per axis, n <= 4).
constexpr int kDownTileX = kFuseThreadsX, kDownTileY = 2 * kFuseThreadsY;
constexpr int kDownWinX = 2 * kDownTileX + kFuseMaxTaps - 2, kDownWinY = 2 * kDownTileY + kFuseMaxTaps - 2;
// The window's cells by column parity (even columns, then odd): the level-2 pass reads cells 2 lx + i, which at
// one array per row put neighbouring lanes two cells apart (a 2-way bank conflict on every read, half of the
// kernel's shared wavefronts on an H100); split, lane lx reads cell lx (+ 1) of one half.
__host__ __device__ __forceinline__ int down_win_index(int r, int c) {
  return (c & 1) * (kDownWinY * (kDownWinX / 2)) + r * (kDownWinX / 2) + (c >> 1);
}
static_assert(kDownWinX % 2 == 0, "window columns split by parity");

// Level geometry: pixels (w, h) without padding, padding p.
struct Level {
  int w, h, p;
};

// The first level-1 coordinate (before remapping) of block (bx, by)'s window: level-2 stored pixel t reads
// level-1 pixels 2 (t - p2) + first2 + i.
__host__ __device__ __forceinline__ int down_win0(int b, int tile, int p2, int first2) {
  return 2 * (b * tile - p2) + first2;
}

// One row sum of down2_at: level-0 stored row sy (-1: the zero border, no row) along x from level-0 pixel x0.
template <typename T, int N1>
__host__ __device__ __forceinline__ T down_row(const T* __restrict__ in, Level l0, int sy, int x0, Border b,
                                               const float* w) {
  T row = vzero<T>();
  if (sy < 0) return row;
  const T* line = in + size_t(sy) * (l0.w + 2 * l0.p);
#pragma unroll
  for (int i = 0; i < N1; ++i) {
    const int sx = stored(x0 + i, l0.w, l0.p, b);
    if (sx >= 0) row = vadd(row, scaled(w[i], line[sx]));
  }
  return row;
}

// Phase 1 in pairs of window rows (wh is even): two level-1 pixels one above the other whose stored rows are
// adjacent share N1 - 2 of their N1 + 2 source rows (12 reads each instead of 16 at N1 = 4); where the border
// remap puts them elsewhere, each is down2_at on its own. The sums are down2_at's, in its order.
template <typename T, int N1>
__host__ __device__ __forceinline__ void down2x2_fill(const T* __restrict__ in, Level l0, Level l1, Level l2,
                                                      Border b1, int first1, const float* w1, Border b2, int n2,
                                                      int first2, int bx, int by, int tid, int nthreads, T* win) {
  const int ww = 2 * kDownTileX + n2 - 2, wh = 2 * kDownTileY + n2 - 2;
  const int vx0 = down_win0(bx, kDownTileX, l2.p, first2), vy0 = down_win0(by, kDownTileY, l2.p, first2);
  for (int k = tid; k < ww * (wh / 2); k += nthreads) {
    const int pr = k / ww, c = k - pr * ww, r = 2 * pr;
    const int sx = stored(vx0 + c, l1.w, l1.p, b2);
    const int sya = stored(vy0 + r, l1.h, l1.p, b2), syb = stored(vy0 + r + 1, l1.h, l1.p, b2);
    T a = vzero<T>(), b = vzero<T>();
    if (sx >= 0) {
      if (sya >= 0 && syb == sya + 1) {
        const int x0 = 2 * (sx - l1.p) + first1, y0 = 2 * (sya - l1.p) + first1;
        // Every load of the (N1 + 2) x N1 source pixels first, then down_row's sums in its order: the loads are in
        // flight together (one row's N1 at a time waited a memory round trip per row: long-scoreboard stalls
        // were 58% of this kernel's cycles, H100).
        int sxs[N1];
#pragma unroll
        for (int i = 0; i < N1; ++i) sxs[i] = stored(x0 + i, l0.w, l0.p, b1);
        T px[N1 + 2][N1];
        bool rowok[N1 + 2];
#pragma unroll
        for (int j = 0; j < N1 + 2; ++j) {
          const int sy = stored(y0 + j, l0.h, l0.p, b1);
          rowok[j] = sy >= 0;
          const T* line = in + size_t(sy < 0 ? 0 : sy) * (l0.w + 2 * l0.p);
#pragma unroll
          for (int i = 0; i < N1; ++i) px[j][i] = sy >= 0 && sxs[i] >= 0 ? line[sxs[i]] : vzero<T>();
        }
        T h[N1 + 2];
#pragma unroll
        for (int j = 0; j < N1 + 2; ++j) {
          h[j] = vzero<T>();
          if (rowok[j])
#pragma unroll
            for (int i = 0; i < N1; ++i)
              if (sxs[i] >= 0) h[j] = vadd(h[j], scaled(w1[i], px[j][i]));
        }
#pragma unroll
        for (int j = 0; j < N1; ++j) {
          a = vadd(a, scaled(w1[j], h[j]));
          b = vadd(b, scaled(w1[j], h[j + 2]));
        }
      } else {
        if (sya >= 0) a = down2_at(in, l0.w, l0.h, l0.p, sx, sya, l1.p, b1, N1, first1, w1);
        if (syb >= 0) b = down2_at(in, l0.w, l0.h, l0.p, sx, syb, l1.p, b1, N1, first1, w1);
      }
    }
    win[down_win_index(r, c)] = a;
    win[down_win_index(r + 1, c)] = b;
  }
}

// Level-2 pixel (lx, ly) of the block's tile from the window (the unfused pass's sums, in its order).
template <typename T>
__host__ __device__ __forceinline__ T down2x2_out(const T* win, int lx, int ly, int n2, const float* w2) {
  T acc = vzero<T>();
  for (int j = 0; j < n2; ++j) {
    T line = vzero<T>();
    for (int i = 0; i < n2; ++i) line = vadd(line, scaled(w2[i], win[down_win_index(2 * ly + j, 2 * lx + i)]));
    acc = vadd(acc, scaled(w2[j], line));
  }
  return acc;
}

// Up2 x 2: the fine tile, and the middle level's window (T / 2 + 3 per axis: floor(x / 2) over the tile, one
// more on each side, one more where the tile starts on an odd x).
constexpr int kUpTileX = 2 * kFuseThreadsX, kUpTileY = 4 * kFuseThreadsY;
constexpr int kUpWinX = kUpTileX / 2 + 3, kUpWinY = kUpTileY / 2 + 3;

__host__ __device__ __forceinline__ int up_win0(int b, int tile, int p0) { return floor_half(b * tile - p0) - 1; }

// l2: the coarse source, l1: the middle level, p0: the fine destination's padding; b1 reads l2, b2 reads l1.
template <typename T>
__host__ __device__ __forceinline__ void up2x2_fill(const T* __restrict__ in, Level l2, Level l1, int p0, Border b1,
                                                    Border b2, int bx, int by, int tid, int nthreads, T* win) {
  const int vx0 = up_win0(bx, kUpTileX, p0), vy0 = up_win0(by, kUpTileY, p0);
  for (int k = tid; k < kUpWinX * kUpWinY; k += nthreads) {
    const int r = k / kUpWinX, c = k - r * kUpWinX;
    const int sx = stored(vx0 + c, l1.w, l1.p, b2), sy = stored(vy0 + r, l1.h, l1.p, b2);
    win[k] = sx < 0 || sy < 0 ? vzero<T>() : up2_at(in, l2.w, l2.h, l2.p, sx, sy, l1.p, b1);
  }
}

// Fine stored pixel (tx, ty) of block (bx, by)'s tile from the window (up2_at's weights and order).
template <typename T>
__host__ __device__ __forceinline__ T up2x2_out(const T* win, int bx, int by, int tx, int ty, int p0) {
  const int vx0 = up_win0(bx, kUpTileX, p0), vy0 = up_win0(by, kUpTileY, p0);
  const int x = tx - p0, y = ty - p0;
  const int xn = floor_half(x), yn = floor_half(y), xf = xn + ((x & 1) ? 1 : -1), yf = yn + ((y & 1) ? 1 : -1);
  auto read = [&](int cx, int cy) { return win[(cy - vy0) * kUpWinX + (cx - vx0)]; };
  const T r0 = vadd(scaled(0.75f, read(xn, yn)), scaled(0.25f, read(xf, yn)));
  const T r1 = vadd(scaled(0.75f, read(xn, yf)), scaled(0.25f, read(xf, yf)));
  return vadd(scaled(0.75f, r0), scaled(0.25f, r1));
}

// The separable long Down2. Rows: scratch (dst's stored columns x src's stored rows), entry (tx, sy) = stored
// source row sy filtered along x for dst stored column tx.
template <typename T>
__host__ __device__ __forceinline__ T down2_rows_at(const T* __restrict__ in, int W, int spad, int tx, int sy,
                                                    int dpad, Border b, int n, int first, const float* w) {
  const T* row = in + size_t(sy) * (W + 2 * spad);
  const int x0 = 2 * (tx - dpad) + first;
  T acc = vzero<T>();
  if (x0 >= -spad && x0 + n <= W + spad) {  // inside the stored row: no remapping
    row += x0 + spad;
    for (int i = 0; i < n; ++i) acc = vadd(acc, scaled(w[i], row[i]));
  } else {
    for (int i = 0; i < n; ++i) {
      const int sx = stored(x0 + i, W, spad, b);
      if (sx >= 0) acc = vadd(acc, scaled(w[i], row[sx]));
    }
  }
  return acc;
}

// Columns: dst stored pixel (tx, ty) from the rows scratch (rows of dst.stride() entries).
template <typename T>
__host__ __device__ __forceinline__ T down2_cols_at(const T* __restrict__ rows, int H, int spad, int dstride, int tx,
                                                    int ty, int dpad, Border b, int n, int first, const float* w) {
  const int y0 = 2 * (ty - dpad) + first;
  T acc = vzero<T>();
  for (int j = 0; j < n; ++j) {
    const int sy = stored(y0 + j, H, spad, b);
    acc = vadd(acc, scaled(w[j], sy >= 0 ? rows[size_t(sy) * dstride + tx] : vzero<T>()));
  }
  return acc;
}

}  // namespace gpublur::cuda::resample
