// reshuffle: Porikli's single-output reshuffling (core/program.hpp Op::Reshuffle), block logic in
// passes/reshuffle.cuh. The source tile with its halo in shared memory where it fits (conv2d-matrix's tile:
// 32 x 32 outputs per block of 32 x 8 threads), else one thread per output reading every tap from global
// memory. Weights and packed links: __constant__ (warp-uniform indices: one broadcast each) up to
// kReshuffleConstWeights / kReshuffleConstLinks, else global memory in the scratch (__ldg, also warp-uniform).
#include <algorithm>

#include "gpu/cuda/cuda_common.cuh"
#include "gpu/cuda/cuda_kernels.hpp"
#include "gpu/cuda/passes/reshuffle.cuh"

namespace gpublur::cuda {
namespace {

__constant__ float c_w[kReshuffleConstWeights];
__constant__ int c_links[kReshuffleConstLinks];

using reshuffle::BX;
using reshuffle::BY;
using reshuffle::TH;
using reshuffle::TW;

template <bool CONST>
struct Tables {  // device-side views of the weights and packed links
  const float* gw;
  const int* gl;
  __device__ __forceinline__ float weight(int u) const {
    if constexpr (CONST)
      return c_w[u];
    else
      return __ldg(gw + u);
  }
  __device__ __forceinline__ int link(int i) const {
    if constexpr (CONST)
      return c_links[i];
    else
      return __ldg(gl + i);
  }
};

template <typename T, bool CONST>
__global__ void __launch_bounds__(BX * BY) reshuffle_tile(const T* __restrict__ in, T* __restrict__ out, int W, int H,
                                                          Border b, int R, int U, Tables<CONST> t) {
  extern __shared__ float4 smem4[];
  T* s = reinterpret_cast<T*>(smem4);
  const int by = grid_row();
  if (by * TH >= H) return;  // tall_grid's blocks past the image
  tile::load_tile(in, s, int(threadIdx.y * BX + threadIdx.x), int(blockIdx.x), by, W, H, b, 2 * R + 1, 2 * R + 1);
  __syncthreads();
  reshuffle::compute(s, out, int(threadIdx.x), int(threadIdx.y), int(blockIdx.x), by, W, H, R, U,
                     [t](int i) { return t.link(i); }, [t](int u) { return t.weight(u); });
}

template <typename T, bool CONST>
__global__ void reshuffle_global(const T* __restrict__ in, T* __restrict__ out, int W, int H, Border b, int R, int U,
                                 Tables<CONST> t) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = grid_row() * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  out[size_t(y) * W + x] =
      reshuffle::pixel(in, x, y, W, H, b, R, U, [t](int i) { return t.link(i); }, [t](int u) { return t.weight(u); });
}

template <typename T>
bool tile_fits(int R) {
  return size_t(reshuffle::tile_values(R)) * sizeof(T) <= size_t(max_smem_optin());
}

// Packed links: n_u and one int per offset (the pass has n_u and two per offset).
size_t packed_size(const Pass& pass) { return (pass.links.size() + pass.taps.size()) / 2; }

bool fits_constant(const Pass& pass) {
  return pass.taps.size() <= size_t(kReshuffleConstWeights) && packed_size(pass) <= size_t(kReshuffleConstLinks);
}

template <typename T>
Status run(const Pass& pass, const DevImage& in, const DevImage& out, void* scratch, size_t scratch_bytes,
           cudaStream_t st, std::string& path) {
  const int W = in.width, H = in.height, R = pass.widths[0], U = int(pass.taps.size());
  const bool tile = tile_fits<T>(R), in_const = fits_constant(pass);
  const std::vector<int> links = reshuffle::pack_links(pass, tile);
  Tables<true> ct{nullptr, nullptr};
  Tables<false> gt{nullptr, nullptr};
  if (in_const) {
    if (Status s = upload_taps(c_w, pass.taps, U, st); !s) return s;
    if (Status s = cuda_status(cudaMemcpyToSymbolAsync(c_links, links.data(), links.size() * sizeof(int), 0,
                                                       cudaMemcpyHostToDevice, st),
                               "uploading reshuffle links");
        !s)
      return s;
  } else {
    const size_t wbytes = size_t(U) * sizeof(float), lbytes = links.size() * sizeof(int);
    if (!scratch || scratch_bytes < wbytes + lbytes) return Status::fail("CUDA reshuffle: no scratch for the links");
    char* base = static_cast<char*>(scratch);
    if (Status s = cuda_status(cudaMemcpyAsync(base, pass.taps.data(), wbytes, cudaMemcpyHostToDevice, st),
                               "uploading reshuffle weights");
        !s)
      return s;
    if (Status s = cuda_status(cudaMemcpyAsync(base + wbytes, links.data(), lbytes, cudaMemcpyHostToDevice, st),
                               "uploading reshuffle links");
        !s)
      return s;
    gt = {reinterpret_cast<const float*>(base), reinterpret_cast<const int*>(base + wbytes)};
  }
  const T* src = static_cast<const T*>(in.data);
  T* dst = static_cast<T*>(out.data);
  if (tile) {
    const size_t bytes = size_t(reshuffle::tile_values(R)) * sizeof(T);
    const dim3 grid = tall_grid((W + TW - 1) / TW, (H + TH - 1) / TH), block(BX, BY);
    if (in_const) {
      auto k = reshuffle_tile<T, true>;
      if (Status s = allow_smem(k, bytes); !s) return s;
      k<<<grid, block, bytes, st>>>(src, dst, W, H, pass.border, R, U, ct);
    } else {
      auto k = reshuffle_tile<T, false>;
      if (Status s = allow_smem(k, bytes); !s) return s;
      k<<<grid, block, bytes, st>>>(src, dst, W, H, pass.border, R, U, gt);
    }
    path = in_const ? "reshuffle-smem-const" : "reshuffle-smem-global-links";
  } else {
    const dim3 grid = tall_grid((W + 31) / 32, (H + 7) / 8), block(32, 8);
    if (in_const)
      reshuffle_global<T, true><<<grid, block, 0, st>>>(src, dst, W, H, pass.border, R, U, ct);
    else
      reshuffle_global<T, false><<<grid, block, 0, st>>>(src, dst, W, H, pass.border, R, U, gt);
    path = in_const ? "reshuffle-global-const" : "reshuffle-global";
  }
  return cuda_status(cudaGetLastError(), "launching reshuffle");
}

}  // namespace

size_t reshuffle_scratch(const Pass& pass, const DevImage&) {
  if (fits_constant(pass)) return 0;
  return pass.taps.size() * sizeof(float) + packed_size(pass) * sizeof(int);
}

Status launch_reshuffle(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch,
                        size_t scratch_bytes, cudaStream_t s, std::string& path) {
  if (pass.widths.size() != 1 || pass.widths[0] > kMaxReshuffleRadius)
    return Status::fail("CUDA reshuffle: the pass needs its reach");
  switch (src.channels) {
    case 1: return run<float>(pass, src, dst, scratch, scratch_bytes, s, path);
    case 2: return run<float2>(pass, src, dst, scratch, scratch_bytes, s, path);
    case 4: return run<float4>(pass, src, dst, scratch, scratch_bytes, s, path);
    default: return Status::fail("CUDA reshuffle: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
