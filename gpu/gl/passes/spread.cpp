// spread: the nine spread weights gathered into a float64 storage buffer (shaders/spread.comp): one dispatch
// over the image's area (no write conflicts, so one dispatch instead of the thesis's nine scatter passes), and the
// margin before the image folded through the taps on the source's lines (core/spread_fold.hpp), as the cpu backend:
// a dispatch of the lines' sums over the taps, then one of the folded pixels from them, work bounded by the image
// at any R. (A work group per folded pixel summing its M or M^2 spread values, M = extend + R - 1, grew with R^2:
// 11.6 s for 64^2 at R 2048 on llvmpipe.) Every loop an invocation runs is at most n / 16 or n / 256 iterations
// for an axis of n pixels, under llvmpipe's loop limit (kLoopBudget) for any texture size: one dispatch each.
#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "core/spread_fold.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

// spread.comp's Tap is std430 { int index; double w1; double w2; }: the same bytes as SpreadFoldTap.
static_assert(sizeof(SpreadFoldTap) == 24 && offsetof(SpreadFoldTap, index) == 0 &&
                  offsetof(SpreadFoldTap, w1) == 8 && offsetof(SpreadFoldTap, w2) == 16,
              "spread.comp reads the taps as SpreadFoldTap's bytes");

Status gl_spread(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  if (!dst.f64 || dst.pad != 1 || src.f64 || src.pad != 0)
    return Status::fail("GL spread: needs an unpadded float32 source and a float64 table of padding 1");
  std::array<GLuint, 3> progs{};
  for (int f = 0; f < 3; ++f)
    if (Status s = ctx.program({{"spread.comp", GL_COMPUTE_SHADER}}, fmt::format("#define FOLD {}\n", f), progs[f]);
        !s)
      return s;
  // The lines' sums: one scratch buffer for every spread pass of the program, the largest (2 (w + h) dvec4).
  long long bytes = 0;
  for (const Pass& p : program.passes)
    if (p.op == Op::Spread) bytes = std::max(bytes, 64LL * (ctx.image(p.src).w + ctx.image(p.src).h));
  GLuint sums = 0;
  if (Status s = ctx.scratch_buffer("spread fold sums", bytes, sums); !s) return s;
  // The x taps then the y taps (they depend on the image's size: uploaded by the work, before its dispatches).
  int ntx = 0;
  auto taps = std::make_shared<std::vector<SpreadFoldTap>>(
      spread_fold_taps_xy(pass.widths[0], pass.extend, pass.border, src.w, src.h, ntx));
  const int nty = int(taps->size()) - ntx;
  if (taps->empty()) taps->push_back({0, 0.0, 0.0});  // no zero-sized buffer to bind
  const GLuint tap_buf = ctx.buffer(fmt::format("spread.taps.{}", index));
  struct Uniforms {
    GLuint prog;
    GLint dsize, size, R, extend, border, ntx, nty;
  };
  auto uniforms = [](GLuint prog) {
    return Uniforms{prog,
                    GlPassContext::uniform(prog, "dsize"),
                    GlPassContext::uniform(prog, "size"),
                    GlPassContext::uniform(prog, "R"),
                    GlPassContext::uniform(prog, "extend"),
                    GlPassContext::uniform(prog, "border"),
                    GlPassContext::uniform(prog, "ntx"),
                    GlPassContext::uniform(prog, "nty")};
  };
  step.form = "spread";
  step.work = [u = std::array<Uniforms, 3>{uniforms(progs[0]), uniforms(progs[1]), uniforms(progs[2])}, src, dst,
               R = pass.widths[0], extend = pass.extend, border = int(pass.border), sums, taps, tap_buf, ntx, nty] {
    for (const Uniforms& p : u) {  // set per run: the programs are shared by every plan of the context
      glProgramUniform2i(p.prog, p.dsize, dst.stored_w(), dst.stored_h());
      glProgramUniform2i(p.prog, p.size, src.w, src.h);
      glProgramUniform1i(p.prog, p.R, R);
      glProgramUniform1i(p.prog, p.extend, extend);
      glProgramUniform1i(p.prog, p.border, border);
      glProgramUniform1i(p.prog, p.ntx, ntx);
      glProgramUniform1i(p.prog, p.nty, nty);
    }
    glNamedBufferData(tap_buf, GLsizeiptr(taps->size() * sizeof(SpreadFoldTap)), taps->data(), GL_STREAM_DRAW);
    glBindTextureUnit(0, src.tex);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, dst.buf);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, tap_buf);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, sums);
    glUseProgram(u[0].prog);
    glDispatchCompute(groups(src.w, 16), groups(src.h, 16), 1);
    glUseProgram(u[1].prog);  // the rows' sums, 16 rows a group, then the columns', 16 columns a group
    glDispatchCompute(groups(src.h, 16) + groups(src.w, 16), 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(u[2].prog);  // the four corners, then the lines beside the image, 256 pixels a group
    glDispatchCompute(4 + groups(2 * (src.w + src.h), 256), 1, 1);
  };
  return Status::success();
}

}  // namespace gpublur
