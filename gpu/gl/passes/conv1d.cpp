// conv1d: out(x) = sum_k taps[k + r] in(x + k) along the pass's axis. Schedules:
//  - A separable pair (core/program.hpp separable_pair: Conv1d along x then y with the same taps and border)
//    is one step, in the form picked for the radius as measured on an H100 (docs/performance.md, GL):
//      conv1d-fused     both passes in one dispatch, 32 x TH tiles (conv1d_fused.comp; on GPUs for images of
//                       at most 512^2 pixels up to radius 9, where the dispatches dominate: fused_max_radius,
//                       GPUBLUR_GL_FUSED_MAX_RADIUS)
//      conv1d-sliding   both passes in one dispatch, strips sliding down (conv1d_slide.comp; off by default:
//                       GPUBLUR_GL_SLIDE_MAX_RADIUS)
//      conv1d-window    two dispatches of conv1d_window.comp (sliding register windows, no shared memory), where
//                       the radius and the image's size allow (window_takes; on GPUs up to radius 24-39 by the
//                       channels, before the FFT segments)
//      conv1d-two-pass  two dispatches of conv1d.comp through the program's intermediate image (GPUs beyond
//                       the window's radius or lines shorter than it; lone passes)
//    With pass.hint "fragment": conv1d-fragment, the thesis's fragment-shader ping-pong (conv1d.frag).
//  - A lone Conv1d is one dispatch of conv1d.comp ("conv1d") or one draw of conv1d.frag ("conv1d-fragment").
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"

namespace gpublur {
namespace {

// The taps padded with zeros to at least max(padded_taps(r, kMaxSepPer), min_count), in the pass's own
// buffer, which the work binds as a uniform block and a storage buffer at binding 0 (each shader declares one).
GLuint upload_weights(GlPassContext& ctx, size_t index, const std::vector<float>& taps, int min_count) {
  const int radius = int(taps.size() / 2);
  std::vector<float> w = taps;
  w.resize(size_t(std::max(padded_taps(radius, kMaxSepPer), min_count)), 0.0f);
  const GLuint buf = ctx.buffer(fmt::format("conv1d.weights.{}", index));
  glNamedBufferData(buf, GLsizeiptr(w.size() * sizeof(float)), w.data(), GL_STATIC_DRAW);
  return buf;
}

void bind_weights(GLuint buf) {
  glBindBufferBase(GL_UNIFORM_BUFFER, 0, buf);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
}

// The taps as a compile-time list (the fused forms), padded with zeros to padded_taps(r).
std::string weight_list(const std::vector<float>& taps) {
  std::vector<float> w = taps;
  w.resize(size_t(padded_taps(int(taps.size() / 2))), 0.0f);
  return "#define WEIGHT_LIST " + glsl_floats(w.data(), int(w.size())) + "\n";
}

// conv1d.comp's tiles and form for a radius, as measured best on an H100 at 4096^2 (docs/performance.md, GL
// rounds 3 and 4); radii between the measured ones (9, 36, 144) take the rule of the next measured one:
//   r <= 9:  16 KiB tiles (more resident groups), plain rounds, no pragma          0.70 ms at r 9
//   r <= 36: 24 KiB tiles, balanced rounds + NVIDIA's unroll pragma                1.16 ms at r 36
//   r > 36:  the device's 48 KiB (fewer load rounds), plain rounds + pragma        3.20 ms at r 144
struct SepForm {
  SepTile tile[2];
  bool unroll = false, balanced = false;
  int shared = 0;
};

SepForm sep_form(const GlPassContext& ctx, int radius) {
  const GlLimits& lim = ctx.limits();
  SepForm f;
  f.shared = shared_budget(lim.max_shared, radius <= 9 ? 16384 : radius <= 36 ? 24576 : 0);
  f.unroll = radius > 9;
  f.balanced = sep_balanced(radius > 9 && radius <= 36);
  f.tile[0] = ctx.sep_tile_default(0), f.tile[1] = ctx.sep_tile_default(1);
  if (const int per = sep_per(); per != kSepPer || f.shared != lim.max_shared) {
    const SepTile h = sep_tile(0, f.shared, lim.max_invocations, per), v = sep_tile(1, f.shared, lim.max_invocations, per);
    if (h.offsets_per_round() >= per && v.offsets_per_round() >= per) f.tile[0] = h, f.tile[1] = v;
  }
  return f;
}

// One dispatch of conv1d.comp along the tile's axis.
struct SepPass {
  GLuint prog = 0;
  SepTile tile;
  GLint u_border = -1, u_outer = -1;
  int rounds = 0;
};

Status sep_pass(GlPassContext& ctx, const SepForm& f, int axis, int radius, SepPass& out) {
  out.tile = f.tile[axis];
  // One- and two-channel images run float / vec2 lines (VCH); three and four vec4 lines.
  if (Status s = ctx.program({{"conv1d.comp", GL_COMPUTE_SHADER}},
                             out.tile.defines(radius, ctx.limits().max_ubo, f.balanced) + outer_define() +
                                 vch_define(line_vch(ctx.channels())),
                             out.prog, f.unroll);
      !s)
    return s;
  out.u_border = GlPassContext::uniform(out.prog, "border");
  out.u_outer = GlPassContext::uniform(out.prog, "n_outer");
  out.rounds = out.tile.rounds(radius);
  return Status::success();
}

void dispatch(const GlPassContext& ctx, const SepPass& p, int border, GLuint in, GLuint out, int w, int h) {
  glProgramUniform1i(p.prog, p.u_border, border);
  glProgramUniform1i(p.prog, p.u_outer, p.rounds);
  ctx.bind_io(p.prog, in, out);
  if (p.tile.axis == 0)
    glDispatchCompute(groups(w, p.tile.tile()), groups(h, p.tile.across_threads()), 1);
  else
    glDispatchCompute(groups(w, p.tile.across_threads()), groups(h, p.tile.tile()), 1);
}

// The sliding register window (conv1d_window.comp): one dispatch per pass, groups of `group` neighbouring lines, each
// invocation a run of `steps` steps of `per` outputs.
struct WindowShape {
  int group = 0, steps = 0, per = 0;
};

// llvmpipe (4K RGBA, r 24, on a 2-core VM: 8 outputs a step beat 4, 12 and 16; runs of 32 steps beat 16;
// docs/performance.md, "GL on llvmpipe"): groups of 8 (a SIMD vector), 32 steps of 8. GPUs (H200, call 368: 4096^2 of
// 1, 2 and 4 channels, 1024^2 RGBA, radius 3-21, groups of 64-256, 1-8 steps of 4-16; docs/performance.md "GL
// gauss-sep as register windows"): groups of 128, runs of 16 outputs up to radius 12 and 32 beyond (a longer run
// shares its 2r halo over more outputs, a shorter one leaves more invocations), 16 a step up to radius 4 (more
// fetches in flight where the window is small), else 8. GPUBLUR_GL_WINDOW_SHAPE=GROUPxSTEPSxPER for measurements.
// Lines shorter than 16 (the short lines' run) take 2 steps of 8.
WindowShape window_shape(int r, bool llvmpipe, int shortest_line) {
  WindowShape w = llvmpipe                          ? WindowShape{8, 32, 8}
                  : r <= 4 && shortest_line >= 16 ? WindowShape{128, 1, 16}
                  : r <= 12                        ? WindowShape{128, 2, 8}
                                                   : WindowShape{128, 4, 8};
  WindowShape o;
  const std::string spec = window_shape_spec();
  if (!spec.empty() && std::sscanf(spec.c_str(), "%dx%dx%d", &o.group, &o.steps, &o.per) == 3 && o.group > 0 &&
      o.steps > 0 && o.per > 0)
    w = o;
  return w;
}

// Whether the form takes a separable pair (passes index and index + 1) of radius r: r within window_max_radius (the
// straight-line code, and Mesa's compile time, grow with r; on GPUs its registers) and within both passes' lines
// (conv1d_window.comp's remap_near), and lines at least one step long. Its shape in `ws`.
bool window_takes(const GlPassContext& ctx, const Program& program, size_t index, WindowShape& ws) {
  const Pass& pass = program.passes[index];
  const int r = pass.radius(), rows = ctx.image(pass.dst).w, cols = ctx.image(program.passes[index + 1].dst).h;
  const bool llvmpipe = ctx.limits().llvmpipe;
  ws = window_shape(r, llvmpipe, std::min(rows, cols));
  return r <= window_max_radius(llvmpipe, line_vch(ctx.channels())) && r <= std::min(rows, cols) &&
         std::min(rows, cols) >= ws.per;
}

// One step: x<2r> .. x<2r + PER - 1> fetched, PER outputs from x0 .., then the window moved on by PER.
std::string window_step(const std::vector<float>& taps, int per) {
  const int r = int(taps.size() / 2);
  bool symmetric = true;
  for (int k = 1; k <= r; ++k) symmetric = symmetric && taps[size_t(r - k)] == taps[size_t(r + k)];
  auto lit = [&](int k) { return glsl_floats(&taps[size_t(k)], 1); };
  std::string s;
  for (int j = 2 * r; j < 2 * r + per; ++j) s += fmt::format("VEC x{} = FETCH({}); ", j, j);
  for (int p = 0; p < per; ++p) {
    s += fmt::format("STORE({}, {} * x{}", p, lit(r), p + r);
    for (int k = 1; k <= r; ++k)
      s += symmetric ? fmt::format(" + {} * (x{} + x{})", lit(r + k), p + r - k, p + r + k)
                     : fmt::format(" + {} * x{} + {} * x{}", lit(r - k), p + r - k, lit(r + k), p + r + k);
    s += "); ";
  }
  for (int j = 0; j < 2 * r; ++j) s += fmt::format("x{} = x{}; ", j, j + per);
  return s;
}

struct WindowPass {
  GLuint prog = 0;
  GLint u_steps = -1;
  int axis = 0;
  WindowShape shape;
};

// One- and two-channel images run float / vec2 windows (VCH), three and four vec4 ones.
Status window_pass(GlPassContext& ctx, const std::vector<float>& taps, Border border, int axis,
                   const WindowShape& shape, WindowPass& out) {
  const int r = int(taps.size() / 2);
  std::string body;
  for (int j = 0; j < 2 * r; ++j) body += fmt::format("VEC x{} = FETCH({}); ", j, j);
  body += "for (int s = 0; s < n_steps; ++s, a += PER) { " + window_step(taps, shape.per) + "}";
  const std::string defines =
      fmt::format("#define AXIS {}\n#define RADIUS {}\n#define PER {}\n#define LOCAL_X {}\n#define BORDER {}\n"
                  "#define VCH {}\n#define WINDOW_BODY {}\n",
                  axis, r, shape.per, shape.group, int(border), line_vch(ctx.channels()), body);
  out.axis = axis;
  out.shape = shape;
  if (Status s = ctx.program({{"conv1d_window.comp", GL_COMPUTE_SHADER}}, defines, out.prog); !s) return s;
  out.u_steps = GlPassContext::uniform(out.prog, "n_steps");
  return Status::success();
}

void window_dispatch(const GlPassContext& ctx, const WindowPass& p, GLuint in, GLuint out, int w, int h) {
  const int n = p.axis == 0 ? w : h, m = p.axis == 0 ? h : w;
  const WindowShape& ws = p.shape;
  const int steps = std::min(ws.steps, n / ws.per);  // a run fits the line (window_takes: n >= PER)
  glProgramUniform1i(p.prog, p.u_steps, steps);
  ctx.bind_io(p.prog, in, out);
  glDispatchCompute(groups(m, ws.group), groups(n, steps * ws.per), 1);
}

// The fragment form: one draw per pass, `axes` (1 or 2 passes) from `in` through `targets`.
Status fragment(GlPassContext& ctx, size_t index, const Pass& pass, const std::vector<int>& axes,
                const std::vector<GlImage>& chain, GlStep& step) {
  const int radius = pass.radius();
  const int taps = padded_taps(radius);
  const std::string defines = fmt::format("#define RADIUS {}\n#define NTAPS {}\n#define WEIGHTS_UBO {}\n", radius, taps,
                                          taps * 4 <= ctx.limits().max_ubo ? 1 : 0);
  struct Draw {
    GLuint prog = 0, fbo = 0, in = 0;
    GLint u_border = -1;
    int w = 0, h = 0;
  };
  std::vector<Draw> draws;
  for (size_t k = 0; k < axes.size(); ++k) {
    const GlImage& t = chain[k + 1];
    if (!draw_fits(ctx.limits(), t.w, t.h))
      return Status::fail(fmt::format("GL: the fragment form draws {}x{}, more than {} draws at once ({}x{}); "
                                      "--impl compute runs any size",
                                      t.w, t.h, ctx.limits().renderer, ctx.limits().max_draw_w,
                                      ctx.limits().max_draw_h));
    Draw d;
    if (Status s = ctx.program({{"fullscreen.vert", GL_VERTEX_SHADER}, {"conv1d.frag", GL_FRAGMENT_SHADER}},
                               defines + fmt::format("#define AXIS {}\n", axes[k]), d.prog);
        !s)
      return s;
    if (Status s = ctx.framebuffer(chain[k + 1].tex, d.fbo); !s) return s;
    d.u_border = GlPassContext::uniform(d.prog, "border");
    d.in = chain[k].tex;
    d.w = chain[k + 1].w, d.h = chain[k + 1].h;
    draws.push_back(d);
  }
  const GLuint weights = upload_weights(ctx, index, pass.taps, 0);
  step.form = "conv1d-fragment";
  step.work = [&ctx, draws, weights, border = int(pass.border)] {
    bind_weights(weights);
    glBindVertexArray(ctx.vertex_array());
    for (const Draw& d : draws) {
      glProgramUniform1i(d.prog, d.u_border, border);
      glUseProgram(d.prog);
      glViewport(0, 0, d.w, d.h);
      glBindFramebuffer(GL_FRAMEBUFFER, d.fbo);
      ctx.bind_src(d.prog, d.in);
      glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
  };
  return Status::success();
}

// A separable pair: passes index (x) and index + 1 (y), src -> mid -> dst.
Status separable(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  const GlImage src = ctx.image(pass.src), mid = ctx.image(pass.dst), dst = ctx.image(program.passes[index + 1].dst);
  const int radius = pass.radius(), border = int(pass.border);
  const GlLimits& lim = ctx.limits();
  step.passes = 2;
  if (pass.hint == "fragment") return fragment(ctx, index, pass, {0, 1}, {src, mid, dst}, step);

  const FusedTile ft = fused_tile(radius, shared_budget(lim.max_shared, 0), lim.max_invocations);
  if (radius <= fused_max_radius(static_cast<long long>(dst.w) * dst.h, lim.llvmpipe) && ft.th > 0) {
    GLuint prog = 0;
    if (Status s = ctx.program({{"conv1d_fused.comp", GL_COMPUTE_SHADER}}, ft.defines() + weight_list(pass.taps), prog);
        !s)
      return s;
    const GLint u_border = GlPassContext::uniform(prog, "border");
    spdlog::debug("GL conv1d pair: fused {}x{} tiles, r {}", ft.tw, ft.th, radius);
    step.form = "conv1d-fused";
    step.work = [&ctx, prog, u_border, border, ft, src, dst] {
      glProgramUniform1i(prog, u_border, border);
      ctx.bind_io(prog, src.tex, dst.tex);
      glDispatchCompute(groups(dst.w, ft.tw), groups(dst.h, ft.th), 1);
    };
    return Status::success();
  }
  // Output rows per strip: the 2r halo rows filtered twice stay under ~1/8 of the work; llvmpipe takes short
  // strips (its loop-iteration limit).
  const SlideTile st = slide_tile(radius, shared_budget(lim.max_shared, 0), lim.max_invocations,
                                  lim.llvmpipe ? 32 : std::max(256, 16 * radius), slide_spec());
  if (radius <= slide_max_radius() && st.tw > 0) {
    GLuint prog = 0;
    // No unroll pragma by default (the form is off by default; with the pragma NVIDIA's compile of the radius-36
    // program takes seconds). H100: 0.99 / 42.6 ms at radius 9 / 36 without, 1.01 / 5.65 with it.
    if (Status s = ctx.program({{"conv1d_slide.comp", GL_COMPUTE_SHADER}},
                               st.defines() + outer_define() + weight_list(pass.taps), prog);
        !s)
      return s;
    const GLint u_border = GlPassContext::uniform(prog, "border"), u_outer = GlPassContext::uniform(prog, "n_outer");
    spdlog::debug("GL conv1d pair: sliding strips {}x{}, {} rows per step, r {}", st.tw, st.sh, st.pr, radius);
    step.form = "conv1d-sliding";
    step.work = [&ctx, prog, u_border, u_outer, border, st, src, dst] {
      glProgramUniform1i(prog, u_border, border);
      glProgramUniform1i(prog, u_outer, st.steps());
      ctx.bind_io(prog, src.tex, dst.tex);
      glDispatchCompute(groups(dst.w, st.tw), groups(dst.h, st.sh), 1);
    };
    return Status::success();
  }
  // The sliding register window (on llvmpipe after the fused and sliding forms, which only their knobs select there;
  // on GPUs after the fused form of small images).
  if (WindowShape ws; window_takes(ctx, program, index, ws)) {
    WindowPass ph, pv;
    if (Status s = window_pass(ctx, pass.taps, pass.border, 0, ws, ph); !s) return s;
    if (Status s = window_pass(ctx, pass.taps, pass.border, 1, ws, pv); !s) return s;
    spdlog::debug("GL conv1d pair: sliding register window, r {}", radius);
    step.form = "conv1d-window";
    step.work = [&ctx, ph, pv, src, mid, dst] {
      window_dispatch(ctx, ph, src.tex, mid.tex, mid.w, mid.h);
      glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
      window_dispatch(ctx, pv, mid.tex, dst.tex, dst.w, dst.h);
    };
    return Status::success();
  }
  const SepForm f = sep_form(ctx, radius);
  SepPass ph, pv;
  if (Status s = sep_pass(ctx, f, 0, radius, ph); !s) return s;
  if (Status s = sep_pass(ctx, f, 1, radius, pv); !s) return s;
  const GLuint weights =
      upload_weights(ctx, index, pass.taps, std::max(ph.tile.weight_count(radius), pv.tile.weight_count(radius)));
  spdlog::debug("GL conv1d pair: two passes, r {}, {} outputs per invocation, groups {}x{} / {}x{}, {} rounds, {} B "
                "shared, unroll pragma {}", radius, ph.tile.per, ph.tile.local_x, ph.tile.local_y, pv.tile.local_x,
                pv.tile.local_y, f.balanced ? "balanced" : "plain", f.shared, unroll_pragma(f.unroll));
  step.form = "conv1d-two-pass";
  step.work = [&ctx, ph, pv, weights, border, src, mid, dst] {
    bind_weights(weights);
    dispatch(ctx, ph, border, src.tex, mid.tex, mid.w, mid.h);
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
    dispatch(ctx, pv, border, mid.tex, dst.tex, dst.w, dst.h);
  };
  return Status::success();
}

}  // namespace

Status gl_conv1d(GlPassContext& ctx, const Program& program, size_t index, GlStep& step) {
  const Pass& pass = program.passes[index];
  // Wide kernels as FftConv1d's segments (the same function within float rounding) where measured faster; not on
  // llvmpipe, nor for pairs the register window takes (sep_fft_min_radius_gl, window_max_radius).
  const int fft_from = sep_fft_min_radius_gl();
  WindowShape ws;
  if (pass.hint.empty() && !ctx.limits().llvmpipe && fft_from > 0 && pass.radius() >= fft_from &&
      gl_fft_segments_fit(ctx, pass) && !(separable_pair(program, index) && window_takes(ctx, program, index, ws)))
    return gl_fft_conv1d(ctx, program, index, step);
  if (separable_pair(program, index)) return separable(ctx, program, index, step);
  const GlImage src = ctx.image(pass.src), dst = ctx.image(pass.dst);
  if (pass.hint == "fragment") return fragment(ctx, index, pass, {pass.axis}, {src, dst}, step);
  const int radius = pass.radius();
  SepPass p;
  if (Status s = sep_pass(ctx, sep_form(ctx, radius), pass.axis, radius, p); !s) return s;
  const GLuint weights = upload_weights(ctx, index, pass.taps, p.tile.weight_count(radius));
  step.form = "conv1d";
  step.work = [&ctx, p, weights, border = int(pass.border), src, dst] {
    bind_weights(weights);
    dispatch(ctx, p, border, src.tex, dst.tex, dst.w, dst.h);
  };
  return Status::success();
}

}  // namespace gpublur
