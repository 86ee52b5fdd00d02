// copy: dst = src over dst's area (shaders/copy.comp): texelFetch + imageStore in 16x16 groups; padded images
// take the PADDED form (an unpadded source extended with the border mode).
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_copy(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage &src = ctx.image(pass.src), &dst = ctx.image(pass.dst);
  const bool padded = src.pad != 0 || dst.pad != 0;
  GLuint prog = 0;
  if (Status s = ctx.program({{"copy.comp", GL_COMPUTE_SHADER}}, padded ? "#define PADDED 1\n" : "#define PADDED 0\n",
                             prog);
      !s)
    return s;
  const GLint u_size = GlPassContext::uniform(prog, "size"), u_src_pad = GlPassContext::uniform(prog, "src_pad"),
              u_dst_pad = GlPassContext::uniform(prog, "dst_pad"), u_border = GlPassContext::uniform(prog, "border");
  step.form = "copy";
  step.work = [&ctx, prog, padded, u_size, u_src_pad, u_dst_pad, u_border, border = int(pass.border), src, dst] {
    if (padded) {
      glProgramUniform2i(prog, u_size, dst.w, dst.h);
      glProgramUniform1i(prog, u_src_pad, src.pad);
      glProgramUniform1i(prog, u_dst_pad, dst.pad);
      glProgramUniform1i(prog, u_border, border);
    }
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups(dst.stored_w(), 16), groups(dst.stored_h(), 16), 1);
  };
  return Status::success();
}

}  // namespace gpublur
