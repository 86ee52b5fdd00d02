// integral1d: the cascade of boxes of REAL widths along one axis (core/integral.hpp; the integral method), on
// the line extended once by the cascade's reach with the border mode (core/reference/passes/integral1d.cpp is
// the definition).
//
// Schedule: box1d's line kernels (passes/box1d.cu, box_cascade.cuh), which are the seed's schedule: a block
// holds a whole row (rows: one row per block, its halo the row's own border-remapped pixels) or a strip of
// 32 bytes of columns down the whole image height (columns: every load and store whole 32-byte sectors),
// in shared memory; per box a block-wide prefix sum -- float32 totals of chunks of S consecutive positions,
// scanned in float64 (warp shuffles) -- gives each chunk's first window sum, the chunk's later outputs follow
// by a float32 running sum (at most S <= 21 steps), and the fractional end pixels are read directly. So the
// seed's float32 line prefix (off by ~1e-4 on a 4096-wide row, tests/core/test_integral.cpp) never exists:
// no float32 sum runs longer than one chunk.
//
// Lines wider than shared memory: a block takes half an SM by default (two blocks per SM overlap loads and
// math; ~113 KiB on an H100: a 4096-wide RGBA row, 64 KiB, plus its halo fits whole up to a reach of ~3000);
// longer lines (a 16384-wide RGBA row is 256 KiB, beyond even the 227 KiB opt-in) are cut into segments, each
// loaded with its halo of R from L2 (neighbouring segments run in neighbouring blocks). Columns whose 32-byte
// strip plus halo 2R fits no segment (sigma 400: R 1550) take 16-byte strips, or the opt-in maximum at one
// block per SM, whichever goes over fewer positions (box_cascade.cuh's plan_axis_lines); only where none fits
// does the moving-average kernel (global memory, float64 running sums, one thread per line) run the cascade.
#include "gpu/cuda/passes/box_cascade.cuh"

namespace gpublur::cuda {

size_t integral1d_scratch(const Pass& pass, const DevImage& src) {
  BoxWidths bw;
  if (!frac_box_widths(pass.taps, "integral1d", bw)) return 0;
  return box_lines_scratch(bw, pass.axis, src);
}

Status launch_integral1d(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch,
                         size_t scratch_bytes, cudaStream_t s, std::string& path) {
  BoxWidths bw;
  if (Status st = frac_box_widths(pass.taps, "integral1d", bw); !st) return st;
  return launch_box_lines(bw, pass.axis, pass.border, src, dst, scratch, scratch_bytes, s, path, "integral1d");
}

}  // namespace gpublur::cuda
