// sat: the inclusive float64 summed-area table of the source extended by pass.extend (or of a float64 table
// covering its area: SRC_TABLE), with Hensley's
// recursive doubling (shaders/sat.comp, thesis 2.1): ceil(log2 width) passes along x (the first reads the
// source texture and extends it with the border mode), then ceil(log2 height) along y, each pass reading one
// storage buffer and writing the other; the pass count's parity decides where the first pass writes, so the
// last one writes the table. log2 passes of a read of two dvec4 and a write of one per pixel: measured, not
// targeted (a scan with shared memory would read and write each value once per axis).
#include <algorithm>

#include <fmt/format.h>

#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

int doubling_passes(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

}  // namespace

Status gl_sat(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), table = ctx.image(pass.dst);
  // A float64 source (a table of a table) is a storage buffer that covers the table's area.
  const bool src_table = src.f64;
  if (src_table && (pass.extend != 0 || src.pad < table.pad))
    return Status::fail("GL sat: a float64 source must cover the table");
  GLuint prog = 0;
  if (Status s = ctx.program({{"sat.comp", GL_COMPUTE_SHADER}}, src_table ? "#define SRC_TABLE 1\n" : "#define SRC_TABLE 0\n",
                             prog);
      !s)
    return s;
  // One ping-pong buffer for every table of the program: the largest.
  long long bytes = 0;
  for (const Pass& p : program.passes)
    if (p.op == Op::Sat) bytes = std::max(bytes, 32LL * ctx.image(p.dst).stored_w() * ctx.image(p.dst).stored_h());
  GLuint scratch = 0;
  if (Status s = ctx.scratch_buffer("sat ping-pong table", bytes, scratch); !s) return s;
  // (axis, d) per pass: x with d = 1, 2, 4, ... < width (at least one pass: the first extends the source), then y.
  std::vector<std::pair<int, int>> passes;
  const int nx = doubling_passes(table.stored_w()), ny = doubling_passes(table.stored_h());
  if (nx == 0) passes.push_back({0, 0});
  for (int k = 0; k < nx; ++k) passes.push_back({0, 1 << k});
  for (int k = 0; k < ny; ++k) passes.push_back({1, 1 << k});
  const GLint u_tsize = GlPassContext::uniform(prog, "tsize"), u_size = GlPassContext::uniform(prog, "size"),
              u_table_pad = GlPassContext::uniform(prog, "table_pad"),
              u_src_pad = GlPassContext::uniform(prog, "src_pad"), u_border = GlPassContext::uniform(prog, "border"),
              u_axis = GlPassContext::uniform(prog, "axis"), u_d = GlPassContext::uniform(prog, "d"),
              u_first = GlPassContext::uniform(prog, "first"), u_src_w = GlPassContext::uniform(prog, "src_w");
  step.form = "sat-doubling";
  step.work = [prog, scratch, passes, src, table, src_table, border = int(pass.border), u_tsize, u_size, u_table_pad,
               u_src_pad, u_border, u_axis, u_d, u_first, u_src_w] {
    glUseProgram(prog);
    if (src_table) {
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, src.buf);
      glProgramUniform1i(prog, u_src_w, src.stored_w());
    } else {
      glBindTextureUnit(0, src.tex);
    }
    glProgramUniform2i(prog, u_tsize, table.stored_w(), table.stored_h());
    glProgramUniform2i(prog, u_size, src.w, src.h);
    glProgramUniform1i(prog, u_table_pad, table.pad);
    glProgramUniform1i(prog, u_src_pad, src.pad);
    glProgramUniform1i(prog, u_border, border);
    const size_t n = passes.size();
    for (size_t k = 0; k < n; ++k) {
      // Pass k writes the table where n - 1 - k is even (so the last writes it), else the scratch buffer.
      const GLuint out = (n - 1 - k) % 2 == 0 ? table.buf : scratch, in = out == table.buf ? scratch : table.buf;
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, in);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, out);
      glProgramUniform1i(prog, u_axis, passes[k].first);
      glProgramUniform1i(prog, u_d, passes[k].second);
      glProgramUniform1i(prog, u_first, k == 0);
      glDispatchCompute(groups(table.stored_w(), 16), groups(table.stored_h(), 16), 1);
      if (k + 1 < n) glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
  };
  return Status::success();
}

}  // namespace gpublur
