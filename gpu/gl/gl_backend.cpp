// The GL backend: textures in, the plan's program of passes through compute/fragment shaders, textures out.
// It executes programs only (gpu/gl/pass_table.hpp: one setup per primitive); it never looks at method names.
#include "gpu/gl/gl_backend.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/pass_times.hpp"
#include "gpu/gl/gl_context.hpp"
#include "gpu/gl/gl_errors.hpp"
#include "gpu/gl/gl_pass_context.hpp"
#include "gpu/gl/gl_staging.hpp"
#include "gpu/gl/gl_tuning.hpp"
#include "gpu/gl/pass_table.hpp"
#include "gpu/gl/step_barriers.hpp"

namespace gpublur {
namespace {

using Clock = std::chrono::steady_clock;
// The driver's read-backs go in bands of rows of at most this many bytes (read_texture_rows): under GLsizei's 2 GiB.
// Smaller images keep one call, as before (bands of 64 MiB measured no faster, maybe slower: docs/performance.md).
constexpr long long kReadBandBytes = 1LL << 30;
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

Status gl_errors(const std::string& what) {
  const std::string errs = gl_error_text();
  if (errs.empty()) return Status::success();
  return Status::fail(fmt::format("GL: {} failed: {}", what, errs));
}

class GlBackend final : public Backend {
 public:
  explicit GlBackend(std::unique_ptr<GlContext> ctx, const BackendOptions& opts)
      : ctx_(std::move(ctx)), passes_(std::make_unique<GlPassContext>(opts.half_storage)) {}

  ~GlBackend() override {
    GlCurrent cur(*ctx_);
    if (!cur.status().ok()) {
      passes_->abandon();  // the context dies with its objects anyway; nothing to delete without it current
      return;
    }
    passes_.reset();
    glDeleteQueries(1, &query_);
    glDeleteBuffers(3, packed_bufs_);
    glDeleteBuffers(1, &download_buf_);
    staging_.release();
  }

  Status init() {
    GlCurrent cur(*ctx_);
    if (!cur.status()) return cur.status();
    if (Status s = passes_->init(ctx_->renderer()); !s) return s;
    glCreateQueries(GL_TIME_ELAPSED, 1, &query_);
    glDisable(GL_DITHER);
    glDisable(GL_BLEND);
    if (Status s = gl_errors("setting up objects"); !s) return s;
    return probe_timer();
  }

  std::string name() const override { return "gl"; }
  std::string device_name() const override { return ctx_->renderer(); }
  std::string timer_clock() const override { return timer_query_ ? "gl-timer-query" : "host-clock-glfinish"; }
  std::string storage() const override { return passes_->store_format_glsl(); }

  Status upload(const Image& src, double& ms) override {
    ms = 0;
    ran_ = false;  // a failed upload leaves no result to download, not the last image's
    const GlLimits& lim = passes_->limits();
    if (src.channels < 1 || src.channels > 4)
      return Status::fail(fmt::format("gl: images have 1..4 channels, got {}", src.channels));
    if (src.width < 1 || src.height < 1) return Status::fail("gl: empty image");
    if (src.width > lim.max_texture || src.height > lim.max_texture)
      return Status::fail(fmt::format("gl: {}x{} exceeds the GL texture limit {} on {}", src.width, src.height,
                                      lim.max_texture, ctx_->renderer()));
    if (src.data.size() != src.value_count()) return Status::fail("gl: image data size does not match its shape");
    GlCurrent cur(*ctx_);
    if (!cur.status()) return cur.status();
    glFinish();
    const auto t0 = Clock::now();  // the textures' (re)allocation for a new shape counts in the upload
    passes_->set_channels(src.channels);  // before ensure_io: the textures' format follows it
    if (Status s = passes_->ensure_io(src.width, src.height); !s) return s;
    channels_ = src.channels;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    if (Status s = upload_values(src); !s) return s;
    GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, std::numeric_limits<GLuint64>::max());
    glDeleteSync(fence);
    ms = ms_since(t0);
    return gl_errors("uploading the image");
  }

  Status run(const Plan& plan, RunInfo& info) override {
    info = RunInfo{};
    const auto t0 = Clock::now();
    return with_work(plan, "running", info.path, [&](const std::function<void()>& work) {
      info.prepare_ms = ms_since(t0);  // the context made current, the programs built, the passes set up
      timed(work, info.compute_ms);
    });
  }

  // Runs queued back to back (at most two in flight, no timer query) so the GPU stays busy while the host
  // waits: run()'s synchronous short runs leave it idle often enough that NVIDIA keeps a low clock.
  // Where building the programs kept the device idle long enough for its clock to fall, for longer
  // (warm_up_after_idle_ms).
  Status warm_up(const Plan& plan, double min_ms) override {
    std::string path;
    const auto entered = Clock::now();
    return with_work(plan, "warming up", path, [&](const std::function<void()>& work) {
      const double idle = ms_since(entered), busy = warm_up_after_idle_ms(min_ms, idle);
      if (busy > min_ms)
        spdlog::debug("GL: {:.0f} ms preparing {} with the device idle: warming up for {:.0f} ms", idle, path, busy);
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
      } while (ms_since(t0) < busy);
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

  // 8-bit samples cross as bytes and unpack8.comp / pack8.comp run core/packed.hpp's tables on the device.
  // With half storage the float upload's conversion to half is the driver's: that path (the host's unpack
  // and upload) is kept there, as for images over the storage-buffer limit.
  bool prefers_packed() const override { return !passes_->limits().llvmpipe && !passes_->half(); }

  Status upload_packed(const PackedImage& src, const PackedColour& colour, double& ms) override {
    ran_ = false;  // as upload()
    const long long bytes = (static_cast<long long>(src.value_count()) + 3) / 4 * 4;
    if (passes_->half() || src.channels < 1 || src.channels > 4 || bytes > packed_limit() ||
        src.width < 1 || src.height < 1 || src.width > passes_->limits().max_texture ||
        src.height > passes_->limits().max_texture || src.samples.size() != src.value_count())
      return Backend::upload_packed(src, colour, ms);
    ms = 0;
    GlCurrent cur(*ctx_);
    if (!cur.status()) return cur.status();
    glFinish();
    const auto t0 = Clock::now();  // the textures' allocation and the unpacking program's build count in the upload
    passes_->set_channels(src.channels);  // before ensure_io and the program: the format follows it
    if (Status s = passes_->ensure_io(src.width, src.height); !s) return s;
    GLuint prog = 0;
    if (Status s = passes_->program({{"unpack8.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
    channels_ = src.channels;
    if (Status s = packed_buffers(bytes); !s) return s;
    if (Status s = host_to_buffer(src.samples.data(), packed_bufs_[0], src.samples.size()); !s) return s;
    upload_tables(colour);
    glProgramUniform2i(prog, GlPassContext::uniform(prog, "size"), src.width, src.height);
    use_packed(prog, colour);
    glBindImageTexture(0, passes_->input(), 0, GL_FALSE, 0, GL_WRITE_ONLY, passes_->store_format());
    glDispatchCompute(groups(src.width, 16), groups(src.height, 16), 1);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    glFinish();
    ms = ms_since(t0);
    return gl_errors("uploading the 8-bit image");
  }

  Status download_packed(PackedImage& dst, const PackedColour& colour, double& ms) override {
    const long long n = static_cast<long long>(passes_->width()) * passes_->height() * channels_;
    const long long bytes = (n + 3) / 4 * 4;
    if (passes_->half() || bytes > packed_limit()) return Backend::download_packed(dst, colour, ms);
    ms = 0;
    if (!ran_) return Status::fail("gl: download before run");
    GlCurrent cur(*ctx_);
    if (!cur.status()) return cur.status();
    glFinish();
    const auto t0 = Clock::now();  // the packing program's build counts in the download
    GLuint prog = 0;
    if (Status s = passes_->program({{"pack8.comp", GL_COMPUTE_SHADER}}, "", prog); !s) return s;
    dst.width = passes_->width(), dst.height = passes_->height(), dst.channels = channels_;
    dst.samples.resize(size_t(n));
    if (Status s = packed_buffers(bytes); !s) return s;
    upload_tables(colour);
    glProgramUniform1i(prog, GlPassContext::uniform(prog, "width"), passes_->width());
    glProgramUniform1ui(prog, GlPassContext::uniform(prog, "n_samples"), GLuint(n));
    use_packed(prog, colour);
    // The values packing clips or drops (below 0, above 1, NaN, hidden: PackedImage::clipped), counted by pack8.
    const GLuint zero[4] = {0, 0, 0, 0};
    glNamedBufferData(packed_bufs_[2], sizeof zero, zero, GL_STREAM_READ);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, packed_bufs_[2]);
    glProgramUniform2f(prog, GlPassContext::uniform(prog, "clip"), colour.clip.below, colour.clip.above);
    glProgramUniform2f(prog, GlPassContext::uniform(prog, "clip_alpha"), colour.clip_alpha.below,
                       colour.clip_alpha.above);
    glBindTextureUnit(0, passes_->output());
    const GLuint total = groups(int(bytes / 4), 256), gx = std::min<GLuint>(total, 32768);
    glDispatchCompute(gx, (total + gx - 1) / gx, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if (Status s = buffer_to_host(packed_bufs_[0], size_t(n), dst.samples.data()); !s) return s;
    GLuint counts[4] = {0, 0, 0, 0};
    glGetNamedBufferSubData(packed_bufs_[2], 0, sizeof counts, counts);
    dst.clipped.below = counts[0], dst.clipped.above = counts[1], dst.clipped.nan = counts[2];
    dst.clipped.hidden = counts[3];
    glBindTextureUnit(0, 0);
    ms = ms_since(t0);
    return gl_errors("downloading the 8-bit result");
  }

  Status download(Image& dst, double& ms) override {
    ms = 0;
    if (!ran_) return Status::fail("gl: download before run");
    GlCurrent cur(*ctx_);
    if (!cur.status()) return cur.status();
    glFinish();
    const auto t0 = Clock::now();  // the host image's allocation, where it needs one, counts in the download
    shape_for_download(dst, passes_->width(), passes_->height(), channels_);
    if (Status s = download_values(dst); !s) return s;
    ms = ms_since(t0);
    return gl_errors("downloading the result");
  }

 private:
  // The image's floats into the input texture through a storage buffer and upload_float.comp where they fit one (the
  // 8-bit path's buffer): faster than the driver's texture upload on NVIDIA (measured for RGB: docs/performance.md,
  // "GL uploads through a storage buffer"). Past that limit, and with half storage (whose conversion to half stays the
  // driver's, as for 8-bit images: upload_packed), glTextureSubImage2D, which pads missing channels with G, B = 0,
  // A = 1; a three-channel image's A is then set to 0 in place, as CUDA pads it.
  Status upload_values(const Image& src) {
    const long long bytes = static_cast<long long>(src.byte_count());
    bool from_buffer = bytes <= passes_->limits().max_ssbo && !passes_->half();
    // No memory for the buffer beside the textures: the driver's upload.
    if (from_buffer && !packed_buffers(bytes)) from_buffer = false;
    if (!from_buffer) {
      glTextureSubImage2D(passes_->input(), 0, 0, 0, src.width, src.height, channel_format(src.channels), GL_FLOAT,
                          src.data.data());
      if (src.channels != 3) return Status::success();  // upload() checks the GL errors
    }
    GLuint prog = 0;
    if (Status s = passes_->program({{"upload_float.comp", GL_COMPUTE_SHADER}},
                                    fmt::format("#define FROM_BUFFER {}\n#define CH {}\n", from_buffer ? 1 : 0,
                                                src.channels),
                                    prog);
        !s)
      return s;
    if (from_buffer) {
      if (Status s = host_to_buffer(src.data.data(), packed_bufs_[0], size_t(bytes)); !s) return s;
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, packed_bufs_[0]);
    }
    glProgramUniform2i(prog, GlPassContext::uniform(prog, "size"), src.width, src.height);
    glUseProgram(prog);
    glBindImageTexture(0, passes_->input(), 0, GL_FALSE, 0, from_buffer ? GL_WRITE_ONLY : GL_READ_WRITE,
                       passes_->store_format());
    glDispatchCompute(groups(src.width, 16), groups(src.height, 16), 1);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    return Status::success();  // upload() checks the GL errors
  }
  // The output texture's floats into `dst` (sized) through a storage buffer and download_float.comp where they fit one,
  // as upload_values (4096^2 RGB 97-113 -> 63-72 ms on an H100, RGBA 81-119 -> 76-90, one channel the same: calls
  // 433-434); else (half storage, past the limit, no memory for the buffer) glGetTextureImage.
  Status download_values(Image& dst) {
    const long long bytes = static_cast<long long>(dst.byte_count());
    bool from_buffer = bytes <= passes_->limits().max_ssbo && !passes_->half();
    if (from_buffer && bytes > download_cap_) {
      if (!download_buf_) glCreateBuffers(1, &download_buf_);
      glNamedBufferData(download_buf_, GLsizeiptr(bytes), nullptr, GL_STREAM_READ);
      download_cap_ = bytes;
      if (!gl_errors("allocating the download buffer")) download_cap_ = 0, from_buffer = false;
    }
    if (!from_buffer) {
      read_texture_rows(passes_->output(), dst);
      return Status::success();  // download() checks the GL errors
    }
    GLuint prog = 0;
    if (Status s = passes_->program({{"download_float.comp", GL_COMPUTE_SHADER}},
                                    fmt::format("#define CH {}\n", channels_), prog);
        !s)
      return s;
    glProgramUniform2i(prog, GlPassContext::uniform(prog, "size"), dst.width, dst.height);
    glUseProgram(prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, download_buf_);
    glBindTextureUnit(0, passes_->output());
    glDispatchCompute(groups(dst.width, 16), groups(dst.height, 16), 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    // The driver's read-back, not the staging: 4096^2 RGBA floats came back 6-13% slower through the staging (H100,
    // docs/performance.md "GL transfers through pinned staging").
    glGetNamedBufferSubData(download_buf_, 0, GLsizeiptr(bytes), dst.data.data());
    glBindTextureUnit(0, 0);
    return Status::success();  // download() checks the GL errors
  }
  // The driver's read-back of `tex` into `dst` (sized), in bands of rows: its size argument is a GLsizei, so one call
  // cannot take 2 GiB (16384 x 8192 RGBA with half storage, whose download is always this one; NVIDIA's and Mesa's
  // drivers read the wrapped size loosely, even 0 for 4 GiB on NVIDIA, but the specification makes it an error).
  void read_texture_rows(GLuint tex, Image& dst) const {
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    const long long row = static_cast<long long>(dst.width) * dst.channels * static_cast<long long>(sizeof(float));
    const int band = static_cast<int>(std::max<long long>(1, kReadBandBytes / row));
    for (int y = 0; y < dst.height; y += band) {
      const int h = std::min(band, dst.height - y);
      float* at = dst.data.data() + static_cast<size_t>(y) * dst.width * dst.channels;
      glGetTextureSubImage(tex, 0, 0, y, 0, dst.width, h, 1, channel_format(dst.channels), GL_FLOAT,
                           static_cast<GLsizei>(row * h), at);
    }
  }
  // Host memory to a storage buffer and back through the pinned staging (GlStaging), or the driver's copies
  // (GPUBLUR_GL_STAGING=0). On an H100 in a folder of 4K RGB8 PNGs the staging's 8-bit downloads took 15.6-20.5 ms an
  // image against the driver's 20.7-28.5, its uploads 22-44% less in all (docs/performance.md "GL transfers through
  // pinned staging").
  // Where the staging cannot be had (no client storage to allocate or map), the driver's copies.
  Status host_to_buffer(const void* host, GLuint buf, size_t bytes) {
    if (use_staging(bytes)) return staging_.upload(host, buf, bytes);
    glNamedBufferSubData(buf, 0, GLsizeiptr(bytes), host);
    return Status::success();
  }
  Status buffer_to_host(GLuint buf, size_t bytes, void* host) {
    if (use_staging(bytes)) return staging_.download(buf, bytes, host);
    glGetNamedBufferSubData(buf, 0, GLsizeiptr(bytes), host);
    return Status::success();
  }
  bool use_staging(size_t bytes) {
    if (!gl_staging()) return false;
    const Status s = staging_.reserve(bytes);
    if (!s) spdlog::debug("gl: {}; the driver's copies instead", s.error);
    return s.ok();
  }
  // The samples' buffer (at least `bytes`, kept across images; the float upload's too) and the tables' buffer.
  Status packed_buffers(long long bytes) {
    if (!packed_bufs_[0]) glCreateBuffers(3, packed_bufs_);
    if (bytes > packed_cap_) {
      glNamedBufferData(packed_bufs_[0], GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW);
      packed_cap_ = bytes;
    }
    Status s = gl_errors("allocating the upload buffer");
    if (!s) packed_cap_ = 0;  // the buffer's store is undefined after a failed allocation: allocated again next time
    return s;
  }
  // The 8-bit paths' largest buffer: the storage-buffer limit, and below 2^31 samples, which unpack8 / pack8 index as
  // uint and the sample count crosses as one (a driver's limit of 4 GiB or more would wrap them).
  long long packed_limit() const { return std::min(passes_->limits().max_ssbo, (1LL << 31) - 4); }
  // unpack8/pack8's common state: the image's channels and alpha, the colour flags, the two buffers.
  void use_packed(GLuint prog, const PackedColour& colour) {
    glProgramUniform1i(prog, GlPassContext::uniform(prog, "channels"), channels_);
    glProgramUniform1i(prog, GlPassContext::uniform(prog, "alpha"), colour.alpha_channel);
    glProgramUniform1i(prog, GlPassContext::uniform(prog, "premultiply"), colour.premultiply ? 1 : 0);
    glUseProgram(prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, packed_bufs_[0]);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, packed_bufs_[1]);
  }
  void upload_tables(const PackedColour& c) {
    float t[256 + 256 + 255 + 255];
    std::copy(c.decode, c.decode + 256, t);
    std::copy(c.decode_alpha, c.decode_alpha + 256, t + 256);
    std::copy(c.encode, c.encode + 255, t + 512);
    std::copy(c.encode_alpha, c.encode_alpha + 255, t + 767);
    glNamedBufferData(packed_bufs_[1], sizeof t, t, GL_STREAM_DRAW);
  }

  // The program's schedule: its images get device objects, then each step's setup (gpu/gl/pass_table.hpp)
  // builds and binds what its passes need; `work` issues all steps' dispatches/draws in order. `path`: the
  // steps' forms, each once, in order of first use, joined by '+'.
  Status prepare(const Program& program, std::function<void()>& work, std::string& path) {
    if (Status s = validate_program(program); !s) return Status::fail("gl: " + s.error);
    if (Status s = passes_->assign_images(program); !s) return s;
    std::vector<std::function<void()>> steps;
    std::vector<std::string> forms, step_forms;
    std::vector<StepAccess> access;
    for (size_t i = 0; i < program.passes.size();) {
      const Op op = program.passes[i].op;
      const GlPassSetup setup = gl_pass(op);
      if (!setup) return Status::fail(std::string("gl: no implementation of the primitive ") + op_name(op));
      GlStep step;
      passes_->clear_scratch_texture_log();
      const int buffers_before = passes_->scratch_buffer_requests();
      if (Status s = setup(*passes_, program, i, step); !s) return s;
      StepAccess& acc = access.emplace_back();
      acc.storage = passes_->scratch_buffer_requests() != buffers_before;
      for (GLuint t : passes_->scratch_texture_log()) {  // written and read by the step
        acc.reads.push_back(t);
        acc.writes.push_back(t);
      }
      for (size_t k = i; k < i + size_t(std::max(1, step.passes)); ++k) {
        const GlImage &src = passes_->image(program.passes[k].src), &dst = passes_->image(program.passes[k].dst);
        if (src.tex) acc.reads.push_back(src.tex);
        if (dst.tex) acc.writes.push_back(dst.tex);
        acc.storage = acc.storage || src.buf || dst.buf;
      }
      if (Status s = gl_errors(fmt::format("preparing {} (pass {})", op_name(op), i)); !s) return s;
      steps.push_back(std::move(step.work));
      step_forms.push_back(step.form);
      if (std::find(forms.begin(), forms.end(), step.form) == forms.end()) forms.push_back(step.form);
      i += size_t(std::max(1, step.passes));
    }
    path.clear();
    for (const std::string& f : forms) path += (path.empty() ? "" : "+") + f;
    std::vector<GLbitfield> barriers = step_barriers(access);
    if (spdlog::should_log(spdlog::level::debug)) {
      std::string image, storage;
      for (size_t j = 1; j < barriers.size(); ++j) {
        if (barriers[j] & GL_SHADER_IMAGE_ACCESS_BARRIER_BIT) image += fmt::format(" {}", j);
        if (barriers[j] & GL_SHADER_STORAGE_BARRIER_BIT) storage += fmt::format(" {}", j);
      }
      spdlog::debug("GL steps: {}; image-access barriers before steps{}; storage barriers before steps{}",
                    barriers.size(), image.empty() ? " none" : image, storage.empty() ? " none" : storage);
    }
    if (pass_times_wanted()) {
      // A timestamp before the first step and after each (recorded when the commands before it complete; llvmpipe
      // fills them too, unlike its elapsed-time queries); read by log_pass_times after the runs.
      work = [steps = std::move(steps), barriers = std::move(barriers), step_forms = std::move(step_forms),
              pending = &pass_queries_] {
        std::vector<GLuint> q(steps.size() + 1);
        glCreateQueries(GL_TIMESTAMP, GLsizei(q.size()), q.data());
        glQueryCounter(q[0], GL_TIMESTAMP);
        for (size_t i = 0; i < steps.size(); ++i) {
          if (i) glMemoryBarrier(barriers[i]);
          steps[i]();
          glQueryCounter(q[i + 1], GL_TIMESTAMP);
        }
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        pending->push_back({std::move(q), step_forms});
      };
      return Status::success();
    }
    work = [steps = std::move(steps), barriers = std::move(barriers)] {
      for (size_t i = 0; i < steps.size(); ++i) {
        if (i) glMemoryBarrier(barriers[i]);
        steps[i]();
      }
      glMemoryBarrier(GL_ALL_BARRIER_BITS);
    };
    return Status::success();
  }

  // GPUBLUR_PASS_TIMES: one line per run of the steps' times (core/pass_times.hpp).
  void log_pass_times() {
    for (auto& [q, step_forms] : pass_queries_) {
      std::vector<GLuint64> ns(q.size(), 0);
      for (size_t i = 0; i < q.size(); ++i) glGetQueryObjectui64v(q[i], GL_QUERY_RESULT, &ns[i]);
      std::vector<std::pair<std::string, double>> times;
      for (size_t i = 0; i + 1 < q.size(); ++i) times.emplace_back(step_forms[i], double(ns[i + 1] - ns[i]) * 1e-6);
      spdlog::info("{}", pass_times_line(times));
      glDeleteQueries(GLsizei(q.size()), q.data());
    }
    pass_queries_.clear();
  }

  // The frame of run / warm_up / run_repeated: an uploaded image, the context current, the program's steps
  // prepared; `body` issues the work; then the bindings are reset and GL errors reported.
  template <typename Body>
  Status with_work(const Plan& plan, const char* doing, std::string& path, Body body) {
    if (!passes_->width() || !channels_) return Status::fail(std::string("gl: ") + doing + " before any upload");
    GlCurrent cur(*ctx_);
    if (!cur.status()) return cur.status();
    std::function<void()> work;
    if (Status s = prepare(plan.program, work, path); !s) return s;
    body(work);
    if (!pass_queries_.empty()) log_pass_times();
    glBindSampler(0, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (Status e = gl_errors(fmt::format("{} the program ({})", doing, path)); !e) return e;
    ran_ = true;
    return Status::success();
  }

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
    if (Status s = passes_->ensure_io(512, 512); !s) return s;
    Program copy;
    copy.passes.push_back(Pass{});  // Op::Copy, input -> output
    std::function<void()> work;
    std::string path;
    if (Status s = prepare(copy, work, path); !s) return s;
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
    passes_->free_sized();
    spdlog::debug("GL: {} timer ({} query bits; probe: query {:.4f} ms, host {:.4f} ms)", timer_clock(), bits,
                  query_ms, host_ms);
    return gl_errors("probing the GL timer");
  }

  std::unique_ptr<GlContext> ctx_;
  std::unique_ptr<GlPassContext> passes_;
  bool timer_query_ = false;
  // GPUBLUR_PASS_TIMES: each run's timestamp queries and its steps' forms, until log_pass_times reads them.
  std::vector<std::pair<std::vector<GLuint>, std::vector<std::string>>> pass_queries_;
  bool ran_ = false;
  int channels_ = 0;
  GLuint query_ = 0;
  GlStaging staging_;  // host -> storage buffers, and the 8-bit path's downloads
  GLuint packed_bufs_[3] = {0, 0, 0};  // the 8-bit samples, the colour tables, pack8's clip counts
  long long packed_cap_ = 0;
  // download_values' own buffer: sharing the uploads' slowed them 1.5-2x (an H100, call 433; likely the driver placing
  // a buffer the host reads back where the GPU reads it slower).
  GLuint download_buf_ = 0;
  long long download_cap_ = 0;
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
