// Host <-> storage-buffer transfers through the pinned staging (gpu/gl/gl_staging.hpp): bytes round-trip exactly at
// sizes around the chunks' boundaries (one, two, three and more chunks, odd tails), after the staging grew, and with
// a buffer's contents changed on the GPU between the transfers.
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
  // A device buffer of `bytes` (immutable storage, as the backend's buffers are to the GPU).
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
    EXPECT_TRUE(in == out) << n << " bytes differ after the round trip";
    // The buffer holds what the upload put there (read by the driver's own path).
    std::vector<uint8_t> direct(n, 0);
    glGetNamedBufferSubData(buf_, 0, GLsizeiptr(n), direct.data());
    EXPECT_TRUE(in == direct) << n << " bytes: the buffer differs from the upload";
  }
}

// A download after the GPU changed the buffer sees the change (the copy runs after earlier commands), and an upload
// right after a download does not disturb what the download returned.
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
  EXPECT_EQ(out[n - 1], a[n - 1]);
}

}  // namespace
}  // namespace gpublur::testing
