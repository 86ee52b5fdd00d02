// Host-side launchers of the CUDA primitives, one .cu per primitive under passes/, and their tuning knobs.
// Internal to gpu/cuda (and its tests/tools). The backend finds them through the pass table (pass_table.hpp);
// nothing here knows which method a program came from.
// Device images are interleaved float pixels of 1, 2 or 4 channels (3 is padded to 4 on upload), rows of
// (width + 2 pad) pixels with no row padding, so a pixel is one float, float2 or float4 and every access is one
// aligned vector load/store. Summed-area tables hold float64 values.
#pragma once
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "core/border.hpp"
#include "core/program.hpp"
#include "core/status.hpp"

namespace gpublur {
struct PackedColour;
}

namespace gpublur::cuda {

// One image of a program on the device (core/program.hpp): `data` points at the stored pixel (-pad, -pad).
struct DevImage {
  void* data = nullptr;
  int width = 0;     // without padding
  int height = 0;
  int channels = 0;  // device channels: 1, 2 or 4
  int pad = 0;
  bool f64 = false;  // float64 values (summed-area tables)
  int image_channels = 0;  // the image's own count (3 where the device holds 4, w 0); 0: as `channels`
  int stride() const { return width + 2 * pad; }  // pixels per stored row
  int rows() const { return height + 2 * pad; }
  size_t bytes() const { return size_t(stride()) * size_t(rows()) * size_t(channels) * (f64 ? 8u : 4u); }
};

// Turns a failed CUDA call into a Status naming what was being done.
Status cuda_status(cudaError_t e, const char* what);
// The current device's shared memory: the opt-in maximum per block, and per SM; its SM count.
int max_smem_optin();
int smem_per_sm();
int sm_count();
// Lets kernel k launch with `bytes` of dynamic shared memory (beyond 48 KiB it must opt in); kernels sized to
// most of an SM's shared memory also ask for the largest carveout (else the L1 split may leave too little).
Status allow_smem_raw(const void* k, size_t bytes, bool max_carveout);
template <typename KernelPtr>
Status allow_smem(KernelPtr k, size_t bytes, bool max_carveout = false) {
  return allow_smem_raw(reinterpret_cast<const void*>(k), bytes, max_carveout);
}
// Resident blocks per SM of kernel k at this launch shape (cached per device, like allow_smem).
Status blocks_per_sm_raw(const void* k, int threads, size_t bytes, int& blocks);
template <typename KernelPtr>
Status blocks_per_sm(KernelPtr k, int threads, size_t bytes, int& blocks) {
  return blocks_per_sm_raw(reinterpret_cast<const void*>(k), threads, bytes, blocks);
}

// layout.cu: 3 interleaved channels <-> 4 (alpha slot 0), for the padded device layout; filling a buffer
// (tests poison outputs with NaN).
Status launch_unpack3(const float* raw3, float* out4, size_t pixels, cudaStream_t s);
Status launch_pack3(const float* in4, float* raw3, size_t pixels, cudaStream_t s);
Status launch_fill(float* data, size_t values, float value, cudaStream_t s);
// packed.cu: 8-bit samples (c channels) <-> device pixels (cd channels: 4 for 3) through core/packed.hpp's tables.
Status launch_unpack8(const unsigned char* in, float* out, size_t pixels, int c, int cd, const PackedColour& colour,
                      cudaStream_t s);
// counts: three on the device, set to what packing clips (below 0, above 1, NaN: PackedImage::clipped).
Status launch_pack8(const float* in, unsigned char* out, size_t pixels, int c, int cd, const PackedColour& colour,
                    unsigned long long* counts, cudaStream_t s);

// passes/copy.cu: dst = src over dst's stored area (an unpadded source read with the border mode outside).
// Same shape, no padding: the bandwidth floor (one 16-byte vector copy, path "copy-kernel").
Status launch_copy(const DevImage& src, const DevImage& dst, Border b, cudaStream_t s, std::string& path);

// passes/conv1d.cu: Conv1d passes (taps for offsets -r..r). axes = 3: the separable pair, along x src -> mid
// then along y mid -> dst (fused into one kernel where the schedule says; mid may then stay unwritten);
// axes = 1: along x only, src -> dst; axes = 2: along y only, src -> dst.
// Tuning knobs for the timing tool and tests; the defaults are what the backend uses.
// Defaults from H100 measurements (docs/performance.md, cuda_kernel_timing 4096 4 25 sep).
struct SepTuning {
  int fused_max_radius = 12;  // r <= this: one fused kernel
  int fused_kind = 1;         // 1: 64-wide tile, compile-time radius (r <= 12); 0: 32-wide tile (any r)
  int fused_tile_h = 0;       // 32 or 64 output rows per fused tile; 0: 64 up to r 9, 32 above (spills)
  int pass_pipelined = 2;     // two passes: persistent double-buffered blocks. 0 no, 1 yes, 2 for r 30..48
  bool pass_pad_taps = false;  // two passes: pad taps to a multiple of 8 with zero weights (previous)
  bool pass_wide = false;      // two passes: 16 x 256 tiles of 512 threads instead of 16 x 128 / 256
  // Two passes, tile shape: 0 16 lines x 128 outputs, 8 per thread, 256 threads (the kernels above);
  // 1 8 x 256, 16 outputs per thread, 128 threads, >= 3 blocks/SM; 2 8 x 256, 8 per thread, 256 threads,
  // >= 3 blocks/SM. -1: shape 2 for pass_large_min_radius <= r <= pass_large_max_radius (measured faster at
  // r 72 and 144; 192 is the largest radius checked on a device), else 0. Shapes 1/2 take precedence over
  // pass_pipelined / pass_wide.
  int pass_shape = -1;
  int pass_large_min_radius = 48;
  int pass_large_max_radius = 192;
  // Two passes on tensor cores with FP16 operands split in two (passes/conv1d_tc16.cu, RGBA only): 0 never,
  // 1 wherever the tile fits, 2 for pass_tc16_min_radius <= r <= pass_tc16_max_radius. Takes precedence
  // over pass_shape. H100 (docs/performance.md, round 5): faster than every SIMT pass from r 48 (sigma 16:
  // 0.630 vs 0.657 ms) to r 300 (sigma 100: 2.39 vs 3.08), slower at r 36 (0.593 vs 0.547 pipelined).
  // 300 is the largest radius timed. Env GPUBLUR_CUDA_SEP_TC16 overrides the default.
  int pass_tc16 = 2;
  int pass_tc16_min_radius = 48;
  int pass_tc16_max_radius = 300;
  // Passes from this radius run as FftConv1d's segments (conv1d_as_fft; <= 0: never): faster than every direct
  // form from radius 42 for two and four channels, from radius 24 for one (lines in pairs), at 4096^2 and 1024^2
  // on an H100 (docs/performance.md, "fft segments").
  int fft_min_radius = 42;
  int fft_min_radius_1ch = 24;
};
SepTuning& sep_tuning();
Status launch_conv1d(const std::vector<float>& taps, Border b, const DevImage& src, const DevImage& mid,
                     const DevImage& dst, int axes, cudaStream_t s, std::string& path);

// passes/conv2d.cu: direct (2r+1)^2 convolution with the outer product taps (x) taps.
Status launch_conv2d(const std::vector<float>& taps, Border b, const DevImage& src, const DevImage& dst,
                     cudaStream_t s, std::string& path);

// passes/bilinear1d.cu: Bilinear1d through the texture unit (its 8-bit interpolation weights: a bounded
// difference to the reference, stated by the recipe's tolerance). axes as launch_conv1d's; the pair samples
// an array copy of src and writes its intermediate into a second array through a surface (mid stays
// unwritten). The arrays live in LinearState; the copy of the uploaded input is refreshed only when
// `src_version` changes (0: src is not the uploaded input, copy it every run).
struct LinearState {
  cudaArray_t in_array = nullptr;   // copy of the source
  cudaArray_t tmp_array = nullptr;  // the pair's horizontal output, written through a surface
  int width = 0, height = 0, channels = 0;
  unsigned long long in_version = ~0ull;
  void release();
};
Status launch_bilinear1d(const Pass& pass, const DevImage& src, const DevImage& dst, int axes,
                         unsigned long long src_version, LinearState& state, cudaStream_t s, std::string& path);

// passes/box1d.cu: Box1d, the cascade of boxes pass.widths (at most kMaxBoxes) along pass.axis on the
// border-extended line. Schedules: whole lines (or segments with their halo) in shared memory, each box a
// running sum re-anchored per chunk on a float64 prefix of chunk totals; the x/y pair fused into one 2D-tile
// kernel for small reach (BoxTuning); lines too long for shared memory fall back to the moving-average kernel.
constexpr int kMaxBoxes = 8;
struct BoxTuning {
  // box_pair with total reach R <= this runs as one kernel (2D tiles, x and y fused). 0: never. The default
  // keeps the cost independent of the width (the separate passes); the timing tool's `box` mode times both.
  int fused_max_radius = 0;
  // Shared memory per block for the line kernels; 0: half an SM (two blocks per SM; lines split into
  // segments with their halo where a whole line does not fit). max_smem_optin(): whole lines, one block/SM.
  int smem_budget = 0;
  int min_segment = 64;  // shortest segment (outputs) before the moving-average fallback
  bool force_global = false;  // always the moving-average kernel (global memory, one thread per line)
  int strip_bytes = 0;  // column strips of 128, 64, 32 or 16 bytes per row; 0: the plan's choice
  // The column walk (box_walk.cuh): 1 wherever it applies, 0 never, -1 where plan_walk finds it cheaper than the
  // segments.
  int walk = -1;
  // Rows of one and two channels packed four or two rows to a float4 line (box1d.cu box_rows_packed_kernel): 1
  // wherever they fit, 0 never, -1 where box_cascade.cuh's plan_rows_packed finds it pays.
  int packed_rows = -1;
  // Line passes in quarter (and eighth) blocks: 1 only those, 0 never, -1 where plan_lines_quarter finds them cheaper.
  int quarter = -1;
};
// Env GPUBLUR_CUDA_BOX_FUSED (fused_max_radius), GPUBLUR_CUDA_BOX_SMEM (smem_budget), GPUBLUR_CUDA_BOX_STRIP
// (strip_bytes), GPUBLUR_CUDA_BOX_WALK (walk), GPUBLUR_CUDA_BOX_PACKED (packed_rows) and GPUBLUR_CUDA_BOX_QUARTER
// (quarter) override the defaults.
BoxTuning& box_tuning();
// Scratch bytes launch_box1d needs (the moving-average fallback's line buffers); 0 for the shared-memory
// schedules.
size_t box1d_scratch(const Pass& pass, const DevImage& src);
// pair: passes i, i + 1 are core's box_pair (pass along x src -> mid, then y mid -> dst). fused = true when
// both ran (one kernel); otherwise only `pass` ran (src -> mid for a pair, src -> dst otherwise).
Status launch_box1d(const Pass& pass, const DevImage& src, const DevImage& mid, const DevImage& dst, bool pair,
                    void* scratch, size_t scratch_bytes, cudaStream_t s, std::string& path, bool& fused);

// passes/moving_average.cu: the same function as Box1d, as one thread per line walking it with float64
// running sums (the Intel article's compute shader), the cascade's later boxes in place in a line buffer
// (scratch, lines in batches that fit scratch_bytes).
size_t moving_average_scratch(const std::vector<int>& widths, int axis, const DevImage& img);
Status launch_moving_average(const std::vector<int>& widths, int axis, Border b, const DevImage& src,
                             const DevImage& dst, void* scratch, size_t scratch_bytes, cudaStream_t s,
                             std::string& path);

// passes/integral1d.cu: Integral1d, the cascade of boxes of real widths pass.taps (at most kMaxBoxes) along
// pass.axis on the border-extended line, with box1d's line schedules (fractional window ends read directly);
// scratch for the moving-average fallback where a line does not fit shared memory.
size_t integral1d_scratch(const Pass& pass, const DevImage& src);
Status launch_integral1d(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch,
                         size_t scratch_bytes, cudaStream_t s, std::string& path);

// passes/sat.cu: the inclusive float64 summed-area table of src extended by pass.extend (table = dst).
Status launch_sat(const Pass& pass, const DevImage& src, const DevImage& table, cudaStream_t s, std::string& path);
// passes/sat.cu: two Sats that double-integrate the table src (sat_pair, core/program.hpp) into dst through mid.
Status launch_sat_pair(const DevImage& src, const DevImage& mid, const DevImage& dst, cudaStream_t s,
                       std::string& path);
// passes/sat_box.cu: the w x w window mean from four table lookups per pixel (before the table: 0).
Status launch_sat_box(const Pass& pass, const DevImage& table, const DevImage& dst, cudaStream_t s,
                      std::string& path);
// passes/spread.cu: Op::Spread, the nine spread weights gathered into a float64 table-sized image, the margin
// folded in (the scratch holds the fold's taps and the lines' sums over them).
size_t spread_scratch(const Pass& pass, const DevImage& src);
Status launch_spread(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch, size_t scratch_bytes,
                     cudaStream_t s, std::string& path);
// passes/scale.cu: Op::Scale, taps[0] times a float64 source into a float32 destination.
Status launch_scale(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path);
// passes/box2d.cu: the direct w x w window mean (w^2 reads per pixel).
Status launch_box2d(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path);

// passes/bilateral.cu: Bilateral (2D window) and Bilateral1d (along pass.axis).
Status launch_bilateral(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path);

// passes/kawase.cu: one Kawase pass (4 half-pixel bilinear samples at the diagonal offsets +-(k + 1/2)).
Status launch_kawase(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path);

// passes/diffusion.cu: the heat steps of `pass`, several per launch (a walk down the image); scratch: one image
// when the steps take more than one launch. Steps per launch: GPUBLUR_CUDA_DIFFUSION_STEPS (1..8; 0 or unset: 8),
// settable by tests.
int& diffusion_steps_per_launch();
size_t diffusion_scratch(const Pass& pass, const DevImage& src);
Status launch_diffusion(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch,
                        size_t scratch_bytes, cudaStream_t s, std::string& path);
// passes/conv2d_matrix.cu: Conv2dMatrix (direct 2D correlation with a full matrix). Weights in constant memory
// up to kConv2dMatrixConstTaps, else in the scratch (global memory, conv2d_matrix_scratch bytes); the source
// tile with its halo in shared memory where it fits, else every tap read from global memory.
constexpr int kConv2dMatrixConstTaps = 8192;
size_t conv2d_matrix_scratch(const Pass& pass, const DevImage& src);
Status launch_conv2d_matrix(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch,
                            size_t scratch_bytes, cudaStream_t s, std::string& path);
// passes/reshuffle.cu: Reshuffle (Porikli's single-output reshuffling). Unique weights and packed links in constant
// memory up to kReshuffleConstWeights / kReshuffleConstLinks, else in the scratch (reshuffle_scratch bytes); the
// source tile with its halo in shared memory where it fits, else every tap read from global memory.
constexpr int kReshuffleConstWeights = 2048, kReshuffleConstLinks = 12288;  // 56 KiB of the 64 KiB
size_t reshuffle_scratch(const Pass& pass, const DevImage& src);
Status launch_reshuffle(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch,
                        size_t scratch_bytes, cudaStream_t s, std::string& path);
// passes/dual.cu: the dual filter's down pass (to ceil(n / 2)) and up pass (back to n), explicit float weights.
Status launch_dual_down(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path);
Status launch_dual_up(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path);
// The first two DualDown passes as one kernel, the middle image never written (passes/dual_fused.cuh);
// core's dual_pair chooses.
Status launch_dual_down_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid,
                             const DevImage& dst, cudaStream_t s, std::string& path);
// passes/fft_conv1d.cu: FftConv1d (Conv1d's function): overlap-save segments transformed in shared memory
// (passes/fft_segments.cu) where a segment length fits the kernel, else through cuFFT, loaded at run time: batched
// R2C/C2R transforms of the border-extended lines in chunks (passes/fft_layout.hpp), lengths and spectrum from
// core/fft.hpp. FftState (the backend's, kept across runs) caches the plans and the kernel's bins;
// fft_conv1d_prepare makes them before the timed section and returns the scratch bytes the pass needs.
// GPUBLUR_CUDA_FFT=cufft forces cuFFT's path (read per pass: the tests run both paths).
struct FftState {
  struct Impl;
  Impl* impl = nullptr;
  void release();
};
// Whether libcufft could be loaded (no device needed); `why` says what was tried where it could not.
bool cufft_loaded(std::string* why);
size_t fft_conv1d_prepare(const Pass& pass, const DevImage& src, FftState& state);
Status launch_fft_conv1d(const Pass& pass, const DevImage& src, const DevImage& dst, FftState& state, void* scratch,
                         size_t scratch_bytes, cudaStream_t s, std::string& path);
// Whether a Conv1d pass runs as FftConv1d's segments (the same function within float rounding): where measured
// faster than the direct passes (the pass table's schedule below core's hand-over radius, core/fft.hpp).
bool conv1d_as_fft(const Pass& pass, const DevImage& src, const DevImage& dst);
struct FftSegPlan;  // passes/fft_segments.hpp
bool fft_segments_plan(int axis, const DevImage& src, int radius, Border b, FftSegPlan& p);
// tails: core's fft_clamp_tails of the taps on the device, for clamp's unpadded lines (else unused).
Status launch_fft_segments(const FftSegPlan& p, int axis, Border b, const DevImage& src, const DevImage& dst,
                           const float2* bins, const float* tails, cudaStream_t st);
// passes/iir1d.cu: Iir1d (schedules: IirTuning below).
// The tile schedule's aggregates (columns) come from the scratch: iir1d_scratch bytes.
size_t iir1d_scratch(const Pass& pass, const DevImage& src);
// core's iir_pair (p along x src -> mid, q along y mid -> dst) with the columns' sums made by the rows' last kernel
// (iir_tiles.cuh), where both passes run as tiles; iir1d_pair_scratch is 0 where they do not (then run the passes
// one at a time).
size_t iir1d_pair_scratch(const Pass& p, const DevImage& src);
Status launch_iir1d_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid, const DevImage& dst,
                         void* scratch, size_t scratch_bytes, cudaStream_t s, std::string& path);
Status launch_iir1d(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch, size_t scratch_bytes,
                    cudaStream_t s, std::string& path);
// passes/down2.cu, passes/up2.cu: resampling by 2 (Op::Down2: the analysis kernel's n x n window at 2X + first;
// Op::Up2: the B-spline's 3/4, 1/4 split per axis), one thread per destination pixel, border-remapped reads.
Status launch_down2(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path);
Status launch_up2(const Pass& pass, const DevImage& src, const DevImage& dst, cudaStream_t s, std::string& path);
// The schedules (passes/resample_fused.cuh): launch_down2 / launch_up2 run a pass left unpaired (launch_down2 short
// kernels only).
// Two consecutive Down2 (both with <= 4 taps) / Up2 passes as one kernel, the middle image never written; the
// long (folded) Down2 as rows then columns through scratch (down2_scratch bytes; short kernels need none).
size_t down2_scratch(const Pass& pass, const DevImage& src, const DevImage& dst);
Status launch_down2_rows_cols(const Pass& pass, const DevImage& src, const DevImage& dst, void* scratch,
                              size_t scratch_bytes, cudaStream_t s, std::string& path);
Status launch_down2_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid, const DevImage& dst,
                         cudaStream_t s, std::string& path);
Status launch_up2_pair(const Pass& p, const Pass& q, const DevImage& src, const DevImage& mid, const DevImage& dst,
                       cudaStream_t s, std::string& path);
// Whether passes i and i + 1 may run as one fused Down2 / Up2 kernel: core's rule (core/program.hpp), which
// pass_table.cpp combines with its size rule.
using gpublur::down2_fusable;
using gpublur::resample_pair;
// Whether passes i and i + 1 run as one fused DualDown kernel: core's rule.
using gpublur::dual_pair;

// passes/iir1d.cu: Iir1d's schedules (whole rows; tiles; the segment scan for long one-channel rows). lines: the
// line kernel everywhere instead (the tests' reference schedule; measured 1.8x slower than the scan at 4096^2 on an
// H100).
struct IirTuning {
  bool lines = false;
  // The x/y pair with the columns' sums folded into the rows' outputs (launch_iir1d_pair); false: the passes one
  // at a time. Env GPUBLUR_CUDA_IIR_PAIR=0 turns it off (measuring both on one binary).
  bool pair = true;
  // Rows whole in shared memory (iir_rows.cuh) where a row fits a block; false: the tiles, the pair or the scan.
  // Env GPUBLUR_CUDA_IIR_ROWS=0 turns it off.
  bool rows = true;
  // The column tiles' length: 0 by the image (iir1d.cu's tile_plan), or 32 or 64 (env GPUBLUR_CUDA_IIR_COLTILE).
  int col_tile = 0;
  // RGBA pairs as 2D tiles (iir_2d.cuh): 0 never (whole rows and column tiles), 1 where measured faster (iir1d.cu's
  // plan_2d), 2 always (tests). Env GPUBLUR_CUDA_IIR_2D.
  int two_d = 1;
  // Columns of up to 1024 positions with whole lines in one block (iir_cols_block.cuh) instead of the column tiles:
  // 0 never, 1 where measured faster (iir1d.cu's plan_cols_block), 2 wherever they fit (tests). Env
  // GPUBLUR_CUDA_IIR_COLS_BLOCK.
  int cols_block = 1;
};
IirTuning& iir_tuning();

}  // namespace gpublur::cuda
