// The GL backend: textures in, compute/fragment passes, textures out. Executes resolved plans only.
#include "gpu/gl/gl_backend.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/gauss.hpp"
#include "gpu/gl/gl_context.hpp"
#include "gpu/gl/gl_program.hpp"
#include "gpu/gl/gl_tiles.hpp"
#include "gpu/gl/gl_tuning.hpp"

namespace gpublur {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

GLenum channel_format(int channels) {
  switch (channels) {
    case 1: return GL_RED;
    case 2: return GL_RG;
    case 3: return GL_RGB;
    default: return GL_RGBA;
  }
}

// Sampler wrap mode for each border mode (core/border.hpp); zero also needs a zero border colour.
GLenum wrap_mode(Border b) {
  switch (b) {
    case Border::Clamp: return GL_CLAMP_TO_EDGE;
    case Border::Mirror: return GL_MIRRORED_REPEAT;
    case Border::Wrap: return GL_REPEAT;
    default: return GL_CLAMP_TO_BORDER;
  }
}

Status gl_errors(const char* what) {
  std::string errs;
  for (GLenum e; (e = glGetError()) != GL_NO_ERROR;) {
    errs += errs.empty() ? "" : ", ";
    errs += e == GL_OUT_OF_MEMORY ? "out of GPU memory" : fmt::format("GL error 0x{:04x}", e);
  }
  if (errs.empty()) return Status::success();
  return Status::fail(fmt::format("GL: {} failed: {}", what, errs));
}

// Loop iterations per invocation and dispatch for gauss-2d on llvmpipe (it ends a shader's loops after
// 65535 iterations in all); counted as if no loop were unrolled.
constexpr long kLoopBudget = 16384;

GLuint groups(int n, int per_group) { return GLuint((n + per_group - 1) / per_group); }

class GlBackend final : public Backend {
 public:
  explicit GlBackend(std::unique_ptr<GlContext> ctx, const BackendOptions& opts)
      : ctx_(std::move(ctx)), half_(opts.half_storage) {}

  ~GlBackend() override {
    GlCurrent cur(*ctx_);
    if (!cur.status().ok()) return;  // the context dies with its objects anyway
    free_textures();
    for (auto& [key, prog] : programs_) glDeleteProgram(prog);
    glDeleteBuffers(1, &weights_buf_);
    glDeleteBuffers(1, &taps_buf_);
    glDeleteFramebuffers(2, fbo_);
    glDeleteVertexArrays(1, &vao_);
    glDeleteQueries(1, &query_);
    glDeleteSamplers(4, samplers_);
  }

  Status init() {
    GlCurrent cur(*ctx_);
    if (!cur.status()) return cur.status();
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &max_shared_);
    glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &max_invocations_);
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture_);
    glGetIntegerv(GL_MAX_UNIFORM_BLOCK_SIZE, &max_ubo_);
    llvmpipe_ = ctx_->renderer().find("llvmpipe") != std::string::npos;
    tile_h_ = sep_tile(0, max_shared_, max_invocations_);
    tile_v_ = sep_tile(1, max_shared_, max_invocations_);
    if (tile_h_.offsets_per_round() < tile_h_.per || tile_v_.offsets_per_round() < tile_v_.per)
      return Status::fail(fmt::format("GL: {} has too little compute shared memory ({} bytes)", ctx_->renderer(),
                                      max_shared_));
    glCreateBuffers(1, &weights_buf_);
    glCreateBuffers(1, &taps_buf_);
    glCreateFramebuffers(2, fbo_);
    glCreateVertexArrays(1, &vao_);
    glCreateQueries(GL_TIME_ELAPSED, 1, &query_);
    glCreateSamplers(4, samplers_);
    const float zero[4] = {0, 0, 0, 0};
    for (int b = 0; b < 4; ++b) {
      const GLenum wrap = wrap_mode(Border(b));
      glSamplerParameteri(samplers_[b], GL_TEXTURE_MIN_FILTER, GL_LINEAR);
      glSamplerParameteri(samplers_[b], GL_TEXTURE_MAG_FILTER, GL_LINEAR);
      glSamplerParameteri(samplers_[b], GL_TEXTURE_WRAP_S, GLint(wrap));
      glSamplerParameteri(samplers_[b], GL_TEXTURE_WRAP_T, GLint(wrap));
      glSamplerParameterfv(samplers_[b], GL_TEXTURE_BORDER_COLOR, zero);
    }
    glDisable(GL_DITHER);
    glDisable(GL_BLEND);
    if (Status s = gl_errors("setting up objects"); !s) return s;
    return probe_timer();
  }

  std::string name() const override { return "gl"; }
  std::string device_name() const override { return ctx_->renderer(); }
  std::string timer_clock() const override { return timer_query_ ? "gl-timer-query" : "host-clock-glfinish"; }
  std::string storage() const override { return half_ ? "rgba16f" : "rgba32f"; }

  Status upload(const Image& src, double& ms) override {
    ms = 0;
    if (src.channels < 1 || src.channels > 4)
      return Status::fail(fmt::format("gl: images have 1..4 channels, got {}", src.channels));
    if (src.width < 1 || src.height < 1) return Status::fail("gl: empty image");
    if (src.width > max_texture_ || src.height > max_texture_)
      return Status::fail(fmt::format("gl: {}x{} exceeds the GL texture limit {} on {}", src.width, src.height,
                                      max_texture_, ctx_->renderer()));
    if (src.data.size() != src.value_count()) return Status::fail("gl: image data size does not match its shape");
    GlCurrent cur(*ctx_);
    if (!cur.status()) return cur.status();
    if (Status s = ensure_textures(src.width, src.height); !s) return s;
    channels_ = src.channels;
    ran_ = false;
    glFinish();
    const auto t0 = Clock::now();
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    // GL pads the missing channels (G, B = 0, A = 1); they are computed and dropped on download.
    glTextureSubImage2D(textures_[0], 0, 0, 0, src.width, src.height, channel_format(src.channels), GL_FLOAT,
                        src.data.data());
    GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, std::numeric_limits<GLuint64>::max());
    glDeleteSync(fence);
    ms = ms_since(t0);
    return gl_errors("uploading the image");
  }

  Status run(const Plan& plan, RunInfo& info) override {
    info = RunInfo{};
    return with_work(plan, "running", info.path, [&](const std::function<void()>& work) {
      timed(work, info.compute_ms);
    });
  }

  // Runs queued back to back (at most two in flight, no timer query) so the GPU stays busy while the host
  // waits: run()'s synchronous short runs leave it idle often enough that NVIDIA keeps a low clock.
  Status warm_up(const Plan& plan, double min_ms) override {
    std::string path;
    return with_work(plan, "warming up", path, [&](const std::function<void()>& work) {
      std::deque<GLsync> in_flight;
      auto wait_oldest = [&] {
        glClientWaitSync(in_flight.front(), GL_SYNC_FLUSH_COMMANDS_BIT, std::numeric_limits<GLuint64>::max());
        glDeleteSync(in_flight.front());
        in_flight.pop_front();
      };
      const auto t0 = Clock::now();
      do {
        work();
        in_flight.push_back(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
        glFlush();
        if (in_flight.size() > 2) wait_oldest();
      } while (ms_since(t0) < min_ms);
      while (!in_flight.empty()) wait_oldest();
    });
  }

  // With timer queries: the n runs queued back to back, one query each, results read at the end (the GPU
  // stays busy, so its clock stays up). With the host clock every run is timed alone (glFinish around it).
  Status run_repeated(const Plan& plan, int n, std::vector<double>& ms, RunInfo& info) override {
    if (!timer_query_) return Backend::run_repeated(plan, n, ms, info);
    ms.clear();
    info = RunInfo{};
    const Status s = with_work(plan, "running", info.path, [&](const std::function<void()>& work) {
      std::vector<GLuint> queries(size_t(std::max(n, 0)));
      if (n > 0) glCreateQueries(GL_TIME_ELAPSED, n, queries.data());
      for (GLuint q : queries) {
        glBeginQuery(GL_TIME_ELAPSED, q);
        work();
        glEndQuery(GL_TIME_ELAPSED);
        glFlush();
      }
      for (GLuint q : queries) {
        GLuint64 ns = 0;
        glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
        ms.push_back(double(ns) * 1e-6);
      }
      if (n > 0) glDeleteQueries(n, queries.data());
    });
    info.compute_ms = ms.empty() ? 0 : ms.back();
    return s;
  }

 private:
  // Selects and binds the program(s) of the plan; `work` then issues its dispatches/draws.
  Status prepare(const Plan& plan, std::function<void()>& work, std::string& path) {
    Status s;
    if (plan.method == "copy") {
      s = copy_pass(work);
      path = "compute";
    } else if (plan.method == "gauss-2d") {
      s = gauss_2d(plan, work);
      path = "compute";
    } else if (plan.method == "gauss-sep") {
      path = plan.param("impl");
      s = path == "fragment" ? gauss_sep_fragment(plan, work) : gauss_sep_compute(plan, work);
    } else if (plan.method == "gauss-linear") {
      const bool hw = plan.param("interp") == "hardware";
      path = hw ? "sampler-bilinear" : linear_exact_fetch() ? "exact-lerp" : "exact-split-taps";
      s = gauss_linear(plan, hw, work);
    } else {
      return Status::fail("gl: method '" + plan.method + "' is not implemented by the GL backend");
    }
    if (!s) return s;
    return gl_errors(("preparing " + plan.method).c_str());
  }

  // The frame of run / warm_up / run_repeated: an uploaded image, the context current, the plan's programs
  // bound; `body` issues the work; then the bindings are reset and GL errors reported.
  template <typename Body>
  Status with_work(const Plan& plan, const char* doing, std::string& path, Body body) {
    if (!width_ || !channels_) return Status::fail(std::string("gl: ") + doing + " before any upload");
    GlCurrent cur(*ctx_);
    if (!cur.status()) return cur.status();
    std::function<void()> work;
    if (Status s = prepare(plan, work, path); !s) return s;
    body(work);
    glBindSampler(0, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (Status e = gl_errors(fmt::format("{} {} ({})", doing, plan.method, path).c_str()); !e) return e;
    ran_ = true;
    return Status::success();
  }

 public:
  Status download(Image& dst, double& ms) override {
    ms = 0;
    if (!ran_) return Status::fail("gl: download before run");
    GlCurrent cur(*ctx_);
    if (!cur.status()) return cur.status();
    dst = Image(width_, height_, channels_);
    glFinish();
    const auto t0 = Clock::now();
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTextureImage(textures_[2], 0, channel_format(channels_), GL_FLOAT, GLsizei(dst.byte_count()),
                      dst.data.data());
    ms = ms_since(t0);
    return gl_errors("downloading the result");
  }

  // For tests and logs.
  const SepTile& tile(int axis) const { return axis == 0 ? tile_h_ : tile_v_; }

 private:
  // Device time of `work`: a GL_TIME_ELAPSED query where the driver fills it, else a host clock between
  // two glFinish calls.
  void timed(const std::function<void()>& work, double& ms) {
    if (timer_query_) {
      glBeginQuery(GL_TIME_ELAPSED, query_);
      work();
      glEndQuery(GL_TIME_ELAPSED);
      GLuint64 ns = 0;
      glGetQueryObjectui64v(query_, GL_QUERY_RESULT, &ns);
      ms = double(ns) * 1e-6;
    } else {
      glFinish();
      const auto t0 = Clock::now();
      work();
      glFinish();
      ms = ms_since(t0);
    }
  }

  // Times a few copies both ways. The query is trusted only where it returns a value that accounts for at
  // least 5% of the host-clock time of the same work: Mesa llvmpipe returns 0 (or near 0: its compute
  // dispatches run outside the timed span), a real GPU returns most of it.
  Status probe_timer() {
    GLint bits = 0;
    glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &bits);
    if (Status s = ensure_textures(512, 512); !s) return s;
    std::function<void()> work;
    if (Status s = copy_pass(work); !s) return s;
    work();  // warm-up: first dispatch pays for shader upload
    glFinish();
    const auto t0 = Clock::now();
    glBeginQuery(GL_TIME_ELAPSED, query_);
    for (int i = 0; i < 5; ++i) work();
    glEndQuery(GL_TIME_ELAPSED);
    glFinish();
    const double host_ms = ms_since(t0);
    GLuint64 ns = 0;
    glGetQueryObjectui64v(query_, GL_QUERY_RESULT, &ns);
    const double query_ms = double(ns) * 1e-6;
    timer_query_ = bits > 0 && query_ms > 0 && query_ms >= 0.05 * host_ms;
    free_textures();
    spdlog::debug("GL: {} timer ({} query bits; probe: query {:.4f} ms, host {:.4f} ms)", timer_clock(), bits,
                  query_ms, host_ms);
    return gl_errors("probing the GL timer");
  }

  void free_textures() {
    glDeleteTextures(3, textures_);
    glDeleteTextures(1, &accum_);
    accum_ = 0;
    for (GLuint& t : textures_) t = 0;
    width_ = height_ = 0;
  }

  // textures_: 0 input, 1 intermediate (separable passes), 2 output. Output and intermediate start as NaN
  // so a pass that writes nothing cannot pass for a result.
  Status ensure_textures(int w, int h) {
    if (w == width_ && h == height_ && textures_[0]) return Status::success();
    free_textures();
    glCreateTextures(GL_TEXTURE_2D, 3, textures_);
    const float nan[4] = {NAN, NAN, NAN, NAN};
    for (GLuint t : textures_) {
      glTextureStorage2D(t, 1, half_ ? GL_RGBA16F : GL_RGBA32F, w, h);
      glTextureParameteri(t, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTextureParameteri(t, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glClearTexImage(t, 0, GL_RGBA, GL_FLOAT, nan);
    }
    glNamedFramebufferTexture(fbo_[0], GL_COLOR_ATTACHMENT0, textures_[1], 0);
    glNamedFramebufferTexture(fbo_[1], GL_COLOR_ATTACHMENT0, textures_[2], 0);
    width_ = w, height_ = h;
    if (Status s = gl_errors(fmt::format("allocating {}x{} {} textures", w, h, half_ ? "RGBA16F" : "RGBA32F").c_str());
        !s) {
      free_textures();
      return s;
    }
    for (GLuint f : fbo_) {
      const GLenum st = glCheckNamedFramebufferStatus(f, GL_FRAMEBUFFER);
      if (st != GL_FRAMEBUFFER_COMPLETE)
        return Status::fail(fmt::format("GL: {} render targets are not complete on {} (status 0x{:04x})",
                                        half_ ? "RGBA16F" : "RGBA32F", ctx_->renderer(), st));
    }
    return Status::success();
  }

  std::string format_defines() const {
    return std::string("#define STORE_FORMAT ") + (half_ ? "rgba16f" : "rgba32f") + "\n";
  }

  // Builds (once) and returns the program made of `files` with `defines`.
  Status program(const std::vector<std::pair<std::string, GLenum>>& files, const std::string& defines,
                 GLuint& out, bool unroll_by_default = false) {
    const std::string all_defines = (unroll_pragma(unroll_by_default) ? "#pragma optionNV(unroll all)\n" : "") + defines;
    std::string key = all_defines;
    for (const auto& f : files) key += "|" + f.first;
    if (auto it = programs_.find(key); it != programs_.end()) {
      out = it->second;
      return Status::success();
    }
    std::vector<ShaderSource> stages;
    for (const auto& [file, stage] : files) {
      ShaderSource s;
      if (Status st = shader_file(file, stage, s); !st) return st;
      stages.push_back(std::move(s));
    }
    if (Status st = build_program(stages, format_defines() + all_defines, true, out); !st) return st;
    programs_[key] = out;
    dump_binary(out, key);
    return Status::success();
  }

  // The 1D weights padded with zeros to a multiple of kMaxSepPer taps (the shaders' chunks), bound both as
  // a uniform block and as a storage buffer at binding 0 (the shader declares one of them).
  void set_weights(const Plan& plan, int min_count = 0) { set_weights(plan.weights, plan.radius, min_count); }
  // `weights` (2 radius + 1 of them) padded with zeros to at least `min_count`.
  void set_weights(std::vector<float> w, int radius, int min_count) {
    w.resize(size_t(std::max(padded_taps(radius, kMaxSepPer), min_count)), 0.0f);
    glNamedBufferData(weights_buf_, GLsizeiptr(w.size() * sizeof(float)), w.data(), GL_STATIC_DRAW);
  }
  void bind_weights() {
    glBindBufferBase(GL_UNIFORM_BUFFER, 0, weights_buf_);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, weights_buf_);
  }

  void bind_io(GLuint prog, GLuint in, GLuint out) {
    glUseProgram(prog);
    glBindTextureUnit(0, in);
    glBindImageTexture(0, out, 0, GL_FALSE, 0, GL_WRITE_ONLY, half_ ? GL_RGBA16F : GL_RGBA32F);
  }

  Status copy_pass(std::function<void()>& work) {
    GLuint prog = 0;
    if (Status s = program({{"copy.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
    work = [this, prog] {
      bind_io(prog, textures_[0], textures_[2]);
      glDispatchCompute(groups(width_, 16), groups(height_, 16), 1);
      glMemoryBarrier(GL_ALL_BARRIER_BITS);
    };
    return Status::success();
  }

  Status gauss_2d(const Plan& plan, std::function<void()>& work) {
    const Conv2dTile tile = conv2d_tile(plan.radius, shared_budget(max_shared_, 0), conv2d_per());
    if (tile.cx < 1 || tile.cy < 1)
      return Status::fail(fmt::format("GL: {} has too little compute shared memory ({} bytes) for gauss-2d",
                                      ctx_->renderer(), max_shared_));
    GLuint prog = 0;
    // NVIDIA's unroll pragma at every radius: on an H100 61.7 -> 19.0 ms at radius 36, 927 -> 355 ms at radius
    // 144, the same at radius 9 (docs/performance.md, GL).
    if (Status s = program({{"gauss_2d.comp", GL_COMPUTE_SHADER}}, tile.defines(max_ubo_), prog, true); !s)
      return s;
    set_weights(plan);
    glProgramUniform1i(prog, glGetUniformLocation(prog, "border"), int(plan.border));
    // Kernel rows per dispatch: all of them, except on llvmpipe (its loop limit, see gauss_2d.comp), where a
    // dispatch takes whole CY-row blocks up to about kLoopBudget loop iterations per invocation.
    const int taps_y = 2 * plan.radius + 1;
    int rows = taps_y;
    if (llvmpipe_) {
      const long bx = (padded_taps(plan.radius, tile.per) + tile.cx - 1) / tile.cx;
      const long loads = (long(tile.th + tile.cy - 1) * (tile.tw + tile.cx) + tile.threads() - 1) / tile.threads();
      const long per_row = bx * (tile.cx / tile.per * (tile.per * tile.per + 4 * tile.per) + 4 * tile.per);
      const long per_block = bx * loads + tile.cy * per_row;
      rows = int(std::max(1L, kLoopBudget / per_block)) * tile.cy;
    }
    if (rows < taps_y && !accum_) {
      glCreateTextures(GL_TEXTURE_2D, 1, &accum_);
      glTextureStorage2D(accum_, 1, GL_RGBA32F, width_, height_);
      if (Status s = gl_errors("allocating the gauss-2d accumulator"); !s) return s;
    }
    const GLint u_begin = glGetUniformLocation(prog, "dy_begin"), u_end = glGetUniformLocation(prog, "dy_end"),
                u_resume = glGetUniformLocation(prog, "resume"), u_last = glGetUniformLocation(prog, "last");
    spdlog::debug("GL gauss-2d: r {} block {}x{} taps, {} kernel rows per dispatch", plan.radius, tile.cx, tile.cy,
                  rows);
    work = [=] {
      bind_weights();
      bind_io(prog, textures_[0], textures_[2]);
      if (accum_) glBindImageTexture(1, accum_, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
      for (int b = 0; b < taps_y; b += rows) {
        const int e = std::min(taps_y, b + rows);
        glProgramUniform1i(prog, u_begin, b);
        glProgramUniform1i(prog, u_end, e);
        glProgramUniform1i(prog, u_resume, b > 0);
        glProgramUniform1i(prog, u_last, e == taps_y);
        glDispatchCompute(groups(width_, tile.tw), groups(height_, tile.th), 1);
        if (e < taps_y) glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
      }
      glMemoryBarrier(GL_ALL_BARRIER_BITS);
    };
    return Status::success();
  }

  Status gauss_sep_compute(const Plan& plan, std::function<void()>& work) {
    return separable(plan.weights, plan.radius, plan.border, work);
  }

  // A separable convolution out(x) = sum_k w[k + radius] in(x + k) along x, then along y (gauss-sep, and
  // gauss-linear's exact taps), in the compute form picked for the radius.
  Status separable(const std::vector<float>& weights, int radius, Border border, std::function<void()>& work) {
    Plan plan;  // the fields the forms below read
    plan.weights = weights;
    plan.radius = radius;
    plan.border = border;
    const FusedTile ft = fused_tile(plan.radius, shared_budget(max_shared_, 0), max_invocations_);
    if (plan.radius <= fused_max_radius() && ft.th > 0) {
      GLuint prog = 0;
      std::vector<float> w = plan.weights;
      w.resize(size_t(padded_taps(plan.radius)), 0.0f);
      const std::string defines = ft.defines() + "#define WEIGHT_LIST " + glsl_floats(w.data(), int(w.size())) + "\n";
      if (Status s = program({{"gauss_sep_fused.comp", GL_COMPUTE_SHADER}}, defines, prog); !s) return s;
      glProgramUniform1i(prog, glGetUniformLocation(prog, "border"), int(plan.border));
      spdlog::debug("GL gauss-sep: fused {}x{} tiles, r {}", ft.tw, ft.th, plan.radius);
      work = [this, prog, ft] {
        bind_io(prog, textures_[0], textures_[2]);
        glDispatchCompute(groups(width_, ft.tw), groups(height_, ft.th), 1);
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
      };
      return Status::success();
    }
    // Output rows per strip: the 2r halo rows filtered twice stay under ~1/8 of the work; llvmpipe takes
    // short strips (its loop-iteration limit, see gauss_2d.comp).
    const SlideTile st = slide_tile(plan.radius, shared_budget(max_shared_, 0), max_invocations_,
                                    llvmpipe_ ? 32 : std::max(256, 16 * plan.radius), slide_spec());
    if (plan.radius <= slide_max_radius() && st.tw > 0) {
      GLuint prog = 0;
      std::vector<float> w = plan.weights;
      w.resize(size_t(padded_taps(plan.radius)), 0.0f);
      const std::string defines =
          st.defines() + outer_define() + "#define WEIGHT_LIST " + glsl_floats(w.data(), int(w.size())) + "\n";
      // No unroll pragma by default (the form is off by default; with the pragma NVIDIA's compile of the
      // radius-36 program takes seconds). H100: 0.99 / 42.6 ms at radius 9 / 36 without, 1.01 / 5.65 with it.
      if (Status s = program({{"gauss_sep_slide.comp", GL_COMPUTE_SHADER}}, defines, prog); !s) return s;
      glProgramUniform1i(prog, glGetUniformLocation(prog, "border"), int(plan.border));
      glProgramUniform1i(prog, glGetUniformLocation(prog, "n_outer"), st.steps());
      spdlog::debug("GL gauss-sep: sliding strips {}x{}, {} rows per step, r {}", st.tw, st.sh, st.pr, plan.radius);
      work = [this, prog, st] {
        bind_io(prog, textures_[0], textures_[2]);
        glDispatchCompute(groups(width_, st.tw), groups(height_, st.sh), 1);
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
      };
      return Status::success();
    }
    // The two passes as measured best on an H100 at 4096^2 (docs/performance.md, GL rounds 3 and 4), radii
    // between the measured ones (9, 36, 144) take the rule of the next measured one:
    //   r <= 9:  16 KiB tiles (more resident groups), the previous form, no pragma      0.70 ms at r 9
    //   r <= 36: 24 KiB tiles, balanced rounds + NVIDIA's unroll pragma                 1.16 ms at r 36
    //   r > 36:  the device's 48 KiB (fewer load rounds), the previous form + pragma    3.20 ms at r 144
    const int shared =
        shared_budget(max_shared_, plan.radius <= 9 ? 16384 : plan.radius <= 36 ? 24576 : 0);
    const bool unroll = plan.radius > 9;
    const bool balanced = sep_balanced(plan.radius > 9 && plan.radius <= 36);
    SepTile th = tile_h_, tv = tile_v_;
    if (const int per = sep_per(); per != kSepPer || shared != max_shared_) {
      const SepTile h = sep_tile(0, shared, max_invocations_, per), v = sep_tile(1, shared, max_invocations_, per);
      if (h.offsets_per_round() >= per && v.offsets_per_round() >= per) th = h, tv = v;
    }
    GLuint ph = 0, pv = 0;
    const std::string outer = outer_define();
    if (Status s = program({{"gauss_sep.comp", GL_COMPUTE_SHADER}},
                           th.defines(plan.radius, max_ubo_, balanced) + outer, ph, unroll);
        !s)
      return s;
    if (Status s = program({{"gauss_sep.comp", GL_COMPUTE_SHADER}},
                           tv.defines(plan.radius, max_ubo_, balanced) + outer, pv, unroll);
        !s)
      return s;
    glProgramUniform1i(ph, glGetUniformLocation(ph, "n_outer"), th.rounds(plan.radius));
    glProgramUniform1i(pv, glGetUniformLocation(pv, "n_outer"), tv.rounds(plan.radius));
    set_weights(plan, std::max(th.weight_count(plan.radius), tv.weight_count(plan.radius)));
    for (GLuint p : {ph, pv}) glProgramUniform1i(p, glGetUniformLocation(p, "border"), int(plan.border));
    spdlog::debug("GL gauss-sep: two passes, r {}, {} outputs per invocation, groups {}x{} / {}x{}, {} rounds, {} B "
                  "shared, unroll pragma {}", plan.radius, th.per, th.local_x, th.local_y, tv.local_x, tv.local_y,
                  balanced ? "balanced" : "plain", shared, unroll_pragma(unroll));
    work = [this, ph, pv, th, tv] {
      bind_weights();
      bind_io(ph, textures_[0], textures_[1]);
      glDispatchCompute(groups(width_, th.tile()), groups(height_, th.across_threads()), 1);
      glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
      bind_io(pv, textures_[1], textures_[2]);
      glDispatchCompute(groups(width_, tv.across_threads()), groups(height_, tv.tile()), 1);
      glMemoryBarrier(GL_ALL_BARRIER_BITS);
    };
    return Status::success();
  }

  Status gauss_sep_fragment(const Plan& plan, std::function<void()>& work) {
    GLuint prog[2] = {0, 0};
    const int taps = padded_taps(plan.radius);
    const std::string defines = fmt::format("#define RADIUS {}\n#define NTAPS {}\n#define WEIGHTS_UBO {}\n",
                                            plan.radius, taps, taps * 4 <= max_ubo_ ? 1 : 0);
    for (int axis = 0; axis < 2; ++axis)
      if (Status s = program({{"fullscreen.vert", GL_VERTEX_SHADER}, {"gauss_sep.frag", GL_FRAGMENT_SHADER}},
                             defines + fmt::format("#define AXIS {}\n", axis), prog[axis]);
          !s)
        return s;
    set_weights(plan);
    for (GLuint p : prog) glProgramUniform1i(p, glGetUniformLocation(p, "border"), int(plan.border));
    work = [this, p0 = prog[0], p1 = prog[1]] {
      bind_weights();
      glBindVertexArray(vao_);
      glViewport(0, 0, width_, height_);
      // Ping-pong: input -> intermediate (horizontal), intermediate -> output (vertical).
      for (int pass = 0; pass < 2; ++pass) {
        glUseProgram(pass ? p1 : p0);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo_[pass]);
        glBindTextureUnit(0, textures_[pass]);
        glDrawArrays(GL_TRIANGLES, 0, 3);
      }
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
    };
    return Status::success();
  }

  Status gauss_linear(const Plan& plan, bool hardware, std::function<void()>& work) {
    if (plan.tap_offsets.empty()) return Status::fail("gl: gauss-linear plan has no taps");
    if (!hardware && !linear_exact_fetch()) {
      // The exact path as the CPU reference computes it: the split bilinear taps as one discrete kernel
      // (core/gauss.hpp linear_exact_kernel), run by the shared-memory separable shaders: a tap costs a
      // shared load used by 4 outputs instead of a texelFetch per output.
      int reach = 0;
      const std::vector<double> k = linear_exact_kernel(plan.tap_offsets, plan.tap_weights, reach);
      const std::vector<float> w(k.begin(), k.end());
      return separable(w, reach, plan.border, work);
    }
    // Per tap: offset, weight, and the offset's integer part and fraction (exact path).
    std::vector<float> taps;
    int reach = 0;
    for (size_t k = 0; k < plan.tap_offsets.size(); ++k) {
      const float o = plan.tap_offsets[k], oi = std::floor(o);
      taps.insert(taps.end(), {o, plan.tap_weights[k], oi, o - oi});
      reach = std::max(reach, int(oi) + 1);
    }
    std::string defines = fmt::format("#define HARDWARE {}\n#define N_TAPS {}\n#define MAX_REACH {}\n",
                                      hardware ? 1 : 0, plan.tap_offsets.size(), reach);
    // Compile-time taps: offsets and weights become immediates (no buffer loads in the tap loop).
    if (linear_const_taps())
      defines += "#define TAP_LIST " + glsl_floats(taps.data(), int(taps.size())) + "\n";
    GLuint ph = 0, pv = 0;
    if (Status s = program({{"gauss_linear.comp", GL_COMPUTE_SHADER}}, "#define AXIS 0\n" + defines, ph); !s) return s;
    if (Status s = program({{"gauss_linear.comp", GL_COMPUTE_SHADER}}, "#define AXIS 1\n" + defines, pv); !s) return s;
    glNamedBufferData(taps_buf_, GLsizeiptr(taps.size() * sizeof(float)), taps.data(), GL_STATIC_DRAW);
    for (GLuint p : {ph, pv}) glProgramUniform1i(p, glGetUniformLocation(p, "border"), int(plan.border));
    const GLuint sampler = hardware ? samplers_[int(plan.border)] : 0;
    work = [this, ph, pv, sampler] {
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, taps_buf_);
      glBindSampler(0, sampler);
      bind_io(ph, textures_[0], textures_[1]);
      glDispatchCompute(groups(width_, 16), groups(height_, 16), 1);
      glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
      bind_io(pv, textures_[1], textures_[2]);
      glDispatchCompute(groups(width_, 16), groups(height_, 16), 1);
      glMemoryBarrier(GL_ALL_BARRIER_BITS);
    };
    return Status::success();
  }

  std::unique_ptr<GlContext> ctx_;
  bool half_ = false;
  bool timer_query_ = false;
  bool ran_ = false;
  GLint max_shared_ = 0, max_invocations_ = 0, max_texture_ = 0, max_ubo_ = 0;
  bool llvmpipe_ = false;  // Mesa's CPU driver: loop limit (gauss-2d dispatch split)
  SepTile tile_h_, tile_v_;
  GLuint textures_[3] = {0, 0, 0};
  GLuint accum_ = 0;  // gauss-2d running sums across dispatches (RGBA32F whatever the storage)
  int width_ = 0, height_ = 0, channels_ = 0;
  GLuint weights_buf_ = 0, taps_buf_ = 0, fbo_[2] = {0, 0}, vao_ = 0, query_ = 0, samplers_[4] = {0, 0, 0, 0};
  std::map<std::string, GLuint> programs_;
};

}  // namespace

bool gl_available(std::string* why) {
  std::string error;
  auto ctx = GlContext::create(0, error);
  if (why) *why = error;
  return ctx != nullptr;
}

std::unique_ptr<Backend> make_gl_backend(const BackendOptions& opts, std::string& error) {
  error.clear();
  auto ctx = GlContext::create(opts.device, error);
  if (!ctx) return nullptr;
  auto backend = std::make_unique<GlBackend>(std::move(ctx), opts);
  if (Status s = backend->init(); !s) {
    error = s.error;
    return nullptr;
  }
  return backend;
}

}  // namespace gpublur
