// reshuffle: Porikli's single-output reshuffling (shaders/reshuffle.comp): the unique weights and the linkage
// sets in storage buffers. Where a source tile fits the shared memory (gl_tiles.hpp reshuffle_tile; in NVIDIA's
// 48 KB 32 x 32 outputs up to reach 11 / 23 / 39 for four / two / one channels, 16 x 16 up to 19 / 31 / 47), CUDA's
// form: a group loads its tile once and reads every set's offsets from there (reshuffle-tile-TWxTH; H200 4096^2 sigma
// 3 RGBA 11.66 -> 4.19 ms, one channel 4.03 -> 1.13); where no tile of all the channels fits, the tile of half or one
// of them in two or four rounds (reshuffle-tile-TWxTH-in-N-rounds; RGBA 4096^2 sigma 8 77.2 -> 45.1 ms, sigma 12 171.3
// -> 131.2, two channels sigma 12 57.8 -> 55.4); else an invocation an output reads each tap by texelFetch
// (reshuffle). One dispatch on GPUs; on llvmpipe (its loop limit, gl_pass_context.hpp kLoopBudget) sets longer than
// the budget are cut into sets of the same weight (w (a + b) = w a + w b) and the sets are split over dispatches of
// about kLoopBudget loop iterations each, which carry the running sum in an RGBA32F accumulator.
#include <algorithm>

#include <fmt/format.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

struct Chunk {
  int set_begin, set_end, link_begin;
};

}  // namespace

Status gl_reshuffle(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  const int R = pass.widths[0];
  const int vch = line_vch(ctx.channels());
  const ReshuffleTile tile = reshuffle_tile(R, vch, shared_budget(ctx.limits().max_shared, 0), reshuffle_tile_spec());
  GLuint prog = 0;
  if (Status s = ctx.program({{"reshuffle.comp", GL_COMPUTE_SHADER}},
                             tile.tw ? tile.defines() : vch_define(vch), prog);
      !s)
    return s;
  // The sets as the shader reads them, with the loop budget per set on llvmpipe: a tile invocation's offset loop
  // runs PER sums a link (counted as that many iterations), after its share of the tile's loads.
  const long per_link = tile.tw ? tile.rounds * (1 + tile.per()) : 1;
  const long loads = tile.tw ? tile.rounds * (long(tile.tw + 2 * R) * (tile.th + 2 * R) / (tile.tw * tile.by) + 1) : 0;
  const long budget = ctx.limits().llvmpipe ? std::max(4 * per_link, kLoopBudget - loads) / per_link : 0;
  const long max_set = budget ? budget / 2 : long(pass.links.size());
  const int pitch = tile.tw ? tile.pitch() : 0;
  std::vector<float> weights;
  std::vector<int> links;
  std::vector<Chunk> chunks;
  long in_chunk = 0;
  size_t at = 0;
  for (size_t u = 0; u < pass.taps.size(); ++u) {
    const long n = pass.links[at++];
    for (long first = 0; first < n; first += max_set) {
      const long m = std::min(max_set, n - first);
      if (chunks.empty() || (budget && in_chunk + m + 1 > budget)) {
        chunks.push_back({int(weights.size()), int(weights.size()), int(links.size())});
        in_chunk = 0;
      }
      weights.push_back(pass.taps[u]);
      links.push_back(int(m));
      for (long k = first; k < first + m; ++k) {
        const int dx = pass.links[at + size_t(2 * k)] + R, dy = pass.links[at + size_t(2 * k + 1)] + R;
        // The tile's offset, or ((dy + R) << 16) | (dx + R) (R <= kMaxReshuffleRadius < 32768).
        links.push_back(tile.tw ? dy * pitch + dx : (dy << 16) | dx);
      }
      chunks.back().set_end = int(weights.size());
      in_chunk += m + 1;
    }
    at += size_t(2 * n);
  }
  const GLuint wbuf = ctx.buffer(fmt::format("reshuffle.weights.{}", index));
  const GLuint lbuf = ctx.buffer(fmt::format("reshuffle.links.{}", index));
  glNamedBufferData(wbuf, GLsizeiptr(weights.size() * sizeof(float)), weights.data(), GL_STATIC_DRAW);
  glNamedBufferData(lbuf, GLsizeiptr(links.size() * sizeof(int)), links.data(), GL_STATIC_DRAW);
  GLuint accum = 0;
  if (chunks.size() > 1)
    if (Status s = ctx.scratch_texture("reshuffle accumulator", dst.w, dst.h, GL_RGBA32F, accum); !s) return s;
  const GLint u_border = GlPassContext::uniform(prog, "border"), u_reach = GlPassContext::uniform(prog, "reach"),
              u_begin = GlPassContext::uniform(prog, "set_begin"), u_end = GlPassContext::uniform(prog, "set_end"),
              u_link = GlPassContext::uniform(prog, "link_begin"), u_resume = GlPassContext::uniform(prog, "resume"),
              u_last = GlPassContext::uniform(prog, "last");
  std::string form = tile.tw ? fmt::format("reshuffle-tile-{}x{}", tile.tw, tile.th) : "reshuffle";
  if (tile.rounds > 1) form += fmt::format("-in-{}-rounds", tile.rounds);
  step.form = chunks.size() > 1 ? fmt::format("{}-{}-dispatches", form, chunks.size()) : form;
  const int gw = tile.tw ? tile.tw : 16, gh = tile.tw ? tile.th : 16;
  step.work = [&ctx, prog, wbuf, lbuf, accum, chunks, u_border, u_reach, u_begin, u_end, u_link, u_resume, u_last,
               border = int(pass.border), reach = R, src, dst, gw, gh] {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, wbuf);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, lbuf);
    glProgramUniform1i(prog, u_border, border);
    glProgramUniform1i(prog, u_reach, reach);
    ctx.bind_io(prog, src.tex, dst.tex);
    if (accum) glBindImageTexture(1, accum, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    for (size_t c = 0; c < chunks.size(); ++c) {
      glProgramUniform1i(prog, u_begin, chunks[c].set_begin);
      glProgramUniform1i(prog, u_end, chunks[c].set_end);
      glProgramUniform1i(prog, u_link, chunks[c].link_begin);
      glProgramUniform1i(prog, u_resume, c > 0);
      glProgramUniform1i(prog, u_last, c + 1 == chunks.size());
      glDispatchCompute(groups(dst.w, gw), groups(dst.h, gh), 1);
      if (c + 1 < chunks.size()) glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    }
  };
  return Status::success();
}

}  // namespace gpublur
