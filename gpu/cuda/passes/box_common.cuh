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
  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < K; ++i) v[i] = 0.0;
  }
  __device__ __forceinline__ void add(const T& x) {
#pragma unroll
    for (int i = 0; i < K; ++i) v[i] += double(vget(x, i));
  }
  __device__ __forceinline__ void add_sub(const T& a, const T& b) {  // += a - b
#pragma unroll
    for (int i = 0; i < K; ++i) v[i] += double(vget(a, i)) - double(vget(b, i));
  }
  __device__ __forceinline__ T scaled(double s) const {
    T r;
#pragma unroll
    for (int i = 0; i < K; ++i) vset(r, i, float(v[i] * s));
    return r;
  }
};

}  // namespace gpublur::cuda
