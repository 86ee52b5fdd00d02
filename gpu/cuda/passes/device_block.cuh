// The block policy of the block-level device code that tests/cuda also runs on the host with an emulated block
// (box_cascade.cuh, iir_rows.cuh): thread index, barrier, warp shuffle. The kernels pass DeviceBlock; the
// emulations pass a block of std::threads with barriers and emulated shuffles (tests/cuda/emulated_block.hpp).
#pragma once
#include <cuda_runtime.h>

namespace gpublur::cuda {

struct DeviceBlock {
  __device__ __forceinline__ static int tid() { return int(threadIdx.x); }
  __device__ __forceinline__ static int nth() { return int(blockDim.x); }
  __device__ __forceinline__ static void sync() { __syncthreads(); }
  __device__ __forceinline__ static double shfl_up(double v, int o) { return __shfl_up_sync(0xffffffffu, v, o); }
  // Within groups of `width` lanes (a power of two): lanes below o of each group keep their own value.
  __device__ __forceinline__ static double shfl_up(double v, int o, int width) {
    return __shfl_up_sync(0xffffffffu, v, o, width);
  }
};

}  // namespace gpublur::cuda
