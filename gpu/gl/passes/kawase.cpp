// kawase: one Kawase pass (shaders/kawase.comp). Offsets 0-3 of three- and four-channel images of at least
// kKawaseRunsMinPixels: CUDA's runs (kawase-runs: an invocation four outputs down a column, each row's 4-pixel sum
// once, texelFetch with the border remap; H200 4096^2 RGBA sigma 3 1.253 -> 0.917 ms); otherwise 4 bilinear samples
// through a sampler object with GL_LINEAR and the border's wrap mode (GlPassContext::sampler), normalised
// coordinates, 16x16 groups (kawase-sampler; on an H100 faster than the 16 pixels by texelFetch a pixel:
// docs/performance.md, "kawase --impl dual": 1.403 / 3.708 ms against 1.711 / 4.548 at sigma 3 / 12). On llvmpipe
// the runs at every offset and shape (exact where its float interpolation is not).
#include <string>

#include <fmt/format.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_kawase(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  const int k = pass.widths[0];
  const int vch = line_vch(ctx.channels());
  if (kawase_runs(k, static_cast<long long>(dst.w) * dst.h, vch, ctx.limits().llvmpipe)) {
    GLuint prog = 0;
    if (Status s = ctx.program({{"kawase.comp", GL_COMPUTE_SHADER}},
                               fmt::format("#define KK {}\n", k) + vch_define(vch),
                               prog, true);
        !s)
      return s;
    const GLint u_border = GlPassContext::uniform(prog, "border");
    step.form = "kawase-runs";
    step.work = [&ctx, prog, u_border, border = int(pass.border), src, dst] {
      glProgramUniform1i(prog, u_border, border);
      ctx.bind_io(prog, src.tex, dst.tex);
      glDispatchCompute(groups(dst.w, 32), groups(groups(dst.h, 4), 8), 1);
    };
    return Status::success();
  }
  GLuint prog = 0;
  if (Status s = ctx.program({{"kawase.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_offset = GlPassContext::uniform(prog, "offset");
  step.form = "kawase-sampler";
  step.work = [&ctx, prog, u_offset, offset = float(k) + 0.5f, sampler = ctx.sampler(pass.border), src, dst] {
    glProgramUniform1f(prog, u_offset, offset);
    ctx.dispatch_sampled(prog, sampler, src.tex, dst.tex, dst.w, dst.h);
  };
  return Status::success();
}

}  // namespace gpublur
