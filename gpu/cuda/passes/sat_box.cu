// sat-box: the mean over the w x w window centred on each pixel of dst's stored area from four lookups in an
// inclusive float64 summed-area table, / w^2; lookups before the table's first row or column read 0 (the
// empty sum). One thread per destination pixel.
#include <algorithm>
#include <string>

#include "gpu/cuda/passes/box_common.cuh"

namespace gpublur::cuda {
namespace {

template <typename T>
__global__ void sat_box_kernel(const double* __restrict__ table, int tstride, int tpad, T* __restrict__ dst,
                               int dstride, int drows, int dpad, int h, double inv_area) {
  constexpr int K = VecInfo<T>::K;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= dstride) return;
  const int x = i - dpad;
  for (int row = blockIdx.y; row < drows; row += gridDim.y) {
    const int y = row - dpad;
    auto at = [&](int tx, int ty, int c) {
      return tx < -tpad || ty < -tpad ? 0.0
                                       : table[(size_t(ty + tpad) * size_t(tstride) + size_t(tx + tpad)) * K + c];
    };
    T out;
#pragma unroll
    for (int c = 0; c < K; ++c) {
      const double s = at(x + h, y + h, c) - at(x - h - 1, y + h, c) - at(x + h, y - h - 1, c) +
                       at(x - h - 1, y - h - 1, c);
      vset(out, c, float(s * inv_area));
    }
    dst[size_t(row) * dstride + i] = out;
  }
}

template <typename T>
Status run_sat_box(int w, const DevImage& table, const DevImage& dst, cudaStream_t st) {
  const dim3 grid((dst.stride() + 127) / 128, std::min(dst.rows(), 65535));
  sat_box_kernel<T><<<grid, 128, 0, st>>>(static_cast<const double*>(table.data), table.stride(), table.pad,
                                          static_cast<T*>(dst.data), dst.stride(), dst.rows(), dst.pad, w / 2,
                                          1.0 / (double(w) * w));
  return cuda_status(cudaGetLastError(), "launching sat-box");
}

}  // namespace

Status launch_sat_box(const Pass& pass, const DevImage& table, const DevImage& dst, cudaStream_t s,
                      std::string& path) {
  if (pass.widths.size() != 1 || !table.f64 || dst.f64)
    return Status::fail("CUDA sat-box: needs one width, a float64 table and a float32 destination");
  path = "sat-box";
  const int w = pass.widths[0];
  switch (dst.channels) {
    case 1: return run_sat_box<float>(w, table, dst, s);
    case 2: return run_sat_box<float2>(w, table, dst, s);
    case 4: return run_sat_box<float4>(w, table, dst, s);
    default: return Status::fail("CUDA sat-box: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
