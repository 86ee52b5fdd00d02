// GL tuning knobs (gl_tuning.cpp): each returns the measured default unless its GPUBLUR_GL_* environment
// variable overrides it. Internal to gpu/gl.
#pragma once
#include <glad/gl.h>

#include <string>

#include "core/border.hpp"

namespace gpublur {

// conv1d separable pairs: the fused single-dispatch shader on images of at most kFusedSmallPixels up to radius
// kFusedSmallMaxRadius (not on llvmpipe), else never; GPUBLUR_GL_FUSED_MAX_RADIUS, where set, decides alone (-1:
// never; R: up to R at every size).
constexpr long long kFusedSmallPixels = 512LL * 512;
constexpr int kFusedSmallMaxRadius = 9;
int fused_max_radius(long long pixels, bool llvmpipe);  // GPUBLUR_GL_FUSED_MAX_RADIUS
// conv1d separable pairs: the sliding fused shader up to this radius (-1: never, the default).
constexpr int kSlideMaxRadius = -1;
int slide_max_radius();                      // GPUBLUR_GL_SLIDE_MAX_RADIUS
std::string slide_spec();                    // GPUBLUR_GL_SLIDE=TWxPR[xSH]
// Conv1d passes from this radius run as FftConv1d's segments where they fit, except on llvmpipe (<= 0: never).
constexpr int kSepFftMinRadius = 24;
int sep_fft_min_radius_gl();                 // GPUBLUR_GL_SEP_FFT_MIN_RADIUS
// conv1d separable pairs: the sliding register window (conv1d_window.comp) up to this radius: on llvmpipe
// kWindowMaxRadius; on GPUs, before the FFT segments, up to 39 / 30 / 24 for float / vec2 / vec4 windows (vch 1, 2,
// 4; the window holds 2r + PER values a line in registers: H200, docs/performance.md "GL gauss-sep as register
// windows").
constexpr int kWindowMaxRadius = 100;
int window_max_radius(bool llvmpipe, int vch);  // GPUBLUR_GL_WINDOW_MAX_RADIUS (every device and vch)
std::string window_shape_spec();             // GPUBLUR_GL_WINDOW_SHAPE=GROUPxSTEPSxPER (conv1d.cpp window_shape)
bool sep_balanced(bool by_default);          // GPUBLUR_GL_SEP_ROUNDS=balanced|plain
std::string outer_define();                  // GPUBLUR_GL_OUTER=const
int sep_per();                               // GPUBLUR_GL_SEP_PER=8
int conv2d_per();                            // GPUBLUR_GL_2D_PER=8
bool unroll_pragma(bool by_default);         // GPUBLUR_GL_UNROLL=1|0
int shared_budget(int device_max, int by_default);  // GPUBLUR_GL_SHARED_LIMIT=BYTES
bool linear_const_taps();                    // GPUBLUR_GL_LINEAR_CONST_TAPS=1
std::string box_tile_spec();                 // GPUBLUR_GL_BOX_TILE=LINESxPER[xTHREADS[xVCH]][t]|lines
int box_sums();                              // GPUBLUR_GL_BOX_SUMS=fast2sum|twosum|f64
std::string box_totals_spec();               // GPUBLUR_GL_BOX_TOTALS=direct|grouped|scan
bool box_transposed_pair();                  // GPUBLUR_GL_BOX_PAIR=0: box / integral x-y pairs as two passes
bool box_const_tail(Border b);                // clamp and zero; GPUBLUR_GL_BOX_TAIL=0: never (BoxTile::tail)
int box_walk_spec();                         // GPUBLUR_GL_BOX_WALK=1|0: box_walks' force (-1 unset)
bool box_last_groups();                      // GPUBLUR_GL_BOX_LAST=0: no last group of its own (box_last_tile)
std::string reshuffle_tile_spec();           // GPUBLUR_GL_RESHUFFLE_TILE=TWxTHxBY|0
// kawase passes of offsets 0-3 as runs (kawase.comp KK) for vec4 texels (three and four channels) on images of at
// least this many pixels, else the sampler's four bilinear samples (H200, docs/performance.md "GL 2D methods from
// shared memory; GL kawase runs": runs 1.37x faster at 4096^2 RGBA, 1.14x at 2048^2, slower at 1024^2 and below and
// for one and two channels at every size).
constexpr long long kKawaseRunsMinPixels = 2048LL * 2048;
// GPUBLUR_GL_KAWASE_RUNS=1|0: offsets 0-3 always / never; unset: large RGBA images, and every pass on llvmpipe.
bool kawase_runs(int k, long long pixels, int vch, bool llvmpipe);
// iir1d: images of at least this many pixels run as tiles (iir_tiles.comp), smaller ones as segments (-1: never
// tiles; 0: always); the x/y pair of one or two channels (iir1d_tiles_pair) from kIirPairMinPixels.
constexpr long long kIirTilesMinPixels = 4096LL * 4096;
constexpr long long kIirPairMinPixels = 2048LL * 2048;
long long iir_tiles_min_pixels(bool pair);   // GPUBLUR_GL_IIR_TILES_MIN_PIXELS (both)
void dump_binary(GLuint prog, const std::string& key);  // GPUBLUR_GL_DUMP_DIR=DIR
// Uploads into storage buffers and the 8-bit path's downloads through pinned staging (gl_staging.hpp);
// GPUBLUR_GL_STAGING=0: the driver's glNamedBufferSubData / glGetNamedBufferSubData (the form before, for measuring
// both on one binary).
bool gl_staging();

}  // namespace gpublur
