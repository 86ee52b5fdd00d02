// moving-average: the cascade of boxes along one axis, scheduled as the Intel article's compute shader
// (shaders/moving_average.comp): per box one dispatch of one invocation per line walking along it with a
// running sum, the border-extended intermediate lines in two storage buffers (ping-pong). Few invocations (one
// per line) and a dispatch per box: measured, not targeted. box1d runs through this form too where its
// reach is too long for box1d.comp's tiles (gl_box_lines).
#include <algorithm>

#include <fmt/format.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

namespace {

// Bytes of the line buffers box k = 0 of `pass` writes: every line extended by the reach left after it.
long long line_bytes(const Pass& pass, const GlImage& src) {
  const int n = pass.axis == 0 ? src.w : src.h, lines = pass.axis == 0 ? src.h : src.w;
  const GlBoxCascade bc = gl_box_cascade(pass);
  return 16LL * lines * (n + 2LL * (bc.reach - bc.spans[0] / 2));
}

}  // namespace

Status gl_box_lines(GlPassContext& ctx, const Program& program, const Pass& pass, const GlImage& src,
                    const GlImage& dst, GlStep& step) {
  GLuint prog = 0;
  if (Status s = ctx.program({{"moving_average.comp", GL_COMPUTE_SHADER}}, fmt::format("#define AXIS {}\n", pass.axis),
                             prog);
      !s)
    return s;
  const int lines = pass.axis == 0 ? src.h : src.w;
  const GlBoxCascade bc = gl_box_cascade(pass);
  // Box k writes the line extended by e[k] (the reach left for the boxes after it).
  std::vector<int> e(bc.widths.size(), 0);
  int reach = bc.reach;
  for (size_t k = 0; k < bc.widths.size(); ++k) e[k] = reach -= bc.spans[k] / 2;
  std::vector<float> fracs = bc.fracs;
  fracs.resize(bc.widths.size(), 0.0f);
  GLuint buf[2] = {0, 0};
  if (bc.widths.size() > 1) {
    long long bytes = 0;  // the buffers of every line-walker pass of the program: the largest
    for (const Pass& p : program.passes)
      if (p.op == Op::Box1d || p.op == Op::MovingAverage || p.op == Op::Integral1d)
        bytes = std::max(bytes, line_bytes(p, ctx.image(p.src)));
    for (int b = 0; b < (bc.widths.size() > 2 ? 2 : 1); ++b)
      if (Status s = ctx.scratch_buffer(fmt::format("moving-average lines {}", b), bytes, buf[b]); !s) return s;
  }
  const GLint u_border = GlPassContext::uniform(prog, "border"), u_w = GlPassContext::uniform(prog, "w"),
              u_e_out = GlPassContext::uniform(prog, "e_out"), u_first = GlPassContext::uniform(prog, "first"),
              u_last = GlPassContext::uniform(prog, "last"), u_frac = GlPassContext::uniform(prog, "frac");
  step.form = "moving-average";
  step.work = [&ctx, prog, buf0 = buf[0], buf1 = buf[1], e, widths = bc.widths, fracs, border = int(pass.border),
               lines, u_border, u_w, u_e_out, u_first, u_last, u_frac, src, dst] {
    const GLuint bufs[2] = {buf0, buf1};
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    for (size_t k = 0; k < widths.size(); ++k) {
      const bool first = k == 0, last = k + 1 == widths.size();
      if (!first) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bufs[(k - 1) % 2]);
      if (!last) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, bufs[k % 2]);
      glProgramUniform1i(prog, u_w, widths[k]);
      glProgramUniform1f(prog, u_frac, fracs[k]);
      glProgramUniform1i(prog, u_e_out, e[k]);
      glProgramUniform1i(prog, u_first, first);
      glProgramUniform1i(prog, u_last, last);
      glDispatchCompute(groups(lines, 64), 1, 1);
      if (!last) glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
  };
  return Status::success();
}

Status gl_moving_average(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  return gl_box_lines(ctx, program, pass, ctx.image(pass.src), ctx.image(pass.dst), step);
}

}  // namespace gpublur
