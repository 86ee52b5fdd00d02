// Moving rows of one- and two-channel images into and out of float4 lines (box1d.cu box_rows_packed_kernel): tile
// position q holds, as one float4, the values there of P = 4 / K rows (K floats a value). A 16-byte load or store
// moves P positions of one row, so each thread spreads one float4 of a row over P positions of the tile: one
// component (K = 1) or half (K = 2) of each. The order of the P writes turns with the lane's quad so that a warp's
// writes fall in distinct banks (in a fixed order four lanes would share each bank for K = 1).
#pragma once

#include "gpu/cuda/cuda_common.cuh"

namespace gpublur::cuda {

// Value p of a float4 holding P values of E (P = 4 / K).
__device__ __forceinline__ float quad_value(const float4& v, int p, float) { return vget(v, p); }
__device__ __forceinline__ float2 quad_value(const float4& v, int p, float2) {
  return p == 0 ? make_float2(v.x, v.y) : make_float2(v.z, v.w);
}
__device__ __forceinline__ void quad_set(float4& v, int p, float e) { vset(v, p, e); }
__device__ __forceinline__ void quad_set(float4& v, int p, float2 e) {
  if (p == 0)
    v.x = e.x, v.y = e.y;
  else
    v.z = e.x, v.w = e.y;
}
// The first of the P writes of quad m (a warp's quads m hit distinct banks across their P turns).
template <int P>
__device__ __forceinline__ int quad_turn(int m) {
  return P == 4 ? (m >> 1) & 3 : (m >> 2) & 1;
}

// A thread of NT (a multiple of P) always serves row r = tid mod P of the block's P rows, and quads m = tid / P,
// + NT / P, ...: no division and one row pointer a thread (a loop over (position, row) pairs with run-time strides
// executed 2.5x the RGBA rows kernel's instructions a block, H200, Nsight Compute).
template <typename E, int NT>
struct PackedLane {
  static constexpr int P = 4 / VecInfo<E>::K, STEP = NT / P;
  static_assert(NT % P == 0, "a thread keeps its row");
  int r = int(threadIdx.x) % P, m0 = int(threadIdx.x) / P;
};

// Tile positions q0 .. q0 + nquads P - 1 from row (its first P values at x0, a multiple of P: 16-byte aligned), four
// loads in flight before their shared-memory writes. The writes' order turns with the quad (a warp's writes then hit
// 32 distinct banks; the turn is constant a thread, since NT / P quads apart share it).
template <typename E, int NT>
__device__ __forceinline__ void load_quads(E* se, int q0, const E* __restrict__ row, int nquads) {
  using L = PackedLane<E, NT>;
  const L ln;
  constexpr int P = L::P, STEP = L::STEP;
  const int turn = quad_turn<P>(ln.m0);
  E* dst = se + q0 * P + ln.r;
  for (int m = ln.m0; m < nquads; m += 4 * STEP) {
    float4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (m + u * STEP < nquads) v[u] = __ldg(reinterpret_cast<const float4*>(row + (m + u * STEP) * P));
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (m + u * STEP < nquads)
#pragma unroll
        for (int t = 0; t < P; ++t) {
          const int p = (t + turn) & (P - 1);
          dst[((m + u * STEP) * P + p) * P] = quad_value(v[u], p, E{});
        }
  }
}

// Tile positions q0 .. q0 + nquads P - 1 to row (x0 a multiple of P), as load_quads.
template <typename E, int NT>
__device__ __forceinline__ void store_quads(E* __restrict__ row, const E* se, int q0, int nquads) {
  using L = PackedLane<E, NT>;
  const L ln;
  constexpr int P = L::P, STEP = L::STEP;
  const int turn = quad_turn<P>(ln.m0);
  const E* src = se + q0 * P + ln.r;
#pragma unroll 2
  for (int m = ln.m0; m < nquads; m += STEP) {
    float4 v;
#pragma unroll
    for (int t = 0; t < P; ++t) {
      const int p = (t + turn) & (P - 1);
      quad_set(v, p, src[(m * P + p) * P]);
    }
    *reinterpret_cast<float4*>(row + m * P) = v;
  }
}

}  // namespace gpublur::cuda
