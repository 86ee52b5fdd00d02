// Host <-> GL buffer transfers through two persistently mapped, coherent staging buffers in client storage (pinned
// host memory the GPU copies to and from), chunk by chunk so that the host's copy of one chunk overlaps the GPU's copy
// of the other: as CUDA's pinned staging (cuda_backend.cpp). Measured against the driver's glNamedBufferSubData /
// glGetNamedBufferSubData in docs/performance.md "GL transfers through pinned staging". Internal to gpu/gl; every
// call needs the context current.
#pragma once

#include <glad/gl.h>

#include <cstddef>

#include "core/status.hpp"

namespace gpublur {

class GlStaging {
 public:
  // At most this much a staging buffer (two of them).
  static constexpr size_t kChunkBytes = size_t(16) << 20;

  GlStaging() = default;
  GlStaging(const GlStaging&) = delete;
  GlStaging& operator=(const GlStaging&) = delete;

  // The staging for transfers of `bytes` (grown as needed); fails, leaving none, where the driver cannot allocate or
  // map client storage (the caller may then use the driver's copies).
  Status reserve(size_t bytes);
  // Host bytes into `buf` from offset 0. The copies are queued before any later command, which reads them in order.
  // GL errors are left to the caller's check; a failed wait for the GPU fails the call.
  Status upload(const void* host, GLuint buf, size_t bytes);
  // `buf`'s first `bytes` into host memory; shader writes to `buf` need GL_BUFFER_UPDATE_BARRIER_BIT first.
  Status download(GLuint buf, size_t bytes, void* host);
  // The buffers and fences (the context current); the destructor leaves them to the context.
  void release();

 private:
  Status wait(int b);
  Status wait_all();

  GLuint bufs_[2] = {0, 0};
  void* maps_[2] = {nullptr, nullptr};
  GLsync fences_[2] = {nullptr, nullptr};
  size_t chunk_ = 0;
};

}  // namespace gpublur
