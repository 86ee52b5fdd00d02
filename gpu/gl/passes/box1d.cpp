// box1d: the cascade of boxes along one axis on the border-extended line, with running sums
// (shaders/box1d.comp): a group holds a few lines x (outputs + 2 reach) positions in shared memory and runs
// the boxes there one after the other, so the image is read and written once per axis whatever the widths
// and the number of boxes; float32 running sums from compensated window starts (GPUBLUR_GL_BOX_SUMS picks
// others). The tile
// (gl_tiles.hpp box_tile) takes the most lines per group that keep the halo a small part of the loads, lines of as
// many channels as the image has (RGBA also two rounds of two channels, which hold twice the positions); where
// even one line does not fit (reach beyond 2672 for RGBA on a 48 KiB device, 1648 on llvmpipe's 32 KiB, 1392 for one
// and two channels on either: GlBox1d.ReachAtTheTileLimit) the pass runs as the line walkers of moving-average.
// A pass along x followed by the same cascade along y (core/program.hpp cascade_pair) runs as the transposed pair
// instead (passes/box_pair.cpp): two column passes that store transposed.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {

Status gl_box1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  if (cascade_pair(program, index)) {
    bool taken = false;
    if (Status s = gl_box_pair(ctx, program, index, taken, step); !s || taken) return s;
  }
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  const GlLimits& lim = ctx.limits();
  const std::string spec = box_tile_spec();
  BoxTile tile = spec == "lines" ? BoxTile{}
                                 : box_tile(pass.widths, lim.max_shared, lim.max_invocations, spec, box_totals_spec(),
                                            pass.axis == 0 ? dst.w : dst.h, ctx.channels(), false,
                                            box_const_tail(pass.border));
  tile.sums = box_sums();
  if (tile.lines == 0) {
    spdlog::debug("GL box1d: reach {} as line walkers", pass.radius());
    return gl_box_lines(ctx, program, pass, src, dst, step);
  }
  return gl_box_tiles(ctx, pass, src, dst, tile, tile.defines(pass.axis, pass.widths), "box1d-tiles", step);
}

Status gl_box_tiles(GlPassContext& ctx, const Pass& pass, const GlImage& src, const GlImage& dst, const BoxTile& tile,
                    const std::string& defines, const char* form, GlStep& step) {
  GLuint prog = 0;
  if (Status s = ctx.program({{"box1d.comp", GL_COMPUTE_SHADER}}, defines, prog, true); !s) return s;
  spdlog::debug("GL {}: axis {}, reach {}: {} lines x {} positions ({} stored) per group, {} per invocation, "
                "{} channels a line in {} round(s){}, window starts {} (grouped from {}), sums {}", form, pass.axis,
                tile.reach, tile.lines, tile.span(), tile.outputs(), tile.per, tile.vch, tile.rounds,
                tile.tail ? ", constant tail" : "",
                tile.totals == 0 ? "own" : tile.totals == 1 ? "totals" : "scan", tile.grouped,
                tile.sums == 0 ? "fast2sum" : tile.sums == 1 ? "twosum" : tile.sums == 2 ? "f64" : "plain");
  const GLint u_border = GlPassContext::uniform(prog, "border");
  const int n_along = pass.axis == 0 ? dst.w : dst.h, n_across = pass.axis == 0 ? dst.h : dst.w;
  step.form = form;
  step.work = [&ctx, prog, u_border, border = int(pass.border), tile, n_along, n_across, src, dst] {
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups(n_along, tile.outputs()), groups(n_across, tile.lines), 1);
  };
  return Status::success();
}

}  // namespace gpublur
