// GLSL program building: sources from shaders/ (embedded), a #version/#define header, compile and link
// errors reported with the shader's file name and the driver's log.
#pragma once
#include <string>
#include <vector>

#include "core/status.hpp"

namespace gpublur {

// One shader stage: its file name (for messages) and its text (without #version).
struct ShaderSource {
  unsigned stage = 0;  // GL_COMPUTE_SHADER, GL_VERTEX_SHADER, GL_FRAGMENT_SHADER
  std::string file;
  std::string text;
};

// Compiles each stage as: "#version 450 core" + `defines` + shaders/common.glsl (when with_common) + the
// stage's text, each piece introduced by `#line 1 N` (N = 0 header, 1 common.glsl, 2 the file) so driver
// logs name lines by source number; messages spell out which number is which file.
// Requires a current GL context. On success `program` holds the linked program.
Status build_program(const std::vector<ShaderSource>& stages, const std::string& defines, bool with_common,
                     unsigned& program);

// Looks a shaders/ file up by name; fails naming the file if it was not embedded.
Status shader_file(const std::string& file, unsigned stage, ShaderSource& out);

}  // namespace gpublur
