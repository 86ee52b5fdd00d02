#include "gpu/gl/gl_staging.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "gpu/gl/gl_errors.hpp"

namespace gpublur {

namespace {

// A fence's wait: at most this long in all (a GPU that takes longer has hung or been lost).
constexpr GLuint64 kWaitStepNs = 1000000000ull;
constexpr int kWaitSteps = 60;

// Why an allocation or mapping failed: the GL errors queued (an earlier call's among them, if any was left).
Status staging_failure(const char* what) {
  const std::string errs = gl_error_text();
  return Status::fail(std::string("GL: ") + what + " failed" + (errs.empty() ? "" : ": " + errs));
}

}  // namespace

void GlStaging::release() {
  for (int b = 0; b < 2; ++b) {
    if (fences_[b]) glDeleteSync(fences_[b]);
    fences_[b] = nullptr;
    if (maps_[b]) glUnmapNamedBuffer(bufs_[b]);  // (a buffer whose mapping failed has none to undo)
    if (bufs_[b]) glDeleteBuffers(1, &bufs_[b]);
    bufs_[b] = 0, maps_[b] = nullptr;
  }
  chunk_ = 0;
}

// Powers of two from 64 KiB up to kChunkBytes, grown with the images (as CUDA's reserve_pinned): a small image pins
// kilobytes, a folder of growing images reallocates a few times at most.
Status GlStaging::reserve(size_t bytes) {
  size_t want = size_t(64) << 10;
  while (want < std::min(bytes, kChunkBytes)) want *= 2;
  if (want <= chunk_) return Status::success();
  if (Status s = wait_all(); !s) return s;
  release();
  constexpr GLbitfield kMap = GL_MAP_READ_BIT | GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
  glCreateBuffers(2, bufs_);
  for (int b = 0; b < 2; ++b) {
    glNamedBufferStorage(bufs_[b], GLsizeiptr(want), nullptr, kMap | GL_CLIENT_STORAGE_BIT);
    // Null where the storage or the mapping failed; a success leaves the GL error queue as it was.
    maps_[b] = glMapNamedBufferRange(bufs_[b], 0, GLsizeiptr(want), kMap);
    if (!maps_[b]) {
      const Status s = staging_failure("allocating the staging buffers");
      release();
      return s;
    }
  }
  chunk_ = want;
  return Status::success();
}

// Until the GPU is done with staging buffer b (its last copy), then its fence is gone.
Status GlStaging::wait(int b) {
  if (!fences_[b]) return Status::success();
  GLenum r = GL_TIMEOUT_EXPIRED;
  for (int i = 0; i < kWaitSteps && r == GL_TIMEOUT_EXPIRED; ++i)
    r = glClientWaitSync(fences_[b], GL_SYNC_FLUSH_COMMANDS_BIT, kWaitStepNs);
  glDeleteSync(fences_[b]);
  fences_[b] = nullptr;
  if (r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED) return Status::success();
  release();  // (a copy may still be queued on these buffers: none of them is reused)
  return Status::fail(r == GL_TIMEOUT_EXPIRED ? "GL: a transfer did not finish in 60 s"
                                              : "GL: waiting for a transfer failed");
}

Status GlStaging::wait_all() {
  for (int b = 0; b < 2; ++b)
    if (Status s = wait(b); !s) return s;
  return Status::success();
}

Status GlStaging::upload(const void* host, GLuint buf, size_t bytes) {
  if (bytes == 0) return Status::success();
  if (Status s = reserve(bytes); !s) return s;
  const char* src = static_cast<const char*>(host);
  for (size_t off = 0, i = 0; off < bytes; off += chunk_, ++i) {
    const int b = int(i & 1);
    const size_t n = std::min(chunk_, bytes - off);
    if (Status s = wait(b); !s) return s;  // (its last chunk copied out)
    std::memcpy(maps_[b], src + off, n);
    glCopyNamedBufferSubData(bufs_[b], buf, 0, GLintptr(off), GLsizeiptr(n));
    fences_[b] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glFlush();  // (the GPU starts this chunk while the host fills the other)
  }
  return Status::success();
}

Status GlStaging::download(GLuint buf, size_t bytes, void* host) {
  if (bytes == 0) return Status::success();
  if (Status s = reserve(bytes); !s) return s;
  char* dst = static_cast<char*>(host);
  const size_t chunks = (bytes + chunk_ - 1) / chunk_;
  auto issue = [&](size_t i) {
    const int b = int(i & 1);
    const size_t off = i * chunk_, n = std::min(chunk_, bytes - off);
    glCopyNamedBufferSubData(buf, bufs_[b], GLintptr(off), 0, GLsizeiptr(n));
    fences_[b] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  };
  // An upload's chunks done first: their fences are free for the copies below (and so not leaked by issue()).
  if (Status s = wait_all(); !s) return s;
  for (size_t i = 0; i < std::min<size_t>(2, chunks); ++i) issue(i);
  glFlush();
  for (size_t i = 0; i < chunks; ++i) {
    const int b = int(i & 1);
    if (Status s = wait(b); !s) return s;
    const size_t off = i * chunk_, n = std::min(chunk_, bytes - off);
    std::memcpy(dst + off, maps_[b], n);
    if (i + 2 < chunks) {
      issue(i + 2);
      glFlush();
    }
  }
  return Status::success();
}

}  // namespace gpublur
