// up2: the B-spline up-sampling by 2 (shaders/up2.comp), 4 coarse texels per fine pixel fetched with the border
// mode over the source's stored area, one invocation per stored fine pixel, 16 x 16 groups (measured against
// one invocation per 2 x 2 fine pixels on an H100: docs/performance.md, "pyramid and --downsample").
// Two Up2 passes that core's resample_pair pairs (up chains from their end, the middle level read by nothing
// else): shaders/up2_pair.comp, one dispatch, the middle level in shared memory and never stored ("up2-pair";
// the port of CUDA's fused schedule, gpu/cuda/passes/resample_fused.cuh).
#include <string>

#include <fmt/format.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

// up2_pair.comp's fine tile: 32 x 32 from a 19 x 19 window of vec4 (5.8 KB), groups of 32 x 8 invocations, 1 x 4
// outputs each; on an H100 ~1% faster than CUDA's 64 x 32 (docs/performance.md, "GL: warps on GOBs"). Checked
// against the same budget as down2's pair, which GPUBLUR_GL_SHARED_LIMIT lowers.
constexpr int kTileX = 32, kTileY = 32, kThreadsX = 32, kThreadsY = 8;
constexpr int kWindowBytes = (kTileX / 2 + 3) * (kTileY / 2 + 3) * 16;

Status setup_pair(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  GLuint prog = 0;
  if (Status s = ctx.program({{"up2_pair.comp", GL_COMPUTE_SHADER}},
                             fmt::format("#define TILE_X {}\n#define TILE_Y {}\n#define THREADS_X {}\n"
                                         "#define THREADS_Y {}\n",
                                         kTileX, kTileY, kThreadsX, kThreadsY),
                             prog);
      !s)
    return s;
  gl_pair_step(ctx, program, index, prog, "up2-pair", kTileX, kTileY, {}, step);
  return Status::success();
}

}  // namespace

void gl_pair_step(GlPassContext& ctx, const Program& program, size_t index, GLuint prog, const char* form, int tile_x,
                  int tile_y, std::function<void()> extra, GlStep& step) {
  const Pass &p = program.passes[index], &q = program.passes[index + 1];
  const GlImage src = ctx.image(p.src), mid = ctx.image(p.dst), dst = ctx.image(q.dst);
  const auto u = [prog](const char* name) { return GlPassContext::uniform(prog, name); };
  const GLint dsize = u("dsize"), dpad = u("dst_pad"), msize = u("msize"), mpad = u("mid_pad"), spad = u("src_pad"),
              b1 = u("border1"), b2 = u("border2");
  step.passes = 2;
  step.form = form;
  step.work = [&ctx, prog, dsize, dpad, msize, mpad, spad, b1, b2, src, mid, dst, border1 = int(p.border),
               border2 = int(q.border), tile_x, tile_y, extra = std::move(extra)] {
    glProgramUniform2i(prog, dsize, dst.stored_w(), dst.stored_h());
    glProgramUniform1i(prog, dpad, dst.pad);
    glProgramUniform2i(prog, msize, mid.stored_w(), mid.stored_h());
    glProgramUniform1i(prog, mpad, mid.pad);
    glProgramUniform1i(prog, spad, src.pad);
    glProgramUniform1i(prog, b1, border1);
    glProgramUniform1i(prog, b2, border2);
    if (extra) extra();
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups(dst.stored_w(), tile_x), groups(dst.stored_h(), tile_y), 1);
  };
}

Status gl_up2(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  if (resample_pair(program, index) && kWindowBytes <= shared_budget(ctx.limits().max_shared, 0))
    return setup_pair(ctx, program, index, step);
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  GLuint prog = 0;
  if (Status s = ctx.program({{"up2.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const GLint u_dsize = GlPassContext::uniform(prog, "dsize"), u_border = GlPassContext::uniform(prog, "border"),
              u_dpad = GlPassContext::uniform(prog, "dst_pad"), u_spad = GlPassContext::uniform(prog, "src_pad");
  step.form = "up2";
  step.work = [&ctx, prog, src, dst, border = int(pass.border), u_dsize, u_border, u_dpad, u_spad] {
    glProgramUniform2i(prog, u_dsize, dst.stored_w(), dst.stored_h());
    glProgramUniform1i(prog, u_dpad, dst.pad);
    glProgramUniform1i(prog, u_spad, src.pad);
    glProgramUniform1i(prog, u_border, border);
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups(dst.stored_w(), 16), groups(dst.stored_h(), 16), 1);
  };
  return Status::success();
}

}  // namespace gpublur
