// Host <-> storage-buffer transfers through the pinned staging (gpu/gl/gl_staging.hpp): bytes round-trip exactly at
// sizes around the chunks' boundaries (one, two, three and more chunks, odd tails), after the staging grew, with a
// buffer's contents changed on the GPU between the transfers, and behind a slow dispatch (where the GPU runs behind
// the host, a missing wait for a staging buffer shows; llvmpipe runs each copy at once, so there only a GPU tells).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpu/gl/gl_context.hpp"
#include "gpu/gl/gl_staging.hpp"
#include "tests/gl/gl_test_util.hpp"

namespace gpublur::testing {
namespace {

class GlStagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ctx_ = GlContext::create(0, error);
    GPUBLUR_GL_OR_SKIP(ctx_, error);
    ASSERT_TRUE(ctx_->make_current().ok());
  }
  void TearDown() override {
    if (!ctx_) return;
    staging_.release();
    if (buf_) glDeleteBuffers(1, &buf_);
    ctx_->release();
  }
  // A device buffer of `bytes` (glNamedBufferData, as the backend's).
  void make_buffer(size_t bytes) {
    if (buf_) glDeleteBuffers(1, &buf_);
    glCreateBuffers(1, &buf_);
    glNamedBufferData(buf_, GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW);
    ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
  }
  std::unique_ptr<GlContext> ctx_;
  GlStaging staging_;
  GLuint buf_ = 0;
};

std::vector<uint8_t> random_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

TEST_F(GlStagingTest, RoundTripsEverySize) {
  const size_t chunk = GlStaging::kChunkBytes;
  // Growing sizes: the staging starts at 64 KiB and grows up to its chunk; then two, three and five chunks.
  const size_t sizes[] = {1, 3, 4096, (64 << 10) - 1, (64 << 10) + 1, 1 << 20, chunk - 7, chunk, chunk + 1,
                          2 * chunk + 5, 3 * chunk, 5 * chunk - 3, 100};
  make_buffer(5 * chunk);
  unsigned seed = 1;
  for (const size_t n : sizes) {
    const std::vector<uint8_t> in = random_bytes(n, seed++);
    ASSERT_TRUE(staging_.upload(in.data(), buf_, n).ok()) << n;
    std::vector<uint8_t> out(n, 0);
    ASSERT_TRUE(staging_.download(buf_, n, out.data()).ok()) << n;
    ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR)) << n;
    EXPECT_TRUE(in == out) << n << " bytes differ after the round trip";
    // The buffer holds what the upload put there (read by the driver's own path).
    std::vector<uint8_t> direct(n, 0);
    glGetNamedBufferSubData(buf_, 0, GLsizeiptr(n), direct.data());
    EXPECT_TRUE(in == direct) << n << " bytes: the buffer differs from the upload";
  }
}

// A download after the GPU changed the buffer sees the change (the copy runs after earlier commands), and an upload
// right after a download lands whole.
TEST_F(GlStagingTest, SeesTheGpusWritesInOrder) {
  const size_t n = 2 * GlStaging::kChunkBytes + 12;
  make_buffer(n);
  const std::vector<uint8_t> a = random_bytes(n, 7);
  ASSERT_TRUE(staging_.upload(a.data(), buf_, n).ok());
  const uint32_t fill = 0xa5a5a5a5u;
  glClearNamedBufferSubData(buf_, GL_R32UI, 0, GLsizeiptr(n / 2 / 4 * 4), GL_RED_INTEGER, GL_UNSIGNED_INT, &fill);
  std::vector<uint8_t> out(n, 0);
  ASSERT_TRUE(staging_.download(buf_, n, out.data()).ok());
  for (size_t i = 0; i < n; ++i) {
    const uint8_t want = i < n / 2 / 4 * 4 ? uint8_t(0xa5) : a[i];
    ASSERT_EQ(out[i], want) << "byte " << i;
  }
  const std::vector<uint8_t> b = random_bytes(n, 8);
  ASSERT_TRUE(staging_.upload(b.data(), buf_, n).ok());
  std::vector<uint8_t> out2(n, 0);
  ASSERT_TRUE(staging_.download(buf_, n, out2.data()).ok());
  EXPECT_TRUE(out2 == b);
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// A compute program that writes `value` into v[0, count) after `iters` steps of a chain no compiler can drop: a few
// groups kept busy for milliseconds on a GPU, so that the copies queued behind it run well after the host moves on.
GLuint slow_program() {
  static const char* src = R"(#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { uint v[]; };
uniform uint iters;
uniform uint value;
uniform uint count;
void main() {
  uint x = gl_GlobalInvocationID.x;
  uint acc = x;
  for (uint i = 0u; i < iters; ++i) acc = acc * 1664525u + 1013904223u;
  if (x < count) v[x] = (acc == 0xffffffffu && iters == 7u) ? 0u : value;
}
)";
  const GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(sh, 1, &src, nullptr);
  glCompileShader(sh);
  const GLuint prog = glCreateProgram();
  glAttachShader(prog, sh);
  glLinkProgram(prog);
  glDeleteShader(sh);
  GLint ok = 0;
  glGetProgramiv(prog, GL_LINK_STATUS, &ok);
  return ok ? prog : 0;
}

void run_slow(GLuint prog, GLuint buf, uint32_t value, uint32_t count) {
  const bool llvmpipe = std::string(reinterpret_cast<const char*>(glGetString(GL_RENDERER))).find("llvmpipe") !=
                        std::string::npos;
  glUseProgram(prog);
  glUniform1ui(glGetUniformLocation(prog, "iters"), llvmpipe ? 1000u : 4000000u);  // (GPUs: about 10 ms)
  glUniform1ui(glGetUniformLocation(prog, "value"), value);
  glUniform1ui(glGetUniformLocation(prog, "count"), count);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
  glDispatchCompute((count + 63) / 64, 1, 1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glFlush();
}

// Behind a slow dispatch: an upload of three chunks and more reuses staging buffer 0 for its third chunk only once
// the GPU has copied the first out of it; a download reads each staging buffer only once its copy is done.
TEST_F(GlStagingTest, WaitsForTheGpuBehindASlowDispatch) {
  const GLuint prog = slow_program();
  ASSERT_NE(prog, 0u);
  const size_t n = 3 * GlStaging::kChunkBytes + 20;
  make_buffer(n);
  GLuint other = 0;
  glCreateBuffers(1, &other);
  glNamedBufferData(other, 4096, nullptr, GL_STREAM_DRAW);
  const std::vector<uint8_t> a = random_bytes(n, 11);
  ASSERT_TRUE(staging_.reserve(n).ok());
  run_slow(prog, other, 1u, 1024u);  // (another buffer: the GPU busy, the upload's copies queued behind it)
  ASSERT_TRUE(staging_.upload(a.data(), buf_, n).ok());
  std::vector<uint8_t> out(n, 0);
  ASSERT_TRUE(staging_.download(buf_, n, out.data()).ok());
  EXPECT_TRUE(out == a) << "the upload behind a slow dispatch differs";
  // The slow dispatch writes this buffer's first 4 KiB; the download's copies wait behind it.
  const uint32_t value = 0x5a5a1234u;
  run_slow(prog, buf_, value, 1024u);
  ASSERT_TRUE(staging_.download(buf_, n, out.data()).ok());
  for (size_t i = 0; i < n; ++i) {
    const uint8_t want = i < 4096 ? uint8_t(value >> (8 * (i % 4))) : a[i];
    ASSERT_EQ(out[i], want) << "byte " << i;
  }
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
  glUseProgram(0);
  glDeleteProgram(prog);
  glDeleteBuffers(1, &other);
}

}  // namespace
}  // namespace gpublur::testing
