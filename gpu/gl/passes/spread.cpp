// spread: the nine spread weights gathered into a float64 storage buffer (shaders/spread.comp), one
// invocation per pixel of dst's padded area; no write conflicts, so one dispatch instead of the thesis's nine
// scatter passes.
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_spread(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  if (!dst.f64 || src.f64 || src.pad != 0) return Status::fail("GL spread: needs an unpadded float32 source and a float64 destination");
  GLuint prog = 0;
  if (Status s = ctx.program({{"spread.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_dsize = GlPassContext::uniform(prog, "dsize"), u_size = GlPassContext::uniform(prog, "size"),
              u_dst_pad = GlPassContext::uniform(prog, "dst_pad"), u_R = GlPassContext::uniform(prog, "R"),
              u_extend = GlPassContext::uniform(prog, "extend"), u_border = GlPassContext::uniform(prog, "border");
  step.form = "spread";
  step.work = [prog, src, dst, R = pass.widths[0], extend = pass.extend, border = int(pass.border), u_dsize, u_size,
               u_dst_pad, u_R, u_extend, u_border] {
    glProgramUniform2i(prog, u_dsize, dst.stored_w(), dst.stored_h());
    glProgramUniform2i(prog, u_size, src.w, src.h);
    glProgramUniform1i(prog, u_dst_pad, dst.pad);
    glProgramUniform1i(prog, u_R, R);
    glProgramUniform1i(prog, u_extend, extend);
    glProgramUniform1i(prog, u_border, border);
    glUseProgram(prog);
    glBindTextureUnit(0, src.tex);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, dst.buf);
    glDispatchCompute(groups(dst.stored_w(), 16), groups(dst.stored_h(), 16), 1);
  };
  return Status::success();
}

}  // namespace gpublur
