#include "core/reference/pass_table.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <chrono>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/memory.hpp"
#include "core/pass_times.hpp"
#include "core/reference/cpu_fast.hpp"

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
    t[size_t(Op::Spread)] = cpu_spread;
    t[size_t(Op::Scale)] = cpu_scale;
    t[size_t(Op::Conv2dMatrix)] = cpu_conv2d_matrix;
    t[size_t(Op::Reshuffle)] = cpu_reshuffle;
    t[size_t(Op::DualDown)] = cpu_dual_down;
    t[size_t(Op::DualUp)] = cpu_dual_up;
    t[size_t(Op::Down2)] = cpu_down2;
    t[size_t(Op::Up2)] = cpu_up2;
    return t;
  }();
  const size_t i = size_t(op);
  return i < table.size() ? table[i] : nullptr;
}

Status run_program_cpu(const Program& program, const Image& src, Image& dst, int threads, std::string* path,
                       std::vector<CpuImage>* keep) {
  if (Status s = validate_program(program); !s) return Status::fail("cpu: " + s.error);
  // A dst (and kept intermediates) of the right shape are reused: a 4K image's fresh allocation costs more in
  // page faults than its blur (perf, the folder job). Every program writes all of dst; intermediates are
  // zeroed as when new (padding some passes leave alone).
  if (dst.width != src.width || dst.height != src.height || dst.channels != src.channels)
    dst = Image(src.width, src.height, src.channels);
  if (src.value_count() == 0) return Status::success();
  std::vector<CpuImage> local;
  std::vector<CpuImage>& images = keep ? *keep : local;
  images.resize(program.images.size());
  images[0] = CpuImage::view(const_cast<Image&>(src));  // read only: passes never write image 0
  images[1] = CpuImage::view(dst);
  // Intermediates that do not fit are refused with their size, before any is made: the system's OOM killer ended such
  // runs with no message and no report (box --impl sat --width 4097 --passes 8: padded float64 tables of 34 GB).
  double need = 0;
  std::vector<bool> same(images.size(), true);
  std::vector<std::pair<int, int>> sizes(images.size());
  for (size_t i = 2; i < images.size(); ++i) {
    auto& [w, h] = sizes[i];
    image_size(program, int(i), src.width, src.height, w, h);
    const ImageDecl& d = program.images[i];
    const CpuImage& im = images[i];
    same[i] = im.width == w && im.height == h && im.channels == src.channels && im.pad == d.pad && im.f64 == d.f64 &&
              (d.f64 ? im.d == im.own_d.data() : im.f == im.own_f.data());
    if (!same[i]) need += double(w + 2 * d.pad) * double(h + 2 * d.pad) * src.channels * (d.f64 ? 8 : 4);
  }
  if (const double avail = available_memory_bytes(); need > avail)
    return Status::fail(fmt::format("cpu: the program's intermediate images need {:.3g} GB, more than the {:.3g} GB "
                                    "of memory available",
                                    need / 1e9, avail / 1e9));
  try {
    for (size_t i = 2; i < images.size(); ++i) {
      const ImageDecl& d = program.images[i];
      CpuImage& im = images[i];
      if (!same[i])
        im = CpuImage::make(sizes[i].first, sizes[i].second, src.channels, d);
      else if (d.f64)
        std::fill(im.own_d.begin(), im.own_d.end(), 0.0);
      else
        std::fill(im.own_f.begin(), im.own_f.end(), 0.f);
    }
  } catch (const std::bad_alloc&) {
    images.clear();
    return Status::fail(fmt::format("cpu: out of memory making the program's intermediate images ({:.3g} GB)",
                                    need / 1e9));
  }
  if (path) *path = "";
  // The cpu backend (path given) logs its passes' times as the GPU backends do (core/pass_times.hpp), host clock.
  const bool per_pass = path && pass_times_wanted();
  std::vector<std::pair<std::string, double>> times;
  for (const Pass& pass : program.passes) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string step = op_name(pass.op);
    if (!path || !cpu_fast_pass(pass, images[size_t(pass.src)], images[size_t(pass.dst)], threads, step)) {
      CpuPassFn fn = cpu_pass(pass.op);
      if (!fn) return Status::fail(std::string("cpu: no implementation of the primitive ") + op_name(pass.op));
      if (Status s = fn(pass, images[size_t(pass.src)], images[size_t(pass.dst)], threads); !s) return s;
    }
    if (path) *path += (path->empty() ? "" : "+") + step;
    if (per_pass)
      times.emplace_back(step,
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  if (per_pass) spdlog::info("{}", pass_times_line(times));
  return Status::success();
}

}  // namespace gpublur
