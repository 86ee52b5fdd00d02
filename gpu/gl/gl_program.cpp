#include "gpu/gl/gl_program.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <glad/gl.h>
#include <spdlog/spdlog.h>

#include "gpu/gl/shaders.hpp"

namespace gpublur {
namespace {

std::string info_log(GLuint object, bool is_program) {
  GLint len = 0;
  if (is_program)
    glGetProgramiv(object, GL_INFO_LOG_LENGTH, &len);
  else
    glGetShaderiv(object, GL_INFO_LOG_LENGTH, &len);
  std::string log(size_t(len > 1 ? len : 1), '\0');
  if (is_program)
    glGetProgramInfoLog(object, len, nullptr, log.data());
  else
    glGetShaderInfoLog(object, len, nullptr, log.data());
  log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  return log.empty() ? "(the driver gave no log)" : log;
}

}  // namespace

Status shader_file(const std::string& file, unsigned stage, ShaderSource& out) {
  // GPUBLUR_GL_SHADER_DIR=DIR: a file of that name there replaces the embedded one (for measuring shader forms on
  // the GPU machine without a build there; the shader caches key on the source, so a changed file recompiles).
  if (const char* dir = std::getenv("GPUBLUR_GL_SHADER_DIR"); dir && *dir) {
    if (std::ifstream f(std::string(dir) + "/" + file); f) {
      std::ostringstream text;
      text << f.rdbuf();
      out = ShaderSource{stage, file, text.str()};
      return Status::success();
    }
  }
  const auto& all = embedded_shaders();
  auto it = all.find(file);
  if (it == all.end()) return Status::fail("GL: shader '" + file + "' is not embedded in this binary");
  out = ShaderSource{stage, file, it->second};
  return Status::success();
}

Status build_program(const std::vector<ShaderSource>& stages, const std::string& defines, bool with_common,
                     unsigned& program) {
  program = 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::string common;
  if (with_common) {
    ShaderSource c;
    if (Status s = shader_file("common.glsl", 0, c); !s) return s;
    common = c.text;
  }
  const std::string header = "#version 450 core\n" + defines + "\n";
  std::vector<GLuint> shaders;
  auto cleanup = [&] {
    for (GLuint s : shaders) glDeleteShader(s);
  };
  for (const ShaderSource& st : stages) {
    const std::string common_part = with_common ? "#line 1 1\n" + common + "\n" : std::string();
    const std::string body = "#line 1 2\n" + st.text;
    const char* parts[] = {header.c_str(), common_part.c_str(), body.c_str()};
    GLuint sh = glCreateShader(st.stage);
    shaders.push_back(sh);
    glShaderSource(sh, 3, parts, nullptr);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
      const std::string log = info_log(sh, false);
      cleanup();
      return Status::fail("GL: shader " + st.file + " failed to compile (log lines count within each piece; " +
                          "source 0 = #defines, " + (with_common ? "1 = common.glsl, " : "") + "2 = " + st.file +
                          " where the driver prints source numbers): " + log);
    }
  }
  GLuint prog = glCreateProgram();
  for (GLuint s : shaders) glAttachShader(prog, s);
  glLinkProgram(prog);
  GLint ok = 0;
  glGetProgramiv(prog, GL_LINK_STATUS, &ok);
  cleanup();
  if (!ok) {
    std::string files;
    for (const ShaderSource& st : stages) files += (files.empty() ? "" : " + ") + st.file;
    const std::string log = info_log(prog, true);
    glDeleteProgram(prog);
    return Status::fail("GL: program " + files + " failed to link: " + log);
  }
  program = prog;
  // A build the drivers' shader cache answers takes a few milliseconds; a fresh compile, hundreds.
  spdlog::debug("GL: built {} in {:.1f} ms", stages.empty() ? std::string("?") : stages.back().file,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  return Status::success();
}

}  // namespace gpublur
