// GLSL sources from shaders/, embedded into the binary at build time (gpu/gl/embed_shaders.cmake).
#pragma once
#include <map>
#include <string>

namespace gpublur {

// File name (e.g. "conv1d.comp") -> source text.
const std::map<std::string, std::string>& embedded_shaders();

}  // namespace gpublur
