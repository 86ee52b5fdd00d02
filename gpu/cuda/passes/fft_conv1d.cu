// fft-conv1d: FftConv1d (Conv1d's function by FFT) through cuFFT: per chunk of lines a gather of the
// border-extended lines into a real buffer, one batched R2C transform, a pointwise multiply by the kernel's
// bins (core/fft.hpp: spectrum scaled by 1/N), one batched C2R back into the real buffer, a scatter of the
// line's outputs (index math: fft_layout.hpp). Transform lengths are 7-smooth (cuFFT's fast sizes); wrap runs
// natively where the line's length is one. Plans (per layout, length and batch) and the kernel's bins (per taps
// and length) live in FftState, made by fft_conv1d_prepare before the timed section and kept across runs.
// cuFFT is loaded at run time (dlopen): linking it would put its 274 MiB library into the GPU bundle
// (scripts/bundle.sh); a machine without it fails the fft method with one clear message.
#include <cufft.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/fft.hpp"
#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/fft_layout.hpp"

namespace gpublur::cuda {
namespace {

constexpr size_t kScratchBudget = size_t(2) << 30;  // line buffers per chunk (real + complex)

// The cuFFT entry points we use, resolved once from libcufft.
struct CufftApi {
  decltype(&cufftPlanMany) plan_many = nullptr;
  decltype(&cufftExecR2C) exec_r2c = nullptr;
  decltype(&cufftExecC2R) exec_c2r = nullptr;
  decltype(&cufftSetStream) set_stream = nullptr;
  decltype(&cufftDestroy) destroy = nullptr;
  std::string error;  // why it is not loaded
  bool ok() const { return error.empty(); }
};

const CufftApi& cufft() {
  static const CufftApi api = [] {
    CufftApi a;
    std::vector<std::string> names;
    if (const char* env = std::getenv("GPUBLUR_CUFFT_LIB"); env && *env) names.push_back(env);
    for (const char* n : {"libcufft.so.12", "libcufft.so.13", "libcufft.so.11", "libcufft.so",
                          "/usr/local/cuda/lib64/libcufft.so.12", "/usr/local/cuda/lib64/libcufft.so"})
      names.push_back(n);
    void* h = nullptr;
    for (const std::string& n : names)
      if ((h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
    if (!h) {
      a.error = "CUDA fft: cuFFT (libcufft.so.12) not found: install the CUDA toolkit's cuFFT or set GPUBLUR_CUFFT_LIB";
      return a;
    }
    a.plan_many = reinterpret_cast<decltype(a.plan_many)>(dlsym(h, "cufftPlanMany"));
    a.exec_r2c = reinterpret_cast<decltype(a.exec_r2c)>(dlsym(h, "cufftExecR2C"));
    a.exec_c2r = reinterpret_cast<decltype(a.exec_c2r)>(dlsym(h, "cufftExecC2R"));
    a.set_stream = reinterpret_cast<decltype(a.set_stream)>(dlsym(h, "cufftSetStream"));
    a.destroy = reinterpret_cast<decltype(a.destroy)>(dlsym(h, "cufftDestroy"));
    if (!a.plan_many || !a.exec_r2c || !a.exec_c2r || !a.set_stream || !a.destroy)
      a.error = "CUDA fft: the loaded libcufft lacks an entry point";
    return a;
  }();
  return api;
}

Status cufft_status(cufftResult r, const char* what) {
  if (r == CUFFT_SUCCESS) return Status::success();
  return Status::fail(std::string("CUDA fft: ") + what + " failed (cufftResult " + std::to_string(int(r)) + ")");
}

__global__ void gather_kernel(FftLayout l, const float* __restrict__ src, float* __restrict__ buf) {
  const size_t n = l.real_count(), step = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) buf[i] = l.gather(src, i);
}

__global__ void multiply_kernel(FftLayout l, cufftComplex* __restrict__ spec, const float2* __restrict__ g) {
  const size_t n = l.complex_count(), step = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const float2 w = g[l.bin_of(i)];
    const cufftComplex v = spec[i];
    spec[i] = make_float2(v.x * w.x - v.y * w.y, v.x * w.y + v.y * w.x);
  }
}

__global__ void scatter_kernel(FftLayout l, const float* __restrict__ buf, float* __restrict__ dst) {
  const size_t n = l.scatter_count(), step = size_t(gridDim.x) * blockDim.x;
  for (size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    size_t img = 0, b = 0;
    if (l.scatter(k, img, b)) dst[img] = buf[b];
  }
}

// The chunk shape of a pass: every chunk has batch_lines lines (the last padded with zero lines), so one plan
// serves them all.
FftLayout layout_of(const Pass& pass, const DevImage& src) {
  FftLayout l;
  l.axis = pass.axis;
  l.width = src.width, l.height = src.height, l.channels = src.channels;
  l.border = pass.border;
  const FftLine fl = cufft_line(l.n(), pass.radius(), pass.border);
  l.n_fft = fl.n_fft, l.ext = fl.ext;
  const size_t per_line = (size_t(l.n_fft) * 4 + size_t(l.bins()) * 8) * size_t(l.channels);
  const int lines = std::max(1, l.lines());
  const int fit = int(std::max<size_t>(1, std::min<size_t>(size_t(lines), kScratchBudget / per_line)));
  const int chunks = (lines + fit - 1) / fit;
  l.batch_lines = (lines + chunks - 1) / chunks;
  return l;
}

size_t real_bytes(const FftLayout& l) { return (l.real_count() * sizeof(float) + 255) / 256 * 256; }
size_t scratch_bytes_of(const FftLayout& l) { return real_bytes(l) + l.complex_count() * sizeof(cufftComplex); }

}  // namespace

struct FftState::Impl {
  struct Plans {
    cufftHandle r2c = 0, c2r = 0;
  };
  std::map<std::tuple<int, int, int>, Plans> plans;                // (axis, n_fft, transforms)
  std::map<std::pair<std::vector<float>, int>, float2*> spectra;  // (taps, n_fft) -> device bins
  std::mutex mu;

  void release() {
    release_plans();
    for (auto& [k, g] : spectra) cudaFree(g);
    spectra.clear();
  }

  Status plans_for(const FftLayout& l, Plans& out) {
    const CufftApi& api = cufft();
    if (!api.ok()) return Status::fail(api.error);
    const auto key = std::make_tuple(l.axis, l.n_fft, l.transforms());
    if (auto it = plans.find(key); it != plans.end()) {
      out = it->second;
      return Status::success();
    }
    if (plans.size() >= 8) release_plans();
    int n = l.n_fft, rembed = l.n_fft, cembed = l.bins();
    Plans p;
    Status s = cufft_status(api.plan_many(&p.r2c, 1, &n, &rembed, l.stride(), l.real_dist(), &cembed, l.stride(),
                                          l.complex_dist(), CUFFT_R2C, l.transforms()),
                            "planning the forward transform");
    if (s)
      s = cufft_status(api.plan_many(&p.c2r, 1, &n, &cembed, l.stride(), l.complex_dist(), &rembed, l.stride(),
                                     l.real_dist(), CUFFT_C2R, l.transforms()),
                       "planning the inverse transform");
    if (!s) {
      if (p.r2c) api.destroy(p.r2c);
      return s;
    }
    out = plans[key] = p;
    return s;
  }

  void release_plans() {
    const CufftApi& api = cufft();
    if (api.ok())
      for (auto& [k, p] : plans) {
        api.destroy(p.r2c);
        api.destroy(p.c2r);
      }
    plans.clear();
  }

  Status spectrum_for(const std::vector<float>& taps, int n_fft, const float2*& out) {
    const auto key = std::make_pair(taps, n_fft);
    if (auto it = spectra.find(key); it != spectra.end()) {
      out = it->second;
      return Status::success();
    }
    if (spectra.size() >= 16) {
      for (auto& [k, g] : spectra) cudaFree(g);
      spectra.clear();
    }
    const std::vector<std::complex<double>> g = fft_kernel_spectrum(taps, n_fft);
    std::vector<float2> bins(size_t(n_fft / 2 + 1));
    for (size_t j = 0; j < bins.size(); ++j) bins[j] = make_float2(float(g[j].real()), float(g[j].imag()));
    float2* d = nullptr;
    Status s = cuda_status(cudaMalloc(&d, bins.size() * sizeof(float2)), "allocating the kernel's spectrum");
    if (s) s = cuda_status(cudaMemcpy(d, bins.data(), bins.size() * sizeof(float2), cudaMemcpyHostToDevice),
                           "uploading the kernel's spectrum");
    if (!s) {
      cudaFree(d);
      return s;
    }
    out = spectra[key] = d;
    return s;
  }
};

bool cufft_loaded(std::string* why) {
  const CufftApi& api = cufft();
  if (why) *why = api.error;
  return api.ok();
}

void FftState::release() {
  if (impl) {
    impl->release();
    delete impl;
    impl = nullptr;
  }
}

size_t fft_conv1d_prepare(const Pass& pass, const DevImage& src, FftState& state) {
  if (!state.impl) state.impl = new FftState::Impl;
  const FftLayout l = layout_of(pass, src);
  // Failures here surface again, with their message, when the pass runs.
  FftState::Impl::Plans p;
  const float2* g = nullptr;
  std::lock_guard<std::mutex> lock(state.impl->mu);
  if (state.impl->plans_for(l, p)) (void)state.impl->spectrum_for(pass.taps, l.n_fft, g);
  return scratch_bytes_of(l);
}

Status launch_fft_conv1d(const Pass& pass, const DevImage& src, const DevImage& dst, FftState& state, void* scratch,
                         size_t scratch_bytes, cudaStream_t s, std::string& path) {
  if (src.f64 || dst.f64 || src.pad || dst.pad || src.width != dst.width || src.height != dst.height ||
      src.channels != dst.channels)
    return Status::fail("CUDA fft: needs unpadded float images of one shape");
  if (!state.impl) state.impl = new FftState::Impl;
  FftLayout l = layout_of(pass, src);
  if (scratch_bytes < scratch_bytes_of(l))
    return Status::fail("CUDA fft: " + std::to_string(scratch_bytes_of(l)) + " bytes of scratch needed, " +
                        std::to_string(scratch_bytes) + " given");
  FftState::Impl::Plans p;
  const float2* g = nullptr;
  {
    std::lock_guard<std::mutex> lock(state.impl->mu);
    if (Status st = state.impl->plans_for(l, p); !st) return st;
    if (Status st = state.impl->spectrum_for(pass.taps, l.n_fft, g); !st) return st;
  }
  const CufftApi& api = cufft();
  if (Status st = cufft_status(api.set_stream(p.r2c, s), "setting the stream"); !st) return st;
  if (Status st = cufft_status(api.set_stream(p.c2r, s), "setting the stream"); !st) return st;
  float* real = static_cast<float*>(scratch);
  cufftComplex* spec = reinterpret_cast<cufftComplex*>(static_cast<char*>(scratch) + real_bytes(l));
  for (l.line0 = 0; l.line0 < l.lines(); l.line0 += l.batch_lines) {
    gather_kernel<<<grid_for(l.real_count(), 256), 256, 0, s>>>(l, static_cast<const float*>(src.data), real);
    if (Status st = cufft_status(api.exec_r2c(p.r2c, real, spec), "forward transform"); !st) return st;
    multiply_kernel<<<grid_for(l.complex_count(), 256), 256, 0, s>>>(l, spec, g);
    if (Status st = cufft_status(api.exec_c2r(p.c2r, spec, real), "inverse transform"); !st) return st;
    scatter_kernel<<<grid_for(l.scatter_count(), 256), 256, 0, s>>>(l, real, static_cast<float*>(dst.data));
  }
  path = std::string("cufft-") + (pass.axis == 0 ? "rows" : "cols") + (l.ext == 0 ? "-circular" : "");
  return cuda_status(cudaGetLastError(), "launching fft-conv1d");
}

}  // namespace gpublur::cuda
