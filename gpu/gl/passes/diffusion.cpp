// diffusion: the heat steps over the stored area (padding included), up to kMaxSteps a dispatch as CUDA's walk down the
// image (shaders/diffusion.comp), ping-pong between dst and a scratch texture so that the last dispatch writes dst.
// Between dispatches a texture-fetch barrier (the next reads what this one wrote) and an image-access one (the next
// stores into the texture this one read). Before, one dispatch a step (the thesis's form, a global read and write a
// step): H200 4096^2 sigma 12 (360 steps) RGBA 70.7 -> 22.9 ms, one channel 31.8 -> 6.89; 1024^2 RGBA 7.11 -> 2.88
// (docs/performance.md, "Diffusion as a walk").
#include <algorithm>
#include <initializer_list>

#include <fmt/format.h>

#include "core/diffusion_walk.hpp"
#include "gpu/gl/gl_tiles.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

constexpr int kThreads = 128;  // the shader's NT
constexpr int kMaxSteps = 8;   // steps a dispatch (registers: two rows a level)
// Groups resident at once, assumed (GL has no occupancy query): diffusion_walk_segment weighs waves of them.
constexpr long long kGroupSlots = 512;
// Columns an invocation, by the floats a texel carries. On an H200 at 4096^2 sigma 12: one channel 2 columns 6.46 ms
// against 4 columns 13.1; RGBA a vec4 a column 22.9 ms, against 27.0-35.9 with an invocation a channel of 2 or 4
// pixels (CUDA's form there: the texel fetched four times, a staged store; docs/performance.md, "Diffusion as a
// walk").
int walk_cpl(int vch) { return vch == 4 ? 1 : 2; }

}  // namespace

Status gl_diffusion(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  const int steps = pass.widths[0], vch = line_vch(ctx.channels()), cpl = walk_cpl(vch);
  const int per = std::min(steps, kMaxSteps), last = steps - (steps - 1) / per * per;  // the last dispatch's steps
  struct Walk {
    GLuint prog = 0;
    GLint u_size = -1, u_border = -1, u_rate = -1, u_seg = -1;
    int strips = 0, segs = 0, seg = 0;
  };
  const int W = dst.stored_w(), H = dst.stored_h();
  auto make = [&](int s, Walk& w) -> Status {
    const std::string defines = fmt::format("#define NT {}\n#define CPL {}\n#define STEPS {}\n", kThreads, cpl, s) +
                                vch_define(vch);
    if (Status st = ctx.program({{"diffusion.comp", GL_COMPUTE_SHADER}}, defines, w.prog, true); !st) return st;
    w.u_size = GlPassContext::uniform(w.prog, "size"), w.u_border = GlPassContext::uniform(w.prog, "border");
    w.u_rate = GlPassContext::uniform(w.prog, "rate"), w.u_seg = GlPassContext::uniform(w.prog, "seg");
    const int valid = kThreads * cpl - 2 * s;
    w.strips = (W + valid - 1) / valid;
    w.seg = diffusion_walk_segment(H, s, w.strips, kGroupSlots);
    w.segs = (H + w.seg - 1) / w.seg;
    return Status::success();
  };
  Walk full, tail;
  if (Status s = make(per, full); !s) return s;
  if (Status s = make(last, tail); !s) return s;
  const int dispatches = (steps + per - 1) / per;
  GLuint other = 0;
  if (dispatches > 1)
    if (Status s = ctx.scratch_texture("diffusion ping-pong", W, H, ctx.store_format(), other); !s) return s;
  step.form = fmt::format("diffusion-walk-{}-per-dispatch", per);
  step.work = [&ctx, full, tail, src, dst, other, dispatches, W, H, rate = pass.taps[0], border = int(pass.border)] {
    for (const Walk* w : {&full, &tail}) {  // program state: once a run, not a dispatch
      glProgramUniform2i(w->prog, w->u_size, W, H);
      glProgramUniform1i(w->prog, w->u_border, border);
      glProgramUniform1f(w->prog, w->u_rate, rate);
      glProgramUniform1i(w->prog, w->u_seg, w->seg);
    }
    GLuint from = src.tex;
    for (int j = 0; j < dispatches; ++j) {
      const Walk& w = j + 1 < dispatches ? full : tail;
      // Dispatch j writes dst where dispatches - 1 - j is even, else the scratch texture: the last one writes dst.
      const GLuint to = (dispatches - 1 - j) % 2 == 0 ? dst.tex : other;
      ctx.bind_io(w.prog, from, to);
      glDispatchCompute(GLuint(w.strips), GLuint(w.segs), 1);
      if (j + 1 < dispatches) glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
      from = to;
    }
  };
  return Status::success();
}

}  // namespace gpublur
