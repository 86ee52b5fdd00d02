// What the box primitives share: the cascade's widths as a kernel argument, and float64 accumulators for a
// pixel vector.
#pragma once
#include <string>
#include <vector>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {

// The cascade: odd integer widths w, and for Integral1d's real widths (core/integral.hpp) the end pixels'
// weight frac (0 for plain boxes) and the real width wreal = w + 2 frac: a box with frac > 0 reads
// span = w + 2 positions, the outer two weighted frac / wreal, the inner w by 1 / wreal.
struct BoxWidths {
  int n = 0;
  int w[kMaxBoxes] = {};
  float frac[kMaxBoxes] = {};
  float wreal[kMaxBoxes] = {};
  int reach = 0;  // R = sum (span_i - 1) / 2
  __host__ __device__ __forceinline__ int span(int i) const { return w[i] + (frac[i] > 0.0f ? 2 : 0); }
};

// Checks the cascade's length (1 to kMaxBoxes boxes) and resets out to n empty boxes.
inline Status start_box_widths(size_t n, const char* what, BoxWidths& out) {
  if (n == 0 || n > size_t(kMaxBoxes))
    return Status::fail(std::string("CUDA ") + what + ": " + std::to_string(n) + " box widths (1 to " +
                        std::to_string(kMaxBoxes) + ")");
  out = BoxWidths{};
  out.n = int(n);
  return Status::success();
}

inline Status box_widths(const std::vector<int>& widths, const char* what, BoxWidths& out) {
  if (Status s = start_box_widths(widths.size(), what, out); !s) return s;
  for (size_t i = 0; i < widths.size(); ++i) {
    if (widths[i] < 1 || widths[i] % 2 == 0) return Status::fail(std::string("CUDA ") + what + ": even box width");
    out.w[i] = widths[i];
    out.wreal[i] = float(widths[i]);
    out.reach += widths[i] / 2;
  }
  return Status::success();
}

// Integral1d's real widths (>= 1): w = 2r + 1, frac = e exactly as core's frac_box (exact in float: (w - 1) / 2
// and its floor are exact for float widths below 2^23).
inline Status frac_box_widths(const std::vector<float>& widths, const char* what, BoxWidths& out) {
  if (Status s = start_box_widths(widths.size(), what, out); !s) return s;
  for (size_t i = 0; i < widths.size(); ++i) {
    const float wf = widths[i];
    if (!(wf >= 1.0f && wf < 8388608.0f)) return Status::fail(std::string("CUDA ") + what + ": bad real width");
    const double h = (double(wf) - 1.0) / 2.0;
    const int r = int(h);
    out.w[i] = 2 * r + 1;
    out.frac[i] = float(h - r);
    out.wreal[i] = wf;
    out.reach += out.span(int(i)) / 2;
  }
  return Status::success();
}

// passes/moving_average.cu with the cascade given as BoxWidths (fractional ends included): Box1d's and
// Integral1d's global-memory fallback.
size_t moving_average_scratch_bw(const BoxWidths& bw, int axis, const DevImage& img);
Status launch_moving_average_bw(const BoxWidths& bw, int axis, Border b, const DevImage& src, const DevImage& dst,
                                void* scratch, size_t scratch_bytes, cudaStream_t s, std::string& path);

// K float64 sums of a pixel vector's channels.
template <typename T>
struct DSum {
  static constexpr int K = VecInfo<T>::K;
  double v[K];
  __host__ __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < K; ++i) v[i] = 0.0;
  }
  __host__ __device__ __forceinline__ void add(const T& x) {
#pragma unroll
    for (int i = 0; i < K; ++i) v[i] += double(vget(x, i));
  }
  __host__ __device__ __forceinline__ void add_sub(const T& a, const T& b) {  // += a - b
#pragma unroll
    for (int i = 0; i < K; ++i) v[i] += double(vget(a, i)) - double(vget(b, i));
  }
  __host__ __device__ __forceinline__ void add_scaled(const T& x, double f) {  // += f x
#pragma unroll
    for (int i = 0; i < K; ++i) v[i] += f * double(vget(x, i));
  }
  __host__ __device__ __forceinline__ T scaled(double s) const {
    T r;
#pragma unroll
    for (int i = 0; i < K; ++i) vset(r, i, float(v[i] * s));
    return r;
  }
};

// One line of the moving average (passes/moving_average.cu): the cascade (fractional ends included) on the
// line of length n extended by R
// with the border mode, one running float64 sum per box. src(a): the line's pixel a in [0, n); buf(q): the
// line buffer (positions 0 .. n + 2R - 1), in place for the boxes after the first; dst(j): the result, j in
// [0, n). Host and device (tests/cuda run it on the host).
#pragma nv_exec_check_disable
template <typename T, typename Src, typename Buf>
__host__ __device__ __forceinline__ T moving_average_input(bool first, int q, int n, int R, Border b, Src& src,
                                                          Buf& buf) {
  if (!first) return buf(q);
  const int a = remap_index(q - R, n, b);
  return a < 0 ? vzero<T>() : src(a);
}

#pragma nv_exec_check_disable
template <typename T, typename Src, typename Buf, typename Dst>
__host__ __device__ __forceinline__ void moving_average_line(int n, Border b, const BoxWidths& bw, Src src, Buf buf,
                                                             Dst dst) {
  const int R = bw.reach;
  int len = n + 2 * R;  // the current box's input: positions 0 .. len - 1
  for (int st = 0; st < bw.n; ++st) {
    const int w = bw.w[st], span = bw.span(st), len_out = len - (span - 1);
    const int o0 = span > w ? 1 : 0;  // the window's first full position after its output's position
    const double e = double(bw.frac[st]);
    const bool first = st == 0, last = st + 1 == bw.n;
    DSum<T> sum;  // positions j + o0 .. j + o0 + w - 1
    sum.zero();
    for (int q = o0; q < o0 + w; ++q) sum.add(moving_average_input<T>(first, q, n, R, b, src, buf));
    const double inv = 1.0 / double(bw.wreal[st]);
    for (int j = 0; j < len_out; ++j) {
      DSum<T> full = sum;
      if (o0) {  // the fractional ends, positions j and j + span - 1
        full.add_scaled(moving_average_input<T>(first, j, n, R, b, src, buf), e);
        full.add_scaled(moving_average_input<T>(first, j + span - 1, n, R, b, src, buf), e);
      }
      const T o = full.scaled(inv);
      if (j + 1 < len_out)  // reads in(j) before out(j) replaces it
        sum.add_sub(moving_average_input<T>(first, j + o0 + w, n, R, b, src, buf),
                    moving_average_input<T>(first, j + o0, n, R, b, src, buf));
      if (last)
        dst(j) = o;
      else
        buf(j) = o;
    }
    len = len_out;
  }
}

}  // namespace gpublur::cuda
