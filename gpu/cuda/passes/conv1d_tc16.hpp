// gauss-sep's two passes on tensor cores, FP16 operands split in two (gauss_sep_tc16.cu). Internal to gpu/cuda.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "core/border.hpp"
#include "core/status.hpp"

namespace gpublur::cuda {

// Whether radius r fits the kernel (weight table, tile within `optin` bytes of shared memory).
bool tc16_fits(int r, size_t optin);
// Horizontal pass src -> mid, vertical mid -> dst, RGBA float32. launched = false (nothing launched) when
// the radius does not fit.
Status launch_sep_tc16(const float4* src, float4* mid, float4* dst, int W, int H, Border b, int r,
                       const std::vector<float>& weights, size_t optin, cudaStream_t st, bool& launched);

}  // namespace gpublur::cuda
