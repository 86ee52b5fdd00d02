// bilinear1d: taps at fractional offsets (core/gauss.hpp linear_taps), per pass
//   out(x) = tw[0] s(x) + sum_k tw[k] (s(x - o_k) + s(x + o_k)),  s(p) = (1-f) in[floor p] + f in[floor p + 1]
// with both texels border-remapped, sampled by the texture unit (cudaArray + linear filtering; borders through
// address modes: clamp, and zero as border colour 0, with unnormalised coordinates; mirror and wrap need
// normalised ones). Its weights are fixed point with 8 fractional bits, so results differ from the reference
// (which interpolates exactly) by a bounded amount: the recipe states it as the plan's tolerance.
// The x-then-y pair samples an array copy of its source (refreshed once per upload when that is the input) and
// writes its intermediate into a second array through a surface; a lone pass samples the copy and writes the
// destination image. (A program wanting exact interpolation states the split taps as a Conv1d: conv1d.cu.)
#include <string>
#include <vector>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::cuda {
namespace {

constexpr int kMaxLinearTaps = 4096 / 2 + 2;
__constant__ float c_off[kMaxLinearTaps];
__constant__ float c_tw[kMaxLinearTaps];

// Texture sampling at pixel-space position (px, py) (texel centres at +0.5).
template <typename T>
__device__ __forceinline__ T tex_at(cudaTextureObject_t t, float px, float py, bool norm, float inv_w,
                                    float inv_h) {
  return norm ? tex2D<T>(t, px * inv_w, py * inv_h) : tex2D<T>(t, px, py);
}

// SURF: the output goes into the pair's intermediate array through a surface, else into `out`.
template <typename T, bool HORIZ, bool SURF>
__global__ void linear_tex_kernel(cudaTextureObject_t tex, cudaSurfaceObject_t surf_out, T* __restrict__ out,
                                  int W, int H, bool norm, int ntaps) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  const float inv_w = 1.f / W, inv_h = 1.f / H;
  const float cx = x + 0.5f, cy = y + 0.5f;
  T acc = vzero<T>();
  for (int k = 0; k < ntaps; ++k) {
    const float o = c_off[k];
    T v;
    if (k == 0)
      v = tex_at<T>(tex, cx, cy, norm, inv_w, inv_h);
    else if (HORIZ)
      v = vadd(tex_at<T>(tex, cx - o, cy, norm, inv_w, inv_h), tex_at<T>(tex, cx + o, cy, norm, inv_w, inv_h));
    else
      v = vadd(tex_at<T>(tex, cx, cy - o, norm, inv_w, inv_h), tex_at<T>(tex, cx, cy + o, norm, inv_w, inv_h));
    vfma(c_tw[k], v, acc);
  }
  if (SURF)
    surf2Dwrite(acc, surf_out, x * int(sizeof(T)), y);
  else
    out[size_t(y) * W + x] = acc;
}

cudaTextureObject_t make_texture(cudaArray_t a, Border b, bool& norm, Status& st) {
  cudaResourceDesc rd{};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td{};
  cudaTextureAddressMode mode = cudaAddressModeClamp;
  switch (b) {
    case Border::Clamp: mode = cudaAddressModeClamp; break;
    case Border::Mirror: mode = cudaAddressModeMirror; break;
    case Border::Wrap: mode = cudaAddressModeWrap; break;
    case Border::Zero: mode = cudaAddressModeBorder; break;  // border colour stays 0
  }
  norm = b == Border::Mirror || b == Border::Wrap;
  td.addressMode[0] = td.addressMode[1] = mode;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = norm ? 1 : 0;
  cudaTextureObject_t t = 0;
  st = cuda_status(cudaCreateTextureObject(&t, &rd, &td, nullptr), "creating texture object");
  return t;
}

template <typename T>
Status alloc_array(cudaArray_t& a, int w, int h, const char* what) {
  const cudaChannelFormatDesc d = cudaCreateChannelDesc<T>();
  const cudaError_t e = cudaMallocArray(&a, &d, w, h, cudaArraySurfaceLoadStore);
  if (e == cudaSuccess) return Status::success();
  cudaGetLastError();
  a = nullptr;
  return Status::fail(std::string("CUDA: cannot allocate ") + what + " texture array of " +
                      std::to_string(size_t(w) * h * sizeof(T)) + " bytes (" + std::to_string(w) + " x " +
                      std::to_string(h) + "): " + cudaGetErrorString(e));
}

template <typename T>
Status run_linear(const Pass& pass, const DevImage& in, const DevImage& out, int axes,
                  unsigned long long in_version, LinearState& state, cudaStream_t st, std::string& path) {
  const int W = in.width, H = in.height;
  const int ntaps = int(pass.offsets.size());
  Status s = upload_taps(c_off, pass.offsets, ntaps, st);
  if (s) s = upload_taps(c_tw, pass.taps, ntaps, st);
  if (!s) return s;
  const dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);

  if (state.width != W || state.height != H || state.channels != in.channels || !state.in_array) {
    state.release();
    if (!(s = alloc_array<T>(state.in_array, W, H, "input"))) return s;
    if (!(s = alloc_array<T>(state.tmp_array, W, H, "intermediate"))) return s;
    state.width = W;
    state.height = H;
    state.channels = in.channels;
    state.in_version = ~0ull;
  }
  if (in_version == 0 || state.in_version != in_version) {
    const size_t row = size_t(W) * sizeof(T);
    s = cuda_status(cudaMemcpy2DToArrayAsync(state.in_array, 0, 0, in.data, row, row, H,
                                             cudaMemcpyDeviceToDevice, st),
                    "copying the source into its texture array");
    if (!s) return s;
    state.in_version = in_version == 0 ? ~0ull : in_version;
  }
  bool norm = false;
  cudaTextureObject_t tin = make_texture(state.in_array, pass.border, norm, s);
  if (!s) return s;
  T* dst = static_cast<T*>(out.data);
  if (axes != 3) {
    if (axes == 1)
      linear_tex_kernel<T, true, false><<<grid, block, 0, st>>>(tin, 0, dst, W, H, norm, ntaps);
    else
      linear_tex_kernel<T, false, false><<<grid, block, 0, st>>>(tin, 0, dst, W, H, norm, ntaps);
    s = cuda_status(cudaGetLastError(), "launching bilinear1d (texture)");
    // Destroy the object only once the kernel that uses it has finished.
    cudaStreamSynchronize(st);
    cudaDestroyTextureObject(tin);
    path = axes == 1 ? "texture-hw-x" : "texture-hw-y";
    return s;
  }
  cudaTextureObject_t ttmp = make_texture(state.tmp_array, pass.border, norm, s);
  if (!s) {
    cudaDestroyTextureObject(tin);
    return s;
  }
  cudaResourceDesc rd{};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = state.tmp_array;
  cudaSurfaceObject_t surf = 0;
  s = cuda_status(cudaCreateSurfaceObject(&surf, &rd), "creating surface object");
  if (s) {
    linear_tex_kernel<T, true, true><<<grid, block, 0, st>>>(tin, surf, nullptr, W, H, norm, ntaps);
    linear_tex_kernel<T, false, false><<<grid, block, 0, st>>>(ttmp, 0, dst, W, H, norm, ntaps);
    s = cuda_status(cudaGetLastError(), "launching bilinear1d (texture)");
    // Destroy the objects only once the kernels that use them have finished.
    cudaStreamSynchronize(st);
    cudaDestroySurfaceObject(surf);
  }
  cudaDestroyTextureObject(tin);
  cudaDestroyTextureObject(ttmp);
  path = "texture-hw";
  return s;
}

}  // namespace

void LinearState::release() {
  if (in_array) cudaFreeArray(in_array);
  if (tmp_array) cudaFreeArray(tmp_array);
  in_array = tmp_array = nullptr;
  width = height = channels = 0;
  in_version = ~0ull;
}

Status launch_bilinear1d(const Pass& pass, const DevImage& src, const DevImage& dst, int axes,
                         unsigned long long src_version, LinearState& state, cudaStream_t s, std::string& path) {
  if (pass.offsets.empty() || pass.offsets.size() != pass.taps.size() || pass.offsets.size() > size_t(kMaxLinearTaps))
    return Status::fail("CUDA bilinear1d: pass has " + std::to_string(pass.offsets.size()) + " tap offsets and " +
                        std::to_string(pass.taps.size()) + " tap weights (at most " +
                        std::to_string(kMaxLinearTaps) + ")");
  if (axes < 1 || axes > 3) return Status::fail("CUDA bilinear1d: bad axes");
  switch (src.channels) {
    case 1: return run_linear<float>(pass, src, dst, axes, src_version, state, s, path);
    case 2: return run_linear<float2>(pass, src, dst, axes, src_version, state, s, path);
    case 4: return run_linear<float4>(pass, src, dst, axes, src_version, state, s, path);
    default: return Status::fail("CUDA bilinear1d: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
