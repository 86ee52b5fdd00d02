// fft-conv1d's own transform: overlap-save segments, one block each, transformed in shared memory (the layout
// and the Stockham passes: fft_segments.hpp). One kernel per pass: the image is read about once and written once,
// where cuFFT's path (fft_conv1d.cu) moves five line buffers through device memory per axis.
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/passes/fft_segments.hpp"

namespace gpublur::cuda {
namespace {

__device__ __forceinline__ float2 cadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float4 cadd(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ __forceinline__ float2 csub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float4 csub(float4 a, float4 b) {
  return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
}
__device__ __forceinline__ float2 cmul(float2 a, float2 w) {
  return make_float2(fmaf(a.x, w.x, -a.y * w.y), fmaf(a.x, w.y, a.y * w.x));
}
__device__ __forceinline__ float4 cmul(float4 a, float2 w) {
  return make_float4(fmaf(a.x, w.x, -a.y * w.y), fmaf(a.x, w.y, a.y * w.x), fmaf(a.z, w.x, -a.w * w.y),
                     fmaf(a.z, w.y, a.w * w.x));
}
// a times S i (S = +-1).
template <int S> __device__ __forceinline__ float2 cmuli(float2 a) {
  return S > 0 ? make_float2(-a.y, a.x) : make_float2(a.y, -a.x);
}
template <int S> __device__ __forceinline__ float4 cmuli(float4 a) {
  return S > 0 ? make_float4(-a.y, a.x, -a.w, a.z) : make_float4(a.y, -a.x, a.w, -a.z);
}
// a times exp(S i pi / 4) = (1 + S i) / sqrt 2, and times exp(3 S i pi / 4) = (-1 + S i) / sqrt 2.
template <int S> __device__ __forceinline__ float2 cmul_w8(float2 a) {
  constexpr float c = 0.70710678118654752f;
  return make_float2(c * (a.x - S * a.y), c * (a.y + S * a.x));
}
template <int S> __device__ __forceinline__ float4 cmul_w8(float4 a) {
  constexpr float c = 0.70710678118654752f;
  return make_float4(c * (a.x - S * a.y), c * (a.y + S * a.x), c * (a.z - S * a.w), c * (a.w + S * a.z));
}
template <int S> __device__ __forceinline__ float2 cmul_w83(float2 a) {
  constexpr float c = 0.70710678118654752f;
  return make_float2(c * (-a.x - S * a.y), c * (-a.y + S * a.x));
}
template <int S> __device__ __forceinline__ float4 cmul_w83(float4 a) {
  constexpr float c = 0.70710678118654752f;
  return make_float4(c * (-a.x - S * a.y), c * (-a.y + S * a.x), c * (-a.z - S * a.w), c * (-a.w + S * a.z));
}

// In-place DFTs of sign S (X_q = sum_m a_m exp(S 2 pi i q m / R)), natural order in and out.
template <int S, typename E>
__device__ __forceinline__ void dft4(E& a0, E& a1, E& a2, E& a3) {
  const E t0 = cadd(a0, a2), t1 = csub(a0, a2), t2 = cadd(a1, a3), t3 = cmuli<S>(csub(a1, a3));
  a0 = cadd(t0, t2), a2 = csub(t0, t2), a1 = cadd(t1, t3), a3 = csub(t1, t3);
}
template <int S, typename E>
__device__ __forceinline__ void dft8(E* a) {
  dft4<S>(a[0], a[2], a[4], a[6]);  // the even inputs' DFT: E_q in a[2q]
  dft4<S>(a[1], a[3], a[5], a[7]);  // the odd inputs': O_q in a[2q + 1]
  a[3] = cmul_w8<S>(a[3]), a[5] = cmuli<S>(a[5]), a[7] = cmul_w83<S>(a[7]);
  const E x0 = cadd(a[0], a[1]), x4 = csub(a[0], a[1]), x1 = cadd(a[2], a[3]), x5 = csub(a[2], a[3]);
  const E x2 = cadd(a[4], a[5]), x6 = csub(a[4], a[5]), x3 = cadd(a[6], a[7]), x7 = csub(a[6], a[7]);
  a[0] = x0, a[1] = x1, a[2] = x2, a[3] = x3, a[4] = x4, a[5] = x5, a[6] = x6, a[7] = x7;
}

// The pixel V as transform elements E: float4 as two complex numbers, float2 as one; one-channel lines in pairs,
// line 2u + 1 as the imaginary part of line 2u (kLines image lines per transform line).
template <typename V> struct Seg;
template <> struct Seg<float4> {
  using E = float4;
  static constexpr int kLines = 1;
};
template <> struct Seg<float2> {
  using E = float2;
  static constexpr int kLines = 1;
};
template <> struct Seg<float> {
  using E = float2;
  static constexpr int kLines = 2;
};

// One Stockham pass (fft_segments.hpp) of radix R after sub-transforms of length NS: every thread loads its
// 8 elements, (barrier where the pass is in place), twiddles, transforms and stores them.
template <int S, int M, int NB, int R, int NS, bool LINES_FAST, bool SYNC, typename E, typename Load, typename Store>
__device__ __forceinline__ void stockham_pass(int t, E (&v)[8], Load load, Store store) {
  constexpr int U = 8 / R, BPL = M / R;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    int line, j;
    seg_butterfly(M, NB, R, LINES_FAST, t, u, line, j);
#pragma unroll
    for (int q = 0; q < R; ++q) v[u * R + q] = load(line, j + q * BPL);
  }
  if (SYNC) __syncthreads();
#pragma unroll
  for (int u = 0; u < U; ++u) {
    int line, j;
    seg_butterfly(M, NB, R, LINES_FAST, t, u, line, j);
    const int k = j & (NS - 1);
    E* w = v + u * R;
    if (NS > 1) {
      // exp(S 2 pi i k / (NS R)) to one ulp (sincospif), its powers by products (a few ulp).
      float sn, cs;
      sincospif(float(S * 2 * k) * (1.0f / float(NS * R)), &sn, &cs);
      const float2 w1 = make_float2(cs, sn);
      float2 wq = w1;
#pragma unroll
      for (int q = 1; q < R; ++q) {
        w[q] = cmul(w[q], wq);
        if (q + 1 < R) wq = cmul(wq, w1);
      }
    }
    if constexpr (R == 8) dft8<S>(w);
    else dft4<S>(w[0], w[1], w[2], w[3]);
    const int base = (j / NS) * NS * R + k;
#pragma unroll
    for (int q = 0; q < R; ++q) store(line, base + q * NS, w[q]);
  }
}

// Passes p .. LAST - 1 of sign S, shared memory to shared memory.
template <int S, int LOG2M, int NB, int p, int LAST, typename E>
__device__ __forceinline__ void shared_passes(int t, E* s, E (&v)[8]) {
  if constexpr (p < LAST) {
    constexpr int LS = seg_line_slots(1 << LOG2M);
    auto ld = [&](int line, int i) { return s[line * LS + seg_slot(i)]; };
    auto st = [&](int line, int i, const E& e) { s[line * LS + seg_slot(i)] = e; };
    stockham_pass<S, 1 << LOG2M, NB, seg_radix(LOG2M, p), seg_ns(LOG2M, p), false, true>(t, v, ld, st);
    __syncthreads();
    shared_passes<S, LOG2M, NB, p + 1, LAST>(t, s, v);
  }
}

// Block = (NB lines, segment): segment seg of lines line0 .. line0 + NB - 1 (AXIS 0: rows, 1: columns). shift:
// stored element i is line position seg len - shift + i (FftSegPlan::shift(): the radius, or 0 for an unpadded
// line, loaded with core's fft_unpadded_load border).
template <typename V, int LOG2M, int NB, int AXIS>
__global__ void __launch_bounds__(NB * (1 << LOG2M) / 8)
    fft_segments_kernel(const V* __restrict__ in, V* __restrict__ out, int width, int height, Border border,
                        int shift, int len, int nseg, const float2* __restrict__ bins) {
  using E = typename Seg<V>::E;
  constexpr int M = 1 << LOG2M, P = seg_passes(LOG2M), LS = seg_line_slots(M);
  constexpr int R0 = seg_radix(LOG2M, 0), RL = seg_radix(LOG2M, P - 1), NSL = seg_ns(LOG2M, P - 1);
  extern __shared__ float4 smem4[];
  E* s = reinterpret_cast<E*>(smem4);
  const int t = int(threadIdx.x);
  constexpr int LPE = Seg<V>::kLines;
  const int n = AXIS == 0 ? width : height, lines = AXIS == 0 ? height : width;
  const int seg = int(blockIdx.x % unsigned(nseg)), line0 = int(blockIdx.x / unsigned(nseg)) * NB;
  const int x0 = seg * len - shift;  // the line position of stored element 0
  E v[8];
  auto pixel = [&](int ln, int x) {
    return AXIS == 0 ? size_t(ln) * size_t(width) + size_t(x) : size_t(x) * size_t(width) + size_t(ln);
  };
  auto ld_img = [&](int line, int i) {
    const int ln = (line0 + line) * LPE;  // the first image line
    int x = x0 + i;
    if (x < 0 || x >= n) x = remap_index(x, n, border);
    E e = vzero<E>();
    if (ln < lines && x >= 0) {
      if constexpr (LPE == 2) e = make_float2(in[pixel(ln, x)], ln + 1 < lines ? in[pixel(ln + 1, x)] : 0.f);
      else e = in[pixel(ln, x)];
    }
    return e;
  };
  auto ld_sh = [&](int line, int i) { return s[line * LS + seg_slot(i)]; };
  auto st_sh = [&](int line, int i, const E& e) { s[line * LS + seg_slot(i)] = e; };
  auto st_bins = [&](int line, int i, const E& e) { s[line * LS + seg_slot(i)] = cmul(e, bins[i]); };
  auto st_img = [&](int line, int i, const E& e) {
    const int ln = (line0 + line) * LPE, q = i - shift, x = seg * len + q;
    if (ln >= lines || q < 0 || q >= len || x >= n) return;
    if constexpr (LPE == 2) {
      out[pixel(ln, x)] = e.x;
      if (ln + 1 < lines) out[pixel(ln + 1, x)] = e.y;
    } else {
      out[pixel(ln, x)] = e;
    }
  };
  // Forward: image -> shared, the middle passes, the last one times the kernel's bins.
  stockham_pass<-1, M, NB, R0, 1, true, false>(t, v, ld_img, st_sh);
  __syncthreads();
  shared_passes<-1, LOG2M, NB, 1, P - 1>(t, s, v);
  stockham_pass<-1, M, NB, RL, NSL, false, true>(t, v, ld_sh, st_bins);
  __syncthreads();
  // Inverse: shared -> shared, the last pass shared -> image (no barrier: nothing is stored in shared memory).
  shared_passes<1, LOG2M, NB, 0, P - 1>(t, s, v);
  stockham_pass<1, M, NB, RL, NSL, true, false>(t, v, ld_sh, st_img);
}

// Clamp's constants on an unpadded line (fft_segments.hpp; core/fft.hpp fft_clamp_tails), after its transform: out(x)
// += in(0) tails[x] for x < r and in(n - 1) tails[r + n - 1 - x] for n - 1 - x < r. A thread per (line, tail position),
// the positions x < a = min(r, n) and x >= b = max(n - r, a) (core's fft_clamp_tail_positions); rows along the
// positions, columns across the lines (coalesced either way). A separate kernel leaves the transform's code as it was:
// with the constants added at its store, every transform (padded ones too) ran 2-5% slower on an H200
// (docs/performance.md, fft, "Unpadded lines").
template <typename V, int AXIS>
__global__ void fft_clamp_tails_kernel(const V* __restrict__ in, V* __restrict__ out, int width, int height, int r,
                                       const float* __restrict__ tails) {
  const int n = AXIS == 0 ? width : height, lines = AXIS == 0 ? height : width;
  const int a = min(r, n), b = max(n - r, a), per_line = a + (n - b);
  const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= (long long)per_line * lines) return;
  const int t = AXIS == 0 ? int(id % per_line) : int(id / lines);
  const int ln = AXIS == 0 ? int(id / per_line) : int(id % lines);
  const int x = t < a ? t : b + (t - a);
  auto at = [&](int q) {
    return AXIS == 0 ? size_t(ln) * size_t(width) + size_t(q) : size_t(q) * size_t(width) + size_t(ln);
  };
  V v = out[at(x)];
  if (x < r) vfma(tails[x], in[at(0)], v);
  if (n - 1 - x < r) vfma(tails[r + n - 1 - x], in[at(n - 1)], v);
  out[at(x)] = v;
}

// Transform lines per block: one for rows, 32 bytes of a row for columns.
template <typename V>
constexpr int lines_per_block(int axis) {
  return axis == 0 ? 1 : sizeof(V) == 16 ? 2 : 4;
}

template <typename V, int AXIS, int LOG2M>
Status launch_one(const FftSegPlan& p, const DevImage& src, const DevImage& dst, Border b, const float2* bins,
                  cudaStream_t st) {
  constexpr int NB = lines_per_block<V>(AXIS);
  if constexpr (NB * (1 << LOG2M) / 8 > 1024) {  // never planned (FftSegPlan::threads() <= 1024)
    return Status::fail("CUDA fft: no segment kernel of length 2^" + std::to_string(LOG2M) + " for these lines");
  } else {
    auto k = fft_segments_kernel<V, LOG2M, NB, AXIS>;
    const size_t smem = p.smem(sizeof(typename Seg<V>::E));
    if (Status s = allow_smem(k, smem, true); !s) return s;
    const int lines = AXIS == 0 ? src.height : src.width, units = (lines + Seg<V>::kLines - 1) / Seg<V>::kLines;
    const long long blocks = (long long)((units + NB - 1) / NB) * p.nseg;
    if (blocks > 0x7fffffffLL) return Status::fail("CUDA fft: image too large");
    k<<<unsigned(blocks), p.threads(), smem, st>>>(static_cast<const V*>(src.data), static_cast<V*>(dst.data),
                                                   src.width, src.height, b, p.shift(), p.len, p.nseg, bins);
    return cuda_status(cudaGetLastError(), "launching fft-conv1d (segments)");
  }
}

template <typename V, int AXIS>
Status launch_axis(const FftSegPlan& p, const DevImage& src, const DevImage& dst, Border b, const float2* bins,
                   cudaStream_t st) {
  static_assert(kSegMinLog2 == 8 && kSegMaxLog2 == 13, "one case per transform length");
  switch (p.log2m) {
    case 8: return launch_one<V, AXIS, 8>(p, src, dst, b, bins, st);
    case 9: return launch_one<V, AXIS, 9>(p, src, dst, b, bins, st);
    case 10: return launch_one<V, AXIS, 10>(p, src, dst, b, bins, st);
    case 11: return launch_one<V, AXIS, 11>(p, src, dst, b, bins, st);
    case 12: return launch_one<V, AXIS, 12>(p, src, dst, b, bins, st);
    case 13: return launch_one<V, AXIS, 13>(p, src, dst, b, bins, st);
    default: return Status::fail("CUDA fft: no segment kernel of length 2^" + std::to_string(p.log2m));
  }
}

template <typename V>
Status launch_v(const FftSegPlan& p, int axis, const DevImage& src, const DevImage& dst, Border b, const float2* bins,
                cudaStream_t st) {
  return axis == 0 ? launch_axis<V, 0>(p, src, dst, b, bins, st) : launch_axis<V, 1>(p, src, dst, b, bins, st);
}

template <typename V>
Status launch_tails(int axis, const DevImage& src, const DevImage& dst, int r, const float* tails, cudaStream_t st) {
  const int n = axis == 0 ? src.width : src.height, lines = axis == 0 ? src.height : src.width;
  const long long items = (long long)fft_clamp_tail_positions(n, r) * lines, blocks = (items + 255) / 256;
  if (blocks == 0) return Status::success();
  if (blocks > 0x7fffffffLL) return Status::fail("CUDA fft: image too large");
  auto k = axis == 0 ? fft_clamp_tails_kernel<V, 0> : fft_clamp_tails_kernel<V, 1>;
  k<<<unsigned(blocks), 256, 0, st>>>(static_cast<const V*>(src.data), static_cast<V*>(dst.data), src.width,
                                       src.height, r, tails);
  return cuda_status(cudaGetLastError(), "launching fft-conv1d (clamp's constants)");
}

}  // namespace

bool fft_segments_plan(int axis, const DevImage& src, int radius, Border b, FftSegPlan& p) {
  const int n = axis == 0 ? src.width : src.height;
  const int nb = src.channels == 4 ? lines_per_block<float4>(axis) : lines_per_block<float>(axis);
  const size_t elem = src.channels == 4 ? sizeof(float4) : sizeof(float2);
  return plan_fft_segments(n, radius, nb, elem, size_t(max_smem_optin()), p, b);
}

Status launch_fft_segments(const FftSegPlan& p, int axis, Border b, const DevImage& src, const DevImage& dst,
                           const float2* bins, const float* tails, cudaStream_t st) {
  // An unpadded line loads from position 0 (clamp: with zeros past the line, its constants added after).
  const bool clamp_tails = p.unpadded && b == Border::Clamp && p.radius > 0;
  if (clamp_tails && tails == nullptr) return Status::fail("CUDA fft: no tails for the unpadded lines");
  const Border load = p.unpadded ? fft_unpadded_load(b) : b;
  auto run = [&](auto pixel) {
    using V = decltype(pixel);
    Status s = launch_v<V>(p, axis, src, dst, load, bins, st);
    if (!s || !clamp_tails) return s;
    return launch_tails<V>(axis, src, dst, p.radius, tails, st);
  };
  switch (src.channels) {
    case 1: return run(float{});
    case 2: return run(float2{});
    case 4: return run(float4{});
    default: return Status::fail("CUDA fft: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
