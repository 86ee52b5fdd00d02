// 8-bit samples <-> the device's float pixels through core/packed.hpp's tables (issue 12 point 2): the bytes
// of the file cross the bus, and decoding, premultiplying and their inverses run here. Bit for bit the host
// forms (unpack_image / pack_image): table lookups, one float multiply, an IEEE division (no fast math in
// this project), and the level as a count of thresholds.
#include "core/packed.hpp"
#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {

namespace {

struct DecodeTables {
  float colour[256], alpha[256];
};
struct EncodeTables {
  float colour[255], alpha[255];
};

// One thread per pixel; `cd` (the device's channels: 4 for 3) >= c; a 3-channel image's 4th is 0, as
// unpack3 leaves it.
__global__ void unpack8_kernel(const unsigned char* __restrict__ in, float* __restrict__ out, size_t pixels, int c,
                               int cd, int alpha, bool premultiply, DecodeTables t) {
  __shared__ float colour[256], alpha_t[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) colour[i] = t.colour[i], alpha_t[i] = t.alpha[i];
  __syncthreads();
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels; i += stride) {
    const unsigned char* s = in + i * c;
    float* d = out + i * cd;
    const float a = alpha >= 0 ? alpha_t[s[alpha]] : 1.0f;
    for (int k = 0; k < c; ++k) {
      float v = k == alpha ? a : colour[s[k]];
      if (k != alpha && premultiply) v = __fmul_rn(v, a);
      d[k] = v;
    }
    for (int k = c; k < cd; ++k) d[k] = 0.0f;
  }
}

__device__ unsigned level(float v, const float* t) {
  if (!(v > 0.0f)) return 0;
  unsigned lo = 0, hi = 255;
  while (lo < hi) {
    const unsigned mid = (lo + hi) >> 1;
    if (t[mid] <= v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Also counts the values packing clips by more than half a level (PackedColour::clip, clip_alpha) and the colour
// it drops where alpha packs as 0 into counts[0..3] (below, above, NaN, hidden): each thread's own, summed over its
// warp, one atomic a warp.
__global__ void pack8_kernel(const float* __restrict__ in, unsigned char* __restrict__ out, size_t pixels, int c,
                             int cd, int alpha, bool premultiply, EncodeTables t, ClipBounds clip,
                             ClipBounds clip_alpha, unsigned long long* __restrict__ counts) {
  __shared__ float colour[255], alpha_t[255];
  for (int i = threadIdx.x; i < 255; i += blockDim.x) colour[i] = t.colour[i], alpha_t[i] = t.alpha[i];
  __syncthreads();
  ClipCounts n;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels; i += stride) {
    const float* s = in + i * cd;
    unsigned char* d = out + i * c;
    const float a = alpha >= 0 ? s[alpha] : 1.0f;
    for (int k = 0; k < c; ++k) {
      if (k == alpha) {
        d[k] = (unsigned char)level(s[k], alpha_t);
        count_clipped_value(s[k], clip_alpha, n);
      } else {
        const float v = !premultiply ? s[k] : straight_colour(s[k], a, alpha_t[0], n);
        d[k] = (unsigned char)level(v, colour);
        count_clipped_value(v, clip, n);
      }
    }
  }
  // Every lane of every warp gets here (blocks of whole warps, no early return); a thread's counts fit 32 bits (at
  // most 2^30 values an image).
  const unsigned long long mine[4] = {n.below, n.above, n.nan, n.hidden};
  for (int k = 0; k < 4; ++k) {
    const unsigned sum = __reduce_add_sync(0xffffffffu, unsigned(mine[k]));
    if ((threadIdx.x & 31) == 0 && sum > 0) atomicAdd(counts + k, (unsigned long long)sum);
  }
}

}  // namespace

Status launch_unpack8(const unsigned char* in, float* out, size_t pixels, int c, int cd, const PackedColour& colour,
                      cudaStream_t s) {
  DecodeTables t;
  for (int i = 0; i < 256; ++i) t.colour[i] = colour.decode[i], t.alpha[i] = colour.decode_alpha[i];
  unpack8_kernel<<<grid_for(pixels, 256), 256, 0, s>>>(in, out, pixels, c, cd, colour.alpha_channel,
                                                        colour.premultiply, t);
  return cuda_status(cudaGetLastError(), "launching the 8-bit unpack");
}

Status launch_pack8(const float* in, unsigned char* out, size_t pixels, int c, int cd, const PackedColour& colour,
                    unsigned long long* counts, cudaStream_t s) {
  EncodeTables t;
  for (int i = 0; i < 255; ++i) t.colour[i] = colour.encode[i], t.alpha[i] = colour.encode_alpha[i];
  if (Status st = cuda_status(cudaMemsetAsync(counts, 0, 4 * sizeof(unsigned long long), s), "the 8-bit pack"); !st)
    return st;
  pack8_kernel<<<grid_for(pixels, 256), 256, 0, s>>>(in, out, pixels, c, cd, colour.alpha_channel,
                                                      colour.premultiply, t, colour.clip, colour.clip_alpha, counts);
  return cuda_status(cudaGetLastError(), "launching the 8-bit pack");
}

}  // namespace gpublur::cuda
