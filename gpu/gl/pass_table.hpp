// The GL backend's primitives: one setup per Op, one file each (gpu/gl/passes/), found through one table.
// A setup turns pass `index` of `program` into a step: it builds (once) and binds what the pass needs and
// returns the work closure that issues its dispatches/draws, like the CPU's pass table
// (core/reference/pass_table.hpp) for the reference. A setup may cover more passes than its own where it
// fuses a known sequence (Conv1d along x then y: core/program.hpp separable_pair).
#pragma once
#include <string>
#include <vector>

#include "core/program.hpp"
#include "core/status.hpp"
#include "gpu/gl/gl_pass_context.hpp"
#include "gpu/gl/gl_tiles.hpp"

namespace gpublur {

using GlPassSetup = Status (*)(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);

// The table, indexed by Op; null where GL has no implementation.
GlPassSetup gl_pass(Op op);

// The primitives (passes/<name>.cpp).
Status gl_copy(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_conv1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_conv2d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
// conv2d.comp's blocks (passes/conv2d.cpp) for pass `index`'s src, dst and border: the separable taps of pass.taps
// (rx = ry = its radius, `matrix` empty), or a full row-major (2 rx + 1) x (2 ry + 1) `matrix` (gl_conv2d_matrix).
Status gl_conv2d_blocks(GlPassContext& ctx, const Pass& pass, size_t index, int rx, int ry,
                        const std::vector<float>& matrix, const std::string& form, GlStep& step);
Status gl_bilinear1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_box1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_moving_average(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_sat(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_sat_box(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_box2d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_kawase(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_bilateral(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_diffusion(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_fft_conv1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
// Whether the pass (Conv1d's or FftConv1d's fields) runs as fft_conv1d.cpp's segments on this device.
bool gl_fft_segments_fit(const GlPassContext& ctx, const Pass& pass);
Status gl_iir1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_spread(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_scale(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_conv2d_matrix(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_reshuffle(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_down2(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_up2(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);

Status gl_integral1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_dual_down(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_dual_up(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);

// A cascade of boxes as the box shaders take it (passes/integral1d.cpp): odd integer widths and, for
// Integral1d's real widths (core/integral.hpp), each box's end-pixel weight and real width (empty for
// Box1d / MovingAverage). spans: positions each box reads (w, or w + 2 with a fraction); reach = sum span / 2.
struct GlBoxCascade {
  std::vector<int> widths, spans;
  std::vector<float> fracs, wreals;
  int reach = 0;
};
GlBoxCascade gl_box_cascade(const Pass& pass);

// The Box1d / MovingAverage / Integral1d cascade `pass` from src to dst as the line walkers
// (passes/moving_average.cpp), which box1d and integral1d also take where their reach does not fit a tile.
// box1d.comp's FRAC_LIST / WREAL_LIST for an Integral1d cascade (none for Box1d).
std::string gl_frac_defines(const GlBoxCascade& bc);
// One line pass of box1d.comp: groups of `tile` and, where box_last_tile gives one (the border repeats one value past
// the line, no tile shape forced), each line's last group of `last`, dispatched on its own.
struct GlBoxLinePass {
  BoxTile tile, last;
  GLuint prog = 0, last_prog = 0;
  GLint u_border = -1, last_u_border = -1;
  int n_along = 0, n_across = 0;
  bool walk = false;  // the groups of `tile` take two lines each (gl_tiles.hpp box_walks)
  int main_groups() const;  // groups of `tile` along a line (all of them, or all but the last)
  void dispatch(const GlPassContext& ctx, int border, GLuint in, GLuint out) const;
};
// Builds `out` for lines of n_along positions (n_across of them) along `axis` of the shader (with `extra` defines).
// `pair`: the transposed pair's pass (extra defines TRANSPOSE), whose groups may walk two lines.
Status gl_box_line_pass(GlPassContext& ctx, const GlBoxCascade& bc, const BoxTile& tile, Border border, int axis,
                        int n_along, int n_across, const std::string& extra, GlBoxLinePass& out, bool pair = false);
// The box1d.comp tiles of `tile` (gl_tiles.hpp), as the step `form`: box1d's, and integral1d's with fractional ends.
Status gl_box_tiles(GlPassContext& ctx, const Pass& pass, const GlImage& src, const GlImage& dst, const BoxTile& tile,
                    const char* form, GlStep& step);
Status gl_box_lines(GlPassContext& ctx, const Program& program, const Pass& pass, const GlImage& src,
                    const GlImage& dst, GlStep& step);
// The cascade pair at `index` (core/program.hpp cascade_pair) as two column passes that store transposed
// (passes/box_pair.cpp); `taken` false (and nothing done) where it does not apply: GPUBLUR_GL_BOX_PAIR=0, padded or
// float64 images, the line walkers forced or needed.
Status gl_box_pair(GlPassContext& ctx, const Program& program, size_t index, bool& taken, GlStep& step);

// The step of a fused pair of resampling passes (index, index + 1) that `prog` runs (down2_pair.comp,
// up2_pair.comp, dual_down_pair.comp): the uniforms they share (the destination's and the middle level's stored
// sizes and paddings, the source's padding, each pass's border; a shader without one of them has location -1 for
// it, which glProgramUniform ignores), then `extra` (the shader's own, or empty), one dispatch of groups of
// tile_x x tile_y outputs over the destination's stored area.
void gl_pair_step(GlPassContext& ctx, const Program& program, size_t index, GLuint prog, const char* form, int tile_x,
                  int tile_y, std::function<void()> extra, GlStep& step);

}  // namespace gpublur
