// conv2d-matrix: the direct 2D correlation with a full matrix (shaders/conv2d_matrix.comp): weights in a
// storage buffer, one invocation per output pixel, texelFetch with the border remap. One dispatch on GPUs; on
// llvmpipe the kernel rows are split over dispatches (about kLoopBudget taps per invocation each) that carry the
// running sum in an RGBA32F accumulator.
#include <algorithm>

#include <fmt/format.h>

#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_conv2d_matrix(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{"conv2d_matrix.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLuint weights = ctx.buffer(fmt::format("conv2d_matrix.weights.{}", index));
  glNamedBufferData(weights, GLsizeiptr(pass.taps.size() * sizeof(float)), pass.taps.data(), GL_STATIC_DRAW);
  const int kw = pass.widths[0], kh = pass.widths[1];
  const int rows = ctx.limits().llvmpipe ? int(std::max(1L, kLoopBudget / long(kw + 1))) : kh;
  GLuint accum = 0;
  if (rows < kh)
    if (Status s = ctx.scratch_texture("conv2d-matrix accumulator", dst.w, dst.h, GL_RGBA32F, accum); !s) return s;
  const RowChunks chunks(prog, "dy_begin", "dy_end");
  const GLint u_border = GlPassContext::uniform(prog, "border"), u_kw = GlPassContext::uniform(prog, "kw"),
              u_ry = GlPassContext::uniform(prog, "ry");
  step.form = "conv2d-matrix";
  step.work = [&ctx, prog, weights, accum, kw, kh, rows, chunks, u_border, u_kw, u_ry, border = int(pass.border),
               src, dst] {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, weights);
    glProgramUniform1i(prog, u_border, border);
    glProgramUniform1i(prog, u_kw, kw);
    glProgramUniform1i(prog, u_ry, kh / 2);
    ctx.bind_io(prog, src.tex, dst.tex);
    if (accum) glBindImageTexture(1, accum, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    chunks.dispatch(prog, kh, rows, groups(dst.w, 16), groups(dst.h, 16), GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  };
  return Status::success();
}

}  // namespace gpublur
