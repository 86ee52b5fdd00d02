// bilateral, bilateral1d: one invocation per pixel over its window (shaders/bilateral.comp), the 1D spatial
// weights in a storage buffer. llvmpipe ends a shader's loops after 65535 iterations in all: windows beyond
// kLoopBudget taps are refused there with a clear error rather than cut short.
#include <fmt/format.h>

#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_bilateral(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  const int r = pass.radius(), axis = pass.op == Op::Bilateral ? -1 : pass.axis;
  const long taps = axis < 0 ? long(2 * r + 1) * (2 * r + 1) : 2 * r + 1;
  if (ctx.limits().llvmpipe && taps > kLoopBudget)
    return Status::fail(fmt::format("GL bilateral: a {}-tap window exceeds llvmpipe's shader loop limit", taps));
  GLuint prog = 0;
  if (Status s = ctx.program({{"bilateral.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLuint weights = ctx.buffer(fmt::format("bilateral.weights.{}", index));
  glNamedBufferData(weights, GLsizeiptr(pass.taps.size() * sizeof(float)), pass.taps.data(), GL_STATIC_DRAW);
  const GLint u_size = GlPassContext::uniform(prog, "size"), u_border = GlPassContext::uniform(prog, "border"),
              u_radius = GlPassContext::uniform(prog, "radius"), u_axis = GlPassContext::uniform(prog, "axis"),
              u_range = GlPassContext::uniform(prog, "range"), u_colour = GlPassContext::uniform(prog, "colour");
  step.form = axis < 0 ? "bilateral-2d" : axis == 0 ? "bilateral1d-x" : "bilateral1d-y";
  step.work = [&ctx, prog, src, dst, weights, r, axis, range = pass.range, border = int(pass.border), u_size, u_border,
               u_radius, u_axis, u_range, u_colour, alpha_of = pass.alpha] {
    const int c = ctx.channels(), alpha = pass_alpha(alpha_of, c);
    const auto on = [&](int k) { return k < c && k != alpha ? 1.f : 0.f; };  // every channel but alpha
    glProgramUniform2i(prog, u_size, dst.w, dst.h);
    glProgramUniform1i(prog, u_border, border);
    glProgramUniform1i(prog, u_radius, r);
    glProgramUniform1i(prog, u_axis, axis);
    glProgramUniform1f(prog, u_range, range);
    glProgramUniform4f(prog, u_colour, on(0), on(1), on(2), on(3));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, weights);
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups(dst.w, 16), groups(dst.h, 16), 1);
  };
  return Status::success();
}

}  // namespace gpublur
