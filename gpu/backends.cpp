// Maps backend names to the backends compiled into this binary. "auto": CUDA where a device is present,
// else GL where an EGL/GL 4.5 context can be made on a GPU (not a software renderer), else the CPU reference.
#include "core/backend.hpp"
#include "core/reference/reference.hpp"
#if GPUBLUR_WITH_CUDA
#include "gpu/cuda/cuda_backend.hpp"
#endif
#if GPUBLUR_WITH_GL
#include "gpu/gl/gl_backend.hpp"
#include "gpu/gl/shader_cache.hpp"
#endif

#include <spdlog/spdlog.h>

namespace gpublur {

std::string compiled_backends() {
  std::string s = "cpu";
#if GPUBLUR_WITH_CUDA
  s += ", cuda";
#endif
#if GPUBLUR_WITH_GL
  s += ", gl";
#endif
  return s;
}

std::string backend_not_compiled(const std::string& name) {
  bool missing = false;
#if !GPUBLUR_WITH_CUDA
  missing = missing || name == "cuda";
#endif
#if !GPUBLUR_WITH_GL
  missing = missing || name == "gl";
#endif
  return missing ? "backend '" + name + "' is not compiled into this binary (built with: " + compiled_backends() + ")"
                 : "";
}

void prepare_backend_environment(const std::string& name) {
#if GPUBLUR_WITH_GL
  if (name == "gl" || name == "auto") prepare_gl_shader_cache();
#else
  (void)name;
#endif
}

int backend_device_count(const std::string& name) {
#if GPUBLUR_WITH_CUDA
  if (name == "cuda") return cuda_device_count();
#endif
  return name == "cuda" ? 0 : 1;
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& opts, std::string& error) {
  error.clear();
  if (name == "cpu") return make_cpu_backend(opts);
  if (name == "cuda") {
#if GPUBLUR_WITH_CUDA
    return make_cuda_backend(opts, error);
#else
    error = backend_not_compiled("cuda");
    return nullptr;
#endif
  }
  if (name == "gl") {
#if GPUBLUR_WITH_GL
    return make_gl_backend(opts, error);
#else
    error = backend_not_compiled("gl");
    return nullptr;
#endif
  }
  if (name == "auto") {
    // Each in turn; one that is there but does not start (a GL without compute shaders) is said and passed over.
#if GPUBLUR_WITH_CUDA
    if (cuda_device_present()) {
      if (auto b = make_cuda_backend(opts, error)) return b;
      spdlog::warn("auto: a CUDA device is present but its backend did not start ({}); trying the next", error);
      error.clear();
    }
#endif
#if GPUBLUR_WITH_GL
    std::string why;
    if (gl_available(&why)) {
      if (auto b = make_gl_backend(opts, error)) {
        // A software rasterizer is no GPU: on the same cores the cpu backend ran 2.6-8x faster (llvmpipe, eight
        // 256^2 RGBA PNGs at sigma 8, docs/cli.md). `-b gl` still runs it.
        const std::string dev = b->device_name();
        if (dev.find("llvmpipe") == std::string::npos && dev.find("softpipe") == std::string::npos &&
            dev.find("SwiftShader") == std::string::npos)
          return b;
        spdlog::info("auto: GL is a software renderer ({}); the cpu backend runs (-b gl runs it)", dev);
      } else {
        spdlog::warn("auto: a GL context was made but the GL backend did not start ({}); the cpu backend runs", error);
        error.clear();
      }
    } else {
      spdlog::debug("auto: no GL ({}); the cpu backend runs", why);
    }
#endif
    return make_cpu_backend(opts);
  }
  error = "unknown backend '" + name + "' (choose auto, cpu, cuda or gl)";
  return nullptr;
}

}  // namespace gpublur
