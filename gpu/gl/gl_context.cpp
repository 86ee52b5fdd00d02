#include "gpu/gl/gl_context.hpp"

#include <glad/egl.h>
#include <glad/gl.h>

#include <cstring>
#include <mutex>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "gpu/gl/shader_cache.hpp"

namespace gpublur {
namespace {

bool has_ext(const char* list, const char* name) {
  if (!list) return false;
  const size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

std::string egl_error_text(EGLint e) {
  switch (e) {
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    default: return fmt::format("EGL error 0x{:x}", e);
  }
}

// The EGL library is loaded once per process; the display list is queried through its client extensions.
bool load_egl(std::string& why) {
  static std::once_flag once;
  static int version = 0;
  std::call_once(once, [] { version = gladLoaderLoadEGL(EGL_NO_DISPLAY); });
  if (!version) why = "cannot load libEGL.so.1 (is libegl1 / glvnd installed?)";
  return version != 0;
}

struct Candidate {
  EGLDisplay display;
  std::string source;
};

// Initialised displays in preference order. Devices that fail eglInitialize are skipped.
std::vector<Candidate> displays(std::string& notes) {
  std::vector<Candidate> out, software;
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto get_platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  auto try_init = [&](EGLDisplay d, const std::string& what) {
    if (d == EGL_NO_DISPLAY) {
      notes += fmt::format(" {}: no display;", what);
      return false;
    }
    EGLint major = 0, minor = 0;
    if (!eglInitialize(d, &major, &minor)) {
      notes += fmt::format(" {}: eglInitialize failed ({});", what, egl_error_text(eglGetError()));
      return false;
    }
    return true;
  };
  if (has_ext(client, "EGL_EXT_platform_device") && get_platform_display) {
    auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto query_device_string =
        reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
    EGLint n = 0;
    if (query_devices && query_devices(0, nullptr, &n) && n > 0) {
      std::vector<EGLDeviceEXT> devs(static_cast<size_t>(n));
      query_devices(n, devs.data(), &n);
      for (EGLint i = 0; i < n; ++i) {
        const char* ext = query_device_string ? query_device_string(devs[size_t(i)], EGL_EXTENSIONS) : nullptr;
        const bool soft = has_ext(ext, "EGL_MESA_device_software");
        const std::string what = fmt::format("EGL device {}{}", i, soft ? " (software)" : "");
        EGLDisplay d = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devs[size_t(i)], nullptr);
        if (try_init(d, what)) (soft ? software : out).push_back({d, what});
      }
    } else {
      notes += " EGL_EXT_platform_device: no devices;";
    }
  } else {
    notes += " no EGL_EXT_platform_device;";
  }
  out.insert(out.end(), software.begin(), software.end());
  if (has_ext(client, "EGL_MESA_platform_surfaceless") && get_platform_display) {
    EGLDisplay d = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (try_init(d, "Mesa surfaceless platform")) out.push_back({d, "Mesa surfaceless platform"});
  }
  EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (try_init(d, "EGL_DEFAULT_DISPLAY")) out.push_back({d, "EGL_DEFAULT_DISPLAY"});
  return out;
}

// An OpenGL 4.5 core context with no surface on `d`, or null with the reason appended to `notes`.
EGLContext make_context(EGLDisplay d, const std::string& what, std::string& notes) {
  gladLoaderLoadEGL(d);  // display extensions (e.g. EGL_KHR_no_config_context)
  const char* ext = eglQueryString(d, EGL_EXTENSIONS);
  if (!has_ext(ext, "EGL_KHR_surfaceless_context")) {
    notes += fmt::format(" {}: no EGL_KHR_surfaceless_context;", what);
    return EGL_NO_CONTEXT;
  }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    notes += fmt::format(" {}: eglBindAPI(OpenGL) failed ({});", what, egl_error_text(eglGetError()));
    return EGL_NO_CONTEXT;
  }
  EGLConfig config = EGL_NO_CONFIG_KHR;
  if (!has_ext(ext, "EGL_KHR_no_config_context") && !has_ext(ext, "EGL_MESA_configless_context")) {
    const EGLint want[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_NONE};
    EGLint count = 0;
    if (!eglChooseConfig(d, want, &config, 1, &count) || count < 1) {
      notes += fmt::format(" {}: no OpenGL config;", what);
      return EGL_NO_CONTEXT;
    }
  }
  const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext c = eglCreateContext(d, config, EGL_NO_CONTEXT, attribs);
  if (c == EGL_NO_CONTEXT)
    notes += fmt::format(" {}: no OpenGL 4.5 core context ({});", what, egl_error_text(eglGetError()));
  return c;
}

}  // namespace

std::unique_ptr<GlContext> GlContext::create(int device, std::string& error) {
  error.clear();
  prepare_gl_shader_cache();  // before the drivers load (a no-op where the CLI did it already)
  std::string why;
  if (!load_egl(why)) {
    error = "GL: no usable EGL display: " + why;
    return nullptr;
  }
  std::string notes;
  std::vector<Candidate> cands = displays(notes);
  // --device N picks among the displays that initialised; the fallbacks count after the devices.
  if (device < 0 || device >= int(cands.size())) {
    std::string listed;  // every usable display by its --device number, not the first alone
    for (size_t i = 0; i < cands.size(); ++i) listed += fmt::format("{}{}: {}", i ? ", " : "", i, cands[i].source);
    error = cands.empty() ? "GL: no usable EGL display:" + notes
                          : fmt::format("GL: no usable EGL display: --device {} requested, {} usable ({})", device,
                                        cands.size(), listed);
    if (!error.empty() && error.back() == ';') error.pop_back();
    return nullptr;
  }
  // Try the requested display, then the others after it (e.g. software fallbacks).
  for (size_t i = size_t(device); i < cands.size(); ++i) {
    EGLContext c = make_context(cands[i].display, cands[i].source, notes);
    if (c == EGL_NO_CONTEXT) continue;
    if (!eglMakeCurrent(cands[i].display, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
      notes += fmt::format(" {}: eglMakeCurrent failed ({});", cands[i].source, egl_error_text(eglGetError()));
      eglDestroyContext(cands[i].display, c);
      continue;
    }
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress)) || !GLAD_GL_VERSION_4_5) {
      notes += fmt::format(" {}: OpenGL 4.5 entry points missing;", cands[i].source);
      eglMakeCurrent(cands[i].display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(cands[i].display, c);
      continue;
    }
    if (i != size_t(device))
      spdlog::warn("GL: EGL display {} gave no context, using {} instead", device, cands[i].source);
    std::unique_ptr<GlContext> ctx(new GlContext);
    ctx->display_ = cands[i].display;
    ctx->context_ = c;
    const GLubyte* r = glGetString(GL_RENDERER);
    ctx->renderer_ = r ? reinterpret_cast<const char*>(r) : "unknown";
    ctx->source_ = cands[i].source;
    spdlog::debug("GL: {} via {}", ctx->renderer_, ctx->source_);
    ctx->release();
    return ctx;
  }
  error = "GL: no usable EGL display:" + notes;
  if (error.back() == ';') error.pop_back();
  return nullptr;
}

GlContext::~GlContext() {
  // The display stays initialised: other contexts in the process may share it (eglTerminate is global).
  if (context_) {
    if (eglGetCurrentContext() == context_) eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display_, context_);
  }
}

Status GlContext::make_current() {
  if (eglGetCurrentContext() == context_) return Status::success();
  if (!eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_))
    return Status::fail("GL: cannot make the context current on this thread (" +
                        egl_error_text(eglGetError()) + "; is another thread using it?)");
  return Status::success();
}

void GlContext::release() { eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT); }

}  // namespace gpublur
