// iir1d: the recursive filter along an axis (core/program.hpp Op::Iir1d; core/reference/passes/iir1d.cpp is
// the definition). Schedule: one thread per value line (one channel of one row or column: 4x the threads of
// a thread per pixel line for RGBA), walking it in float64 (iir_line.cuh): [wrap/mirror: a backward and a
// forward sweep for the periodic initial states], a causal sweep that stores its sum into dst, an anticausal
// sweep that adds its own. Columns: the threads of a warp read 32 neighbouring floats of a row (coalesced).
// Rows: a warp holds 32 / ch rows, each of its ch lanes per row reading one channel of the same pixel; the
// rows' 32-byte sectors are reused from L1 over the next positions (the moving-average kernel's pattern).
// docs/performance.md has the traffic estimate and the segment-parallel schedule that would cut it.
#include <string>

#include "core/iir.hpp"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/iir_line.cuh"

namespace gpublur::cuda {
namespace {

constexpr int kThreads = 64;  // small blocks: 4096 x 4 lines are only 256 blocks

__global__ void __launch_bounds__(kThreads) iir1d_kernel(const float* __restrict__ src, float* __restrict__ dst,
                                                          int w, int h, int ch, int axis, Border b, IirCoeffs co) {
  const int lines = axis == 0 ? h * ch : w * ch;
  const int line = int(blockIdx.x) * kThreads + int(threadIdx.x);
  if (line >= lines) return;
  size_t base = 0, step = 0;
  int n = 0;
  iir_line_place(axis, w, h, ch, line, base, step, n);
  iir_value_line(src, dst, base, step, n, b, co);
}

}  // namespace

Status iir_coeffs(const std::vector<float>& taps, IirCoeffs& co) {
  const std::vector<IirTerm> terms = iir_terms_from_taps(taps);
  if (terms.empty() || terms.size() > size_t(kMaxIirTerms)) return Status::fail("CUDA iir1d: bad term count");
  co.k = int(terms.size());
  for (int t = 0; t < kMaxIirTerms; ++t) {
    const bool on = t < co.k;
    co.pr[t] = on ? terms[size_t(t)].p.real() : 0.0;
    co.pi[t] = on ? terms[size_t(t)].p.imag() : 0.0;
    co.cr[t] = on ? terms[size_t(t)].c.real() : 0.0;
    co.ci[t] = on ? terms[size_t(t)].c.imag() : 0.0;
  }
  return Status::success();
}

Status launch_iir1d(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path) {
  if (src.pad != 0 || dst.pad != 0 || src.f64 || dst.f64) return Status::fail("CUDA iir1d: padded or float64 image");
  IirCoeffs co;
  if (Status st = iir_coeffs(pass.taps, co); !st) return st;
  const long long lines = (long long)(pass.axis == 0 ? src.height : src.width) * src.channels;
  if (lines == 0) return Status::success();
  if (lines > 0x7fffffffLL) return Status::fail("CUDA iir1d: image too large");
  const unsigned blocks = unsigned((lines + kThreads - 1) / kThreads);
  iir1d_kernel<<<blocks, kThreads, 0, s>>>(static_cast<const float*>(src.data), static_cast<float*>(dst.data),
                                          src.width, src.height, src.channels, pass.axis, pass.border, co);
  path = pass.axis == 0 ? "iir1d-rows" : "iir1d-cols";
  return cuda_status(cudaGetLastError(), "launching iir1d");
}

}  // namespace gpublur::cuda
