// The cpu backend's schedules: vectorised forms of reference primitives, float32 (Conv1d) or float64 over batches of
// lines (box cascades, iir). The reference itself stays what the tests compare every backend against, the cpu
// backend included.
#pragma once
#include <string>


#include "core/program.hpp"
#include "core/reference/cpu_image.hpp"

namespace gpublur {

// Runs `pass` by a schedule where one applies (Copy, Conv1d/FftConv1d, Bilinear1d (as its discrete kernel),
// Box1d/MovingAverage, Integral1d, Iir1d, Kawase and Bilateral/Bilateral1d (finite values) between unpadded float32
// images of one size; DualDown and DualUp between unpadded float32 images; Down2 and Up2 between float32 images,
// padded too; Sat, SatBox, Spread and Scale with their float64 tables; Diffusion), naming it in `step`; returns false
// (nothing run) otherwise.
bool cpu_fast_pass(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads, std::string& step);

// Conv1d (or FftConv1d: the same function) in float32, vectorised (cpu_fast_conv1d.cpp).
void cpu_fast_conv1d(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);

// Box1d / MovingAverage (one function) and Integral1d: float64 running sums over batches of lines
// (cpu_fast_boxes.cpp).
void cpu_fast_boxes(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);

// Iir1d: float64 recursions over batches of lines (cpu_fast_iir.cpp).
void cpu_fast_iir(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);

// Down2 / Up2: the source's border-remapped column offsets in tables, rows' once a row (cpu_fast_resample.cpp).
void cpu_fast_down2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
void cpu_fast_up2(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);

// Kawase's step and DualDown / DualUp: each output a 4 x 4 block of source pixels, weights from the passes' samples
// (cpu_fast_taps.cpp). Unpadded images.
void cpu_fast_kawase(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
void cpu_fast_dual(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);

// Bilateral / Bilateral1d in float64, tap by tap over planar rows (cpu_fast_bilateral.cpp); for images whose values
// are all finite (all_finite).
void cpu_fast_bilateral(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
bool all_finite(const CpuImage& img);

// Sat (a float32 image's table, or a table's table; up to 4 channels) and SatBox: tables of border-remapped columns,
// plain loops over rows (cpu_fast_sat.cpp).
void cpu_fast_sat(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
void cpu_fast_sat_box(const Pass& pass, const CpuImage& table, CpuImage& dst, int threads);
// Spread (an unpadded float32 source, the table padded 1) from three border-extended source rows a table row, the
// margin folded through core's taps (core/spread_fold.hpp), and Scale (cpu_fast_sat.cpp).
void cpu_fast_spread(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);
void cpu_fast_scale(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);

// Diffusion between float32 images of one size and padding: the reference's float64 steps, neighbours by pointer
// (cpu_fast_diffusion.cpp).
void cpu_fast_diffusion(const Pass& pass, const CpuImage& src, CpuImage& dst, int threads);

}  // namespace gpublur
