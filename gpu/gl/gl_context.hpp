// A headless OpenGL 4.5 core context through EGL: no window system, no surface.
// Display order: EGL_EXT_platform_device (hardware devices first, software ones last), then Mesa's
// surfaceless platform, then EGL_DEFAULT_DISPLAY.
#pragma once
#include <memory>
#include <string>

#include "core/status.hpp"

namespace gpublur {

class GlContext {
 public:
  // Null with one line in `error` ("GL: no usable EGL display: ...") when no context can be made.
  // `device` indexes the EGL devices that initialise (hardware first).
  static std::unique_ptr<GlContext> create(int device, std::string& error);
  ~GlContext();
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;

  // Makes the context current on the calling thread (the pipeline may call from any one thread at a time).
  Status make_current();
  // Releases it from the calling thread, so another thread can take it.
  void release();

  const std::string& renderer() const { return renderer_; }  // GL_RENDERER
  const std::string& source() const { return source_; }      // which EGL platform/device, for logs

 private:
  GlContext() = default;
  void* display_ = nullptr;
  void* context_ = nullptr;
  std::string renderer_, source_;
};

// Keeps `ctx` current for one backend call and releases it at scope end.
class GlCurrent {
 public:
  explicit GlCurrent(GlContext& ctx) : ctx_(ctx), status_(ctx.make_current()) {}
  ~GlCurrent() {
    if (status_.ok()) ctx_.release();
  }
  const Status& status() const { return status_; }

 private:
  GlContext& ctx_;
  Status status_;
};

}  // namespace gpublur
