// The CPU reference's primitives: one function per Op, one file each (core/reference/passes/), found
// through one table. Each is written as plainly as its definition allows, in float64 arithmetic.
#pragma once
#include <string>

#include "core/image.hpp"
#include "core/plan.hpp"
#include "core/reference/cpu_image.hpp"
#include "core/status.hpp"

namespace gpublur {

using CpuPassFn = Status (*)(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);

// The table, indexed by Op; null where the CPU has no implementation.
CpuPassFn cpu_pass(Op op);

// The primitives (passes/<name>.cpp).
Status cpu_copy(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_conv1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_conv2d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_bilinear1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_box1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_sat(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
// A table's second half: running sums down its columns (dst's rows already summed along x), bands of values a task.
void sat_columns(CpuImage& dst, int threads);
Status cpu_sat_box(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_box2d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_integral1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_diffusion(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_bilateral(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_kawase(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_bilateral1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_iir1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_spread(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_scale(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_conv2d_matrix(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_reshuffle(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_dual_down(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_dual_up(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_down2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
Status cpu_up2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);

// Runs a whole program: src -> dst (dst resized to src's shape), intermediates allocated here. With `path`,
// the cpu backend's schedules (core/reference/cpu_fast.hpp) run where they apply and *path names the steps;
// without it, every pass is the float64 reference primitive. `keep` holds the intermediates from run to run
// (the cpu backend's; images 0 and 1 in it are views of src and dst).
Status run_program_cpu(const Program& program, const Image& src, Image& dst, int threads,
                       std::string* path = nullptr, std::vector<CpuImage>* keep = nullptr);

}  // namespace gpublur
