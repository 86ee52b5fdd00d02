// moving-average: the same function as Box1d (a cascade of boxes of the odd widths along the axis, on the line
// extended by R = sum (w_i - 1) / 2 with the border mode), scheduled the Intel article's way: one thread per
// line walking along it with a running sum (float64 here: sum += in(j + w) - in(j)), reading the
// border-extended line. The first box reads the source; the later ones run in place in a line buffer (device
// scratch: out(j) overwrites in(j), which no later step reads), the last writes the destination. Lines go in
// batches that fit the scratch. Box1d falls back to this kernel where a line does not fit shared memory.
// Rows: each thread walks its own row (the L1 cache turns the strided reads into whole lines); the line
// buffers are laid out [position][line], so a warp's accesses to them are coalesced. Columns: coalesced as is.
#include <algorithm>
#include <string>

#include "gpu/cuda/passes/box_common.cuh"

namespace gpublur::cuda {
namespace {

// One warp per block: a 4096-line image is only 128 warps, spread over as many SMs as possible.
constexpr int kThreads = 32;
constexpr size_t kScratchBudget = size_t(512) << 20;  // line buffers per batch

template <typename T>
__global__ void __launch_bounds__(kThreads) moving_average_kernel(const T* __restrict__ src, T* __restrict__ dst,
                                                                  T* __restrict__ buf, int W, int H, int axis,
                                                                  Border b, const __grid_constant__ BoxWidths bw,
                                                                  int line0, int nlines) {
  const int li = blockIdx.x * blockDim.x + threadIdx.x;
  if (li >= nlines) return;
  const int line = line0 + li, n = axis == 0 ? W : H;
  const size_t step = axis == 0 ? 1 : size_t(W);  // between positions of a line in the images
  const T* s_line = src + (axis == 0 ? size_t(line) * W : size_t(line));
  T* d_line = dst + (axis == 0 ? size_t(line) * W : size_t(line));
  T* b_line = buf + li;  // position q at b_line[q * nlines]
  moving_average_line<T>(
      n, b, bw, [&](int a) -> T { return s_line[size_t(a) * step]; },
      [&](int q) -> T& { return b_line[size_t(q) * nlines]; }, [&](int j) -> T& { return d_line[size_t(j) * step]; });
}

template <typename T>
Status run_ma(const BoxWidths& bw, int axis, Border b, const DevImage& src, const DevImage& dst, void* scratch,
              size_t scratch_bytes, cudaStream_t st) {
  const int W = src.width, H = src.height, lines = axis == 0 ? H : W, n = axis == 0 ? W : H;
  const size_t per_line = size_t(n + 2 * bw.reach) * sizeof(T);
  int batch = lines;
  if (bw.n > 1) {
    batch = int(std::min<size_t>(size_t(lines), scratch_bytes / per_line));
    if (batch < 1)
      return Status::fail("CUDA moving-average: no scratch for its line buffers (" + std::to_string(per_line) +
                          " bytes per line)");
  }
  for (int line0 = 0; line0 < lines; line0 += batch) {
    const int nl = std::min(batch, lines - line0);
    moving_average_kernel<T><<<(nl + kThreads - 1) / kThreads, kThreads, 0, st>>>(
        static_cast<const T*>(src.data), static_cast<T*>(dst.data), static_cast<T*>(scratch), W, H, axis, b, bw,
        line0, nl);
  }
  return cuda_status(cudaGetLastError(), "launching moving-average");
}

}  // namespace

size_t moving_average_scratch(const std::vector<int>& widths, int axis, const DevImage& img) {
  BoxWidths bw;
  if (!box_widths(widths, "moving-average", bw)) return 0;
  return moving_average_scratch_bw(bw, axis, img);
}

size_t moving_average_scratch_bw(const BoxWidths& bw, int axis, const DevImage& img) {
  if (bw.n < 2) return 0;
  const int lines = axis == 0 ? img.height : img.width, n = axis == 0 ? img.width : img.height;
  const size_t per_line = size_t(n + 2 * bw.reach) * size_t(img.channels) * sizeof(float);
  return std::max<size_t>(1, std::min<size_t>(size_t(lines), kScratchBudget / per_line)) * per_line;
}

Status launch_moving_average(const std::vector<int>& widths, int axis, Border b, const DevImage& src,
                             const DevImage& dst, void* scratch, size_t scratch_bytes, cudaStream_t s,
                             std::string& path) {
  BoxWidths bw;
  if (Status st = box_widths(widths, "moving-average", bw); !st) return st;
  return launch_moving_average_bw(bw, axis, b, src, dst, scratch, scratch_bytes, s, path);
}

Status launch_moving_average_bw(const BoxWidths& bw, int axis, Border b, const DevImage& src, const DevImage& dst,
                                void* scratch, size_t scratch_bytes, cudaStream_t s, std::string& path) {
  path = axis == 0 ? "moving-average-rows" : "moving-average-cols";
  switch (src.channels) {
    case 1: return run_ma<float>(bw, axis, b, src, dst, scratch, scratch_bytes, s);
    case 2: return run_ma<float2>(bw, axis, b, src, dst, scratch, scratch_bytes, s);
    case 4: return run_ma<float4>(bw, axis, b, src, dst, scratch, scratch_bytes, s);
    default: return Status::fail("CUDA moving-average: unsupported device channel count");
  }
}

}  // namespace gpublur::cuda
