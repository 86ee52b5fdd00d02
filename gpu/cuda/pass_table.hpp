// The CUDA backend's primitives, found through one table indexed by Op (core/program.hpp). An entry runs one
// pass of a program, or, where its schedule fuses a known sequence starting there (core's separable_pair and
// box_pair, the x-then-y bilinear pair), that whole sequence, and says how many passes it ran. Entries see
// passes and images, never the method a program came from.
#pragma once
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "core/program.hpp"
#include "core/status.hpp"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {

// What an entry gets: the program, its images on the device (index as in the program), the stream, and the
// backend's state that outlives runs.
struct PassContext {
  const Program& program;
  const std::vector<DevImage>& images;
  cudaStream_t stream = nullptr;
  unsigned long long input_version = 0;  // changes with every upload (texture copies of image 0 follow it)
  LinearState& linear;
  void* scratch = nullptr;               // device scratch, at least what the entries' scratch() asked for
  size_t scratch_bytes = 0;
  FftState* fft = nullptr;               // FftConv1d's plans and spectra (the backend's, kept across runs)
};

struct PassEntry {
  // Runs program.passes[i] (and the passes its schedule fuses with it) on ctx.stream: sets `consumed` to
  // the number of passes run (>= 1) and `path` to the schedule's name (RunInfo.path).
  Status (*run)(const PassContext& ctx, size_t i, int& consumed, std::string& path);
  // Device scratch bytes run() needs for passes[i]; asked before the timed section, so that nothing is
  // allocated while the device is timed. Null: none.
  size_t (*scratch)(const PassContext& ctx, size_t i);
};

// The table: null where CUDA has no implementation of the primitive.
const PassEntry* cuda_pass(Op op);

}  // namespace gpublur::cuda
