// box2d: the direct w x w box mean (shaders/box2d.comp): w^2 texel fetches per pixel of dst's padded area,
// summed in float64. One dispatch on GPUs; on llvmpipe the window rows are split over dispatches of about
// kLoopBudget loop iterations each, carrying the sum in a float64 storage buffer. Measured, not targeted.
#include <algorithm>

#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_box2d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{"box2d.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const int w = pass.widths[0];
  const int rows = ctx.limits().llvmpipe ? int(std::max(1L, kLoopBudget / w)) : w;
  GLuint accum = 0;
  if (rows < w) {
    long long bytes = 0;  // one accumulator for every box2d pass of the program: the largest
    for (const Pass& p : program.passes)
      if (p.op == Op::Box2d) bytes = std::max(bytes, 32LL * ctx.image(p.dst).stored_w() * ctx.image(p.dst).stored_h());
    if (Status s = ctx.scratch_buffer("box2d accumulator", bytes, accum); !s) return s;
  }
  const GLint u_size = GlPassContext::uniform(prog, "size"), u_src_pad = GlPassContext::uniform(prog, "src_pad"),
              u_dst_pad = GlPassContext::uniform(prog, "dst_pad"), u_border = GlPassContext::uniform(prog, "border"),
              u_h = GlPassContext::uniform(prog, "h"), u_inv = GlPassContext::uniform(prog, "inv_area");
  const RowChunks chunks(prog, "row_begin", "row_end");
  step.form = "box2d-direct";
  step.work = [&ctx, prog, src, dst, w, rows, accum, border = int(pass.border), u_size, u_src_pad, u_dst_pad, u_border,
               u_h, u_inv, chunks] {
    glProgramUniform2i(prog, u_size, dst.w, dst.h);
    glProgramUniform1i(prog, u_src_pad, src.pad);
    glProgramUniform1i(prog, u_dst_pad, dst.pad);
    glProgramUniform1i(prog, u_border, border);
    glProgramUniform1i(prog, u_h, w / 2);
    glProgramUniform1d(prog, u_inv, 1.0 / (double(w) * w));
    ctx.bind_io(prog, src.tex, dst.tex);
    if (accum) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, accum);
    chunks.dispatch(prog, w, rows, groups(dst.stored_w(), 16), groups(dst.stored_h(), 16),
                    GL_SHADER_STORAGE_BARRIER_BIT);
  };
  return Status::success();
}

}  // namespace gpublur
