// sat-box: the w x w box mean from four lookups in a float64 summed-area table (shaders/sat_box.comp), one
// invocation per pixel of dst's padded area.
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_sat_box(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage table = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{"sat_box.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const int w = pass.widths[0];
  const GLint u_dsize = GlPassContext::uniform(prog, "dsize"), u_tw = GlPassContext::uniform(prog, "tw"),
              u_table_pad = GlPassContext::uniform(prog, "table_pad"),
              u_dst_pad = GlPassContext::uniform(prog, "dst_pad"), u_h = GlPassContext::uniform(prog, "h"),
              u_inv = GlPassContext::uniform(prog, "inv_area");
  step.form = "sat-box";
  step.work = [&ctx, prog, table, dst, w, u_dsize, u_tw, u_table_pad, u_dst_pad, u_h, u_inv] {
    glProgramUniform2i(prog, u_dsize, dst.stored_w(), dst.stored_h());
    glProgramUniform1i(prog, u_tw, table.stored_w());
    glProgramUniform1i(prog, u_table_pad, table.pad);
    glProgramUniform1i(prog, u_dst_pad, dst.pad);
    glProgramUniform1i(prog, u_h, w / 2);
    glProgramUniform1d(prog, u_inv, 1.0 / (double(w) * w));
    glUseProgram(prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, table.buf);
    glBindImageTexture(0, dst.tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, ctx.store_format());
    glDispatchCompute(groups(dst.stored_w(), 16), groups(dst.stored_h(), 16), 1);
  };
  return Status::success();
}

}  // namespace gpublur
