// The block logic of the fused dual schedules (passes/dual.cu), host and device, so that
// tests/cuda/test_cuda_dual_fused_emulated.cu runs it on the host against the CPU reference's unfused passes.
// The dual images are unpadded (dual.cu checks), a coarse level ceil(fine / 2) per axis.
//
// Two DualDown passes as one kernel (level 0 -> level 1 -> level 2, level 1 never in global memory): a block of
// kFuseThreadsX x kFuseThreadsY threads owns a kDownTileX x kDownTileY tile of level-2 pixels. Level-2 pixel X
// reads level-1 pixels 2X - 1 .. 2X + 2, so the tile reads the level-1 window 2 T + 2 per axis from 2 X0 - 1.
// Phase 1 (every thread, strided, then a barrier): window cell (c, r) is level-1 pixel (vx0 + c, vy0 + r)
// remapped over level 1 with the second pass's border exactly as the unfused second pass reads it (zero: the
// cell is 0), its value the first pass's down_value at the remapped pixel (the unfused first pass's value
// there). Cells go in vertical pairs: two level-1 pixels one above the other whose remapped rows are adjacent
// share 2 of their 6 source rows (24 reads instead of 32). Phase 2: each thread its level-2 pixels from the
// window with down_value's sums in its order.
//
// (Two DualUp passes as one, the middle level's window in shared memory, measured slower on an H100: the
// full-size pair 0.269 ms against 0.037 + 0.135 unfused; removed, docs/performance.md.)
#pragma once
#include "gpu/cuda/passes/dual.cuh"

namespace gpublur::cuda::dual {

constexpr int kFuseThreadsX = 32, kFuseThreadsY = 8, kFuseThreads = kFuseThreadsX * kFuseThreadsY;

// Image size (the dual images have no padding).
struct Size {
  int w, h;
};

// ---- Down x 2 ----
constexpr int kDownTileX = kFuseThreadsX, kDownTileY = 2 * kFuseThreadsY;
constexpr int kDownWinX = 2 * kDownTileX + 2, kDownWinY = 2 * kDownTileY + 2;  // 66 x 34 (even: row pairs)
// The window's cells by column parity (even columns, then odd): the level-2 reads of cells 2 lx + i are then
// neighbouring cells of one half for neighbouring lanes, not two apart (a 2-way bank conflict on every read).
__host__ __device__ __forceinline__ int down_win_index(int r, int c) {
  return (c & 1) * (kDownWinY * (kDownWinX / 2)) + r * (kDownWinX / 2) + (c >> 1);
}

__host__ __device__ __forceinline__ int down_win0(int b, int tile) { return 2 * b * tile - 1; }

// One source row of down_value: (a + d) + mid and mid, the 4 columns cx (remapped, -1: zero) of row ry.
template <typename T>
__host__ __device__ __forceinline__ void down_row(const T* __restrict__ in, const int* cx, int ry, int Ws, T& sum,
                                                  T& mid) {
  const T a = fetch(in, cx[0], ry, Ws), m0 = fetch(in, cx[1], ry, Ws), m1 = fetch(in, cx[2], ry, Ws),
          d = fetch(in, cx[3], ry, Ws);
  mid = vadd(m0, m1);
  sum = vadd(vadd(a, d), mid);
}

// down_value from 4 row results (rows 2Y - 1 .. 2Y + 2), in its order.
template <typename T>
__host__ __device__ __forceinline__ T down_from_rows(const T* sum, const T* mid) {
  T all = vzero<T>(), inner = vzero<T>();
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    all = vadd(all, sum[j]);
    if (j == 1 || j == 2) inner = vadd(inner, mid[j]);
  }
  T res = vzero<T>();
  vfma(1.f / 32.f, all, res);
  vfma(1.f / 8.f, inner, res);
  return res;
}

// l0: the source, l1: the middle level (b1 reads l0, b2 reads l1).
template <typename T>
__host__ __device__ __forceinline__ void down2x2_fill(const T* __restrict__ in, Size l0, Size l1, Border b1,
                                                      Border b2, int bx, int by, int tid, int nthreads, T* win) {
  const int vx0 = down_win0(bx, kDownTileX), vy0 = down_win0(by, kDownTileY);
  for (int k = tid; k < kDownWinX * (kDownWinY / 2); k += nthreads) {
    const int pr = k / kDownWinX, c = k - pr * kDownWinX, r = 2 * pr;
    const int sx = remap_index(vx0 + c, l1.w, b2);
    const int sya = remap_index(vy0 + r, l1.h, b2), syb = remap_index(vy0 + r + 1, l1.h, b2);
    T a = vzero<T>(), b = vzero<T>();
    if (sx >= 0) {
      if (sya >= 0 && syb == sya + 1) {
        int cx[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) cx[i] = remap_index(2 * sx - 1 + i, l0.w, b1);
        T sum[6], mid[6];
#pragma unroll
        for (int j = 0; j < 6; ++j) down_row(in, cx, remap_index(2 * sya - 1 + j, l0.h, b1), l0.w, sum[j], mid[j]);
        a = down_from_rows(sum, mid);
        b = down_from_rows(sum + 2, mid + 2);
      } else {
        if (sya >= 0) a = down_value(in, sx, sya, l0.w, l0.h, b1);
        if (syb >= 0) b = down_value(in, sx, syb, l0.w, l0.h, b1);
      }
    }
    win[down_win_index(r, c)] = a;
    win[down_win_index(r + 1, c)] = b;
  }
}

// Level-2 pixel (lx, ly) of the block's tile from the window (down_value's sums, in its order).
template <typename T>
__host__ __device__ __forceinline__ T down2x2_out(const T* win, int lx, int ly) {
  T sum[4], mid[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int r = 2 * ly + j, c = 2 * lx;
    mid[j] = vadd(win[down_win_index(r, c + 1)], win[down_win_index(r, c + 2)]);
    sum[j] = vadd(vadd(win[down_win_index(r, c)], win[down_win_index(r, c + 3)]), mid[j]);
  }
  return down_from_rows(sum, mid);
}

}  // namespace gpublur::cuda::dual
