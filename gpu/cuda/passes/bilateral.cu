// bilateral, bilateral1d (core/program.hpp): one thread per output pixel, the window read through L1/L2 (the
// weights change per pixel and an expf per tap dominates: compute-bound, not tiled). Border reads as the CPU
// reference: remapped, or 0 with its weight for the zero border. The colour difference is over the components in
// `colour` (a bit each: every channel of the image but pass_alpha's; a 3-channel image's w, 0, is not one), selected,
// not multiplied (an Inf in alpha times 0 would be NaN).
#include <cfloat>
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

__constant__ float c_w[kMaxTaps];

__device__ __forceinline__ float sq_if(bool on, float a, float b) { return on ? (a - b) * (a - b) : 0.f; }
__device__ __forceinline__ float colour_d2(float a, float b, int m) { return sq_if(m & 1, a, b); }
__device__ __forceinline__ float colour_d2(float2 a, float2 b, int m) {
  return sq_if(m & 1, a.x, b.x) + sq_if(m & 2, a.y, b.y);
}
__device__ __forceinline__ float colour_d2(float4 a, float4 b, int m) {
  return sq_if(m & 1, a.x, b.x) + sq_if(m & 2, a.y, b.y) + sq_if(m & 4, a.z, b.z) + sq_if(m & 8, a.w, b.w);
}
// The usual mask (every channel but the last of 2 and 4; all of 1 and 3) without selects: they cost up to 20% on an
// H100 (docs/performance.md, "bilateral's colour mask").
template <typename T> constexpr int kUsualColour = 7;
template <> constexpr int kUsualColour<float> = 1;
template <> constexpr int kUsualColour<float2> = 1;
__device__ __forceinline__ float usual_d2(float a, float b) { return (a - b) * (a - b); }
__device__ __forceinline__ float usual_d2(float2 a, float2 b) { return (a.x - b.x) * (a.x - b.x); }
__device__ __forceinline__ float usual_d2(float4 a, float4 b) {
  return (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z);
}

template <typename T>
__device__ __forceinline__ T read(const T* __restrict__ in, int x, int y, int W, int H, Border b) {
  const int rx = remap_index(x, W, b), ry = remap_index(y, H, b);
  return rx < 0 || ry < 0 ? vzero<T>() : in[size_t(ry) * W + rx];
}

// axis -1: the 2D window; 0 / 1: along x / y.
template <typename T, bool kUsual>
__global__ void bilateral_kernel(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b, int r,
                                 int axis, float range, int colour) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = grid_row() * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  const T centre = in[size_t(y) * W + x];
  const int ry = axis != 0 ? r : 0, rx = axis != 1 ? r : 0;
  T sum = vzero<T>();
  float total = 0.f;
  for (int dy = -ry; dy <= ry; ++dy) {
    const float wy = axis == 0 ? 1.f : c_w[dy + r];
    for (int dx = -rx; dx <= rx; ++dx) {
      const T q = read(in, x + dx, y + dy, W, H, b);
      const float ws = axis == 1 ? wy : wy * c_w[dx + r];
      const float d2 = kUsual ? usual_d2(q, centre) : colour_d2(q, centre, colour);
      float w = ws * expf(-range * d2);
      if (d2 <= FLT_MAX) w = fmaxf(w, FLT_MIN);  // the weight floor (core/program.hpp bilateral_weight_floor)
      total += w;
      vfma(w, q, sum);
    }
  }
  T res = vzero<T>();
  vfma(1.f / total, sum, res);
  out[size_t(y) * W + x] = res;
}

template <typename T>
Status run(const Pass& pass, int axis, const DevImage& src, const DevImage& dst, cudaStream_t st) {
  const int W = dst.width, H = dst.height, r = pass.radius();
  if (Status s = upload_taps(c_w, pass.taps, int(pass.taps.size()), st); !s) return s;
  const dim3 block(32, 8), grid = tall_grid((W + 31) / 32, (H + 7) / 8);
  // The image's channels, not the device's: an RGB image's w (0) is no colour, and its mask the usual 7.
  const int channels = dst.image_channels > 0 ? dst.image_channels : dst.channels;
  const int alpha = pass_alpha(pass, channels);
  const int colour = ((1 << channels) - 1) & ~(alpha >= 0 ? 1 << alpha : 0);
  const auto kernel = colour == kUsualColour<T> ? bilateral_kernel<T, true> : bilateral_kernel<T, false>;
  kernel<<<grid, block, 0, st>>>(static_cast<const T*>(src.data), static_cast<T*>(dst.data), W, H, pass.border, r,
                                 axis, pass.range, colour);
  return cuda_status(cudaGetLastError(), "launching bilateral");
}

}  // namespace

Status launch_bilateral(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (src.f64 || dst.f64 || src.pad || dst.pad) return Status::fail("CUDA bilateral: needs unpadded float32 images");
  const int axis = pass.op == Op::Bilateral ? -1 : pass.axis;
  path = axis < 0 ? "bilateral-2d" : axis == 0 ? "bilateral1d-x" : "bilateral1d-y";
  switch (dst.channels) {
    case 1: return run<float>(pass, axis, src, dst, s);
    case 2: return run<float2>(pass, axis, src, dst, s);
    case 4: return run<float4>(pass, axis, src, dst, s);
    default: return Status::fail("CUDA bilateral: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
