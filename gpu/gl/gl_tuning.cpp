// GL tuning knobs: defaults measured on an H100 and env overrides for measuring shader variants on one binary
// (docs/performance.md, GL). Read per run.
#include "gpu/gl/gl_tuning.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <fmt/format.h>

#include "gpu/gl/gl_tiles.hpp"

namespace gpublur {
namespace {

// An integer knob: the variable's value where it is set and not empty, else `fallback`.
int env_int(const char* name, int fallback) {
  const char* env = std::getenv(name);
  return env && *env ? std::atoi(env) : fallback;
}

}  // namespace

// conv1d separable pairs: the fused single-dispatch shader up to this radius. Small images only: on an H100
// (NVIDIA GL caps a group at 48 KiB of shared memory, so the fused tile is only 32x32 with a 52x53 input) it took
// 0.92 ms at radius 9 against 0.70 ms for the two passes with 16 KiB tiles at 4096^2 (docs/performance.md, GL),
// 0.070 against 0.057 ms at 1024^2, but 0.017-0.021 against 0.023-0.025 at 512^2 and 0.012-0.014 against
// 0.015-0.017 at 128^2 (radius 4-9: one dispatch instead of two where the dispatches dominate; docs/performance.md,
// the ninth session's summary).
// GPUBLUR_GL_FUSED_MAX_RADIUS overrides it (-1: never fuse), for measuring both forms.
int fused_max_radius(long long pixels, bool llvmpipe) {
  const int by_size = !llvmpipe && pixels <= kFusedSmallPixels ? kFusedSmallMaxRadius : -1;
  return env_int("GPUBLUR_GL_FUSED_MAX_RADIUS", by_size);
}

// conv1d separable pairs: the sliding fused shader (conv1d_slide.comp) up to this radius where its ring fits.
// Off by default: on an H100 it took 1.01 / 5.65 ms at radius 9 / 36 against 0.70 / 1.16 ms for the two
// passes (docs/performance.md, GL round 4). GPUBLUR_GL_SLIDE_MAX_RADIUS overrides it (-1: never),
// GPUBLUR_GL_SLIDE=TWxPR[xSH] picks its shape.
int slide_max_radius() {
  return env_int("GPUBLUR_GL_SLIDE_MAX_RADIUS", kSlideMaxRadius);
}

// Conv1d passes as FftConv1d's segments from this radius, except on llvmpipe. Measured on an H100
// (docs/performance.md, "GL fft segments"): from radius 24 (sigma 8) the segments beat the direct two-pass form
// at 4096^2 (0.691 against 0.904 ms) and 1024^2 (0.076 against 0.088); at radius 9 they lose at 1024^2 (0.078
// against 0.059). The tests of the direct forms set it to 0.
int sep_fft_min_radius_gl() {
  return env_int("GPUBLUR_GL_SEP_FFT_MIN_RADIUS", kSepFftMinRadius);
}

// iir1d: tiles from this many pixels, segments below (passes/iir1d.cpp). Measured on an H100 (docs/performance.md "GL
// tiles" under iir): tiles 1.04 against 1.67 ms at 4096^2 RGBA, 0.198 against 0.143 at 1024^2; on an H200 (iir, "GL
// iir's x/y pair below 2048^2") RGBA at 1024^2 0.159 against 0.132, 1448^2 0.299 against 0.287, 2048^2 alike; the pair
// of one channel 0.088 against 0.128 at 1024^2 and 0.146 against 0.280 at 1448^2, two channels 0.118 against 0.130 and
// 0.201 against 0.284. The segments in two sweeps (H200, RGBA, call 227, "GL iir's real term, two sweeps") against the
// tiles: 2048^2 0.225 against 0.286 ms, 2896^2 0.480 against 0.553, 4096^2 0.794 against 0.741: tiles from 4096^2;
// against the pair (call 229), one channel 1024^2 0.075 against 0.083, 1700^2 0.163 against 0.169, 2048^2 0.225 against
// 0.181; two channels 1024^2 0.075 against 0.115, 1700^2 0.164 against 0.229, 2048^2 0.225 against 0.214: the pair from
// 2048^2.
long long iir_tiles_min_pixels(bool pair) {
  const char* env = std::getenv("GPUBLUR_GL_IIR_TILES_MIN_PIXELS");
  return env && *env ? std::atoll(env) : pair ? kIirPairMinPixels : kIirTilesMinPixels;
}

// conv1d separable pairs: the sliding register window up to this radius: on llvmpipe kWindowMaxRadius
// (docs/performance.md, "GL on llvmpipe": Mesa's compile time grows with the radius), on GPUs by the window's width
// (gl_tuning.hpp). GPUBLUR_GL_WINDOW_MAX_RADIUS overrides both (-1: never), so that the tests still run the two-pass
// shader on every device.
int window_max_radius(bool llvmpipe, int vch) {
  return env_int("GPUBLUR_GL_WINDOW_MAX_RADIUS", llvmpipe ? kWindowMaxRadius : vch == 1 ? 39 : vch == 2 ? 30 : 24);
}
std::string window_shape_spec() {
  const char* env = std::getenv("GPUBLUR_GL_WINDOW_SHAPE");
  return env ? env : "";
}
std::string slide_spec() {
  const char* env = std::getenv("GPUBLUR_GL_SLIDE");
  return env ? env : "";
}

// GPUBLUR_GL_SEP_ROUNDS=balanced|plain: the two-pass shader's form (conv1d.comp BALANCED 1|0); unset:
// `by_default`.
bool sep_balanced(bool by_default) {
  const char* env = std::getenv("GPUBLUR_GL_SEP_ROUNDS");
  if (env && std::string(env) == "balanced") return true;
  if (env && std::string(env) == "plain") return false;
  return by_default;
}
// GPUBLUR_GL_OUTER=const: the outer loops of the conv1d shaders (load rounds, strip steps) get a
// compile-time trip count too; unset: the host passes it as a uniform, so that NVIDIA's unroll pragma
// unrolls the inner loops only (docs/performance.md, GL round 4).
std::string outer_define() {
  const char* env = std::getenv("GPUBLUR_GL_OUTER");
  return std::string("#define OUTER_UNIFORM ") + (env && std::string(env) == "const" ? "0" : "1") + "\n";
}

// Tuning knobs read per run, for measuring shader variants on one binary (docs/performance.md, GL):
// GPUBLUR_GL_SEP_PER: outputs per invocation of conv1d.comp, 4 (default) or 8.
int sep_per() {
  const char* env = std::getenv("GPUBLUR_GL_SEP_PER");
  return env && std::atoi(env) == 8 ? 8 : kSepPer;
}
// GPUBLUR_GL_2D_PER: outputs per invocation of conv2d.comp, 4 (default) or 8.
int conv2d_per() {
  const char* env = std::getenv("GPUBLUR_GL_2D_PER");
  return env && std::atoi(env) == 8 ? 8 : kSepPer;
}
// GPUBLUR_GL_UNROLL=1 / 0: the shaders start with NVIDIA's `#pragma optionNV(unroll all)` (other compilers
// ignore unknown pragmas) / never do; unset: where measured faster on an H100 (`by_default`).
bool unroll_pragma(bool by_default) {
  const char* env = std::getenv("GPUBLUR_GL_UNROLL");
  return env && *env ? std::atoi(env) == 1 : by_default;
}
// GPUBLUR_GL_SHARED_LIMIT=BYTES: the tile choosers plan for at most this much shared memory per group
// (fewer bytes: more groups resident per SM), never more than the device's limit; unset: `by_default`.
int shared_budget(int device_max, int by_default) {
  const char* env = std::getenv("GPUBLUR_GL_SHARED_LIMIT");
  const int lim = env && *env ? std::atoi(env) : by_default;
  return lim > 0 ? std::min(lim, device_max) : device_max;
}
// GPUBLUR_GL_LINEAR_CONST_TAPS=1: bilinear1d taps as compile-time constants instead of a storage buffer
// (measured the same on an H100, so off by default).
bool linear_const_taps() {
  const char* env = std::getenv("GPUBLUR_GL_LINEAR_CONST_TAPS");
  return env && *env && std::atoi(env) == 1;
}
// GPUBLUR_GL_BOX_TILE=LINESxPER[xTHREADS[xVCH]][t]: box1d.comp's tile shape (lines per group x positions per
// invocation, the latter odd, x invocations per group, default 256, x channels a line carries: 1 (two rounds for two
// channels), 2 (two rounds for three and four) or 4, default by the channels; t: with a constant tail on clamp and zero
// borders, where the group holds the whole line) instead of the one box_tile picks for the reach; "lines": the line
// walkers (moving_average.comp) for every box1d pass. Unset: box_tile's pick, the line walkers only where no tile fits.
std::string box_tile_spec() {
  const char* env = std::getenv("GPUBLUR_GL_BOX_TILE");
  return env ? env : "";
}
// GPUBLUR_GL_RESHUFFLE_TILE: reshuffle.comp's tile TWxTHxBY, or 0 for the texelFetch form (gl_tiles.hpp
// reshuffle_tile).
std::string reshuffle_tile_spec() {
  const char* env = std::getenv("GPUBLUR_GL_RESHUFFLE_TILE");
  return env ? env : "";
}
// GPUBLUR_GL_KAWASE_RUNS: 1 / 0 run kawase's offsets 0-3 as runs at every size and channel count / never (the
// tests' way to each form); unset: offsets 0-3 of vec4 texels from kKawaseRunsMinPixels, and on llvmpipe every
// offset (its float interpolation at coordinates rounded in float is not the exact 2 x 2 mean GPUs' 8-bit
// fractions give: 1.2e-4 off on a 4100-wide line).
bool kawase_runs(int k, long long pixels, int vch, bool llvmpipe) {
  const char* env = std::getenv("GPUBLUR_GL_KAWASE_RUNS");
  if (env && *env) return k <= 3 && std::atoi(env) == 1;
  return llvmpipe || (k <= 3 && vch == 4 && pixels >= kKawaseRunsMinPixels);
}
// GPUBLUR_GL_BOX_SUMS: box1d.comp's running sums: plain (default: float32 updates after a compensated window
// start, at most LS - 1 of them; H100 4096^2 RGBA box sigma 12: 1.116 ms against fast2sum's 1.334), fast2sum
// (float pairs, Fast2Sum updates, exact for non-negative values: 10 FP32 operations per value and box against
// 4), twosum (float pairs, TwoSum updates, exact for any signs: 16), f64 (float64: 3 conversions per value and
// box, which run at 16 per clock per SM on an H100, a quarter of its FP64 rate). Returns box1d.comp's SUMS
// (3, 0, 1, 2).
int box_sums() {
  const char* env = std::getenv("GPUBLUR_GL_BOX_SUMS");
  const std::string v = env ? env : "";
  return v == "f64" ? 2 : v == "twosum" ? 1 : v == "fast2sum" ? 0 : 3;
}
// GPUBLUR_GL_BOX_TOTALS=direct|grouped|scan: how box1d.comp starts windows wider than an invocation's block: whole
// blocks' totals one by one, in groups of ~sqrt(count) from 2 of them, or two lookups in the line's prefix sums (a
// scan of the totals per box); unset: box_tile's choice.
std::string box_totals_spec() {
  const char* env = std::getenv("GPUBLUR_GL_BOX_TOTALS");
  return env ? env : "";
}
// GPUBLUR_GL_BOX_PAIR=0: a Box1d / Integral1d pair along x then y runs as its rows pass and its columns pass, not as
// the transposed pair (passes/box_pair.cpp): for the tests of the plain passes and for comparisons.
bool box_transposed_pair() {
  const char* env = std::getenv("GPUBLUR_GL_BOX_PAIR");
  return !(env && std::string(env) == "0");
}
// Whether box1d.comp's tiles may take a constant tail (gl_tiles.hpp BoxTile::tail) on a border that repeats one value
// past the line (clamp, zero); GPUBLUR_GL_BOX_TAIL=0: never, for comparisons.
bool box_const_tail(Border b) {
  const char* env = std::getenv("GPUBLUR_GL_BOX_TAIL");
  return (b == Border::Clamp || b == Border::Zero) && !(env && std::string(env) == "0");
}
// GPUBLUR_GL_BOX_WALK=1: the transposed pair's groups walk two lines wherever the shape can (gl_tiles.hpp box_walks; the
// tests run it on llvmpipe, whose shapes the rule leaves out); =0: never. Unset: the rule.
int box_walk_spec() {
  const char* env = std::getenv("GPUBLUR_GL_BOX_WALK");
  if (!env || !*env) return -1;
  return std::string(env) == "1" ? 1 : 0;
}
// GPUBLUR_GL_BOX_LAST=0: no line's last group as a tile of its own (box_last_tile), for comparisons.
bool box_last_groups() {
  const char* env = std::getenv("GPUBLUR_GL_BOX_LAST");
  return !(env && std::string(env) == "0");
}
bool gl_staging() {
  const char* env = std::getenv("GPUBLUR_GL_STAGING");
  return !(env && std::string(env) == "0");
}
// GPUBLUR_GL_DUMP_DIR: each program's driver binary (glGetProgramBinary) is written there once built;
// NVIDIA's holds its assembly as text (local-memory arrays show as `lmem`).
void dump_binary(GLuint prog, const std::string& key) {
  const char* dir = std::getenv("GPUBLUR_GL_DUMP_DIR");
  if (!dir || !*dir) return;
  GLint len = 0;
  glGetProgramiv(prog, GL_PROGRAM_BINARY_LENGTH, &len);
  if (len <= 0) return;
  std::vector<char> bin(size_t(len), 0);
  GLenum format = 0;
  glGetProgramBinary(prog, len, nullptr, &format, bin.data());
  const std::string name = fmt::format("{}/{:016x}.bin", dir, std::hash<std::string>{}(key));
  if (FILE* f = std::fopen(name.c_str(), "wb")) {
    std::fwrite(bin.data(), 1, bin.size(), f);
    std::fclose(f);
  }
  if (FILE* f = std::fopen((std::string(dir) + "/index.txt").c_str(), "a")) {
    std::string one_line = key;
    for (char& c : one_line) c = c == '\n' ? ' ' : c;
    std::fprintf(f, "%s %s\n", name.c_str(), one_line.c_str());
    std::fclose(f);
  }
}

}  // namespace gpublur
