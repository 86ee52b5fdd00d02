// `copy` (the bandwidth floor: one read and one write of the image) and the layout helpers around it.
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {

Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::success();
  return Status::fail(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}

namespace {

// 16-byte vector copy, grid-stride; the scalar tail covers value counts that are not multiples of 4.
__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n4,
                            const float* __restrict__ in_tail, float* __restrict__ out_tail, int tail) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) out[i] = in[i];
  if (blockIdx.x == 0 && threadIdx.x < tail) out_tail[threadIdx.x] = in_tail[threadIdx.x];
}

__global__ void unpack3_kernel(const float* __restrict__ raw3, float4* __restrict__ out4, size_t pixels) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels; i += stride)
    out4[i] = make_float4(raw3[3 * i], raw3[3 * i + 1], raw3[3 * i + 2], 0.f);
}

__global__ void pack3_kernel(const float4* __restrict__ in4, float* __restrict__ raw3, size_t pixels) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels; i += stride) {
    const float4 v = in4[i];
    raw3[3 * i] = v.x;
    raw3[3 * i + 1] = v.y;
    raw3[3 * i + 2] = v.z;
  }
}

__global__ void fill_kernel(float* __restrict__ p, size_t n, float v) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = v;
}

// Enough blocks to fill the GPU several times over; grid-stride loops do the rest.
int grid_for(size_t items, int block) {
  const size_t want = (items + block - 1) / block;
  return int(want < 1 ? 1 : (want > 132 * 32 ? 132 * 32 : want));
}

}  // namespace

Status launch_copy(const DevImage& in, const DevImage& out, cudaStream_t s) {
  const size_t n = size_t(in.width) * in.height * in.channels;
  const size_t n4 = n / 4;
  const int tail = int(n - n4 * 4);
  const float* fin = static_cast<const float*>(in.data);
  float* fout = static_cast<float*>(out.data);
  copy_kernel<<<grid_for(n4, 256), 256, 0, s>>>(reinterpret_cast<const float4*>(fin),
                                                 reinterpret_cast<float4*>(fout), n4, fin + n4 * 4,
                                                 fout + n4 * 4, tail);
  return cuda_status(cudaGetLastError(), "launching copy");
}

Status launch_unpack3(const float* raw3, float* out4, size_t pixels, cudaStream_t s) {
  unpack3_kernel<<<grid_for(pixels, 256), 256, 0, s>>>(raw3, reinterpret_cast<float4*>(out4), pixels);
  return cuda_status(cudaGetLastError(), "launching 3->4 channel unpack");
}

Status launch_pack3(const float* in4, float* raw3, size_t pixels, cudaStream_t s) {
  pack3_kernel<<<grid_for(pixels, 256), 256, 0, s>>>(reinterpret_cast<const float4*>(in4), raw3, pixels);
  return cuda_status(cudaGetLastError(), "launching 4->3 channel pack");
}

Status launch_fill(float* data, size_t values, float value, cudaStream_t s) {
  fill_kernel<<<grid_for(values, 256), 256, 0, s>>>(data, values, value);
  return cuda_status(cudaGetLastError(), "launching fill");
}

}  // namespace gpublur::cuda
