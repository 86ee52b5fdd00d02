// bilinear1d: taps at fractional offsets, each a bilinear sample of the texture unit (shaders/bilinear1d.comp):
// sampler objects with GL_LINEAR and the border's wrap mode, normalised coordinates, 16x16 groups, one
// dispatch per pass. The texture unit's interpolation weights are fixed-point (8 fractional bits on NVIDIA),
// which the plan's tolerance states; the exact interpolation is a Conv1d of the split taps (core/gauss.hpp).
#include <fmt/format.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_bilinear1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  // Per tap: offset, weight.
  std::vector<float> taps;
  for (size_t k = 0; k < pass.offsets.size(); ++k) taps.insert(taps.end(), {pass.offsets[k], pass.taps[k]});
  std::string defines = fmt::format("#define AXIS {}\n#define N_TAPS {}\n", pass.axis, pass.offsets.size());
  // Compile-time taps: offsets and weights become immediates (measured the same as the buffer on an H100).
  if (linear_const_taps()) defines += "#define TAP_LIST " + glsl_floats(taps.data(), int(taps.size())) + "\n";
  GLuint prog = 0;
  if (Status s = ctx.program({{"bilinear1d.comp", GL_COMPUTE_SHADER}}, defines, prog); !s) return s;
  const GLuint buf = ctx.buffer(fmt::format("bilinear1d.taps.{}", index));
  glNamedBufferData(buf, GLsizeiptr(taps.size() * sizeof(float)), taps.data(), GL_STATIC_DRAW);
  step.form = "sampler-bilinear";
  step.work = [&ctx, prog, buf, sampler = ctx.sampler(pass.border), src, dst] {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buf);
    ctx.dispatch_sampled(prog, sampler, src.tex, dst.tex, dst.w, dst.h);
  };
  return Status::success();
}

}  // namespace gpublur
