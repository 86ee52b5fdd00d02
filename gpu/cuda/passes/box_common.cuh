// What the box primitives share: the cascade's widths as a kernel argument, and float64 accumulators for a
// pixel vector.
#pragma once
#include <string>
#include <vector>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {

struct BoxWidths {
  int n = 0;
  int w[kMaxBoxes] = {};
  int reach = 0;  // R = sum (w_i - 1) / 2
};

inline Status box_widths(const std::vector<int>& widths, const char* what, BoxWidths& out) {
  if (widths.empty() || widths.size() > size_t(kMaxBoxes))
    return Status::fail(std::string("CUDA ") + what + ": " + std::to_string(widths.size()) +
                        " box widths (1 to " + std::to_string(kMaxBoxes) + ")");
  out = BoxWidths{};
  out.n = int(widths.size());
  for (size_t i = 0; i < widths.size(); ++i) {
    if (widths[i] < 1 || widths[i] % 2 == 0) return Status::fail(std::string("CUDA ") + what + ": even box width");
    out.w[i] = widths[i];
    out.reach += widths[i] / 2;
  }
  return Status::success();
}

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
  __host__ __device__ __forceinline__ T scaled(double s) const {
    T r;
#pragma unroll
    for (int i = 0; i < K; ++i) vset(r, i, float(v[i] * s));
    return r;
  }
};

// One line of the moving average (passes/moving_average.cu): the cascade on the line of length n extended by R
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
    const int w = bw.w[st], len_out = len - (w - 1);
    const bool first = st == 0, last = st + 1 == bw.n;
    DSum<T> sum;
    sum.zero();
    for (int q = 0; q < w; ++q) sum.add(moving_average_input<T>(first, q, n, R, b, src, buf));
    const double inv = 1.0 / double(w);
    for (int j = 0; j < len_out; ++j) {
      const T o = sum.scaled(inv);
      if (j + 1 < len_out)  // reads in(j) before out(j) replaces it
        sum.add_sub(moving_average_input<T>(first, j + w, n, R, b, src, buf),
                    moving_average_input<T>(first, j, n, R, b, src, buf));
      if (last)
        dst(j) = o;
      else
        buf(j) = o;
    }
    len = len_out;
  }
}

}  // namespace gpublur::cuda
