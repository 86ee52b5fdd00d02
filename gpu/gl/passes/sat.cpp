// sat: the inclusive float64 summed-area table of the source extended by pass.extend (or of a float64 table
// covering its area: SRC_TABLE), with Hensley's
// recursive doubling (shaders/sat.comp, thesis 2.1): ceil(log2 width) passes along x (the first reads the
// source texture and extends it with the border mode), then ceil(log2 height) along y, each pass reading one
// storage buffer and writing the other; the pass count's parity decides where the first pass writes, so the
// last one writes the table. log2 passes of a read of two dvec4 and a write of one per pixel: measured, not
// targeted (a scan with shared memory would read and write each value once per axis).
// Two Sats that double-integrate a table (sat_pair, core/program.hpp: spread's two tables) run as that scan:
// shaders/sat_pair.comp, one dispatch of double prefix sums along the rows, one down the columns.
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

// Groups of LX invocations a row, SEGS segments a column (the shader's defines). Measured on an H200 (spread sigma
// 12 RGBA, the pair's ms at 1024^2 / 1920x1080 / 2048^2 / 2896^2 / 4096^2; docs/performance.md "Spread's two tables
// as one pair"): 8 segments 0.166 / 0.288 / 0.515 / 0.918 / 2.07; 4 0.221 at 1024^2, 2.40 at 4096^2; 16 0.141 at
// 1024^2 and 10.2 at 4096^2 (not profiled: the walkers of 16 segments lie far apart in a 537 MB table). The walks
// with four loads in flight: faster at 1024^2-2048^2 (0.138 / 0.253 / 0.474 at 8), slower beyond (2.50 at 4096^2).
constexpr int kPairRowGroup = 256, kPairColSegs = 8;

Status gl_sat_pair(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const GlImage src = ctx.image(program.passes[index].src), mid = ctx.image(program.passes[index].dst),
                dst = ctx.image(program.passes[index + 1].dst);
  for (const GlImage* t : {&mid, &dst})
    if (!t->f64 || t->stored_w() != src.stored_w() || t->stored_h() != src.stored_h())
      return Status::fail("GL sat pair: needs three float64 tables of one area");
  GLuint rows = 0, cols = 0;
  if (Status s = ctx.program({{"sat_pair.comp", GL_COMPUTE_SHADER}},
                             fmt::format("#define PHASE 0\n#define LX {}\n", kPairRowGroup), rows);
      !s)
    return s;
  if (Status s = ctx.program({{"sat_pair.comp", GL_COMPUTE_SHADER}},
                             fmt::format("#define PHASE 1\n#define SEGS {}\n", kPairColSegs), cols);
      !s)
    return s;
  const GLint u_rows = GlPassContext::uniform(rows, "tsize"), u_cols = GlPassContext::uniform(cols, "tsize");
  const int tw = src.stored_w(), th = src.stored_h();
  step.form = "sat-pair";
  step.passes = 2;
  step.work = [rows, cols, u_rows, u_cols, tw, th, s = src.buf, m = mid.buf, d = dst.buf] {
    glProgramUniform2i(rows, u_rows, tw, th);
    glProgramUniform2i(cols, u_cols, tw, th);
    glUseProgram(rows);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, s);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, m);
    dispatch_split(th);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(cols);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, m);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, d);
    glDispatchCompute(groups(4 * tw, 32), 1, 1);
  };
  return Status::success();
}

}  // namespace

Status gl_sat(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  if (sat_pair(program, index)) return gl_sat_pair(ctx, program, index, step);
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
