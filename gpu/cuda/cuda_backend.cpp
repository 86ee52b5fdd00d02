// The CUDA backend: device, stream, events, device buffers, pinned staging. Kernels live in one .cu per
// method (cuda_kernels.hpp); this file only moves data and times it.
#include "gpu/cuda/cuda_backend.hpp"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur {
namespace {

using cuda::cuda_status;
using cuda::DevImage;

// Pinned staging: two chunks, so the host copy of one overlaps the DMA of the other.
constexpr size_t kChunkBytes = size_t(16) << 20;

std::string bytes_text(size_t n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%zu bytes (%.1f MiB)", n, double(n) / (1 << 20));
  return buf;
}

class CudaBackend final : public Backend {
 public:
  ~CudaBackend() override {
    cudaSetDevice(device_);
    if (stream_) cudaStreamSynchronize(stream_);
    linear_.release();
    free_buffers();
    for (int i = 0; i < 2; ++i) {
      if (pinned_[i]) cudaFreeHost(pinned_[i]);
      if (chunk_done_[i]) cudaEventDestroy(chunk_done_[i]);
    }
    if (ev0_) cudaEventDestroy(ev0_);
    if (ev1_) cudaEventDestroy(ev1_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Status init(int device) {
    device_ = device;
    Status s = cuda_status(cudaSetDevice(device), "selecting the device");
    cudaDeviceProp prop{};
    if (s) s = cuda_status(cudaGetDeviceProperties(&prop, device), "reading device properties");
    if (s) s = cuda_status(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
    if (s) s = cuda_status(cudaEventCreate(&ev0_), "creating events");
    if (s) s = cuda_status(cudaEventCreate(&ev1_), "creating events");
    for (int i = 0; i < 2 && s; ++i) {
      s = cuda_status(cudaEventCreateWithFlags(&chunk_done_[i], cudaEventDisableTiming), "creating events");
      if (s) s = cuda_status(cudaHostAlloc(&pinned_[i], kChunkBytes, cudaHostAllocDefault),
                             "allocating pinned staging memory");
    }
    if (!s) return s;
    name_ = prop.name;
    spdlog::debug("cuda: device {} '{}', {} SMs, {:.1f} GiB", device, name_, prop.multiProcessorCount,
                  double(prop.totalGlobalMem) / (1 << 30));
    return s;
  }

  std::string name() const override { return "cuda"; }
  std::string device_name() const override { return name_; }
  std::string timer_clock() const override { return "cuda-events"; }

  // Device buffers for a w x h image of c channels (input, output, intermediate), reused when big enough.
  Status reserve(int w, int h, int c) {
    if (w <= 0 || h <= 0 || c < 1 || c > 4)
      return Status::fail("CUDA: cannot hold a " + std::to_string(w) + " x " + std::to_string(h) + " x " +
                          std::to_string(c) + " image (1..4 channels, non-empty)");
    cudaSetDevice(device_);
    const int cd = c == 3 ? 4 : c;
    const size_t bytes = size_t(w) * size_t(h) * size_t(cd) * sizeof(float);
    if (bytes > capacity_) {
      free_buffers();
      for (void** p : {&d_in_, &d_out_, &d_tmp_}) {
        const cudaError_t e = cudaMalloc(p, bytes);
        if (e != cudaSuccess) {
          cudaGetLastError();  // allocation failures are not sticky; clear it
          *p = nullptr;
          free_buffers();
          size_t free_b = 0, total_b = 0;
          cudaMemGetInfo(&free_b, &total_b);
          return Status::fail("CUDA: out of device memory: a " + std::to_string(w) + " x " + std::to_string(h) +
                              " x " + std::to_string(c) + " image needs 3 device buffers of " +
                              bytes_text(bytes) + ", " + bytes_text(free_b) + " free on " + name_ + " (" +
                              cudaGetErrorString(e) + ")");
        }
      }
      capacity_ = bytes;
    }
    w_ = w;
    h_ = h;
    c_ = c;
    cd_ = cd;
    return Status::success();
  }

  Status upload(const Image& src, double& ms) override {
    ms = 0;
    if (src.data.size() != src.value_count())
      return Status::fail("CUDA: image data holds " + std::to_string(src.data.size()) + " values, expected " +
                          std::to_string(src.value_count()));
    resident_ = false;
    Status s = reserve(src.width, src.height, src.channels);
    if (!s) return s;
    ++version_;
    const size_t raw_bytes = src.byte_count();
    // 3 channels arrive raw in the output buffer and are unpacked to 4 on the device.
    char* dst = static_cast<char*>(c_ == 3 ? d_out_ : d_in_);
    cudaEventRecord(ev0_, stream_);
    const char* host = reinterpret_cast<const char*>(src.data.data());
    for (size_t off = 0, i = 0; off < raw_bytes; off += kChunkBytes, ++i) {
      const int b = int(i & 1);
      const size_t n = std::min(kChunkBytes, raw_bytes - off);
      if (!(s = cuda_status(cudaEventSynchronize(chunk_done_[b]), "waiting for a staging buffer"))) return s;
      std::memcpy(pinned_[b], host + off, n);
      if (!(s = cuda_status(cudaMemcpyAsync(dst + off, pinned_[b], n, cudaMemcpyHostToDevice, stream_),
                            "uploading")))
        return s;
      cudaEventRecord(chunk_done_[b], stream_);
    }
    if (c_ == 3 && !(s = cuda::launch_unpack3(static_cast<const float*>(d_out_), static_cast<float*>(d_in_),
                                              src.pixel_count(), stream_)))
      return s;
    cudaEventRecord(ev1_, stream_);
    if (!(s = finish("upload", ms))) return s;
    resident_ = true;
    has_output_ = false;
    return s;
  }

  Status run(const Plan& plan, RunInfo& info) override {
    info = RunInfo{};
    if (!resident_) return Status::fail("CUDA: run before upload");
    cudaSetDevice(device_);
    const DevImage in{d_in_, w_, h_, cd_}, out{d_out_, w_, h_, cd_}, tmp{d_tmp_, w_, h_, cd_};
    cudaEventRecord(ev0_, stream_);
    Status s;
    if (plan.method == "copy") {
      s = cuda::launch_copy(in, out, stream_);
      info.path = "copy-kernel";
    } else if (plan.method == "gauss-2d") {
      s = cuda::launch_gauss_2d(plan, in, out, stream_, info.path);
    } else if (plan.method == "gauss-sep") {
      s = cuda::launch_gauss_sep(plan, in, tmp, out, stream_, info.path);
    } else if (plan.method == "gauss-linear") {
      s = cuda::launch_gauss_linear(plan, in, tmp, out, version_, linear_, stream_, info.path);
    } else {
      return Status::fail("CUDA backend has no implementation of method '" + plan.method + "'");
    }
    if (!s) {
      cudaStreamSynchronize(stream_);
      return s;
    }
    cudaEventRecord(ev1_, stream_);
    s = finish(plan.method.c_str(), info.compute_ms);
    if (s) has_output_ = true;
    return s;
  }

  Status download(Image& dst, double& ms) override {
    ms = 0;
    if (!resident_) return Status::fail("CUDA: download before upload");
    if (!has_output_) return Status::fail("CUDA: download before any run");
    cudaSetDevice(device_);
    dst = Image(w_, h_, c_);
    Status s;
    cudaEventRecord(ev0_, stream_);
    // 3 channels are packed back into the intermediate buffer (the output stays resident).
    const char* src = static_cast<const char*>(d_out_);
    if (c_ == 3) {
      if (!(s = cuda::launch_pack3(static_cast<const float*>(d_out_), static_cast<float*>(d_tmp_),
                                   dst.pixel_count(), stream_)))
        return s;
      src = static_cast<const char*>(d_tmp_);
    }
    const size_t raw_bytes = dst.byte_count();
    const size_t chunks = (raw_bytes + kChunkBytes - 1) / kChunkBytes;
    char* host = reinterpret_cast<char*>(dst.data.data());
    auto issue = [&](size_t i) {
      const size_t off = i * kChunkBytes, n = std::min(kChunkBytes, raw_bytes - off);
      const cudaError_t e = cudaMemcpyAsync(pinned_[i & 1], src + off, n, cudaMemcpyDeviceToHost, stream_);
      cudaEventRecord(chunk_done_[i & 1], stream_);
      return cuda_status(e, "downloading");
    };
    for (size_t i = 0; i < std::min<size_t>(2, chunks); ++i)
      if (!(s = issue(i))) return s;
    for (size_t i = 0; i < chunks; ++i) {
      if (!(s = cuda_status(cudaEventSynchronize(chunk_done_[i & 1]), "downloading"))) return s;
      const size_t off = i * kChunkBytes, n = std::min(kChunkBytes, raw_bytes - off);
      std::memcpy(host + off, pinned_[i & 1], n);
      if (i + 2 < chunks && !(s = issue(i + 2))) return s;
      if (i + 1 == chunks) cudaEventRecord(ev1_, stream_);
    }
    return finish("download", ms);
  }

  Status fill_output(float value) {
    if (!resident_) return Status::fail("CUDA: fill before upload");
    cudaSetDevice(device_);
    Status s = cuda::launch_fill(static_cast<float*>(d_out_), size_t(w_) * h_ * cd_, value, stream_);
    if (s) s = cuda_status(cudaStreamSynchronize(stream_), "filling the output");
    if (s) has_output_ = true;
    return s;
  }

 private:
  // Waits for ev1_ and returns the ev0_ -> ev1_ time; surfaces asynchronous kernel errors.
  Status finish(const char* what, double& ms) {
    Status s = cuda_status(cudaEventSynchronize(ev1_), what);
    if (!s) return s;
    float t = 0;
    s = cuda_status(cudaEventElapsedTime(&t, ev0_, ev1_), what);
    ms = t;
    return s;
  }

  void free_buffers() {
    for (void** p : {&d_in_, &d_out_, &d_tmp_}) {
      if (*p) cudaFree(*p);
      *p = nullptr;
    }
    capacity_ = 0;
    resident_ = false;
  }

  int device_ = 0;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ev0_ = nullptr, ev1_ = nullptr;
  cudaEvent_t chunk_done_[2] = {nullptr, nullptr};
  void* pinned_[2] = {nullptr, nullptr};
  void *d_in_ = nullptr, *d_out_ = nullptr, *d_tmp_ = nullptr;
  size_t capacity_ = 0;
  int w_ = 0, h_ = 0, c_ = 0, cd_ = 0;
  bool resident_ = false, has_output_ = false;
  unsigned long long version_ = 0;
  cuda::LinearState linear_;
};

}  // namespace

bool cuda_device_present(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = cudaGetErrorString(e);
    return false;
  }
  if (n <= 0) {
    if (why) *why = "no CUDA device found";
    return false;
  }
  return true;
}

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& opts, std::string& error) {
  std::string why;
  if (!cuda_device_present(&why)) {
    error = "CUDA: no usable device: " + why;
    return nullptr;
  }
  int n = 0;
  cudaGetDeviceCount(&n);
  if (opts.device < 0 || opts.device >= n) {
    error = "--device " + std::to_string(opts.device) + " out of range (" + std::to_string(n) +
            (n == 1 ? " device)" : " devices)");
    return nullptr;
  }
  auto b = std::make_unique<CudaBackend>();
  const Status s = b->init(opts.device);
  if (!s) {
    error = "CUDA: cannot use device " + std::to_string(opts.device) + ": " + s.error;
    return nullptr;
  }
  return b;
}

Status cuda_fill_output(Backend& backend, float value) {
  auto* b = dynamic_cast<CudaBackend*>(&backend);
  if (!b) return Status::fail("cuda_fill_output: not a CUDA backend");
  return b->fill_output(value);
}

Status cuda_reserve(Backend& backend, int width, int height, int channels) {
  auto* b = dynamic_cast<CudaBackend*>(&backend);
  if (!b) return Status::fail("cuda_reserve: not a CUDA backend");
  return b->reserve(width, height, channels);
}

}  // namespace gpublur
