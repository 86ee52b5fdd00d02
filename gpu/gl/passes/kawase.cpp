// kawase: one Kawase pass. Default (shaders/kawase.comp): 4 bilinear samples through a sampler object with
// GL_LINEAR and the border's wrap mode (GlPassContext::sampler), normalised coordinates, 16x16 groups.
// GPUBLUR_GL_KAWASE=direct (shaders/kawase_direct.comp, for an A/B measurement against it; docs/performance.md):
// the samples' 16 pixels by texelFetch with the border remap as the CUDA kernel, GPUBLUR_GL_RESAMPLE_ROWS
// outputs per invocation down a column, GPUBLUR_GL_RESAMPLE_LOAD=image: imageLoad instead of texelFetch.
#include <string>

#include <fmt/format.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_kawase(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (kawase_direct()) {
    const int rows = resample_rows();
    const bool image = resample_image_load();
    const GroupShape g = resample_group();
    if (Status s = ctx.program({{"kawase_direct.comp", GL_COMPUTE_SHADER}},
                               fmt::format("#define ROWS {}\n{}{}", rows, g.defines(),
                                           image ? "#define LOAD_IMAGE 1\n" : ""),
                               prog, true);
        !s)
      return s;
    const GLint u_k = GlPassContext::uniform(prog, "k"), u_border = GlPassContext::uniform(prog, "border");
    step.form = (rows == 1 ? std::string("kawase-direct") : fmt::format("kawase-direct-rows{}", rows)) +
                (image ? "-image" : "") + g.suffix();
    step.work = [&ctx, prog, u_k, u_border, k = pass.widths[0], border = int(pass.border), rows, image, g, src, dst] {
      glProgramUniform1i(prog, u_k, k);
      glProgramUniform1i(prog, u_border, border);
      ctx.bind_io(prog, src.tex, dst.tex);
      if (image) glBindImageTexture(1, src.tex, 0, GL_FALSE, 0, GL_READ_ONLY, ctx.store_format());
      glDispatchCompute(groups(dst.w, g.x), groups(dst.h, g.y * rows), 1);
    };
    return Status::success();
  }
  if (Status s = ctx.program({{"kawase.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_offset = GlPassContext::uniform(prog, "offset");
  step.form = "kawase-sampler";
  step.work = [&ctx, prog, u_offset, offset = float(pass.widths[0]) + 0.5f, sampler = ctx.sampler(pass.border), src,
               dst] {
    glProgramUniform1f(prog, u_offset, offset);
    ctx.dispatch_sampled(prog, sampler, src.tex, dst.tex, dst.w, dst.h);
  };
  return Status::success();
}

}  // namespace gpublur
