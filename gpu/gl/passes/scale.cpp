// scale: taps[0] times a float64 table into a float32 image (shaders/scale.comp), one invocation per pixel
// of dst's padded area.
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_scale(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  if (!src.f64 || dst.f64 || pass.extend < 0 || src.pad < dst.pad + pass.extend) return Status::fail("GL scale: needs a float64 source covering a float32 destination");
  GLuint prog = 0;
  if (Status s = ctx.program({{"scale.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_dsize = GlPassContext::uniform(prog, "dsize"), u_sw = GlPassContext::uniform(prog, "sw"),
              u_src_pad = GlPassContext::uniform(prog, "src_pad"), u_dst_pad = GlPassContext::uniform(prog, "dst_pad"),
              u_f = GlPassContext::uniform(prog, "f"), u_shift = GlPassContext::uniform(prog, "shift");
  step.form = "scale";
  step.work = [&ctx, prog, src, dst, f = double(pass.taps[0]), shift = pass.extend, u_dsize, u_sw, u_src_pad, u_dst_pad, u_f,
               u_shift] {
    glProgramUniform2i(prog, u_dsize, dst.stored_w(), dst.stored_h());
    glProgramUniform1i(prog, u_sw, src.stored_w());
    glProgramUniform1i(prog, u_src_pad, src.pad);
    glProgramUniform1i(prog, u_dst_pad, dst.pad);
    glProgramUniform1d(prog, u_f, f);
    glProgramUniform1i(prog, u_shift, shift);
    glUseProgram(prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, src.buf);
    glBindImageTexture(0, dst.tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, ctx.store_format());
    glDispatchCompute(groups(dst.stored_w(), 16), groups(dst.stored_h(), 16), 1);
  };
  return Status::success();
}

}  // namespace gpublur
