// copy: dst = src over dst's stored area. Same shape without padding (the `copy` method's program): one
// read and one write of the image, the bandwidth floor every bench divides by. Otherwise (padded images of a
// cascade) one thread per destination pixel, an unpadded source read with the border mode outside.
#include <algorithm>
#include <string>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

// 16-byte vector copy, one vector a thread; the scalar tail covers value counts that are not multiples of 4.
// On an H200 (4096^2 RGBA) this form ran 0.1313-0.1319 ms, as fast as cudaMemcpyAsync (0.1324) and GL's copy,
// where the earlier grid-stride loop over 132 x 32 blocks ran 0.1384-0.1388 (docs/performance.md, "The copy
// floors").
__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n4,
                            const float* __restrict__ in_tail, float* __restrict__ out_tail, int tail) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n4) out[i] = in[i];
  if (blockIdx.x == 0 && threadIdx.x < tail) out_tail[threadIdx.x] = in_tail[threadIdx.x];
}

template <typename T>
__global__ void copy_remap_kernel(const T* __restrict__ src, int sstride, int spad, T* __restrict__ dst, int dstride,
                                  int dpad, int W, int H, Border b) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= dstride) return;
  for (int row = blockIdx.y; row < H + 2 * dpad; row += gridDim.y)
    dst[size_t(row) * dstride + i] = read_pixel(src, sstride, spad, W, H, i - dpad, row - dpad, b);
}

template <typename T>
Status copy_remap(const DevImage& src, const DevImage& dst, Border b, cudaStream_t s) {
  const dim3 grid((dst.stride() + 127) / 128, std::min(dst.rows(), 65535));
  copy_remap_kernel<T><<<grid, 128, 0, s>>>(static_cast<const T*>(src.data), src.stride(), src.pad,
                                            static_cast<T*>(dst.data), dst.stride(), dst.pad, dst.width,
                                            dst.height, b);
  return cuda_status(cudaGetLastError(), "launching copy (padded)");
}

}  // namespace

Status launch_copy(const DevImage& src, const DevImage& dst, Border b, cudaStream_t s, std::string& path) {
  if (src.pad == 0 && dst.pad == 0 && src.width == dst.width && src.height == dst.height) {
    const size_t n = size_t(src.width) * src.height * src.channels;
    const size_t n4 = n / 4;
    const int tail = int(n - n4 * 4);
    const float* fin = static_cast<const float*>(src.data);
    float* fout = static_cast<float*>(dst.data);
    const size_t blocks = std::max<size_t>(1, (n4 + 255) / 256);
    if (blocks > 0x7fffffffu) return Status::fail("CUDA copy: image too large for one launch");
    copy_kernel<<<unsigned(blocks), 256, 0, s>>>(reinterpret_cast<const float4*>(fin),
                                                   reinterpret_cast<float4*>(fout), n4, fin + n4 * 4,
                                                   fout + n4 * 4, tail);
    path = "copy-kernel";
    return cuda_status(cudaGetLastError(), "launching copy");
  }
  path = "copy-remap";
  switch (dst.channels) {
    case 1: return copy_remap<float>(src, dst, b, s);
    case 2: return copy_remap<float2>(src, dst, b, s);
    case 4: return copy_remap<float4>(src, dst, b, s);
    default: return Status::fail("CUDA copy: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
