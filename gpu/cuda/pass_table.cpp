// The table of CUDA primitives and their schedules (which passes run as one unit). The kernels live in
// passes/<primitive>.cu (cuda_kernels.hpp declares their launchers).
#include "gpu/cuda/pass_table.hpp"

#include <algorithm>
#include <array>

namespace gpublur::cuda {

// Resampling (Down2, Up2): core's resample_pair (core/program.hpp) where the outputs are large
// (pair_big_enough) runs two passes as one kernel; the long Down2 runs rows then columns (direct on small images).
// (One kernel per pass measured slower everywhere: docs/performance.md "pyramid and --downsample".)
namespace {

const DevImage& img(const PassContext& c, int i) { return c.images[size_t(i)]; }

// The entries of primitives whose launcher takes the pass and its two images (and, for the second form, the
// device scratch), one pass at a time.
using OnePassLaunch = Status (*)(const Pass&, const DevImage&, const DevImage&, cudaStream_t, std::string&);
using ScratchLaunch = Status (*)(const Pass&, const DevImage&, const DevImage&, void*, size_t, cudaStream_t,
                                 std::string&);
using ScratchSize = size_t (*)(const Pass&, const DevImage&);

template <OnePassLaunch Launch>
Status run_one(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  consumed = 1;
  return Launch(p, img(c, p.src), img(c, p.dst), c.stream, path);
}

template <ScratchLaunch Launch>
Status run_one_scratch(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  consumed = 1;
  return Launch(p, img(c, p.src), img(c, p.dst), c.scratch, c.scratch_bytes, c.stream, path);
}

template <ScratchSize Size>
size_t scratch_of(const PassContext& c, size_t i) {
  const Pass& p = c.program.passes[i];
  return Size(p, img(c, p.src));
}

Status run_copy(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  consumed = 1;
  return launch_copy(img(c, p.src), img(c, p.dst), p.border, c.stream, path);
}

// A Conv1d pass whose kernel is wide enough runs as FftConv1d's segments where measured faster (conv1d_as_fft).
bool conv1d_fft(const PassContext& c, const Pass& p) { return c.fft && conv1d_as_fft(p, img(c, p.src), img(c, p.dst)); }

// The separable pair runs as one unit (fused kernels, pipelined passes, tensor cores); a lone pass runs the
// pass kernel of its axis.
Status run_conv1d(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  if (conv1d_fft(c, p)) {
    consumed = 1;
    return launch_fft_conv1d(p, img(c, p.src), img(c, p.dst), *c.fft, c.scratch, c.scratch_bytes, c.stream, path);
  }
  if (separable_pair(c.program, i)) {
    const Pass& q = c.program.passes[i + 1];
    consumed = 2;
    return launch_conv1d(p.taps, p.border, img(c, p.src), img(c, p.dst), img(c, q.dst), 3, c.stream, path);
  }
  consumed = 1;
  return launch_conv1d(p.taps, p.border, img(c, p.src), DevImage{}, img(c, p.dst), p.axis == 0 ? 1 : 2, c.stream,
                       path);
}

// The kernel's bins for the segments, before the timed section (they need no scratch).
size_t scratch_conv1d(const PassContext& c, size_t i) {
  const Pass& p = c.program.passes[i];
  return conv1d_fft(c, p) ? fft_conv1d_prepare(p, img(c, p.src), *c.fft) : 0;
}

Status run_conv2d(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  consumed = 1;
  return launch_conv2d(p.taps, p.border, img(c, p.src), img(c, p.dst), c.stream, path);
}

Status run_bilinear1d(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  const unsigned long long version = p.src == 0 ? c.input_version : 0;
  if (bilinear_pair(c.program, i)) {
    consumed = 2;
    return launch_bilinear1d(p, img(c, p.src), img(c, c.program.passes[i + 1].dst), 3, version, c.linear, c.stream,
                             path);
  }
  consumed = 1;
  return launch_bilinear1d(p, img(c, p.src), img(c, p.dst), p.axis == 0 ? 1 : 2, version, c.linear, c.stream, path);
}

Status run_box1d(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  const bool pair = box_pair(c.program, i);
  const DevImage& dst = pair ? img(c, c.program.passes[i + 1].dst) : img(c, p.dst);
  bool fused = false;
  Status s = launch_box1d(p, img(c, p.src), img(c, p.dst), dst, pair, c.scratch, c.scratch_bytes, c.stream, path,
                          fused);
  consumed = fused ? 2 : 1;
  return s;
}

size_t scratch_box1d(const PassContext& c, size_t i) {
  const Pass& p = c.program.passes[i];
  return box1d_scratch(p, img(c, p.src));
}

Status run_moving_average(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  consumed = 1;
  return launch_moving_average(p.widths, p.axis, p.border, img(c, p.src), img(c, p.dst), c.scratch,
                               c.scratch_bytes, c.stream, path);
}

size_t scratch_moving_average(const PassContext& c, size_t i) {
  const Pass& p = c.program.passes[i];
  return moving_average_scratch(p.widths, p.axis, img(c, p.src));
}

Status run_fft_conv1d(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  consumed = 1;
  if (!c.fft) return Status::fail("CUDA fft: no FFT state in the pass context");
  return launch_fft_conv1d(p, img(c, p.src), img(c, p.dst), *c.fft, c.scratch, c.scratch_bytes, c.stream, path);
}

// Also makes the plans and the kernel's bins: asked before the timed section.
size_t scratch_fft_conv1d(const PassContext& c, size_t i) {
  const Pass& p = c.program.passes[i];
  return c.fft ? fft_conv1d_prepare(p, img(c, p.src), *c.fft) : 0;
}

// Passes i and i + 1 as one fused kernel (pair_launch, consumed 2) where `pair`, else pass i alone (one()).
template <typename PairLaunch, typename OneLaunch>
Status run_pair_or_one(const PassContext& c, size_t i, bool pair, int& consumed, std::string& path,
                       PairLaunch pair_launch, OneLaunch one) {
  if (pair) {
    const Pass &p = c.program.passes[i], &q = c.program.passes[i + 1];
    consumed = 2;
    return pair_launch(p, q, img(c, p.src), img(c, p.dst), img(c, q.dst), c.stream, path);
  }
  consumed = 1;
  return one();
}

// A resample pair fuses only where its larger output has at least kPairMinPixels: below that the fused kernel's
// tiles (512 and 2048 output pixels a block) leave most SMs idle and each block runs its two phases in series,
// where the two passes alone spread over the GPU (H100: pyramid sigma 200 at 1024^2 0.070 against 0.083 ms,
// at 4096^2 0.307 against 0.313; docs/measurements/h100-pyramid-pair-size-sweep.txt, h100-pyramid-tail.txt).
constexpr long long kPairMinPixels = 1 << 18;

bool pair_big_enough(const PassContext& c, size_t i) {
  const DevImage& a = img(c, c.program.passes[i].dst);
  const DevImage& b = img(c, c.program.passes[i + 1].dst);
  return std::max(1LL * a.width * a.height, 1LL * b.width * b.height) >= kPairMinPixels;
}

Status run_down2(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  const bool pair = resample_pair(c.program, i) && pair_big_enough(c, i);
  return run_pair_or_one(c, i, pair, consumed, path, launch_down2_pair, [&] {
    return launch_down2_rows_cols(p, img(c, p.src), img(c, p.dst), c.scratch, c.scratch_bytes, c.stream, path);
  });
}

size_t scratch_down2(const PassContext& c, size_t i) {
  const Pass& p = c.program.passes[i];
  return down2_scratch(p, img(c, p.src), img(c, p.dst));
}

Status run_up2(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  const bool pair = resample_pair(c.program, i) && pair_big_enough(c, i);
  return run_pair_or_one(c, i, pair, consumed, path, launch_up2_pair,
                         [&] { return launch_up2(p, img(c, p.src), img(c, p.dst), c.stream, path); });
}

Status run_dual_down(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  return run_pair_or_one(c, i, dual_pair(c.program, i), consumed, path, launch_dual_down_pair,
                         [&] { return launch_dual_down(p, img(c, p.src), img(c, p.dst), c.stream, path); });
}

// The x/y pair as tiles with the columns' sums folded into the rows' outputs where both run as tiles
// (iir1d_pair_scratch > 0), else one pass at a time.
bool iir_pair_fused(const PassContext& c, size_t i) {
  return iir_pair(c.program, i) && iir1d_pair_scratch(c.program.passes[i], img(c, c.program.passes[i].src)) > 0;
}

Status run_iir1d(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  if (iir_pair_fused(c, i)) {
    const Pass& q = c.program.passes[i + 1];
    consumed = 2;
    return launch_iir1d_pair(p, q, img(c, p.src), img(c, p.dst), img(c, q.dst), c.scratch, c.scratch_bytes, c.stream,
                             path);
  }
  consumed = 1;
  return launch_iir1d(p, img(c, p.src), img(c, p.dst), c.scratch, c.scratch_bytes, c.stream, path);
}

size_t scratch_iir1d(const PassContext& c, size_t i) {
  const Pass& p = c.program.passes[i];
  if (iir_pair_fused(c, i)) return iir1d_pair_scratch(p, img(c, p.src));
  return iir1d_scratch(p, img(c, p.src));
}

// Spread's two tables (sat_pair) as one double prefix sum along rows and one down columns.
Status run_sat(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  if (sat_pair(c.program, i)) {
    consumed = 2;
    return launch_sat_pair(img(c, p.src), img(c, p.dst), img(c, c.program.passes[i + 1].dst), c.stream, path);
  }
  consumed = 1;
  return launch_sat(p, img(c, p.src), img(c, p.dst), c.stream, path);
}

Status run_dual_up(const PassContext& c, size_t i, int& consumed, std::string& path) {
  const Pass& p = c.program.passes[i];
  consumed = 1;
  return launch_dual_up(p, img(c, p.src), img(c, p.dst), c.stream, path);
}

}  // namespace

const PassEntry* cuda_pass(Op op) {
  static const std::array<PassEntry, size_t(Op::kCount)> table = [] {
    std::array<PassEntry, size_t(Op::kCount)> t{};
    t[size_t(Op::Copy)] = {run_copy, nullptr};
    t[size_t(Op::Conv1d)] = {run_conv1d, scratch_conv1d};
    t[size_t(Op::Conv2d)] = {run_conv2d, nullptr};
    t[size_t(Op::Bilinear1d)] = {run_bilinear1d, nullptr};
    t[size_t(Op::Box1d)] = {run_box1d, scratch_box1d};
    t[size_t(Op::MovingAverage)] = {run_moving_average, scratch_moving_average};
    t[size_t(Op::Sat)] = {run_sat, nullptr};
    t[size_t(Op::SatBox)] = {run_one<launch_sat_box>, nullptr};
    t[size_t(Op::Box2d)] = {run_one<launch_box2d>, nullptr};
    t[size_t(Op::Integral1d)] = {run_one_scratch<launch_integral1d>, scratch_of<integral1d_scratch>};
    t[size_t(Op::Diffusion)] = {run_one_scratch<launch_diffusion>, scratch_of<diffusion_scratch>};
    t[size_t(Op::FftConv1d)] = {run_fft_conv1d, scratch_fft_conv1d};
    t[size_t(Op::Bilateral)] = {run_one<launch_bilateral>, nullptr};
    t[size_t(Op::Kawase)] = {run_one<launch_kawase>, nullptr};
    t[size_t(Op::Bilateral1d)] = {run_one<launch_bilateral>, nullptr};
    t[size_t(Op::Iir1d)] = {run_iir1d, scratch_iir1d};
    t[size_t(Op::Spread)] = {run_one_scratch<launch_spread>, scratch_of<spread_scratch>};
    t[size_t(Op::Scale)] = {run_one<launch_scale>, nullptr};
    t[size_t(Op::Conv2dMatrix)] = {run_one_scratch<launch_conv2d_matrix>, scratch_of<conv2d_matrix_scratch>};
    t[size_t(Op::Reshuffle)] = {run_one_scratch<launch_reshuffle>, scratch_of<reshuffle_scratch>};
    t[size_t(Op::DualDown)] = {run_dual_down, nullptr};
    t[size_t(Op::DualUp)] = {run_dual_up, nullptr};
    t[size_t(Op::Down2)] = {run_down2, scratch_down2};
    t[size_t(Op::Up2)] = {run_up2, nullptr};
    return t;
  }();
  const size_t i = size_t(op);
  return i < table.size() && table[i].run ? &table[i] : nullptr;
}

}  // namespace gpublur::cuda
