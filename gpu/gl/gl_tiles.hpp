// Work-group shapes for the shared-memory Gaussian shaders (shaders/conv1d.comp, conv1d_fused.comp,
// conv2d.comp), derived from the device's limits so they hold on every driver (llvmpipe: 32 KiB shared
// memory; NVIDIA: 48 KiB). The radius is compiled into the shaders (constant loop bounds: the compiler
// unrolls the tap loops and drops the window's bounds tests).
#pragma once
#include <string>
#include <vector>

namespace gpublur {

// Outputs per invocation along the filter axis, and the granularity the weights are padded to (zero weights
// at the end), so tap loops run in whole chunks of one vec4 of weights.
constexpr int kSepPer = 4;

// Taps 2r+1 rounded up to a multiple of `per` (the outputs per invocation of the shader using them).
int padded_taps(int radius, int per = kSepPer);
// The weights buffer is padded to this many taps, enough for every `per` the shaders use (4 or 8).
constexpr int kMaxSepPer = 8;

struct SepTile {
  int local_x = 0, local_y = 0;  // work-group size
  int per = kSepPer;             // outputs per thread along the pass axis
  int shared_vec4 = 0;           // shared array size in vec4s (16 bytes each)
  int along_threads() const;     // threads along the pass axis
  int across_threads() const;
  int tile() const { return along_threads() * per; }  // outputs per line per group
  int span() const;  // shared texels per line (odd: lines start on different banks)
  // Kernel offsets applied per shared-memory load: a multiple of per; the line holds tile + offsets texels.
  int offsets_per_round() const;
  int axis = 0;  // 0 horizontal, 1 vertical
  int rounds(int radius) const;      // shared-memory load rounds for 2r+1 taps
  int round_taps(int radius) const;  // taps per round (balanced; <= offsets_per_round, a multiple of per)
  // Taps the shader reads: rounds x round_taps >= 2r+1 (the weights buffer is padded with zeros to this).
  int weight_count(int radius) const { return rounds(radius) * round_taps(radius); }
  // #defines for conv1d.comp; balanced: rounds of equal length (BALANCED 1), else the previous form.
  std::string defines(int radius, int max_ubo_bytes, bool balanced = true) const;
};

// max_shared_bytes: GL_MAX_COMPUTE_SHARED_MEMORY_SIZE; max_invocations: GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS.
// per: outputs per invocation, 4 or 8 (8 halves the shared-memory loads per output; vertical groups then
// have half the threads so a line still holds a tile plus a useful round of offsets).
SepTile sep_tile(int axis, int max_shared_bytes, int max_invocations, int per = kSepPer);

// The fused conv1d pair tile (shaders/conv1d_fused.comp): a group loads (TW + NTAPS) x (TH + NTAPS) texels
// once, runs the horizontal pass into shared memory (over the same array) and the vertical pass out.
struct FusedTile {
  int tw = 32, th = 0;  // output tile; th == 0: the radius does not fit (use two passes)
  int threads = 256;
  int radius = 0;
  int in_pitch() const;   // odd, >= tw + padded_taps(radius)
  int mid_pitch() const;  // odd, >= tw
  int shared_vec4() const;
  std::string defines() const;
};

// The largest tile height (32, 24, 16 or 8) whose shared array fits; th = 0 where none does.
FusedTile fused_tile(int radius, int max_shared_bytes, int max_invocations);

// The sliding fused conv1d pair strip (shaders/conv1d_slide.comp): TW columns x SH rows of outputs per
// group of TW x PR / 4 invocations, PR rows per step, a ring of 2r + 2 PR horizontally filtered rows.
struct SlideTile {
  int tw = 0, pr = 16, sh = 256, radius = 0;  // tw == 0: does not fit
  int threads() const { return tw * pr / 4; }
  int ring_rows() const { return 2 * radius + 2 * pr; }
  int shared_bytes() const { return ring_rows() * tw * 16; }
  int steps() const { return (2 * radius + pr - 1) / pr + sh / pr; }  // STEPS in the shader
  std::string defines() const;  // without WEIGHT_LIST
};

// `spec` "TWxPR" or "TWxPRxSH" (GPUBLUR_GL_SLIDE) or "" for the default: the widest TW of 64 / 32 / 16 with
// PR 16 whose ring fits max_shared_bytes; SH = `sh` rounded up to a multiple of PR. tw = 0 where nothing
// fits or the spec is malformed.
SlideTile slide_tile(int radius, int max_shared_bytes, int max_invocations, int sh, const std::string& spec = "");

// The conv2d block (shaders/conv2d.comp): TW x TH outputs (64 x 16; 32 x 32 for float texels) per group of TW / per
// x TH, kernel taps in blocks of CY rows x CX columns (CX a multiple of per) with (TH + CY - 1) x (TW + CX) texels in
// shared memory, each texel `vch` floats (line_vch: one- and two-channel images keep a quarter / half of an RGBA
// texel's bytes and arithmetic). Taps reach rx along x, ry along y: the separable Gaussian's outer product (rx = ry,
// its 1D taps), or with `matrix` a full matrix of 2 ry + 1 rows of padded_taps(rx, per) weights.
struct Conv2dTile {
  int tw = 64, th = 16, cx = 0, cy = 0, rx = 0, ry = 0;
  int per = kSepPer;  // outputs per invocation (4 or 8); CX and the padded taps are multiples of it
  int vch = 4;        // floats a texel in shared memory and in the sums (1, 2, 4)
  bool matrix = false;
  int threads() const { return tw / per * th; }
  int pitch() const;  // >= tw + cx, the one of the next 32 with the fewest bank conflicts in the window reads
  int shared_texels() const { return (th + cy - 1) * pitch(); }
  int weights() const { return matrix ? (2 * ry + 1) * padded_taps(rx, per) : padded_taps(rx, per); }
  std::string defines(int max_ubo_bytes) const;
};

// Picks CX x CY with the most taps per block that fits the shared memory.
Conv2dTile conv2d_tile(int rx, int ry, bool matrix, int max_shared_bytes, int per = kSepPer, int vch = 4);

// The row pitch (in texels, of the 32 from `width` on) whose warp-wide shared-memory reads take the fewest
// wavefronts, the first of them: lane l (0..31) reads texel (l / lanes_per_row) * pitch + (l % lanes_per_row) *
// step when by_row, else (l % rows_per_col) * pitch + (l / rows_per_col) * step; texels of vch floats, 32 banks of
// 4 bytes (a warp takes vch wavefronts at best: 8 / 4-byte texels by halves / quarters of the warp).
int least_conflict_pitch(int width, int vch, bool by_row, int lanes, int step);

// reshuffle.comp's tile (its TILE form): a group of tw x by invocations makes tw x th outputs, th / by rows each,
// from a (tw + 2 reach) x (th + 2 reach) source tile of vch-float texels in shared memory, rows pitch() apart; in
// `rounds` rounds of vch of the image's channels each where a tile of all of them does not fit.
struct ReshuffleTile {
  int tw = 0, th = 0, by = 0, reach = 0, vch = 4;  // tw == 0: no tile (the texelFetch form)
  int rounds = 1;
  int per() const { return th / by; }
  int pitch() const { return least_conflict_pitch(tw + 2 * reach, vch, true, tw, 1); }
  int shared_bytes() const { return pitch() * (th + 2 * reach) * 4 * vch; }
  bool gather() const;
  std::string defines() const;
};

// The first of 32 x 32 outputs (8 rows of invocations), 32 x 16 (8) and 16 x 16 (8) whose tile of the image's vch
// channels fits max_shared_bytes, else the first whose tile of vch / 2 (then 1) channels fits, in vch / 2 (vch) rounds;
// or `spec` "TWxTHxBY" (GPUBLUR_GL_RESHUFFLE_TILE; "0": the texelFetch form); tw 0 where none fits.
ReshuffleTile reshuffle_tile(int reach, int vch, int max_shared_bytes, const std::string& spec = "");

// The box1d tile (shaders/box1d.comp): a group of `threads` invocations holds `lines` lines x span()
// positions of the border-extended source in shared memory (`vch` floats a position), runs the cascade of boxes
// in place, one box after the other, and stores outputs() = span() - 2 reach positions of each line. Each
// invocation owns `per` consecutive positions of one line (odd, so neighbouring invocations fall on different
// banks) and makes their outputs with a running sum; where a box is wider than `per`, its first window sum
// takes the other blocks' totals (`totals` 1) or, for boxes wider than 64 blocks, the line's prefix sums from a
// scan of the totals (`totals` 2), kept in shared memory.
struct BoxTile {
  int threads = 256, lines = 0, per = 0, reach = 0;  // lines == 0: does not fit (use the line walkers)
  int vch = 4;     // channels a line carries (1, 2, 4): a position takes 4 vch bytes of shared memory
  int rounds = 1;  // 2: an RGBA (or RGB) image as lines of two channels, RG then BA (vch 2)
  int totals = 0;  // 0 none, 1 block totals, 2 scanned prefixes
  int grouped = 0;  // totals 1 with parts: windows of at least this many whole blocks take them in groups (0 never)
  int sums = 3;    // 3 plain float32 updates, 0 float pairs with Fast2Sum updates, 1 with TwoSum, 2 float64
                   // (GPUBLUR_GL_BOX_SUMS)
  // A constant tail: the group holds the end of its lines, past which the border repeats one value (clamp, zero). It
  // loads the halo after the line only up to one block of that value, since box1d.comp clamps every read past its
  // positions (values and block totals) to its last ones, which hold that value whatever box has run: a reach fewer
  // positions. box_tile's: one group a line; box_last_tile's: a line's last group after groups of another tile.
  bool tail = false;
  int segs() const { return threads / lines; }  // invocations per line
  int span() const { return segs() * per; }
  int outputs() const { return tail ? span() - reach - per : span() - 2 * reach; }
  int pitch() const;  // positions per line in shared memory, >= span(), padded so loads spread over the banks
  // NVIDIA's GL holds 48 KB of shared memory an SM in all (H200, counted by the groups themselves): floor(49152 /
  // shared_bytes()) groups run an SM, so 2 KB more took box sigma 48's second group away, 60% slower, and a whole
  // line at sigma 200 runs one (docs/performance.md "GL's groups an SM").
  int shared_bytes() const { return (lines * pitch() + (totals ? threads * 2 : 0)) * 4 * vch; }
  std::string defines(int axis, const std::vector<int>& widths) const;  // without STORE_FORMAT
};

// The tile for a cascade of `widths` (reach = sum of w / 2) along lines of n_along positions (0: long) of an image of
// `channels` channels (one and two: float and vec2 lines, otherwise vec4): of 256 invocations with the most positions
// per invocation (odd, up to 11) that fit the shared memory with the totals they need, 256 of 9 and 224 of 11, the one
// whose groups load the fewest positions along the line; each with two lines per group where each stores >= 16
// positions and >= 4 reaches (the halo under 1/3 of the loads), else one line if it still stores >= 32, else lines = 0.
// Three and four channels also weigh one line of two channels in two rounds (5, 7, 9, 17 or 21 positions an
// invocation): integer widths from a reach of 32, real widths (`frac`) at any reach, up to 17. One and two channels,
// where the groups of 9 or 11 store under a quarter of their positions (under half for two channels and 0.4 for one
// where they take three or more groups a line, or two on lines of 2048 or more that no tail of theirs holds) or none
// holds the reach, weigh one line of 13, 17 or 21 positions of 384 or 256 invocations too (two channels also as float
// lines in two rounds). `spec` "LINESxPER[xTHREADS[xVCH]][t]" (GPUBLUR_GL_BOX_TILE) picks the shape instead (lines = 0
// where it does not fit; VCH 2 for three or four channels and VCH 1 for two run two rounds; a VCH below what the
// channels need in two rounds takes 2; "t": with a constant tail where const_tail holds, lines = 0 where the group
// cannot hold the line). `totals_spec` "direct" / "grouped" / "scan" (GPUBLUR_GL_BOX_TOTALS) forces that form of window
// start where any is needed.
// `const_tail`: the border repeats one value past the line's ends (clamp, zero), so one line a group may take a
// constant tail (BoxTile::tail) where a group holds the whole line of n_along: of 256 invocations where that loads
// fewer positions than the chosen shape's groups; else of 256, 320 or 384 where the line would take several groups of
// 11 or more positions an invocation in two rounds, or four or more groups whose positions the tail cuts below 0.8,
// or those wide one-line shapes (two channels whose vec2 lines no tail holds: float lines in two rounds).
// Lines of three and four channels in two rounds with no tail yet also take a tail of 160, 144 or 128 invocations that
// holds the line in half the shared memory (two groups an SM on NVIDIA's 48 KB) where it loads at most 0.85 of the
// positions the chosen groups load (1024- to 2048-long lines at sigma 75-200).
BoxTile box_tile(const std::vector<int>& widths, int max_shared_bytes, int max_invocations,
                 const std::string& spec = "", const std::string& totals_spec = "", int n_along = 0,
                 int channels = 4, bool frac = false, bool const_tail = false);

// The tile of each line's last group, dispatched on its own after groups(n_along, t.outputs()) - 1 groups of t: t's
// shape with a constant tail and the fewest positions an invocation (fewer than t's) that hold the outputs left; for t
// of one line a group in two rounds where the widths are real (`frac`: integral), and for other t where that is at
// most a third of t's positions an invocation (measured faster there); none (lines == 0) otherwise, where t has a tail
// already, one group covers the line, or no smaller tile holds them. `totals_spec` as box_tile's.
BoxTile box_last_tile(const BoxTile& t, const std::vector<int>& widths, int max_shared_bytes, int n_along,
                      const std::string& totals_spec = "", bool frac = false);

// The tile of the transposed pair (passes/box_pair.cpp): box_tile's where it takes a constant tail; else two lines a
// group of 5 or 9 positions an invocation where the halo is a small part of the loads (15% / 28%, real widths 15% /
// 10%), lines of two channels in two rounds for three and four channels; otherwise, or with a `spec`, box_tile's.
BoxTile box_pair_tile(const std::vector<int>& widths, int max_shared_bytes, int max_invocations,
                      const std::string& spec = "", const std::string& totals_spec = "", int n_along = 0,
                      int channels = 4, bool frac = false, bool const_tail = false);

// Whether the transposed pair's groups of t walk two lines each (box1d.comp WALK: the second line's texels fetched into
// registers during the first's round 1): one line a group with a constant tail in two rounds, of 256 or 384
// invocations, one group an SM (more than half of max_shared_bytes). Measured on an H200, 2048^2-4096^2 RGBA clamp
// (docs/performance.md "GL box: groups of two lines, the second fetched ahead"): box 4096^2 sigma 200 0.711 -> 0.635
// ms, 2048^2 sigma 300 0.265 -> 0.234, integral 4096^2 sigma 150 0.898 -> 0.847, 2048^2 sigma 200-300 7% faster;
// 26-79% slower where the group has 320 invocations or two groups run an SM; over 1024^2-8192^2 at sigma 100-400 the
// rule's shapes gained 2.5-12% but integral 2048^2 sigma 400 (+2.7%). `force` (GPUBLUR_GL_BOX_WALK):
// 1 wherever the shape can walk (one line a group in two rounds), 0 never, -1 the rule.
bool box_walks(const BoxTile& t, int max_shared_bytes, int force = -1);

// The channels a shader line carries for an image of `channels` channels (the textures are RGBA whatever the channels):
// float and vec2 lines for one and two, vec4 for three and four (box1d.comp and iir_tiles.comp's VCH).
inline int line_vch(int channels) { return channels == 1 ? 1 : channels == 2 ? 2 : 4; }
// "#define VCH n\n" for float / vec2 lines (vch 1, 2); "" for vec4, where the shaders that take narrow lines
// (conv1d.comp, conv2d.comp, reshuffle.comp, kawase.comp) fall back to vec4 without VCH.
std::string vch_define(int vch);

// `w` as a GLSL float-array initialiser; %.9g round-trips every float exactly.
std::string glsl_floats(const float* w, int n);

}  // namespace gpublur
