// The CUDA backend's behaviour around the kernels: device selection errors, out-of-memory, timings,
// reported names, misuse, 3-channel round trips.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "core/random_image.hpp"
#include "cuda/cuda_test_util.hpp"

namespace gpublur::testing {
namespace {

TEST(CudaBackend, NoDeviceGivesOneClearLine) {
  std::string why;
  if (cuda_device_present(&why)) GTEST_SKIP() << "skipped: a CUDA device is present (this checks its absence)";
  EXPECT_FALSE(why.empty());
  std::string err;
  BackendOptions opts;
  EXPECT_EQ(make_cuda_backend(opts, err), nullptr);
  EXPECT_EQ(err.rfind("CUDA: no usable device: ", 0), 0u) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  std::printf("[ measured ] without a device: %s\n", err.c_str());
}

TEST(CudaBackend, DeviceOutOfRange) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  BackendOptions opts;
  opts.device = 99;
  std::string err;
  EXPECT_EQ(make_cuda_backend(opts, err), nullptr);
  EXPECT_EQ(err.rfind("--device 99 out of range (", 0), 0u) << err;
  opts.device = -1;
  EXPECT_EQ(make_cuda_backend(opts, err), nullptr);
}

TEST(CudaBackend, NamesAndClock) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  EXPECT_EQ(backend->name(), "cuda");
  EXPECT_FALSE(backend->device_name().empty());
  EXPECT_EQ(backend->timer_clock(), "cuda-events");
  std::printf("[ measured ] device: %s\n", backend->device_name().c_str());
}

// The backend asks for DRAM fetches of 128 bytes into L2 (its column passes' 64-byte strips share them).
TEST(CudaBackend, AsksForL2FetchesOf128Bytes) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  if (const char* e = std::getenv("GPUBLUR_CUDA_L2_FETCH"); e && *e)
    GTEST_SKIP() << "skipped: GPUBLUR_CUDA_L2_FETCH=" << e << " sets another size";
  size_t g = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&g, cudaLimitMaxL2FetchGranularity), cudaSuccess);
  EXPECT_EQ(g, 128u);
}

TEST(CudaBackend, OutOfMemoryIsReportedAndRecoverable) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  // 2^20 x 2^20 x 4 floats = 16 TiB per buffer: no GPU holds it.
  const Status s = cuda_reserve(*backend, 1 << 20, 1 << 20, 4);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("out of device memory"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("17592186044416 bytes"), std::string::npos) << s.error;
  std::printf("[ measured ] OOM message: %s\n", s.error.c_str());
  // The backend still works afterwards.
  const Image src = random_image(33, 17, 4, 5);
  double ms = 0;
  ASSERT_TRUE(backend->upload(src, ms).ok());
  RunInfo info;
  ASSERT_TRUE(backend->run(make_plan("copy", 1, "clamp"), info).ok());
  Image got;
  ASSERT_TRUE(backend->download(got, ms).ok());
  EXPECT_EQ(got.data, src.data);
}

TEST(CudaBackend, MisuseIsAnError) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  std::string err;
  BackendOptions opts;
  auto fresh = make_cuda_backend(opts, err);
  ASSERT_NE(fresh, nullptr) << err;
  RunInfo info;
  EXPECT_FALSE(fresh->run(make_plan("copy", 1, "clamp"), info).ok());
  Image out;
  double ms = 0;
  EXPECT_FALSE(fresh->download(out, ms).ok());
  Image bad(4, 4, 5);
  EXPECT_FALSE(fresh->upload(bad, ms).ok());
  Image lying(4, 4, 2);
  lying.data.resize(3);
  EXPECT_FALSE(fresh->upload(lying, ms).ok());
  // A refused upload after a good image's run leaves nothing to download: not that image's result.
  ASSERT_TRUE(fresh->upload(Image(4, 4, 2), ms).ok());
  ASSERT_TRUE(fresh->run(make_plan("copy", 1, "clamp"), info).ok());
  EXPECT_FALSE(fresh->upload(lying, ms).ok());
  EXPECT_FALSE(fresh->download(out, ms).ok());
  EXPECT_FALSE(fresh->run(make_plan("copy", 1, "clamp"), info).ok());
}

TEST(CudaBackend, TimesAndRoundTripAllChannelCounts) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  for (int c = 1; c <= 4; ++c) {
    // Larger than one 16 MiB staging chunk, so the chunked pipeline is exercised.
    const Image src = random_image(1500, 1100, c, 40u + c);
    double up = -1, down = -1;
    ASSERT_TRUE(backend->upload(src, up).ok());
    ASSERT_TRUE(cuda_fill_output(*backend, NAN).ok());
    RunInfo info;
    ASSERT_TRUE(backend->run(make_plan("copy", 1, "clamp"), info).ok());
    Image got;
    ASSERT_TRUE(backend->download(got, down).ok());
    EXPECT_EQ(got.data, src.data) << c << " channels";
    // Into a host image of as many values in another shape: its buffer kept (shape_for_download), every value set.
    Image other(1100, 1500, c);
    for (float& v : other.data) v = NAN;
    const float* buffer = other.data.data();
    ASSERT_TRUE(backend->download(other, down).ok());
    EXPECT_EQ(other.data.data(), buffer);
    EXPECT_EQ(other.width, 1500);
    EXPECT_EQ(other.height, 1100);
    EXPECT_EQ(other.data, src.data) << c << " channels";
    EXPECT_GT(up, 0.0);
    EXPECT_GT(down, 0.0);
    EXPECT_GT(info.compute_ms, 0.0);
    // Runs repeat on the resident input (bench): a second run gives the same result.
    ASSERT_TRUE(backend->run(make_plan("gauss-sep", 2, "mirror"), info).ok());
    Image a, b;
    ASSERT_TRUE(backend->download(a, down).ok());
    ASSERT_TRUE(backend->run(make_plan("gauss-sep", 2, "mirror"), info).ok());
    ASSERT_TRUE(backend->download(b, down).ok());
    EXPECT_EQ(a.data, b.data);
  }
}

}  // namespace
}  // namespace gpublur::testing
