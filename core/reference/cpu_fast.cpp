// Which passes the cpu backend runs by a schedule of its own (float32 vectorised, or float64 over batches of lines)
// instead of the reference primitive.
#include "core/reference/cpu_fast.hpp"

#include <algorithm>
#include <vector>

#include "core/gauss.hpp"

namespace gpublur {

bool cpu_fast_pass(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads, std::string& step) {
  if (src.channels != dst.channels) return false;
  const auto table = [](const CpuImage& im) { return im.f64 && im.d; };  // float64 (summed-area tables)
  const auto plain = [](const CpuImage& im) { return !im.f64 && im.f; };  // float32
  if (pass.op == Op::Sat && table(dst) && (table(src) || plain(src)) && dst.channels <= 4) {
    cpu_fast_sat(pass, src, dst, threads);
    step = "sat-rows";
    return true;
  }
  if (pass.op == Op::SatBox && table(src) && plain(dst)) {
    cpu_fast_sat_box(pass, src, dst, threads);
    step = "sat-box-rows";
    return true;
  }
  if (pass.op == Op::Spread && plain(src) && src.pad == 0 && table(dst) && dst.pad == 1) {
    cpu_fast_spread(pass, src, dst, threads);
    step = "spread-rows";
    return true;
  }
  if (pass.op == Op::Scale && table(src) && plain(dst)) {
    cpu_fast_scale(pass, src, dst, threads);
    step = "scale-rows";
    return true;
  }
  if (!plain(src) || !plain(dst)) return false;
  if (pass.op == Op::Diffusion) {  // over the whole stored area, padding included
    if (src.pad != dst.pad || src.width != dst.width || src.height != dst.height) return false;
    cpu_fast_diffusion(pass, src, dst, threads);
    step = "diffusion-rows";
    return true;
  }
  if (pass.op == Op::Down2 || pass.op == Op::Up2) {  // another size by definition, padded or not
    (pass.op == Op::Down2 ? cpu_fast_down2 : cpu_fast_up2)(pass, src, dst, threads);
    step = pass.op == Op::Down2 ? "down2-rows" : "up2-rows";
    return true;
  }
  if (src.pad || dst.pad) return false;
  if (pass.op == Op::DualDown || pass.op == Op::DualUp) {
    cpu_fast_dual(pass, src, dst, threads);
    step = pass.op == Op::DualDown ? "dual-down-blocks" : "dual-up-blocks";
    return true;
  }
  if (src.width != dst.width || src.height != dst.height) return false;
  const size_t n = size_t(src.width) * size_t(src.height) * size_t(src.channels);
  switch (pass.op) {
    case Op::Copy:
      std::copy_n(src.f, n, dst.f);
      step = "copy-f32";
      return true;
    case Op::Conv1d:
    case Op::FftConv1d:
      if (pass.taps.size() % 2 == 0) return false;
      cpu_fast_conv1d(pass, src, dst, threads);
      step = "conv1d-f32-simd";
      return true;
    case Op::Bilinear1d: {  // the reference's function too: its split taps' discrete kernel as a conv1d
      int reach = 0;
      const std::vector<double> k = linear_exact_kernel(pass.offsets, pass.taps, reach);
      Pass conv = pass;
      conv.op = Op::Conv1d;
      conv.taps.assign(k.begin(), k.end());
      cpu_fast_conv1d(conv, src, dst, threads);
      step = "bilinear1d-conv1d-f32-simd";
      return true;
    }
    case Op::Box1d:
    case Op::MovingAverage:
      cpu_fast_boxes(pass, src, dst, threads);
      step = "box1d-f64-sums";
      return true;
    case Op::Integral1d:
      cpu_fast_boxes(pass, src, dst, threads);
      step = "integral1d-f64-sums";
      return true;
    case Op::Iir1d:
      cpu_fast_iir(pass, src, dst, threads);
      step = "iir1d-f64-lanes";
      return true;
    case Op::Kawase:
      cpu_fast_kawase(pass, src, dst, threads);
      step = "kawase-blocks";
      return true;
    case Op::Bilateral:
    case Op::Bilateral1d:
      if (!all_finite(src)) return false;  // the reference's NaN / inf weights
      cpu_fast_bilateral(pass, src, dst, threads);
      step = pass.op == Op::Bilateral ? "bilateral-f64-rows" : "bilateral1d-f64-rows";
      return true;
    default: return false;
  }
}

}  // namespace gpublur
