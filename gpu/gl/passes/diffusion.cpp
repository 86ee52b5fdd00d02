// diffusion: the heat steps over the stored area (padding included) as one dispatch each (shaders/diffusion.comp), ping-pong between dst and a scratch
// texture so that the last step writes dst. Between steps a texture-fetch barrier (the next step reads what
// this one wrote) and an image-access one (the next step stores into the texture this one read).
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_diffusion(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{"diffusion.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const int steps = pass.widths[0];
  GLuint other = 0;
  if (steps > 1)
    if (Status s = ctx.scratch_texture("diffusion ping-pong", dst.stored_w(), dst.stored_h(), ctx.store_format(), other);
        !s)
      return s;
  const GLint u_size = GlPassContext::uniform(prog, "size"), u_border = GlPassContext::uniform(prog, "border"),
              u_rate = GlPassContext::uniform(prog, "rate");
  step.form = "diffusion-pingpong";
  step.work = [&ctx, prog, src, dst, other, steps, rate = pass.taps[0], border = int(pass.border), u_size, u_border,
               u_rate] {
    glProgramUniform2i(prog, u_size, dst.stored_w(), dst.stored_h());
    glProgramUniform1i(prog, u_border, border);
    glProgramUniform1f(prog, u_rate, rate);
    GLuint from = src.tex;
    for (int j = 0; j < steps; ++j) {
      // Step j writes dst where steps - 1 - j is even, else the scratch texture: the last one writes dst.
      const GLuint to = (steps - 1 - j) % 2 == 0 ? dst.tex : other;
      ctx.bind_io(prog, from, to);
      glDispatchCompute(groups(dst.stored_w(), 16), groups(dst.stored_h(), 16), 1);
      if (j + 1 < steps) glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
      from = to;
    }
  };
  return Status::success();
}

}  // namespace gpublur
