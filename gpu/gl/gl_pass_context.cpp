#include "gpu/gl/gl_pass_context.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpu/gl/gl_errors.hpp"
#include "gpu/gl/gl_program.hpp"
#include "gpu/gl/gl_tuning.hpp"

namespace gpublur {
namespace {

// Sampler wrap mode for each border mode (core/border.hpp); zero also needs a zero border colour.
GLenum wrap_mode(Border b) {
  switch (b) {
    case Border::Clamp: return GL_CLAMP_TO_EDGE;
    case Border::Mirror: return GL_MIRRORED_REPEAT;
    case Border::Wrap: return GL_REPEAT;
    default: return GL_CLAMP_TO_BORDER;
  }
}

}  // namespace

GlPassContext::~GlPassContext() {
  free_sized();
  for (auto& [key, prog] : programs_) glDeleteProgram(prog);
  for (auto& [name, buf] : buffers_) glDeleteBuffers(1, &buf);
  glDeleteVertexArrays(1, &vao_);
  glDeleteSamplers(4, samplers_);
}

void GlPassContext::abandon() {
  io_[0] = io_[1] = 0;
  pool_.clear();
  images_.clear();
  programs_.clear();
  buffers_.clear();
  scratch_buffers_.clear();
  scratch_textures_.clear();
  fbos_.clear();
  vao_ = 0;
  for (GLuint& s : samplers_) s = 0;
}

Status GlPassContext::init(const std::string& renderer) {
  limits_.renderer = renderer;
  glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &limits_.max_shared);
  glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &limits_.max_invocations);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &limits_.max_texture);
  glGetIntegerv(GL_MAX_UNIFORM_BLOCK_SIZE, &limits_.max_ubo);
  GLint viewport[2] = {0, 0}, fb_w = 0, fb_h = 0;
  glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
  glGetIntegerv(GL_MAX_FRAMEBUFFER_WIDTH, &fb_w);
  glGetIntegerv(GL_MAX_FRAMEBUFFER_HEIGHT, &fb_h);
  limits_.max_draw_w = std::min(viewport[0], fb_w);
  limits_.max_draw_h = std::min(viewport[1], fb_h);
  GLint64 ssbo = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &ssbo);
  limits_.max_ssbo = ssbo;
  limits_.llvmpipe = renderer.find("llvmpipe") != std::string::npos;
  tile_h_ = sep_tile(0, limits_.max_shared, limits_.max_invocations);
  tile_v_ = sep_tile(1, limits_.max_shared, limits_.max_invocations);
  if (tile_h_.offsets_per_round() < tile_h_.per || tile_v_.offsets_per_round() < tile_v_.per)
    return Status::fail(fmt::format("GL: {} has too little compute shared memory ({} bytes)", renderer,
                                    limits_.max_shared));
  glCreateVertexArrays(1, &vao_);
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
  const std::string errs = gl_error_text();
  return errs.empty() ? Status::success() : Status::fail("GL: setting up objects failed: " + errs);
}

void GlPassContext::free_sized() {
  glDeleteTextures(2, io_);
  io_[0] = io_[1] = 0;
  for (auto& [key, texs] : pool_) {
    if (std::get<0>(key))
      glDeleteBuffers(GLsizei(texs.size()), texs.data());
    else
      glDeleteTextures(GLsizei(texs.size()), texs.data());
  }
  pool_.clear();
  images_.clear();
  for (auto& [name, b] : scratch_buffers_) glDeleteBuffers(1, &b.first);
  scratch_buffers_.clear();
  for (auto& [name, t] : scratch_textures_) glDeleteTextures(1, &t);
  scratch_textures_.clear();
  for (auto& [tex, fbo] : fbos_) glDeleteFramebuffers(1, &fbo);
  fbos_.clear();
  width_ = height_ = 0;
}

// Textures start as NaN so that a pass that writes nothing cannot pass for a result.
Status GlPassContext::make_texture(int w, int h, GLenum format, GLuint& out, const std::string& what) {
  out = 0;
  if (w > limits_.max_texture || h > limits_.max_texture)
    return Status::fail(fmt::format("GL: {} of {}x{} exceeds the GL texture limit {} on {}", what, w, h,
                                    limits_.max_texture, limits_.renderer));
  glCreateTextures(GL_TEXTURE_2D, 1, &out);
  glTextureStorage2D(out, 1, format, w, h);
  tex_sizes_[out] = {w, h};
  glTextureParameteri(out, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(out, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  const float nan[4] = {NAN, NAN, NAN, NAN};
  glClearTexImage(out, 0, GL_RGBA, GL_FLOAT, nan);
  const std::string errs = gl_error_text();
  if (errs.empty()) return Status::success();
  glDeleteTextures(1, &out);
  out = 0;
  return Status::fail(fmt::format("GL: allocating {} ({}x{}) failed: {}", what, w, h, errs));
}

GLenum GlPassContext::store_format() const {
  if (channels_ == 1) return half_ ? GL_R16F : GL_R32F;
  if (channels_ == 2) return half_ ? GL_RG16F : GL_RG32F;
  return half_ ? GL_RGBA16F : GL_RGBA32F;
}

const char* GlPassContext::store_format_name() const {
  if (channels_ == 1) return half_ ? "R16F" : "R32F";
  if (channels_ == 2) return half_ ? "RG16F" : "RG32F";
  return half_ ? "RGBA16F" : "RGBA32F";
}

const char* GlPassContext::store_format_glsl() const {
  if (channels_ == 1) return half_ ? "r16f" : "r32f";
  if (channels_ == 2) return half_ ? "rg16f" : "rg32f";
  return half_ ? "rgba16f" : "rgba32f";
}

Status GlPassContext::ensure_io(int w, int h) {
  if (w == width_ && h == height_ && io_[0] && io_format_ == store_format()) return Status::success();
  free_sized();
  for (int i = 0; i < 2; ++i) {
    if (Status s = make_texture(w, h, store_format(), io_[i],
                                fmt::format("the {} {} texture", i ? "output" : "input", store_format_name()));
        !s) {
      free_sized();
      return s;
    }
  }
  width_ = w, height_ = h;
  io_format_ = store_format();
  return Status::success();
}

Status GlPassContext::assign_images(const Program& p) {
  const int n = int(p.images.size());
  images_.assign(size_t(n), GlImage{});
  for (int i = 0; i < n && i < 2; ++i) {
    GlImage& im = images_[size_t(i)];
    im.tex = io_[i];
    im.w = width_, im.h = height_;
  }
  // Lifetimes: the first and last pass that reads or writes each image. An image that pass k reads lives through
  // pass k + 1 as well: a step may run passes k and k + 1 as one dispatch (the fused separable and resampling
  // pairs), which must not write its output into the texture it is still reading.
  const int npass = int(p.passes.size());
  std::vector<int> first(size_t(n), -1), last(size_t(n), -1);
  for (int k = 0; k < npass; ++k)
    for (int i : {p.passes[size_t(k)].src, p.passes[size_t(k)].dst}) {
      if (first[size_t(i)] < 0) first[size_t(i)] = k;
      last[size_t(i)] = std::max(last[size_t(i)], i == p.passes[size_t(k)].src ? std::min(k + 1, npass - 1) : k);
    }
  std::map<std::tuple<bool, int, int>, size_t> next;  // pool entries taken, per key
  std::map<std::tuple<bool, int, int>, std::vector<GLuint>> released;
  for (int k = 0; k < npass; ++k) {
    for (int i = 2; i < n; ++i) {
      if (first[size_t(i)] != k) continue;
      GlImage& im = images_[size_t(i)];
      const ImageDecl& d = p.images[size_t(i)];
      image_size(p, i, width_, height_, im.w, im.h);
      im.pad = d.pad, im.f64 = d.f64;
      const auto key = std::make_tuple(d.f64, im.stored_w(), im.stored_h());
      GLuint obj = 0;
      if (auto& free = released[key]; !free.empty()) {
        obj = free.back();
        free.pop_back();
      } else {
        std::vector<GLuint>& pool = pool_[key];
        size_t& taken = next[key];
        if (taken == pool.size()) {
          // Named for the user: the method's padded intermediate, which may outgrow a limit the image itself meets
          // (docs/cli.md, "Sizes": the cpu backend has none).
          const std::string what = fmt::format("the method's intermediate image {}{}, padded by {} a side for its "
                                               "reach,", i, d.f64 ? " (float64)" : "", d.pad);
          if (d.f64) {
            const long long bytes = 32LL * im.stored_w() * im.stored_h();
            if (bytes > limits_.max_ssbo)
              return Status::fail(fmt::format("GL: {} needs {} bytes, over GL_MAX_SHADER_STORAGE_BLOCK_SIZE {} on {}",
                                              what, bytes, limits_.max_ssbo, limits_.renderer));
            glCreateBuffers(1, &obj);
            glNamedBufferStorage(obj, GLsizeiptr(bytes), nullptr, 0);
            if (const std::string errs = gl_error_text(); !errs.empty()) {
              glDeleteBuffers(1, &obj);
              return Status::fail(fmt::format("GL: allocating {} ({} bytes) failed: {}", what, bytes, errs));
            }
          } else if (Status s = make_texture(im.stored_w(), im.stored_h(), store_format(), obj, what); !s) {
            return s;
          }
          pool.push_back(obj);
        }
        obj = pool[taken++];
      }
      (d.f64 ? im.buf : im.tex) = obj;
    }
    for (int i = 2; i < n; ++i)
      if (last[size_t(i)] == k) {
        const GlImage& im = images_[size_t(i)];
        released[std::make_tuple(im.f64, im.stored_w(), im.stored_h())].push_back(im.f64 ? im.buf : im.tex);
      }
  }
  return Status::success();
}

Status GlPassContext::program(const std::vector<std::pair<std::string, GLenum>>& files, const std::string& defines,
                              GLuint& out, bool unroll_by_default) {
  const std::string all_defines =
      (unroll_pragma(unroll_by_default) ? "#pragma optionNV(unroll all)\n" : "") + defines;
  std::string key = std::string(store_format_glsl()) + "|" + all_defines;
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
  const std::string format = std::string("#define STORE_FORMAT ") + store_format_glsl() + "\n";
  if (Status st = build_program(stages, format + all_defines, true, out); !st) return st;
  programs_[key] = out;
  dump_binary(out, key);
  return Status::success();
}

GLuint GlPassContext::buffer(const std::string& name) {
  GLuint& b = buffers_[name];
  if (!b) glCreateBuffers(1, &b);
  return b;
}

Status GlPassContext::scratch_buffer(const std::string& name, long long bytes, GLuint& out) {
  ++scratch_buffer_requests_;
  bytes = std::max(bytes, 16LL);
  if (bytes > limits_.max_ssbo)
    return Status::fail(fmt::format("GL: {} needs {} bytes, over GL_MAX_SHADER_STORAGE_BLOCK_SIZE {} on {}", name,
                                    bytes, limits_.max_ssbo, limits_.renderer));
  auto& entry = scratch_buffers_[name];
  if (entry.first && entry.second >= bytes) {
    out = entry.first;
    return Status::success();
  }
  glDeleteBuffers(1, &entry.first);
  glCreateBuffers(1, &entry.first);
  glNamedBufferStorage(entry.first, GLsizeiptr(bytes), nullptr, 0);
  entry.second = bytes;
  if (const std::string errs = gl_error_text(); !errs.empty()) {
    glDeleteBuffers(1, &entry.first);
    scratch_buffers_.erase(name);
    return Status::fail(fmt::format("GL: allocating {} ({} bytes) failed: {}", name, bytes, errs));
  }
  out = entry.first;
  return Status::success();
}

Status GlPassContext::scratch_texture(const std::string& name, int w, int h, GLenum format, GLuint& out) {
  if (auto it = scratch_textures_.find(name); it != scratch_textures_.end()) {
    GLint tw = 0, th = 0, tf = 0;
    glGetTextureLevelParameteriv(it->second, 0, GL_TEXTURE_WIDTH, &tw);
    glGetTextureLevelParameteriv(it->second, 0, GL_TEXTURE_HEIGHT, &th);
    glGetTextureLevelParameteriv(it->second, 0, GL_TEXTURE_INTERNAL_FORMAT, &tf);
    if (tw == w && th == h && GLenum(tf) == format) {
      out = it->second;
      scratch_log_.push_back(out);
      return Status::success();
    }
    glDeleteTextures(1, &it->second);
    scratch_textures_.erase(it);
  }
  if (Status s = make_texture(w, h, format, out, name); !s) return s;
  scratch_textures_[name] = out;
  scratch_log_.push_back(out);
  return Status::success();
}

Status GlPassContext::framebuffer(GLuint tex, GLuint& fbo) {
  if (auto it = fbos_.find(tex); it != fbos_.end()) {
    fbo = it->second;
    return Status::success();
  }
  glCreateFramebuffers(1, &fbo);
  glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0, tex, 0);
  const GLenum st = glCheckNamedFramebufferStatus(fbo, GL_FRAMEBUFFER);
  if (st != GL_FRAMEBUFFER_COMPLETE) {
    glDeleteFramebuffers(1, &fbo);
    fbo = 0;
    return Status::fail(fmt::format("GL: {} render targets are not complete on {} (status 0x{:04x})",
                                    store_format_name(), limits_.renderer, st));
  }
  fbos_[tex] = fbo;
  return Status::success();
}

void GlPassContext::bind_src(GLuint prog, GLuint tex) const {
  glBindTextureUnit(0, tex);
  auto loc = src_size_uniform_.find(prog);
  if (loc == src_size_uniform_.end()) loc = src_size_uniform_.emplace(prog, uniform(prog, "gpublur_src_size")).first;
  if (loc->second < 0) return;
  int w = 0, h = 0;
  if (const auto size = tex_sizes_.find(tex); size != tex_sizes_.end()) {
    std::tie(w, h) = size->second;
  } else {  // not one of make_texture's: ask the driver (a state query, no wait on the GPU)
    glGetTextureLevelParameteriv(tex, 0, GL_TEXTURE_WIDTH, &w);
    glGetTextureLevelParameteriv(tex, 0, GL_TEXTURE_HEIGHT, &h);
  }
  glProgramUniform2i(prog, loc->second, w, h);
}

void GlPassContext::bind_io(GLuint prog, GLuint in, GLuint out) const {
  glUseProgram(prog);
  bind_src(prog, in);
  glBindImageTexture(0, out, 0, GL_FALSE, 0, GL_WRITE_ONLY, store_format());
}

void GlPassContext::dispatch_sampled(GLuint prog, GLuint sampler, GLuint in, GLuint out, int out_w,
                                     int out_h) const {
  glBindSampler(0, sampler);
  bind_io(prog, in, out);
  glDispatchCompute(groups(out_w, 16), groups(out_h, 16), 1);
  glBindSampler(0, 0);
}

RowChunks::RowChunks(GLuint prog, const char* begin_name, const char* end_name)
    : begin(glGetUniformLocation(prog, begin_name)),
      end(glGetUniformLocation(prog, end_name)),
      resume(glGetUniformLocation(prog, "resume")),
      last(glGetUniformLocation(prog, "last")) {}

void RowChunks::dispatch(GLuint prog, int total, int rows, GLuint gx, GLuint gy, GLbitfield barrier) const {
  for (int b = 0; b < total; b += rows) {
    const int e = std::min(total, b + rows);
    glProgramUniform1i(prog, begin, b);
    glProgramUniform1i(prog, end, e);
    glProgramUniform1i(prog, resume, b > 0);
    glProgramUniform1i(prog, last, e == total);
    glDispatchCompute(gx, gy, 1);
    if (e < total) glMemoryBarrier(barrier);
  }
}

}  // namespace gpublur
