// conv1d's passes on tensor cores, FP16 operands split in two (conv1d_tc16.cu). Internal to gpu/cuda.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "core/border.hpp"
#include "core/status.hpp"

namespace gpublur::cuda {

// Whether radius r fits the kernel (weight table, tile within `optin` bytes of shared memory).
bool tc16_fits(int r, size_t optin);
// The passes `axes` asks for (bit 0: horizontal h_in -> h_out, bit 1: vertical v_in -> v_out; the pair runs
// both, in that order), RGBA float32. launched = false (nothing launched) when the radius does not fit.
Status launch_sep_tc16(const float4* h_in, float4* h_out, const float4* v_in, float4* v_out, int axes, int W,
                       int H, Border b, int r, const std::vector<float>& weights, size_t optin, cudaStream_t st,
                       bool& launched);

}  // namespace gpublur::cuda
