// The memory barriers between the steps of a GL schedule (gl_backend.cpp). Internal to gpu/gl.
#pragma once

#include <glad/gl.h>

#include <vector>

namespace gpublur {

// The textures a step reads and writes (its passes' sources and outputs, its scratch textures among both);
// `storage`: it reads or writes storage buffers (float64 images, scratch buffers).
struct StepAccess {
  std::vector<GLuint> reads, writes;
  bool storage = false;
};

// The barrier before each step (the first one's is unused): kStepBarrier, plus
// GL_SHADER_IMAGE_ACCESS_BARRIER_BIT where the step's image stores must wait for earlier accesses and
// GL_SHADER_STORAGE_BARRIER_BIT where the step uses storage buffers.
std::vector<GLbitfield> step_barriers(const std::vector<StepAccess>& steps);

}  // namespace gpublur
