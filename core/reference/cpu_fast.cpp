// Which passes the cpu backend runs by a float32 schedule instead of the float64 reference primitive.
#include "core/reference/cpu_fast.hpp"

#include <algorithm>

namespace gpublur {
namespace {

bool plain_f32(const CpuImage& im) { return !im.f64 && im.pad == 0 && im.f; }

}  // namespace

bool cpu_fast_pass(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads, std::string& step) {
  if (!plain_f32(src) || !plain_f32(dst) || src.width != dst.width || src.height != dst.height ||
      src.channels != dst.channels)
    return false;
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
    default: return false;
  }
}

}  // namespace gpublur
