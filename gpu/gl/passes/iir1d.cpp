// iir1d: the recursive filter along one axis as shaders/iir_segments.comp: every line cut into segments of
// seg_len positions, one invocation per (line, segment) running its segment from zero states, one per line
// chaining the segments' states in float64 and adding the border states, then one per (line, segment) making
// its outputs from its true states (three dispatches; the states and the causal sums in storage buffers).
// The first form, one invocation per line walking it whole, took 15.4 ms at 4096^2 RGBA on an H100 (11.7x
// CUDA's segment scan): 4096 invocations leave the GPU idle.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/iir.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

// Positions per segment: at most 64 segments per line (the chain's work group), at least 8 positions each.
int segment_length(int n) { return std::max(8, (n + 63) / 64); }

}  // namespace

Status gl_iir1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage &src = ctx.image(pass.src), &dst = ctx.image(pass.dst);
  const std::vector<IirTerm> terms = iir_terms_from_taps(pass.taps);
  if (terms.empty() || terms.size() > size_t(kMaxIirTerms)) return Status::fail("GL iir1d: bad term count");
  GLuint progs[3] = {0, 0, 0};
  for (int stage = 0; stage < 3; ++stage)
    if (Status s = ctx.program({{"iir_segments.comp", GL_COMPUTE_SHADER}},
                               fmt::format("#define AXIS {}\n#define STAGE {}\n#define TERMS {}\n", pass.axis, stage,
                                           terms.size()),
                               progs[stage], true);
        !s)
      return s;
  // Buffers shared by every iir1d pass of the program: sized for the largest.
  long long state_bytes = 0, partial_bytes = 0;
  for (const Pass& p : program.passes) {
    if (p.op != Op::Iir1d) continue;
    const GlImage& s = ctx.image(p.src);
    const int n = p.axis == 0 ? s.w : s.h, lines = p.axis == 0 ? s.h : s.w;
    const long long segs = (n + segment_length(n) - 1) / segment_length(n);
    state_bytes = std::max(state_bytes, segs * lines * kMaxIirTerms * 4 * 32);
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
  const int L = segment_length(n), segs = (n + L - 1) / L;
  // Uniform locations once; the values are set in each run: programs are cached per source and defines, so
  // another iir1d pass of the program (other taps, border or segment length) may have set them since.
  struct Stage {
    GLuint prog;
    GLint border, coef, seg_len, segs;
  };
  std::vector<Stage> stages;
  for (GLuint prog : progs)
    stages.push_back({prog, GlPassContext::uniform(prog, "border"), GlPassContext::uniform(prog, "coef"),
                      GlPassContext::uniform(prog, "seg_len"), GlPassContext::uniform(prog, "segs")});
  step.form = "iir1d-segments";
  step.work = [&ctx, stages, state, partial, lines, segs, border = int(pass.border), coef, L,
               src, dst] {
    for (size_t i = 0; i < stages.size(); ++i) {
      const Stage& st = stages[i];
      glProgramUniform1i(st.prog, st.border, border);
      glProgramUniform4dv(st.prog, st.coef, kMaxIirTerms, coef.data());
      glProgramUniform1i(st.prog, st.seg_len, L);
      glProgramUniform1i(st.prog, st.segs, segs);
      ctx.bind_io(st.prog, src.tex, dst.tex);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, state);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, partial);
      if (i == 1)  // a work group per line
        glDispatchCompute(GLuint(std::min(lines, 65535)), GLuint((lines + 65534) / 65535), 1);
      else
        glDispatchCompute(groups(lines, 64), GLuint(segs), 1);
      glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
  };
  return Status::success();
}

}  // namespace gpublur
