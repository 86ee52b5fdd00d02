// The GL backend's primitives: one setup per Op, one file each (gpu/gl/passes/), found through one table.
// A setup turns pass `index` of `program` into a step: it builds (once) and binds what the pass needs and
// returns the work closure that issues its dispatches/draws, like the CPU's pass table
// (core/reference/pass_table.hpp) for the reference. A setup may cover more passes than its own where it
// fuses a known sequence (Conv1d along x then y: core/program.hpp separable_pair).
#pragma once
#include "core/program.hpp"
#include "core/status.hpp"
#include "gpu/gl/gl_pass_context.hpp"

namespace gpublur {

using GlPassSetup = Status (*)(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);

// The table, indexed by Op; null where GL has no implementation.
GlPassSetup gl_pass(Op op);

// The primitives (passes/<name>.cpp).
Status gl_copy(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_conv1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_conv2d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_bilinear1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_box1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_moving_average(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_sat(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_sat_box(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_box2d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);
Status gl_iir1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step);

// The Box1d / MovingAverage cascade `pass` from src to dst as the line walkers (passes/moving_average.cpp),
// which box1d also takes where its reach does not fit a tile.
Status gl_box_lines(GlPassContext& ctx, const Program& program, const Pass& pass, const GlImage& src,
                    const GlImage& dst, GlStep& step);

}  // namespace gpublur
