// The GL backend's entry points (headless EGL + OpenGL 4.5 core + GLSL), in plain C++ for the factory.
#pragma once
#include <memory>
#include <string>

#include "core/backend.hpp"

namespace gpublur {

// True when an EGL display and an OpenGL 4.5 core context can be created; `why` says why not otherwise.
bool gl_available(std::string* why = nullptr);
// Null with one clear line in `error` when EGL/GL is unusable.
std::unique_ptr<Backend> make_gl_backend(const BackendOptions& opts, std::string& error);

}  // namespace gpublur
