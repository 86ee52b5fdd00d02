// iir1d: the recursive filter along one axis as shaders/iir1d.comp: one invocation per line walking it in
// float64, the sweeps as phases (wrap and mirror first sweep the line twice for their periodic initial
// states), the causal sums in a position-major line buffer, the running states in a storage buffer between
// dispatches. On llvmpipe (its 65535-iteration limit on a shader's loops) each phase runs in chunks of
// positions; elsewhere one dispatch per phase.
#include <algorithm>

#include <fmt/format.h>

#include "core/iir.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_iir1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage &src = ctx.image(pass.src), &dst = ctx.image(pass.dst);
  const std::vector<IirTerm> terms = iir_terms_from_taps(pass.taps);
  if (terms.empty() || terms.size() > size_t(kMaxIirTerms)) return Status::fail("GL iir1d: bad term count");
  GLuint prog = 0;
  if (Status s = ctx.program({{"iir1d.comp", GL_COMPUTE_SHADER}}, fmt::format("#define AXIS {}\n", pass.axis), prog); !s)
    return s;
  // Buffers shared by every iir1d pass of the program: sized for the largest.
  long long state_bytes = 0, partial_bytes = 0;
  for (const Pass& p : program.passes) {
    if (p.op != Op::Iir1d) continue;
    const GlImage& s = ctx.image(p.src);
    const long long lines = p.axis == 0 ? s.h : s.w;
    state_bytes = std::max(state_bytes, lines * 4 * kMaxIirTerms * 2 * 32);
    partial_bytes = std::max(partial_bytes, 16LL * s.w * s.h);
  }
  GLuint state = 0, partial = 0;
  if (Status s = ctx.scratch_buffer("iir1d state", state_bytes, state); !s) return s;
  if (Status s = ctx.scratch_buffer("iir1d partial", partial_bytes, partial); !s) return s;
  std::vector<double> coef(4 * kMaxIirTerms, 0.0);
  for (size_t t = 0; t < terms.size(); ++t) {
    coef[4 * t + 0] = terms[t].p.real(), coef[4 * t + 1] = terms[t].p.imag();
    coef[4 * t + 2] = terms[t].c.real(), coef[4 * t + 3] = terms[t].c.imag();
  }
  const int n = pass.axis == 0 ? src.w : src.h, lines = pass.axis == 0 ? src.h : src.w;
  // Loop iterations per position: the term loop and the position loop (kLoopBudget counts them unrolled).
  const int chunk = ctx.limits().llvmpipe ? int(kLoopBudget / (kMaxIirTerms + 2)) : n;
  const bool periodic = pass.border == Border::Wrap || pass.border == Border::Mirror;
  const GLint u_border = GlPassContext::uniform(prog, "border"), u_terms = GlPassContext::uniform(prog, "terms"),
              u_coef = GlPassContext::uniform(prog, "coef"), u_phase = GlPassContext::uniform(prog, "phase"),
              u_from = GlPassContext::uniform(prog, "from"), u_count = GlPassContext::uniform(prog, "count"),
              u_start = GlPassContext::uniform(prog, "start");
  step.form = "iir1d-lines";
  step.work = [&ctx, prog, state, partial, coef, k = int(terms.size()), border = int(pass.border), n, lines, chunk,
               periodic, u_border, u_terms, u_coef, u_phase, u_from, u_count, u_start, src, dst] {
    glProgramUniform1i(prog, u_border, border);
    glProgramUniform1i(prog, u_terms, k);
    glProgramUniform4dv(prog, u_coef, kMaxIirTerms, coef.data());
    ctx.bind_io(prog, src.tex, dst.tex);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, state);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, partial);
    for (int phase = periodic ? 0 : 2; phase < 4; ++phase) {
      const bool backward = phase == 0 || phase == 3;
      glProgramUniform1i(prog, u_phase, phase);
      for (int done = 0; done < n; done += chunk) {
        const int cnt = std::min(chunk, n - done);
        glProgramUniform1i(prog, u_from, backward ? n - 1 - done : done);
        glProgramUniform1i(prog, u_count, cnt);
        glProgramUniform1i(prog, u_start, done == 0);
        glDispatchCompute(groups(lines, 64), 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
      }
    }
  };
  return Status::success();
}

}  // namespace gpublur
