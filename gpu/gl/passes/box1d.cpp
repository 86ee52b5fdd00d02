// box1d: the cascade of boxes along one axis on the border-extended line, with running sums
// (shaders/box1d.comp): a group holds a few lines x (outputs + 2 reach) positions in shared memory and runs
// the boxes there one after the other, so the image is read and written once per axis whatever the widths
// and the number of boxes; float32 running sums from compensated window starts (GPUBLUR_GL_BOX_SUMS picks
// others). The tile
// (gl_tiles.hpp box_tile) takes the most lines per group that keep the halo a small part of the loads, lines of as
// many channels as the image has (RGBA also two rounds of two channels, which hold twice the positions); where
// even one line does not fit (reach beyond 2672 for three and four channels on a 48 KiB device, 1136 on llvmpipe's
// 32 KiB; one and two channels, in groups of up to 21 positions an invocation, 4016 and 3248:
// GlBox1d.ReachAtTheTileLimit) the pass runs as the line walkers of moving-average.
// A pass along x followed by the same cascade along y (core/program.hpp cascade_pair) runs as the transposed pair
// instead (passes/box_pair.cpp): two column passes that store transposed. On clamp and zero borders a group that holds
// a line's end loads only one block of the halo after it (a constant tail, gl_tiles.hpp BoxTile::tail): box_tile's
// one group a line, or each line's last group as a tile of its own (box_last_tile, gl_box_line_pass).
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
  return gl_box_tiles(ctx, pass, src, dst, tile, "box1d-tiles", step);
}

Status gl_box_line_pass(GlPassContext& ctx, const GlBoxCascade& bc, const BoxTile& tile, Border border, int axis,
                        int n_along, int n_across, const std::string& extra, GlBoxLinePass& out, bool pair) {
  out = GlBoxLinePass{};
  out.tile = tile, out.n_along = n_along, out.n_across = n_across;
  if (box_const_tail(border) && box_tile_spec().empty() && box_last_groups())
    out.last = box_last_tile(tile, bc.spans, ctx.limits().max_shared, n_along, box_totals_spec(), !bc.fracs.empty());
  out.walk = pair && axis == 1 && out.last.lines == 0 && out.main_groups() == 1 &&
             box_walks(tile, ctx.limits().max_shared, box_walk_spec());
  for (const bool last : {false, true}) {
    const BoxTile& t = last ? out.last : out.tile;
    if (t.lines == 0) continue;
    GLuint& prog = last ? out.last_prog : out.prog;
    // The last group's first output as a constant: as a uniform in every program, GL integral 4096^2 RGBA at sigma 3
    // ran 0.430 -> 0.533 ms on an H200 with no last group at all (docs/performance.md "GL box: constant tails").
    const std::string base = last ? "#define S0_BASE " + std::to_string(out.main_groups() * tile.outputs()) + "\n"
                             : out.walk ? "#define WALK 1\n"
                                        : "";
    if (Status s = ctx.program({{"box1d.comp", GL_COMPUTE_SHADER}}, t.defines(axis, bc.widths) + extra + base, prog,
                               true);
        !s)
      return s;
    (last ? out.last_u_border : out.u_border) = GlPassContext::uniform(prog, "border");
    spdlog::debug("GL box1d.comp{}: axis {}{}, reach {}: {} lines x {} positions ({} stored) per group, {} per "
                  "invocation, {} channels a line in {} round(s){}, window starts {} (grouped from {}), sums {}{}",
                  last ? " (each line's last group)" : "", axis, extra.find("TRANSPOSE") != std::string::npos ?
                  " transposed" : "", t.reach, t.lines, t.span(), t.outputs(), t.per, t.vch, t.rounds,
                  t.tail ? ", constant tail" : "", t.totals == 0 ? "own" : t.totals == 1 ? "totals" : "scan",
                  t.grouped, t.sums == 0 ? "fast2sum" : t.sums == 1 ? "twosum" : t.sums == 2 ? "f64" : "plain",
                  !last && out.walk ? ", two lines a group" : "");
  }
  return Status::success();
}

int GlBoxLinePass::main_groups() const {
  const int along = int(groups(n_along, tile.outputs()));
  return last.lines > 0 ? along - 1 : along;  // box_last_tile: at least two groups a line
}

void GlBoxLinePass::dispatch(const GlPassContext& ctx, int border, GLuint in, GLuint out) const {
  const GLuint across = groups(n_across, tile.lines);
  glProgramUniform1i(prog, u_border, border);
  ctx.bind_io(prog, in, out);
  // Walking groups take lines g and g + G (an odd count's last group loads its second line clamped, stores nothing).
  glDispatchCompute(GLuint(main_groups()), walk ? (across + 1) / 2 : across, 1);
  if (last.lines == 0) return;
  glProgramUniform1i(last_prog, last_u_border, border);
  ctx.bind_io(last_prog, in, out);
  glDispatchCompute(1, across, 1);
}

Status gl_box_tiles(GlPassContext& ctx, const Pass& pass, const GlImage& src, const GlImage& dst, const BoxTile& tile,
                    const char* form, GlStep& step) {
  const GlBoxCascade bc = gl_box_cascade(pass);
  GlBoxLinePass lp;
  if (Status s = gl_box_line_pass(ctx, bc, tile, pass.border, pass.axis, pass.axis == 0 ? dst.w : dst.h,
                                  pass.axis == 0 ? dst.h : dst.w, gl_frac_defines(bc), lp);
      !s)
    return s;
  step.form = form;
  step.work = [&ctx, lp, border = int(pass.border), src, dst] { lp.dispatch(ctx, border, src.tex, dst.tex); };
  return Status::success();
}

}  // namespace gpublur
