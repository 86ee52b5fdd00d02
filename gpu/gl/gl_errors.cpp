#include "gpu/gl/gl_errors.hpp"

#include <glad/gl.h>

#include <fmt/format.h>

namespace gpublur {

std::string gl_error_text() {
  std::string errs;
  for (GLenum e; (e = glGetError()) != GL_NO_ERROR;) {
    errs += errs.empty() ? "" : ", ";
    errs += e == GL_OUT_OF_MEMORY ? "out of GPU memory" : fmt::format("GL error 0x{:04x}", e);
  }
  return errs;
}

}  // namespace gpublur
