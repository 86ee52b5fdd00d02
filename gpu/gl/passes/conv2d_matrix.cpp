// conv2d-matrix: the direct 2D correlation with a full matrix through conv2d.comp's blocks with its MATRIX weights
// (passes/conv2d.cpp gl_conv2d_blocks: the source in shared-memory blocks of CY kernel rows x CX kernel columns,
// four outputs an invocation from a register window; every row of the matrix its own weights). It replaced one
// invocation an output reading every tap by texelFetch: H200, 4096^2, 19 x 19 matrix 5.09 / 7.96 / 11.6 -> 0.61 /
// 1.04 / 2.00 ms for one / two / four channels, 73 x 73 71.8 / 117 / 171 -> 10.2 / 13.5 / 23.5 (docs/performance.md
// "GL 2D methods from shared memory"). One dispatch on GPUs; on llvmpipe (its loop limit) the kernel rows are split
// over dispatches that carry the running sum in an RGBA32F accumulator.
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_conv2d_matrix(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  if (pass.widths.size() != 2 || pass.widths[0] % 2 == 0 || pass.widths[1] % 2 == 0 ||
      pass.taps.size() != size_t(pass.widths[0]) * size_t(pass.widths[1]))
    return Status::fail("GL conv2d-matrix: the pass needs an odd width and height and their product of weights");
  return gl_conv2d_blocks(ctx, pass, index, pass.widths[0] / 2, pass.widths[1] / 2, pass.taps, "conv2d-matrix", step);
}

}  // namespace gpublur
