// conv2d: direct 2D convolution with the outer product of the taps (shaders/conv2d.comp): shared-memory
// blocks of CY kernel rows x CX kernel columns (float / vec2 texels for one / two channels), 4 outputs per
// invocation from a register window, NVIDIA's unroll pragma at every radius (H100: 61.7 -> 19.0 ms at radius 36,
// 927 -> 355 ms at radius 144, the same at radius 9; docs/performance.md, GL). One dispatch on GPUs; on llvmpipe
// (its loop limit) the kernel rows, and at large reaches the column blocks too, are split over dispatches that
// carry the running sum in an RGBA32F accumulator, adding in the order one dispatch would (the same result).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_conv2d_blocks(GlPassContext& ctx, const Pass& pass, size_t index, int rx, int ry,
                        const std::vector<float>& matrix, const std::string& form, GlStep& step) {
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  const GlLimits& lim = ctx.limits();
  const bool is_matrix = !matrix.empty();
  const Conv2dTile tile =
      conv2d_tile(rx, ry, is_matrix, shared_budget(lim.max_shared, 0), conv2d_per(), line_vch(ctx.channels()));
  if (tile.cx < 1 || tile.cy < 1)
    return Status::fail(fmt::format("GL: {} has too little compute shared memory ({} bytes) for conv2d",
                                    lim.renderer, lim.max_shared));
  GLuint prog = 0;
  const std::string defines = tile.defines(lim.max_ubo) + (lim.llvmpipe ? "#define SPLIT_COLUMNS 1\n" : "");
  if (Status s = ctx.program({{"conv2d.comp", GL_COMPUTE_SHADER}}, defines, prog, true); !s) return s;
  // The separable taps padded for every `per` (kMaxSepPer), or the matrix's rows padded to NTAPS each.
  std::vector<float> w;
  if (is_matrix) {
    const int kw = 2 * rx + 1, ntaps = padded_taps(rx, tile.per);
    w.assign(size_t(tile.weights()), 0.0f);
    for (int j = 0; j < 2 * ry + 1; ++j)
      std::copy_n(matrix.begin() + long(j) * kw, kw, w.begin() + long(j) * ntaps);
  } else {
    w = pass.taps;
    w.resize(size_t(padded_taps(rx, kMaxSepPer)), 0.0f);
  }
  const GLuint weights = ctx.buffer(fmt::format("conv2d.weights.{}", index));
  glNamedBufferData(weights, GLsizeiptr(w.size() * sizeof(float)), w.data(), GL_STATIC_DRAW);
  // Kernel rows and padded columns per dispatch: all of them, except on llvmpipe, where a dispatch takes whole
  // CY-row blocks (all columns) up to about kLoopBudget loop iterations per invocation, or, where one such block
  // is already more, one CY-row block and as many CX-column blocks as fit (gauss-2d at radius 4096 lost 64% of
  // its weight to the limit when only rows were split).
  const int taps_y = 2 * ry + 1, taps_x = padded_taps(rx, tile.per);
  int rows = taps_y, cols = taps_x;
  if (lim.llvmpipe) {
    const long bx = (taps_x + tile.cx - 1) / tile.cx;
    const long loads = (long(tile.th + tile.cy - 1) * (tile.tw + tile.cx) + tile.threads() - 1) / tile.threads();
    const long per_col_block = loads + tile.cy * (tile.cx / tile.per * (tile.per * tile.per + 4 * tile.per) +
                                                  4 * tile.per);
    const long row_blocks = kLoopBudget / (bx * per_col_block);
    if (row_blocks >= 1) {
      rows = int(row_blocks) * tile.cy;
    } else {
      rows = tile.cy;
      cols = int(std::max(1L, kLoopBudget / per_col_block)) * tile.cx;
    }
  }
  const int row_chunks = (taps_y + rows - 1) / rows, col_chunks = (taps_x + cols - 1) / cols;
  GLuint accum = 0;
  if (row_chunks * col_chunks > 1)
    if (Status s = ctx.scratch_texture(form + " accumulator", dst.w, dst.h, GL_RGBA32F, accum); !s) return s;
  const RowChunks chunks(prog, "dy_begin", "dy_end");
  const GLint u_border = GlPassContext::uniform(prog, "border");
  const GLint u_xb = GlPassContext::uniform(prog, "dx_begin"), u_xe = GlPassContext::uniform(prog, "dx_end");
  spdlog::debug("GL {}: reach {} x {}, block {}x{} taps of {}-float texels, pitch {}, {} kernel rows and {} padded "
                "columns per dispatch",
                form, rx, ry, tile.cx, tile.cy, tile.vch, tile.pitch(), rows, cols);
  step.form = row_chunks * col_chunks > 1 ? fmt::format("{}-{}-dispatches", form, row_chunks * col_chunks) : form;
  step.work = [&ctx, prog, tile, weights, accum, taps_y, taps_x, rows, cols, chunks, u_border, u_xb, u_xe,
               border = int(pass.border), src, dst] {
    glBindBufferBase(GL_UNIFORM_BUFFER, 0, weights);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, weights);
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    if (accum) glBindImageTexture(1, accum, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    const GLuint gx = groups(dst.w, tile.tw), gy = groups(dst.h, tile.th);
    // Rows outer, columns inner: the order of one dispatch (on GPUs exactly one: the column uniforms unused).
    for (int b = 0; b < taps_y; b += rows)
      for (int c = 0; c < taps_x; c += cols) {
        const int e = std::min(taps_y, b + rows), d = std::min(taps_x, c + cols);
        glProgramUniform1i(prog, chunks.begin, b);
        glProgramUniform1i(prog, chunks.end, e);
        glProgramUniform1i(prog, u_xb, c);
        glProgramUniform1i(prog, u_xe, d);
        glProgramUniform1i(prog, chunks.resume, b > 0 || c > 0);
        const bool last = e == taps_y && d == taps_x;
        glProgramUniform1i(prog, chunks.last, last);
        glDispatchCompute(gx, gy, 1);
        if (!last) glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
      }
  };
  return Status::success();
}

Status gl_conv2d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  return gl_conv2d_blocks(ctx, pass, index, pass.radius(), pass.radius(), {}, "conv2d", step);
}

}  // namespace gpublur
