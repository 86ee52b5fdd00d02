// fft-conv1d: FftConv1d (Conv1d's function by FFT). Where a segment length fits the kernel, overlap-save segments
// transformed in shared memory (fft_segments.cu: one read and one write of the image); else through cuFFT: per
// chunk of lines a gather of the
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
#include "gpu/cuda/passes/fft_segments.hpp"

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

// Gather, multiply and scatter on 2D grids (no per-element 64-bit division), V the device pixel (float,
// float2, float4: one transform per channel). Grid dimension y is capped at 65535: blocks loop over the rest.
constexpr int kLineBlock = 256;  // rows and multiply: positions (bins) per block
constexpr int kTile = 32;        // columns: 32 positions x 32 lines per block, 32 x 8 threads
constexpr int kMaxGridY = 65535;

// Rows: block (positions, line); a thread reads one pixel and writes its channels to their transforms.
template <typename V>
__global__ void gather_rows_kernel(FftLayout l, const V* __restrict__ src, float* __restrict__ buf) {
  constexpr int K = VecInfo<V>::K;
  const int pos = int(blockIdx.x) * kLineBlock + int(threadIdx.x);
  if (pos >= l.n_fft) return;
  for (int ll = int(blockIdx.y); ll < l.batch_lines; ll += int(gridDim.y)) {
    const size_t px = l.source_pixel(l.line0 + ll, pos);
    const V v = px == FftLayout::kNoPixel ? vzero<V>() : src[px];
#pragma unroll
    for (int c = 0; c < K; ++c) buf[l.real_index(pos, ll * K + c)] = vget(v, c);
  }
}

template <typename V>
__global__ void scatter_rows_kernel(FftLayout l, const float* __restrict__ buf, V* __restrict__ dst) {
  constexpr int K = VecInfo<V>::K;
  const int x = int(blockIdx.x) * kLineBlock + int(threadIdx.x);
  if (x >= l.n()) return;
  for (int ll = int(blockIdx.y); ll < l.batch_lines && l.line0 + ll < l.lines(); ll += int(gridDim.y)) {
    V v;
#pragma unroll
    for (int c = 0; c < K; ++c) vset(v, c, buf[l.real_index(l.ext + x, ll * K + c)]);
    dst[l.image_pixel(l.line0 + ll, x)] = v;
  }
}

// Columns: a 32 x 32 tile of (position, line) through shared memory, so that the image side (along a row: the
// lines) and the buffer side (along a transform: the positions) are both coalesced.
template <typename V>
__global__ void gather_cols_kernel(FftLayout l, const V* __restrict__ src, float* __restrict__ buf) {
  constexpr int K = VecInfo<V>::K;
  __shared__ float t[K][kTile][kTile + 1];  // [channel][line][position]
  const int p0 = int(blockIdx.x) * kTile, tx = int(threadIdx.x), ty = int(threadIdx.y);
  for (int l0 = int(blockIdx.y) * kTile; l0 < l.batch_lines; l0 += int(gridDim.y) * kTile) {
    for (int r = ty; r < kTile; r += int(blockDim.y)) {
      const int pos = p0 + r, ll = l0 + tx;
      V v = vzero<V>();
      if (pos < l.n_fft && ll < l.batch_lines) {
        const size_t px = l.source_pixel(l.line0 + ll, pos);
        if (px != FftLayout::kNoPixel) v = src[px];
      }
#pragma unroll
      for (int c = 0; c < K; ++c) t[c][tx][r] = vget(v, c);
    }
    __syncthreads();
    for (int r = ty; r < kTile; r += int(blockDim.y)) {
      const int ll = l0 + r, pos = p0 + tx;
      if (ll < l.batch_lines && pos < l.n_fft)
#pragma unroll
        for (int c = 0; c < K; ++c) buf[l.real_index(pos, ll * K + c)] = t[c][r][tx];
    }
    __syncthreads();
  }
}

template <typename V>
__global__ void scatter_cols_kernel(FftLayout l, const float* __restrict__ buf, V* __restrict__ dst) {
  constexpr int K = VecInfo<V>::K;
  __shared__ float t[K][kTile][kTile + 1];  // [channel][line][position]
  const int x0 = int(blockIdx.x) * kTile, tx = int(threadIdx.x), ty = int(threadIdx.y);
  for (int l0 = int(blockIdx.y) * kTile; l0 < l.batch_lines; l0 += int(gridDim.y) * kTile) {
    for (int r = ty; r < kTile; r += int(blockDim.y)) {
      const int ll = l0 + r, x = x0 + tx;
      if (ll < l.batch_lines && x < l.n())
#pragma unroll
        for (int c = 0; c < K; ++c) t[c][r][tx] = buf[l.real_index(l.ext + x, ll * K + c)];
    }
    __syncthreads();
    for (int r = ty; r < kTile; r += int(blockDim.y)) {
      const int x = x0 + r, ll = l0 + tx, line = l.line0 + ll;
      if (x < l.n() && ll < l.batch_lines && line < l.lines()) {
        V v;
#pragma unroll
        for (int c = 0; c < K; ++c) vset(v, c, t[c][tx][r]);
        dst[l.image_pixel(line, x)] = v;
      }
    }
    __syncthreads();
  }
}

// Block (bins, transform): bin k of every transform times the kernel's bin k.
__global__ void multiply_kernel(FftLayout l, cufftComplex* __restrict__ spec, const float2* __restrict__ g) {
  const int k = int(blockIdx.x) * kLineBlock + int(threadIdx.x), bins = l.bins();
  if (k >= bins) return;
  const float2 w = g[k];
  for (int b = int(blockIdx.y); b < l.transforms(); b += int(gridDim.y)) {
    cufftComplex& e = spec[size_t(b) * size_t(bins) + size_t(k)];
    const cufftComplex v = e;
    e = make_float2(v.x * w.x - v.y * w.y, v.x * w.y + v.y * w.x);
  }
}

template <typename V>
void run_chunk_gather(const FftLayout& l, const void* src, float* real, cudaStream_t s) {
  if (l.axis == 0) {
    const dim3 grid((l.n_fft + kLineBlock - 1) / kLineBlock, unsigned(std::min(l.batch_lines, kMaxGridY)));
    gather_rows_kernel<V><<<grid, kLineBlock, 0, s>>>(l, static_cast<const V*>(src), real);
  } else {
    const dim3 grid((l.n_fft + kTile - 1) / kTile, unsigned(std::min((l.batch_lines + kTile - 1) / kTile, kMaxGridY)));
    gather_cols_kernel<V><<<grid, dim3(kTile, 8), 0, s>>>(l, static_cast<const V*>(src), real);
  }
}

template <typename V>
void run_chunk_scatter(const FftLayout& l, const float* real, void* dst, cudaStream_t s) {
  if (l.axis == 0) {
    const dim3 grid((l.n() + kLineBlock - 1) / kLineBlock, unsigned(std::min(l.batch_lines, kMaxGridY)));
    scatter_rows_kernel<V><<<grid, kLineBlock, 0, s>>>(l, real, static_cast<V*>(dst));
  } else {
    const dim3 grid((l.n() + kTile - 1) / kTile, unsigned(std::min((l.batch_lines + kTile - 1) / kTile, kMaxGridY)));
    scatter_cols_kernel<V><<<grid, dim3(kTile, 8), 0, s>>>(l, real, static_cast<V*>(dst));
  }
}

void run_gather(const FftLayout& l, const void* src, float* real, cudaStream_t s) {
  switch (l.channels) {
    case 1: run_chunk_gather<float>(l, src, real, s); break;
    case 2: run_chunk_gather<float2>(l, src, real, s); break;
    default: run_chunk_gather<float4>(l, src, real, s); break;
  }
}

void run_scatter(const FftLayout& l, const float* real, void* dst, cudaStream_t s) {
  switch (l.channels) {
    case 1: run_chunk_scatter<float>(l, real, dst, s); break;
    case 2: run_chunk_scatter<float2>(l, real, dst, s); break;
    default: run_chunk_scatter<float4>(l, real, dst, s); break;
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

// The segment plan of a pass, unless cuFFT's path is asked for (GPUBLUR_CUDA_FFT=cufft). Segments read their
// neighbours' pixels, so a pass must not run in place: programs never do (core/program.cpp's validation).
bool segment_plan(const Pass& pass, const DevImage& src, FftSegPlan& p) {
  const char* e = std::getenv("GPUBLUR_CUDA_FFT");
  if (e && std::string(e) == "cufft") return false;
  return fft_segments_plan(pass.axis, src, pass.radius(), pass.border, p);
}

}  // namespace

bool conv1d_as_fft(const Pass& pass, const DevImage& src, const DevImage& dst) {
  // SepTuning's radii: RGBA sigma 14 at 4096^2 0.562 against 0.627 ms (radius 36 ties), two channels sigma 12
  // 0.322 against 0.360, one channel sigma 8 0.172 against 0.200.
  const SepTuning& t = sep_tuning();
  const int from = src.channels == 1 ? t.fft_min_radius_1ch : t.fft_min_radius;
  if (from <= 0 || pass.radius() < from) return false;
  if (src.f64 || dst.f64 || src.pad || dst.pad || src.width != dst.width || src.height != dst.height ||
      src.channels != dst.channels)
    return false;
  FftSegPlan p;
  return segment_plan(pass, src, p);
}

namespace {

size_t real_bytes(const FftLayout& l) { return (l.real_count() * sizeof(float) + 255) / 256 * 256; }
size_t scratch_bytes_of(const FftLayout& l) { return real_bytes(l) + l.complex_count() * sizeof(cufftComplex); }

}  // namespace

struct FftState::Impl {
  struct Plans {
    cufftHandle r2c = 0, c2r = 0;
  };
  std::map<std::tuple<int, int, int>, Plans> plans;                // (axis, n_fft, transforms)
  std::map<std::tuple<std::vector<float>, int, bool>, float2*> spectra;  // (taps, n_fft, all bins) -> device bins
  std::map<std::vector<float>, float*> tails;  // taps -> fft_clamp_tails on the device
  std::mutex mu;

  void release() {
    release_plans();
    for (auto& [k, g] : spectra) cudaFree(g);
    spectra.clear();
    for (auto& [k, t] : tails) cudaFree(t);
    tails.clear();
  }

  // A device copy of `host` under `key` in `cache` (emptied, freed, at 16 entries), made once.
  template <typename Key, typename T>
  static Status cached_upload(std::map<Key, T*>& cache, const Key& key, const std::vector<T>& host, const char* what,
                              const T*& out) {
    if (cache.size() >= 16) {
      for (auto& [k, d] : cache) cudaFree(d);
      cache.clear();
    }
    T* d = nullptr;
    const std::string alloc = std::string("allocating ") + what, upload = std::string("uploading ") + what;
    Status s = cuda_status(cudaMalloc(&d, std::max<size_t>(1, host.size()) * sizeof(T)), alloc.c_str());
    if (s && !host.empty())
      s = cuda_status(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), upload.c_str());
    if (!s) {
      cudaFree(d);
      return s;
    }
    out = cache[key] = d;
    return s;
  }

  // Clamp's constants for unpadded segment lines (fft_segments.hpp).
  Status tails_for(const std::vector<float>& taps, const float*& out) {
    if (auto it = tails.find(taps); it != tails.end()) {
      out = it->second;
      return Status::success();
    }
    const std::vector<double> t = fft_clamp_tails(taps);
    return cached_upload(tails, taps, std::vector<float>(t.begin(), t.end()), "the tails", out);
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

  // cuFFT's R2C/C2R take bins 0..N/2; the segments' complex transforms take all N (`all`).
  Status spectrum_for(const std::vector<float>& taps, int n_fft, bool all, const float2*& out) {
    const auto key = std::make_tuple(taps, n_fft, all);
    if (auto it = spectra.find(key); it != spectra.end()) {
      out = it->second;
      return Status::success();
    }
    const std::vector<std::complex<double>> g = fft_kernel_spectrum(taps, n_fft);
    std::vector<float2> bins(size_t(all ? n_fft : n_fft / 2 + 1));
    for (size_t j = 0; j < bins.size(); ++j) bins[j] = make_float2(float(g[j].real()), float(g[j].imag()));
    return cached_upload(spectra, key, bins, "the kernel's spectrum", out);
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
  const float2* g = nullptr;
  FftSegPlan sp;
  // Failures here surface again, with their message, when the pass runs.
  std::lock_guard<std::mutex> lock(state.impl->mu);
  const FftLayout l = layout_of(pass, src);
  if (segment_plan(pass, src, sp)) {
    (void)state.impl->spectrum_for(pass.taps, sp.m, true, g);
    const float* t = nullptr;
    if (sp.unpadded && pass.border == Border::Clamp) (void)state.impl->tails_for(pass.taps, t);
    return 0;
  }
  FftState::Impl::Plans p;
  if (state.impl->plans_for(l, p)) (void)state.impl->spectrum_for(pass.taps, l.n_fft, false, g);
  return scratch_bytes_of(l);
}

Status launch_fft_conv1d(const Pass& pass, const DevImage& src, const DevImage& dst, FftState& state, void* scratch,
                         size_t scratch_bytes, cudaStream_t s, std::string& path) {
  if (src.f64 || dst.f64 || src.pad || dst.pad || src.width != dst.width || src.height != dst.height ||
      src.channels != dst.channels || (src.channels != 1 && src.channels != 2 && src.channels != 4))
    return Status::fail("CUDA fft: needs unpadded float images of one shape");
  if (!state.impl) state.impl = new FftState::Impl;
  if (FftSegPlan sp; segment_plan(pass, src, sp)) {
    const float2* g = nullptr;
    const float* tails = nullptr;
    {
      std::lock_guard<std::mutex> lock(state.impl->mu);
      if (Status st = state.impl->spectrum_for(pass.taps, sp.m, true, g); !st) return st;
      if (sp.unpadded && pass.border == Border::Clamp)
        if (Status st = state.impl->tails_for(pass.taps, tails); !st) return st;
    }
    path = std::string("fft-segments-") + (pass.axis == 0 ? "rows-" : "cols-") + std::to_string(sp.m) +
           (sp.nseg > 1 ? "x" + std::to_string(sp.nseg) : "") + (sp.unpadded ? "-unpadded" : "");
    return launch_fft_segments(sp, pass.axis, pass.border, src, dst, g, tails, s);
  }
  FftLayout l = layout_of(pass, src);
  if (scratch_bytes < scratch_bytes_of(l))
    return Status::fail("CUDA fft: " + std::to_string(scratch_bytes_of(l)) + " bytes of scratch needed, " +
                        std::to_string(scratch_bytes) + " given");
  FftState::Impl::Plans p;
  const float2* g = nullptr;
  {
    std::lock_guard<std::mutex> lock(state.impl->mu);
    if (Status st = state.impl->plans_for(l, p); !st) return st;
    if (Status st = state.impl->spectrum_for(pass.taps, l.n_fft, false, g); !st) return st;
  }
  const CufftApi& api = cufft();
  if (Status st = cufft_status(api.set_stream(p.r2c, s), "setting the stream"); !st) return st;
  if (Status st = cufft_status(api.set_stream(p.c2r, s), "setting the stream"); !st) return st;
  float* real = static_cast<float*>(scratch);
  cufftComplex* spec = reinterpret_cast<cufftComplex*>(static_cast<char*>(scratch) + real_bytes(l));
  for (l.line0 = 0; l.line0 < l.lines(); l.line0 += l.batch_lines) {
    run_gather(l, src.data, real, s);
    if (Status st = cufft_status(api.exec_r2c(p.r2c, real, spec), "forward transform"); !st) return st;
    const dim3 mgrid((l.bins() + kLineBlock - 1) / kLineBlock, unsigned(std::min(l.transforms(), kMaxGridY)));
    multiply_kernel<<<mgrid, kLineBlock, 0, s>>>(l, spec, g);
    if (Status st = cufft_status(api.exec_c2r(p.c2r, spec, real), "inverse transform"); !st) return st;
    run_scatter(l, real, dst.data, s);
  }
  path = std::string("cufft-") + (pass.axis == 0 ? "rows" : "cols") + (l.ext == 0 ? "-circular" : "");
  return cuda_status(cudaGetLastError(), "launching fft-conv1d");
}

}  // namespace gpublur::cuda
