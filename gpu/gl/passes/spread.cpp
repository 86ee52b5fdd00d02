// spread: the nine spread weights gathered into a float64 storage buffer (shaders/spread.comp): one dispatch
// over the image's area (no write conflicts, so one dispatch instead of the thesis's nine scatter passes), and
// one of a work group per folded table pixel for the margin before the image (on llvmpipe, whose loop limit a corner's
// (2R - 2)^2 values pass from R 559, split over dispatches of at most kLoopBudget iterations an invocation).
#include <algorithm>
#include <array>

#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_spread(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  if (!dst.f64 || dst.pad != 1 || src.f64 || src.pad != 0)
    return Status::fail("GL spread: needs an unpadded float32 source and a float64 table of padding 1");
  GLuint area = 0, fold = 0;
  if (Status s = ctx.program({{"spread.comp", GL_COMPUTE_SHADER}}, "#define FOLD 0\n", area); !s) return s;
  if (Status s = ctx.program({{"spread.comp", GL_COMPUTE_SHADER}}, "#define FOLD 1\n", fold); !s) return s;
  const long long folded = 2LL * src.w + 2LL * src.h + 4;  // the folded pixels' groups
  const int M = pass.extend + pass.widths[0] - 1;           // a corner group's margin: M^2 values
  // A group value's iterations an invocation: the k loop and spread_at's 3 + 9 (kLoopBudget counts loops unrolled).
  const int chunk = ctx.limits().llvmpipe ? 256 * int((kLoopBudget - 64) / 13) : M * M;
  const RowChunks fold_chunks(fold, "kbegin", "kend");
  struct Uniforms {
    GLuint prog;
    GLint dsize, size, R, extend, border;
  };
  auto uniforms = [](GLuint prog) {
    return Uniforms{prog,
                    GlPassContext::uniform(prog, "dsize"),
                    GlPassContext::uniform(prog, "size"),
                    GlPassContext::uniform(prog, "R"),
                    GlPassContext::uniform(prog, "extend"),
                    GlPassContext::uniform(prog, "border")};
  };
  step.form = "spread";
  step.work = [u = std::array<Uniforms, 2>{uniforms(area), uniforms(fold)}, src, dst, R = pass.widths[0],
               extend = pass.extend, border = int(pass.border), folded, M, chunk, fold_chunks] {
    for (const Uniforms& p : u) {  // set per run: the programs are shared by every plan of the context
      glProgramUniform2i(p.prog, p.dsize, dst.stored_w(), dst.stored_h());
      glProgramUniform2i(p.prog, p.size, src.w, src.h);
      glProgramUniform1i(p.prog, p.R, R);
      glProgramUniform1i(p.prog, p.extend, extend);
      glProgramUniform1i(p.prog, p.border, border);
    }
    glBindTextureUnit(0, src.tex);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, dst.buf);
    glUseProgram(u[0].prog);
    glDispatchCompute(groups(src.w, 16), groups(src.h, 16), 1);
    glUseProgram(u[1].prog);
    const SplitGroups g = split_groups(folded);
    fold_chunks.dispatch(u[1].prog, std::max(1, M * M), std::max(1, chunk), g.x, g.y, GL_SHADER_STORAGE_BARRIER_BIT);
  };
  return Status::success();
}

}  // namespace gpublur
