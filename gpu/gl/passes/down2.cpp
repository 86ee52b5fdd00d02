// down2: the analysis filter's 2D down-sampling by 2, texels fetched with the border mode over the source's
// stored area. `--down mipmap` (hint "mipmap") runs here too: glGenerateMipmap would need mip levels on every
// image's texture and rounds odd sizes down (GL: floor(n / 2)), while the program's coarse images are ceil(n / 2)
// with clamp rings; the 2x2 box is the same function (docs/methods.md, pyramid).
// Up to 4 taps: shaders/down2.comp, one invocation per output, the tap count a uniform, 16 x 16 groups. Longer
// kernels (the pyramid's last level with the coarsest Gaussian folded in, up to ~28 taps):
// shaders/down2_axis.comp, an x pass into an RGBA32F scratch texture and a y pass (n taps per output, each group's
// source strip through shared memory where it fits), 32 x 8 groups. Both measured against other forms on an H100
// (docs/performance.md, "pyramid and --downsample", "GL: warps on GOBs").
// Two short Down2 passes that core's resample_pair pairs (the level between them read by nothing else):
// shaders/down2_pair.comp, one dispatch, the middle level in shared memory and never stored ("down2-pair"; the
// port of CUDA's fused schedule, gpu/cuda/passes/resample_fused.cuh).
#include <string>

#include <fmt/format.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

struct Down2Uniforms {
  GLint dsize, border, n, first, taps, dpad, spad;
  explicit Down2Uniforms(GLuint prog)
      : dsize(GlPassContext::uniform(prog, "dsize")),
        border(GlPassContext::uniform(prog, "border")),
        n(GlPassContext::uniform(prog, "n")),
        first(GlPassContext::uniform(prog, "first")),
        taps(GlPassContext::uniform(prog, "taps")),
        dpad(GlPassContext::uniform(prog, "dst_pad")),
        spad(GlPassContext::uniform(prog, "src_pad")) {}
  void set(GLuint prog, const GlImage& src, const GlImage& dst, int border_mode, int first_tap,
           const std::vector<float>& t) const {
    glProgramUniform2i(prog, dsize, dst.stored_w(), dst.stored_h());
    glProgramUniform1i(prog, dpad, dst.pad);
    glProgramUniform1i(prog, spad, src.pad);
    glProgramUniform1i(prog, border, border_mode);
    glProgramUniform1i(prog, n, int(t.size()));
    glProgramUniform1i(prog, first, first_tap);
    glProgramUniform1fv(prog, taps, GLsizei(t.size()), t.data());
  }
};

// The folded last level: x pass (src -> tmp: dst's stored width x src's stored height), then y pass.
constexpr int kAxisX = 32, kAxisY = 8;  // down2_axis.comp's local size

Status setup_axes(GlPassContext& ctx, const Pass& pass, size_t index, const GlImage& src, const GlImage& dst,
                  GlStep& step) {
  const int nt = int(pass.taps.size());
  const std::string n = fmt::format("#define N {}\n", nt);
  // Each axis through shared memory where its strip (down2_axis.comp SPAN x the group's other side) fits the
  // budget, else direct.
  const int budget = shared_budget(ctx.limits().max_shared, 0);
  const auto shared = [&](int axis) {
    const int bytes = axis == 0 ? (2 * (kAxisX - 1) + nt) * kAxisY * 16 : (2 * (kAxisY - 1) + nt) * kAxisX * 16;
    return fmt::format("#define SHARED {}\n", bytes <= budget ? 1 : 0);
  };
  GLuint px = 0, py = 0, tmp = 0;
  if (Status s = ctx.program({{"down2_axis.comp", GL_COMPUTE_SHADER}}, n + shared(0) + "#define AXIS 0\n", px, true);
      !s)
    return s;
  if (Status s = ctx.program({{"down2_axis.comp", GL_COMPUTE_SHADER}}, n + shared(1) + "#define AXIS 1\n", py, true);
      !s)
    return s;
  // One scratch per pass: two folded passes of one program (if any) may differ in size.
  if (Status s = ctx.scratch_texture(fmt::format("down2 rows {}", index), dst.stored_w(), src.stored_h(), GL_RGBA32F,
                                     tmp);
      !s)
    return s;
  const Down2Uniforms ux(px), uy(py);
  step.form = pass.hint == "mipmap" ? "down2-mipmap-box" : "down2-axes";
  step.work = [&ctx, px, py, tmp, ux, uy, src, dst, border = int(pass.border), first = pass.widths[0],
               taps = pass.taps] {
    ux.set(px, src, dst, border, first, taps);
    uy.set(py, src, dst, border, first, taps);
    glUseProgram(px);
    ctx.bind_src(px, src.tex);
    glBindImageTexture(0, tmp, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
    glDispatchCompute(groups(dst.stored_w(), kAxisX), groups(src.stored_h(), kAxisY), 1);
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);  // the y pass fetches tmp; it stores to dst, which the x pass
                                                     // did not touch (step_barriers.cpp: the image bit's cost)
    ctx.bind_io(py, tmp, dst.tex);
    glDispatchCompute(groups(dst.stored_w(), kAxisX), groups(dst.stored_h(), kAxisY), 1);
  };
  return Status::success();
}

// down2_pair.comp's shapes. A 4-tap first pass (quasi, box4): 16 x 13 level-2 tiles, groups of 16 x 16
// invocations filling the 34 x 28 window (15.2 KB) in one round of vertical strips of 4 cells (10 fetches a cell
// against 12 for pairs; as dual_down_pair.comp): the pair 0.177 -> 0.162 ms at 4096^2 on an H100, the quasi
// pyramid at sigma 12 0.356 -> 0.342 (tiles of 9 / 11 / 15 rows and strips of 7 measured slower:
// docs/performance.md, the tenth session's summary). A 2-tap one (box2, mipmap) shares no source rows between
// cells, and strips measured 1% slower there: 16 x 8 tiles (a 34 x 18 window, 9.8 KB) filled in vertical pairs
// by groups of 16 x 24, one round (the ninth session's summary; 32 x 16 / 32 x 8 / 32 x 4 tiles measured slower:
// "GL: warps on GOBs"). GPUBLUR_GL_SHARED_LIMIT lowers the budget (gl_tuning.hpp); below the window the passes
// run alone.
constexpr int kPairTileX = 16;  // groups: a multiple of 8 rows of invocations (GLOBAL_ID)
struct PairShape {
  int tile_y, threads_y, strip;  // strip 0: pairs
  int window_bytes() const { return (2 * kPairTileX + 2) * (2 * tile_y + 2) * 16; }
};
PairShape pair_shape(size_t first_taps) { return first_taps == 4 ? PairShape{13, 16, 4} : PairShape{8, 24, 0}; }

Status setup_pair(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass &p = program.passes[index], &q = program.passes[index + 1];
  const PairShape shape = pair_shape(p.taps.size());
  const int tx = kPairTileX, ty = shape.tile_y;
  GLuint prog = 0;
  if (Status s = ctx.program({{"down2_pair.comp", GL_COMPUTE_SHADER}},
                             fmt::format("#define TILE_X {}\n#define TILE_Y {}\n#define THREADS_Y {}\n#define N1 {}\n"
                                         "#define N2 {}\n{}",
                                         tx, ty, shape.threads_y, p.taps.size(), q.taps.size(),
                                         shape.strip ? fmt::format("#define STRIP {}\n", shape.strip) : ""),
                             prog);
      !s)
    return s;
  const GLint u_f1 = GlPassContext::uniform(prog, "first1"), u_f2 = GlPassContext::uniform(prog, "first2"),
              u_t1 = GlPassContext::uniform(prog, "taps1"), u_t2 = GlPassContext::uniform(prog, "taps2");
  gl_pair_step(ctx, program, index, prog, "down2-pair", tx, ty,
               [prog, u_f1, u_f2, u_t1, u_t2, f1 = p.widths[0], f2 = q.widths[0], t1 = p.taps, t2 = q.taps] {
                 glProgramUniform1i(prog, u_f1, f1);
                 glProgramUniform1i(prog, u_f2, f2);
                 glProgramUniform1fv(prog, u_t1, GLsizei(t1.size()), t1.data());
                 glProgramUniform1fv(prog, u_t2, GLsizei(t2.size()), t2.data());
               },
               step);
  return Status::success();
}

}  // namespace

Status gl_down2(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  if (pass.taps.size() > 64) return Status::fail("GL down2: at most 64 taps per axis");
  if (resample_pair(program, index) &&
      pair_shape(pass.taps.size()).window_bytes() <= shared_budget(ctx.limits().max_shared, 0))
    return setup_pair(ctx, program, index, step);
  if (pass.taps.size() > 4) return setup_axes(ctx, pass, index, src, dst, step);
  GLuint prog = 0;
  if (Status s = ctx.program({{"down2.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
  const Down2Uniforms u(prog);
  step.form = pass.hint == "mipmap" ? "down2-mipmap-box" : "down2";
  step.work = [&ctx, prog, u, src, dst, border = int(pass.border), first = pass.widths[0], taps = pass.taps] {
    u.set(prog, src, dst, border, first, taps);
    ctx.bind_io(prog, src.tex, dst.tex);
    glDispatchCompute(groups(dst.stored_w(), 16), groups(dst.stored_h(), 16), 1);
  };
  return Status::success();
}

}  // namespace gpublur
