// Host-side launchers of the CUDA kernels, one .cu per method. Internal to gpu/cuda (and its tests/tools).
// Device images are interleaved float pixels of 1, 2 or 4 channels (3 is padded to 4 on upload), no row
// padding, so a pixel is one float, float2 or float4 and every access is one aligned vector load/store.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "core/plan.hpp"
#include "core/status.hpp"

namespace gpublur::cuda {

struct DevImage {
  void* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;  // device channels: 1, 2 or 4
};

// Turns a failed CUDA call into a Status naming what was being done.
Status cuda_status(cudaError_t e, const char* what);

// copy.cu
Status launch_copy(const DevImage& in, const DevImage& out, cudaStream_t s);
// 3 interleaved channels <-> 4 (alpha slot 0), for the padded device layout.
Status launch_unpack3(const float* raw3, float* out4, size_t pixels, cudaStream_t s);
Status launch_pack3(const float* in4, float* raw3, size_t pixels, cudaStream_t s);
// Fills every value of a buffer (tests poison outputs with NaN).
Status launch_fill(float* data, size_t values, float value, cudaStream_t s);

// gauss_2d.cu: direct (2r+1)^2 convolution with the outer product of plan.weights.
Status launch_gauss_2d(const Plan& plan, const DevImage& in, const DevImage& out, cudaStream_t s,
                       std::string& path);

// gauss_sep.cu: horizontal then vertical pass. `tmp` has the shape of `in`.
// Tuning knobs for the timing tool; the defaults are what the backend uses.
// Defaults from H100 measurements (docs/performance.md, cuda_kernel_timing 4096 4 25 sep).
struct SepTuning {
  int fused_max_radius = 12;  // r <= this: one fused kernel
  int fused_kind = 1;         // 1: 64-wide tile, compile-time radius (r <= 12); 0: 32-wide tile (any r)
  int fused_tile_h = 0;       // 32 or 64 output rows per fused tile; 0: 64 up to r 9, 32 above (spills)
  int pass_pipelined = 2;     // two passes: persistent double-buffered blocks. 0 no, 1 yes, 2 for r 30..48
  bool pass_pad_taps = false;  // two passes: pad taps to a multiple of 8 with zero weights (previous)
  bool pass_wide = false;      // two passes: 16 x 256 tiles of 512 threads instead of 16 x 128 / 256
  // Two passes, tile shape: 0 16 lines x 128 outputs, 8 per thread, 256 threads (the kernels above);
  // 1 8 x 256, 16 outputs per thread, 128 threads, >= 3 blocks/SM; 2 8 x 256, 8 per thread, 256 threads,
  // >= 3 blocks/SM. -1: shape 2 for pass_large_min_radius <= r <= pass_large_max_radius (measured faster at
  // r 72 and 144; 192 is the largest radius checked on a device), else 0. Shapes 1/2 take precedence over
  // pass_pipelined / pass_wide.
  int pass_shape = -1;
  int pass_large_min_radius = 48;
  int pass_large_max_radius = 192;
  // Two passes on tensor cores with FP16 operands split in two (gauss_sep_tc16.cu, RGBA only): 0 never,
  // 1 wherever the tile fits, 2 for pass_tc16_min_radius <= r <= pass_tc16_max_radius. Takes precedence
  // over pass_shape. H100 (docs/performance.md, round 5): faster than every SIMT pass from r 48 (sigma 16:
  // 0.630 vs 0.657 ms) to r 300 (sigma 100: 2.39 vs 3.08), slower at r 36 (0.593 vs 0.547 pipelined).
  // 300 is the largest radius timed. Env GPUBLUR_CUDA_SEP_TC16 overrides the default.
  int pass_tc16 = 2;
  int pass_tc16_min_radius = 48;
  int pass_tc16_max_radius = 300;
};
SepTuning& sep_tuning();
Status launch_gauss_sep(const Plan& plan, const DevImage& in, const DevImage& tmp, const DevImage& out,
                        cudaStream_t s, std::string& path);

// gauss_linear.cu: bilinear taps; plan.param("interp") picks the texture unit ("hardware") or an exact
// lerp in the kernel ("exact"). The hardware path samples cudaArrays it owns (state below).
struct LinearState {
  cudaArray_t in_array = nullptr;   // copy of the input, refreshed when `in_version` changes
  cudaArray_t tmp_array = nullptr;  // horizontal pass output, written through a surface
  int width = 0, height = 0, channels = 0;
  unsigned long long in_version = ~0ull;
  void release();
};
Status launch_gauss_linear(const Plan& plan, const DevImage& in, const DevImage& tmp, const DevImage& out,
                           unsigned long long in_version, LinearState& state, cudaStream_t s,
                           std::string& path);

}  // namespace gpublur::cuda
