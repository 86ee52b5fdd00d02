#include "gpu/gl/pass_table.hpp"

#include <array>

namespace gpublur {

GlPassSetup gl_pass(Op op) {
  static const std::array<GlPassSetup, size_t(Op::kCount)> table = [] {
    std::array<GlPassSetup, size_t(Op::kCount)> t{};
    t[size_t(Op::Copy)] = gl_copy;
    t[size_t(Op::Conv1d)] = gl_conv1d;
    t[size_t(Op::Conv2d)] = gl_conv2d;
    t[size_t(Op::Bilinear1d)] = gl_bilinear1d;
    t[size_t(Op::Box1d)] = gl_box1d;
    t[size_t(Op::MovingAverage)] = gl_moving_average;
    t[size_t(Op::Sat)] = gl_sat;
    t[size_t(Op::SatBox)] = gl_sat_box;
    t[size_t(Op::Box2d)] = gl_box2d;
    t[size_t(Op::Integral1d)] = gl_integral1d;
    t[size_t(Op::Diffusion)] = gl_diffusion;
    t[size_t(Op::FftConv1d)] = gl_fft_conv1d;
    t[size_t(Op::Bilateral)] = gl_bilateral;
    t[size_t(Op::Kawase)] = gl_kawase;
    t[size_t(Op::Bilateral1d)] = gl_bilateral;
    t[size_t(Op::Iir1d)] = gl_iir1d;
    t[size_t(Op::Spread)] = gl_spread;
    t[size_t(Op::Scale)] = gl_scale;
    t[size_t(Op::Conv2dMatrix)] = gl_conv2d_matrix;
    t[size_t(Op::Reshuffle)] = gl_reshuffle;
    t[size_t(Op::DualDown)] = gl_dual_down;
    t[size_t(Op::DualUp)] = gl_dual_up;
    t[size_t(Op::Down2)] = gl_down2;
    t[size_t(Op::Up2)] = gl_up2;
    return t;
  }();
  const size_t i = size_t(op);
  return i < table.size() ? table[i] : nullptr;
}

}  // namespace gpublur
