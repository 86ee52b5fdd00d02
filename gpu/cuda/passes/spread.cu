// spread: the nine weighted source pixels that spread onto each pixel of the float64 destination (gather form
// of Kosloff's spreading, core/program.hpp Op::Spread): dst(x, y) = sum w_a w_b E(x - 1 + a R, y - 1 + b R),
// w = (1, -2, 1), E the source read with the border mode on the area extended by pass.extend and 0 beyond;
// stored pixel i of dst is image pixel i - 2 dpad (all of dst's padding lies before the image).
// One thread per destination pixel, rows grid-strided; the nine reads hit three source rows (L1/L2).
#include <algorithm>
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

template <typename T>
__global__ void spread_kernel(const T* __restrict__ src, int W, int H, Border b, int R, int X,
                              double* __restrict__ dst, int dstride, int drows, int dpad) {
  constexpr int K = VecInfo<T>::K;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= dstride) return;
  const int x = i - 2 * dpad;
  for (int row = blockIdx.y; row < drows; row += gridDim.y) {
    const int y = row - 2 * dpad;
    double acc[K];
#pragma unroll
    for (int c = 0; c < K; ++c) acc[c] = 0.0;
#pragma unroll
    for (int bb = -1; bb <= 1; ++bb) {
      const int sy = y - 1 + bb * R;
      if (sy < -X || sy >= H + X) continue;
#pragma unroll
      for (int aa = -1; aa <= 1; ++aa) {
        const int sx = x - 1 + aa * R;
        if (sx < -X || sx >= W + X) continue;
        const double w = (aa == 0 ? -2.0 : 1.0) * (bb == 0 ? -2.0 : 1.0);
        const T v = read_pixel(src, W, 0, W, H, sx, sy, b);
#pragma unroll
        for (int c = 0; c < K; ++c) acc[c] += w * double(vget(v, c));
      }
    }
    double* o = dst + (size_t(row) * size_t(dstride) + size_t(i)) * K;
#pragma unroll
    for (int c = 0; c < K; ++c) o[c] = acc[c];
  }
}

template <typename T>
Status run_spread(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  const dim3 grid((dst.stride() + 127) / 128, std::min(dst.rows(), 65535));
  spread_kernel<T><<<grid, 128, 0, st>>>(static_cast<const T*>(src.data), src.width, src.height, pass.border,
                                         pass.widths[0], pass.extend, static_cast<double*>(dst.data), dst.stride(),
                                         dst.rows(), dst.pad);
  return cuda_status(cudaGetLastError(), "launching spread");
}

}  // namespace

Status launch_spread(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (pass.widths.size() != 1 || src.f64 || src.pad != 0 || !dst.f64 || dst.channels != src.channels)
    return Status::fail("CUDA spread: needs one radius, an unpadded float32 source and a float64 destination");
  path = "spread";
  switch (src.channels) {
    case 1: return run_spread<float>(pass, src, dst, s);
    case 2: return run_spread<float2>(pass, src, dst, s);
    case 4: return run_spread<float4>(pass, src, dst, s);
    default: return Status::fail("CUDA spread: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
