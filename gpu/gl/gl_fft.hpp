// The GL backend's own FFT (shaders/fft_conv1d.comp, gpu/gl/passes/fft_conv1d.cpp): radix-2 over
// power-of-two lengths, one work group per line, the line in shared memory where it fits, else in a storage
// buffer slice. Exposed here for its tests: the bare transforms of lines of vec4s (two complex numbers each).
#pragma once
#include <vector>

#include "core/status.hpp"
#include "gpu/gl/gl_pass_context.hpp"

namespace gpublur {

// How a transform of length n_fft runs on this device.
struct GlFftShape {
  int threads = 1;      // invocations per group (one group per line)
  bool shared = false;  // the line in shared memory (else a storage buffer slice)
  int batch = 1;        // lines per dispatch (the storage buffer's lines; all lines when shared)
};
// The largest n_fft run in shared memory: what fits the device's shared memory (16 bytes per element), or
// GPUBLUR_GL_FFT_SHARED_MAX (0: never) where set.
GlFftShape gl_fft_shape(const GlPassContext& ctx, int n_fft, int lines);

// In place on `data` (lines x n_fft vec4s, natural order): the forward DFT (exp(-2 pi i ...)) or the
// unnormalised inverse (exp(+2 pi i ...)) of each line, on the device. n_fft a power of two.
Status gl_fft_lines(GlPassContext& ctx, std::vector<float>& data, int n_fft, bool inverse);

}  // namespace gpublur
