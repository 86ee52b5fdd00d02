// The CUDA backend: device, stream, events, device buffers, pinned staging. It runs a plan's program of
// passes (core/program.hpp) through the pass table (pass_table.hpp; kernels in passes/<primitive>.cu): the
// program's intermediate images live in device buffers kept across runs, assigned by lifetime so that images
// whose passes are over share one. This file only moves data, allocates and times.
#include "gpu/cuda/cuda_backend.hpp"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "core/pass_times.hpp"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/nvml_throttle.hpp"
#include "gpu/cuda/pass_table.hpp"

namespace gpublur {
namespace {

using cuda::cuda_status;
using cuda::DevImage;

// Pinned staging: two chunks, so the host copy of one overlaps the DMA of the other; at most this large.
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
    fft_.release();
    free_buffers();
    for (Buffer& b : slots_) b.free();
    scratch_.free();
    clip_counts_.free();
    for (int i = 0; i < 2; ++i) {
      if (pinned_[i]) cudaFreeHost(pinned_[i]);
      if (chunk_done_[i]) cudaEventDestroy(chunk_done_[i]);
    }
    for (cudaEvent_t e : pass_events_) cudaEventDestroy(e);
    if (ev0_) cudaEventDestroy(ev0_);
    if (ev1_) cudaEventDestroy(ev1_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Status init(int device) {
    device_ = device;
    // Cold start (issue 12 point 7): each step's time at debug level (-v); the pinned staging is not made here
    // but at the first upload, sized to it (two 16 MiB cudaHostAlloc calls are milliseconds that a small image
    // never needs).
    using clock = std::chrono::steady_clock;
    auto t = clock::now();
    auto lap = [&t] {
      const auto now = clock::now();
      const double ms = std::chrono::duration<double, std::milli>(now - t).count();
      t = now;
      return ms;
    };
    Status s = cuda_status(cudaSetDevice(device), "selecting the device");
    if (s) s = cuda_status(cudaFree(nullptr), "creating the context");  // the context, made here, not later
    const double context_ms = lap();
    if (s) set_l2_fetch();
    cudaDeviceProp prop{};
    if (s) s = cuda_status(cudaGetDeviceProperties(&prop, device), "reading device properties");
    const double query_ms = lap();
    if (s) s = cuda_status(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
    if (s) s = cuda_status(cudaEventCreate(&ev0_), "creating events");
    if (s) s = cuda_status(cudaEventCreate(&ev1_), "creating events");
    for (int i = 0; i < 2 && s; ++i)
      s = cuda_status(cudaEventCreateWithFlags(&chunk_done_[i], cudaEventDisableTiming), "creating events");
    if (!s) return s;
    name_ = prop.name;
    spdlog::debug("cuda: device {} '{}', {} SMs, {:.1f} GiB; start-up ms: context {:.1f}, properties {:.1f}, "
                  "stream and events {:.1f}",
                  device, name_, prop.multiProcessorCount, double(prop.totalGlobalMem) / (1 << 30), context_ms,
                  query_ms, lap());
    return s;
  }

  // DRAM fetches into L2 of 128 bytes (the driver's own is 64). The column passes read strips of 64 bytes a row
  // (box, integral), whose neighbours' halves then come from L2: on an H100 box 4096^2 RGBA at sigma 48 0.436 ->
  // 0.416 ms, at 100 0.475 -> 0.450; cuFFT's passes gain 2-5%, nothing measured lost more than its runs' spread
  // (docs/performance.md, "L2 fetches of 128 bytes"). GPUBLUR_CUDA_L2_FETCH=N sets another size (0: the driver's
  // own), for the bench's A/B. A driver that refuses the hint only leaves it: speed, not results.
  void set_l2_fetch() {
    size_t before = 0;
    cudaDeviceGetLimit(&before, cudaLimitMaxL2FetchGranularity);
    long want = 128;
    if (const char* e = std::getenv("GPUBLUR_CUDA_L2_FETCH"); e && *e) want = std::strtol(e, nullptr, 10);
    if (want > 0 && cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, size_t(want)) != cudaSuccess) {
      cudaGetLastError();  // not sticky; cleared so that the next call does not report it
      spdlog::debug("cuda: L2 fetch granularity {} refused by the driver", want);
    }
    size_t now = 0;
    cudaDeviceGetLimit(&now, cudaLimitMaxL2FetchGranularity);
    spdlog::debug("cuda: L2 fetch granularity {} bytes (the driver's {})", now, before);
  }

  std::string name() const override { return "cuda"; }
  std::string device_name() const override { return name_; }
  std::string timer_clock() const override { return "cuda-events"; }
  bool throttle_ms(double& power_ms, double& thermal_ms) override {
    return cuda::nvml_throttle_ms(device_, power_ms, thermal_ms);
  }

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
      // Intermediates and scratch were sized for the smaller image: give their memory back first.
      for (Buffer& b : slots_) b.free();
      scratch_.free();
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
    if (Status st = reserve_pinned(bytes); !st) return st;
    w_ = w;
    h_ = h;
    c_ = c;
    cd_ = cd;
    return Status::success();
  }

  // The two pinned staging chunks, made at the first upload and grown with the images up to kChunkBytes: a
  // small image's cold start allocates (and pins) kilobytes, not 32 MiB. Powers of two from 64 KiB, so a
  // folder of growing images reallocates a few times at most.
  Status reserve_pinned(size_t image_bytes) {
    size_t want = size_t(64) << 10;
    while (want < std::min(image_bytes, kChunkBytes)) want *= 2;
    if (want <= chunk_bytes_) return Status::success();
    for (int i = 0; i < 2; ++i) {
      if (!pinned_[i]) continue;
      cudaEventSynchronize(chunk_done_[i]);  // a chunk may still be in flight
      cudaFreeHost(pinned_[i]);
      pinned_[i] = nullptr;
    }
    chunk_bytes_ = 0;
    for (int i = 0; i < 2; ++i)
      if (Status st = cuda_status(cudaHostAlloc(&pinned_[i], want, cudaHostAllocDefault),
                                  "allocating pinned staging memory");
          !st)
        return st;
    chunk_bytes_ = want;
    return Status::success();
  }

  Status upload(const Image& src, double& ms) override {
    ms = 0;
    resident_ = false;  // a refused upload leaves nothing to run or download, not the last image
    if (src.data.size() != src.value_count())
      return Status::fail("CUDA: image data holds " + std::to_string(src.data.size()) + " values, expected " +
                          std::to_string(src.value_count()));
    Status s = start_upload(src.width, src.height, src.channels);
    if (!s) return s;
    const size_t raw_bytes = src.byte_count();
    // 3 channels arrive raw in the output buffer and are unpacked to 4 on the device.
    char* dst = static_cast<char*>(c_ == 3 ? d_out_ : d_in_);
    if (!(s = stage_up(reinterpret_cast<const char*>(src.data.data()), dst, raw_bytes))) return s;
    if (c_ == 3 && !(s = cuda::launch_unpack3(static_cast<const float*>(d_out_), static_cast<float*>(d_in_),
                                              src.pixel_count(), stream_)))
      return s;
    return end_upload(ms);
  }

  Status run(const Plan& plan, RunInfo& info) override {
    info = RunInfo{};
    const auto entered = std::chrono::steady_clock::now();
    if (!resident_) return Status::fail("CUDA: run before upload");
    cudaSetDevice(device_);
    const Program& prog = plan.program;
    // Everything host-side before the timed section: checks, the images, scratch.
    if (Status s = validate_program(prog); !s) return Status::fail("CUDA: " + s.error);
    for (const Pass& pass : prog.passes)
      if (!cuda::cuda_pass(pass.op))
        return Status::fail(std::string("CUDA backend has no implementation of the primitive ") + op_name(pass.op));
    Status s = prepare_images(prog);
    if (!s) return s;
    cuda::PassContext ctx{prog, images_, stream_, version_, linear_, nullptr, 0};
    ctx.fft = &fft_;
    size_t scratch = 0;
    for (size_t i = 0; i < prog.passes.size(); ++i)
      if (const cuda::PassEntry* e = cuda::cuda_pass(prog.passes[i].op); e->scratch)
        scratch = std::max(scratch, e->scratch(ctx, i));
    if (scratch > 0 && !(s = scratch_.ensure(scratch, "scratch for line buffers", name_))) return s;
    ctx.scratch = scratch_.p;
    ctx.scratch_bytes = scratch_.cap;

    const bool per_pass = pass_times_wanted();
    std::vector<std::string> paths;
    info.prepare_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - entered).count();
    cudaEventRecord(ev0_, stream_);
    for (size_t i = 0; i < prog.passes.size();) {
      int consumed = 1;
      std::string path;
      s = cuda::cuda_pass(prog.passes[i].op)->run(ctx, i, consumed, path);
      if (!s) {
        cudaStreamSynchronize(stream_);
        return s;
      }
      info.path += (info.path.empty() ? "" : "+") + path;
      i += size_t(std::max(consumed, 1));
      if (per_pass) {
        if (pass_events_.size() <= paths.size()) {
          cudaEvent_t e = nullptr;
          if (!(s = cuda_status(cudaEventCreate(&e), "creating events"))) return s;
          pass_events_.push_back(e);
        }
        cudaEventRecord(pass_events_[paths.size()], stream_);
        paths.push_back(path);
      }
    }
    cudaEventRecord(ev1_, stream_);
    s = finish("running the program", info.compute_ms);
    if (s) has_output_ = true;
    if (s && per_pass) {
      std::vector<std::pair<std::string, double>> times;
      for (size_t k = 0; k < paths.size(); ++k) {
        float t = 0;
        cudaEventElapsedTime(&t, k ? pass_events_[k - 1] : ev0_, pass_events_[k]);
        times.emplace_back(paths[k], t);
      }
      spdlog::info("{}", pass_times_line(times));
    }
    return s;
  }

  Status download(Image& dst, double& ms) override {
    ms = 0;
    if (!resident_) return Status::fail("CUDA: download before upload");
    if (!has_output_) return Status::fail("CUDA: download before any run");
    cudaSetDevice(device_);
    Status s;
    cudaEventRecord(ev0_, stream_);
    shape_for_download(dst, w_, h_, c_);  // any new allocation in the download's span, as GL's
    // 3 channels are packed back into the intermediate buffer (the output stays resident).
    const char* src = static_cast<const char*>(d_out_);
    if (c_ == 3) {
      if (!(s = cuda::launch_pack3(static_cast<const float*>(d_out_), static_cast<float*>(d_tmp_),
                                   dst.pixel_count(), stream_)))
        return s;
      src = static_cast<const char*>(d_tmp_);
    }
    if (!(s = stage_down(src, reinterpret_cast<char*>(dst.data.data()), dst.byte_count()))) return s;
    return finish("download", ms);
  }

  // The file's 8-bit samples cross the bus (a quarter of float32's bytes) into the intermediate buffer and are
  // decoded, premultiplied and spread to the device's channels there (packed.cu).
  bool prefers_packed() const override { return true; }

  Status upload_packed(const PackedImage& src, const PackedColour& colour, double& ms) override {
    ms = 0;
    resident_ = false;  // as upload()
    if (src.samples.size() != src.value_count())
      return Status::fail("CUDA: 8-bit image holds " + std::to_string(src.samples.size()) + " samples, expected " +
                          std::to_string(src.value_count()));
    Status s = start_upload(src.width, src.height, src.channels);
    if (!s) return s;
    if (!(s = stage_up(reinterpret_cast<const char*>(src.samples.data()), static_cast<char*>(d_tmp_),
                       src.samples.size())))
      return s;
    if (!(s = cuda::launch_unpack8(static_cast<const unsigned char*>(d_tmp_), static_cast<float*>(d_in_),
                                   size_t(w_) * h_, c_, cd_, colour, stream_)))
      return s;
    return end_upload(ms);
  }

  Status download_packed(PackedImage& dst, const PackedColour& colour, double& ms) override {
    ms = 0;
    if (!resident_) return Status::fail("CUDA: download before upload");
    if (!has_output_) return Status::fail("CUDA: download before any run");
    cudaSetDevice(device_);
    Status s;
    cudaEventRecord(ev0_, stream_);
    dst.width = w_, dst.height = h_, dst.channels = c_;
    dst.samples.resize(dst.value_count());
    if (!(s = clip_counts_.ensure(4 * sizeof(unsigned long long), "the 8-bit pack's counts", name_))) return s;
    auto* counts = static_cast<unsigned long long*>(clip_counts_.p);
    if (!(s = cuda::launch_pack8(static_cast<const float*>(d_out_), static_cast<unsigned char*>(d_tmp_),
                                 size_t(w_) * h_, c_, cd_, colour, counts, stream_)))
      return s;
    if (!(s = stage_down(static_cast<const char*>(d_tmp_), reinterpret_cast<char*>(dst.samples.data()),
                         dst.samples.size())))
      return s;
    if (!(s = finish("download", ms))) return s;
    unsigned long long n[4] = {0, 0, 0, 0};
    if (!(s = cuda_status(cudaMemcpy(n, counts, sizeof n, cudaMemcpyDeviceToHost), "the 8-bit pack's counts")))
      return s;
    dst.clipped.below = n[0], dst.clipped.above = n[1], dst.clipped.nan = n[2], dst.clipped.hidden = n[3];
    return s;
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
  // Every upload: buffers for the new image (nothing resident until it is done), then the timed section.
  // The upload's time starts before the buffers are (re)allocated for a new shape: the device waits on the host
  // meanwhile, so the events' span holds the allocation (it was in no stage of the report).
  Status start_upload(int w, int h, int c) {
    resident_ = false;
    cudaSetDevice(device_);
    cudaEventRecord(ev0_, stream_);
    Status s = reserve(w, h, c);
    if (!s) return s;
    ++version_;
    return s;
  }
  Status end_upload(double& ms) {
    cudaEventRecord(ev1_, stream_);
    Status s = finish("upload", ms);
    if (!s) return s;
    resident_ = true;
    has_output_ = false;
    return s;
  }

  // Host memory -> device through the two pinned staging buffers, chunk by chunk, on the stream.
  Status stage_up(const char* host, char* dev, size_t bytes) {
    Status s;
    for (size_t off = 0, i = 0; off < bytes; off += chunk_bytes_, ++i) {
      const int b = int(i & 1);
      const size_t n = std::min(chunk_bytes_, bytes - off);
      if (!(s = cuda_status(cudaEventSynchronize(chunk_done_[b]), "waiting for a staging buffer"))) return s;
      std::memcpy(pinned_[b], host + off, n);
      if (!(s = cuda_status(cudaMemcpyAsync(dev + off, pinned_[b], n, cudaMemcpyHostToDevice, stream_),
                            "uploading")))
        return s;
      cudaEventRecord(chunk_done_[b], stream_);
    }
    return s;
  }

  // Device -> host memory the same way; records ev1_ after the last chunk.
  Status stage_down(const char* dev, char* host, size_t bytes) {
    Status s;
    const size_t chunks = (bytes + chunk_bytes_ - 1) / chunk_bytes_;
    auto issue = [&](size_t i) {
      const size_t off = i * chunk_bytes_, n = std::min(chunk_bytes_, bytes - off);
      const cudaError_t e = cudaMemcpyAsync(pinned_[i & 1], dev + off, n, cudaMemcpyDeviceToHost, stream_);
      cudaEventRecord(chunk_done_[i & 1], stream_);
      return cuda_status(e, "downloading");
    };
    for (size_t i = 0; i < std::min<size_t>(2, chunks); ++i)
      if (!(s = issue(i))) return s;
    for (size_t i = 0; i < chunks; ++i) {
      if (!(s = cuda_status(cudaEventSynchronize(chunk_done_[i & 1]), "downloading"))) return s;
      const size_t off = i * chunk_bytes_, n = std::min(chunk_bytes_, bytes - off);
      std::memcpy(host + off, pinned_[i & 1], n);
      if (i + 2 < chunks && !(s = issue(i + 2))) return s;
    }
    cudaEventRecord(ev1_, stream_);
    return s;
  }

  // Waits for ev1_ and returns the ev0_ -> ev1_ time; surfaces asynchronous kernel errors.
  Status finish(const char* what, double& ms) {
    Status s = cuda_status(cudaEventSynchronize(ev1_), what);
    if (!s) return s;
    float t = 0;
    s = cuda_status(cudaEventElapsedTime(&t, ev0_, ev1_), what);
    ms = t;
    return s;
  }

  // A device buffer that only grows (kept across runs).
  struct Buffer {
    void* p = nullptr;
    size_t cap = 0;
    void free() {
      if (p) cudaFree(p);
      p = nullptr;
      cap = 0;
    }
    Status ensure(size_t bytes, const std::string& what, const std::string& device) {
      if (bytes <= cap) return Status::success();
      free();
      const cudaError_t e = cudaMalloc(&p, bytes);
      if (e == cudaSuccess) {
        cap = bytes;
        return Status::success();
      }
      cudaGetLastError();  // allocation failures are not sticky; clear it
      p = nullptr;
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      return Status::fail("CUDA: out of device memory: " + what + " needs " + bytes_text(bytes) + ", " +
                          bytes_text(free_b) + " free on " + device + " (" + cudaGetErrorString(e) + ")");
    }
  };

  // images_[i] for the program: 0 and 1 the resident input and output, 2.. intermediates in slots assigned by
  // lifetime (first pass touching it .. last pass touching it, plus one pass: a schedule may run a pass with
  // the next one in one kernel, so an image is reused only once two passes have gone by). The first slot is
  // the third resident buffer when the image fits it (the separable pair's intermediate always does).
  Status prepare_images(const Program& prog) {
    const size_t n = prog.images.size();
    images_.assign(n, cuda::DevImage{});
    images_[0] = cuda::DevImage{d_in_, w_, h_, cd_};
    images_[1] = cuda::DevImage{d_out_, w_, h_, cd_};
    images_[0].image_channels = images_[1].image_channels = c_;
    if (n <= 2) return Status::success();
    std::vector<int> first(n, -1), last(n, -1);
    for (size_t j = 0; j < prog.passes.size(); ++j)
      for (int k : {prog.passes[j].src, prog.passes[j].dst}) {
        if (first[size_t(k)] < 0) first[size_t(k)] = int(j);
        last[size_t(k)] = int(j);
      }
    std::vector<int> slot_of(n, -1), slot_free_from;  // a slot is free for images first used at >= that pass
    std::vector<size_t> slot_need;
    std::vector<size_t> order;  // intermediates by first use
    for (size_t k = 2; k < n; ++k) {
      const ImageDecl& d = prog.images[k];
      int iw = 0, ih = 0;
      image_size(prog, int(k), w_, h_, iw, ih);
      cuda::DevImage& im = images_[k];
      im.width = iw, im.height = ih, im.channels = cd_, im.pad = d.pad, im.f64 = d.f64, im.image_channels = c_;
      if (first[k] >= 0) order.push_back(k);  // else declared, never used
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return first[a] < first[b]; });
    for (size_t k : order) {
      int slot = -1;
      for (size_t q = 0; q < slot_free_from.size() && slot < 0; ++q)
        if (slot_free_from[q] <= first[k]) slot = int(q);
      if (slot < 0) {
        slot = int(slot_free_from.size());
        slot_free_from.push_back(0);
        slot_need.push_back(0);
      }
      slot_of[k] = slot;
      slot_free_from[size_t(slot)] = last[k] + 2;
      slot_need[size_t(slot)] = std::max(slot_need[size_t(slot)], images_[k].bytes());
    }
    if (slots_.size() < slot_need.size()) slots_.resize(slot_need.size());
    for (int attempt = 0; attempt < 2; ++attempt) {
      Status s;
      for (size_t q = 0; q < slot_need.size() && s; ++q) {
        if (q == 0 && slot_need[q] <= capacity_) continue;
        std::string what = "intermediate image";
        for (size_t k = 2; k < n; ++k)
          if (slot_of[k] == int(q)) {
            const cuda::DevImage& im = images_[k];
            what += " " + std::to_string(k) + " (" + std::to_string(im.stride()) + " x " + std::to_string(im.rows()) +
                    " x " + std::to_string(im.channels) + (im.f64 ? " float64)" : " float32)");
          }
        s = slots_[q].ensure(slot_need[q], what, name_);
      }
      if (s) break;
      if (attempt == 1) return s;
      // Buffers kept for earlier programs may hold the memory: give them all back and try once more.
      for (Buffer& b : slots_) b.free();
      scratch_.free();
    }
    for (size_t k = 2; k < n; ++k)
      if (slot_of[k] >= 0) {
        const size_t q = size_t(slot_of[k]);
        images_[k].data = q == 0 && slot_need[q] <= capacity_ ? d_tmp_ : slots_[q].p;
      }
    return Status::success();
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
  size_t chunk_bytes_ = 0;  // each pinned chunk's size (reserve_pinned)
  std::vector<cudaEvent_t> pass_events_;  // GPUBLUR_PASS_TIMES: one after each pass
  void *d_in_ = nullptr, *d_out_ = nullptr, *d_tmp_ = nullptr;
  size_t capacity_ = 0;
  int w_ = 0, h_ = 0, c_ = 0, cd_ = 0;
  bool resident_ = false, has_output_ = false;
  unsigned long long version_ = 0;
  cuda::LinearState linear_;
  cuda::FftState fft_;
  std::vector<Buffer> slots_;  // intermediate images
  Buffer scratch_;
  Buffer clip_counts_;  // download_packed's counts of values clipped or dropped (ClipCounts' four)
  std::vector<cuda::DevImage> images_;
};

}  // namespace

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

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
  const auto t0 = std::chrono::steady_clock::now();
  if (!cuda_device_present(&why)) {
    error = "CUDA: no usable device: " + why;
    return nullptr;
  }
  // The first runtime call initialises the driver (cuInit): on a cold process, most of the start-up.
  spdlog::debug("cuda: driver initialised in {:.1f} ms",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
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
