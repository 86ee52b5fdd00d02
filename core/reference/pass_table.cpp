#include "core/reference/pass_table.hpp"

#include <array>

namespace gpublur {

CpuPassFn cpu_pass(Op op) {
  static const std::array<CpuPassFn, size_t(Op::kCount)> table = [] {
    std::array<CpuPassFn, size_t(Op::kCount)> t{};
    t[size_t(Op::Copy)] = cpu_copy;
    t[size_t(Op::Conv1d)] = cpu_conv1d;
    t[size_t(Op::Conv2d)] = cpu_conv2d;
    t[size_t(Op::Bilinear1d)] = cpu_bilinear1d;
    t[size_t(Op::Box1d)] = cpu_box1d;
    t[size_t(Op::MovingAverage)] = cpu_box1d;  // the same function; on a CPU the same running sums
    t[size_t(Op::Sat)] = cpu_sat;
    t[size_t(Op::SatBox)] = cpu_sat_box;
    t[size_t(Op::Box2d)] = cpu_box2d;
    t[size_t(Op::Integral1d)] = cpu_integral1d;
    t[size_t(Op::Diffusion)] = cpu_diffusion;
    t[size_t(Op::FftConv1d)] = cpu_conv1d;  // the ground truth: the float64 direct convolution, same function
    t[size_t(Op::Bilateral)] = cpu_bilateral;
    t[size_t(Op::Kawase)] = cpu_kawase;
    t[size_t(Op::Bilateral1d)] = cpu_bilateral1d;
    t[size_t(Op::Iir1d)] = cpu_iir1d;
    return t;
  }();
  const size_t i = size_t(op);
  return i < table.size() ? table[i] : nullptr;
}

Status run_program_cpu(const Program& program, const Image& src, Image& dst, int threads) {
  if (Status s = validate_program(program); !s) return Status::fail("cpu: " + s.error);
  dst = Image(src.width, src.height, src.channels);
  if (src.value_count() == 0) return Status::success();
  std::vector<CpuImage> images(program.images.size());
  images[0] = CpuImage::view(const_cast<Image&>(src));  // read only: passes never write image 0
  images[1] = CpuImage::view(dst);
  for (size_t i = 2; i < images.size(); ++i) {
    int w = 0, h = 0;
    image_size(program, int(i), src.width, src.height, w, h);
    images[i] = CpuImage::make(w, h, src.channels, program.images[i]);
  }
  for (const Pass& pass : program.passes) {
    CpuPassFn fn = cpu_pass(pass.op);
    if (!fn) return Status::fail(std::string("cpu: no implementation of the primitive ") + op_name(pass.op));
    if (Status s = fn(pass, images[size_t(pass.src)], images[size_t(pass.dst)], threads); !s) return s;
  }
  return Status::success();
}

}  // namespace gpublur
