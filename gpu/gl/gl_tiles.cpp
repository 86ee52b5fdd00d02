#include "gpu/gl/gl_tiles.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include <fmt/format.h>

namespace gpublur {

int padded_taps(int radius, int per) { return (2 * radius + 1 + per - 1) / per * per; }

int SepTile::along_threads() const { return axis == 0 ? local_x : local_y; }
int SepTile::across_threads() const { return axis == 0 ? local_y : local_x; }

int SepTile::span() const {
  const int s = shared_vec4 / across_threads();
  return s % 2 ? s : s - 1;
}

int SepTile::offsets_per_round() const { return std::max(0, (span() - tile()) / per * per); }

int SepTile::rounds(int radius) const {
  const int taps = padded_taps(radius, per), opr = std::max(per, std::min(offsets_per_round(), taps));
  return (taps + opr - 1) / opr;
}

int SepTile::round_taps(int radius) const {
  const int n = rounds(radius), taps = padded_taps(radius, per);
  return ((taps + n - 1) / n + per - 1) / per * per;
}

std::string SepTile::defines(int radius, int max_ubo_bytes, bool balanced) const {
  // Balanced rounds: NROUNDS rounds of OPR taps each (OPR <= offsets_per_round), NTAPS = NROUNDS x OPR
  // (zero weights past 2r+1), so every loop in the shader has a compile-time trip count. Otherwise rounds
  // of offsets_per_round taps, the last one shorter, NTAPS = 2r+1 padded to a multiple of per.
  const int n = rounds(radius), padded = padded_taps(radius, per);
  const int opr = balanced ? round_taps(radius) : std::min(offsets_per_round(), padded);
  const int taps = balanced ? n * opr : padded;
  // Weights in a uniform block (constant cache) where they fit, else a storage buffer.
  const bool ubo = taps * 4 <= max_ubo_bytes;
  return fmt::format(
      "#define AXIS {}\n#define LOCAL_X {}\n#define LOCAL_Y {}\n#define PER {}\n#define SPAN {}\n#define RADIUS {}\n"
      "#define NTAPS {}\n#define OPR {}\n#define NROUNDS {}\n#define WEIGHTS_UBO {}\n#define BALANCED {}\n",
      axis, local_x, local_y, per, span(), radius, taps, opr, n, ubo ? 1 : 0, balanced ? 1 : 0);
}

SepTile sep_tile(int axis, int max_shared_bytes, int max_invocations, int per) {
  SepTile t;
  t.axis = axis;
  t.per = per;
  // 256 threads where allowed (the GL minimum is 1024); fewer only on a very small device.
  const int threads = std::min(256, std::max(64, max_invocations));
  // Horizontal: 4 rows of 64 threads, 4 outputs each -> 256-pixel row tiles, loads coalesced along x.
  // Vertical: 16 columns (256 contiguous bytes per row read) of 16 threads, 4 outputs each -> 64-row tiles.
  if (axis == 0) {
    t.local_x = 64, t.local_y = threads / 64;
  } else {
    t.local_x = 16, t.local_y = std::max(1, threads / 16 * kSepPer / per);
  }
  // Up to 48 KiB (NVIDIA's GL limit; llvmpipe has 32): more offsets per load round. Never more than the
  // device allows.
  const int bytes = std::min(max_shared_bytes, 49152);
  t.shared_vec4 = bytes / 16 / t.across_threads() * t.across_threads();
  // The line must hold a tile plus one chunk of offsets: fewer threads along the axis if not.
  while (t.along_threads() > 1 && t.offsets_per_round() < t.per) (axis == 0 ? t.local_x : t.local_y) /= 2;
  return t;
}

int FusedTile::in_pitch() const {
  const int w = tw + padded_taps(radius);
  return w % 2 ? w : w + 1;
}
int FusedTile::mid_pitch() const { return tw % 2 ? tw : tw + 1; }
int FusedTile::shared_vec4() const { return (th + padded_taps(radius)) * std::max(in_pitch(), mid_pitch()); }

std::string FusedTile::defines() const {
  return fmt::format("#define RADIUS {}\n#define NTAPS {}\n#define TW {}\n#define TH {}\n#define NT {}\n#define PIN {}\n#define PMID {}\n",
                     radius, padded_taps(radius), tw, th, threads, in_pitch(), mid_pitch());
}

FusedTile fused_tile(int radius, int max_shared_bytes, int max_invocations) {
  FusedTile t;
  t.radius = radius;
  t.threads = std::min(256, max_invocations);
  const int bytes = std::min(max_shared_bytes, 49152);
  for (int th : {32, 24, 16, 8}) {
    t.th = th;
    if (t.shared_vec4() * 16 <= bytes) return t;
  }
  t.th = 0;
  return t;
}

std::string SlideTile::defines() const {
  return fmt::format(
      "#define RADIUS {}\n#define NTAPS {}\n#define TW {}\n#define PR {}\n#define SH {}\n#define NT {}\n", radius,
      padded_taps(radius), tw, pr, sh, threads());
}

SlideTile slide_tile(int radius, int max_shared_bytes, int max_invocations, int sh, const std::string& spec) {
  SlideTile t;
  t.radius = radius;
  const auto fits = [&](const SlideTile& c) {
    return c.tw >= 4 && c.tw % 4 == 0 && c.pr >= 4 && c.pr % 4 == 0 && c.threads() <= max_invocations &&
           c.shared_bytes() <= std::min(max_shared_bytes, 49152);
  };
  const auto with_sh = [&](SlideTile c, int rows) {
    c.sh = std::max(c.pr, (rows + c.pr - 1) / c.pr * c.pr);
    return c;
  };
  if (!spec.empty()) {
    int tw = 0, pr = 0, rows = 0;
    const int n = std::sscanf(spec.c_str(), "%dx%dx%d", &tw, &pr, &rows);
    t.tw = tw, t.pr = pr;
    if (n < 2 || !fits(t)) {
      t.tw = 0;
      return t;
    }
    return with_sh(t, n == 3 ? rows : sh);
  }
  for (int tw : {64, 32, 16}) {
    t.tw = tw;
    t.pr = 16;
    if (fits(t)) return with_sh(t, sh);
  }
  t.tw = 0;
  return t;
}

std::string vch_define(int vch) { return vch < 4 ? fmt::format("#define VCH {}\n", vch) : ""; }

int least_conflict_pitch(int width, int vch, bool by_row, int lanes, int step) {
  const int slots = 32 / vch, part_lanes = 32 / vch;
  int best = width, best_waves = 1 << 30;
  for (int p = width; p < width + 32; ++p) {
    int waves = 0;
    for (int part = 0; part < vch; ++part) {  // the lanes one wavefront serves at best
      int count[32] = {}, worst = 0;
      for (int l = part * part_lanes; l < (part + 1) * part_lanes; ++l) {
        const int e = by_row ? (l / lanes) * p + (l % lanes) * step : (l % lanes) * p + (l / lanes) * step;
        worst = std::max(worst, ++count[e % slots]);
      }
      waves += worst;
    }
    if (waves < best_waves) best_waves = waves, best = p;
  }
  return best;
}

int Conv2dTile::pitch() const {
  // A warp's window read (conv2d.comp): invocation i at row i % TH, column (i / TH) * P of the block.
  return least_conflict_pitch(tw + cx, vch, false, th, per);
}

std::string Conv2dTile::defines(int max_ubo_bytes) const {
  return fmt::format("#define RX {}\n#define RY {}\n#define NTAPS {}\n#define NWEIGHTS {}\n#define MATRIX {}\n"
                     "#define TW {}\n#define TH {}\n#define CX {}\n#define CY {}\n#define PITCH {}\n"
                     "#define WEIGHTS_UBO {}\n#define P {}\n#define NT {}\n{}",
                     rx, ry, padded_taps(rx, per), weights(), matrix ? 1 : 0, tw, th, cx, cy, pitch(),
                     weights() * 4 <= max_ubo_bytes ? 1 : 0, per, threads(),
                     vch_define(vch));
}

Conv2dTile conv2d_tile(int rx, int ry, bool matrix, int max_shared_bytes, int per, int vch) {
  Conv2dTile best;
  best.rx = rx, best.ry = ry, best.matrix = matrix;
  best.per = per;
  best.vch = vch;
  // Float texels: a warp on 32 rows of one column group (no pitch spreads 16 rows x 2 column groups over the 32
  // banks); vec2 / vec4 texels are served by half / quarter warps, whose rows an odd pitch spreads.
  if (vch == 1) best.tw = 32, best.th = 32;
  const int budget = std::min(max_shared_bytes, 49152) / (4 * vch);
  const int taps_x = padded_taps(rx, per), taps_y = 2 * ry + 1;
  long best_taps = 0;
  for (int cx = per; cx <= taps_x; cx += per) {
    Conv2dTile t = best;
    t.cx = cx;
    t.cy = std::min(taps_y, budget / t.pitch() - t.th + 1);
    if (t.cy < 1) break;
    // Taps per block, discounted by the padding the last block of each axis wastes.
    const int bx = (taps_x + cx - 1) / cx, by = (taps_y + t.cy - 1) / t.cy;
    const long useful = long(taps_x) * taps_y * 1000 / (long(bx) * by);
    if (useful > best_taps) best_taps = useful, best = t;
  }
  return best;
}

// One- and two-channel tiles (rounds included) by textureGather: 2-5% faster on an H100 (docs/performance.md, "GL
// reshuffle's tile by textureGather"); a vec4 texel's four channels come as fast by one texelFetch.
bool ReshuffleTile::gather() const { return vch < 4 && tw % 2 == 0 && th % 2 == 0; }
std::string ReshuffleTile::defines() const {
  return fmt::format("#define TILE 1\n#define TW {}\n#define TH {}\n#define BY {}\n#define REACH {}\n"
                     "#define PITCH {}\n#define ROUNDS {}\n#define GATHER {}\n{}",
                     tw, th, by, reach, pitch(), rounds, gather() ? 1 : 0, vch_define(vch));
}

ReshuffleTile reshuffle_tile(int reach, int vch, int max_shared_bytes, const std::string& spec) {
  ReshuffleTile t;
  t.reach = reach;
  t.vch = vch;
  std::vector<std::array<int, 3>> shapes = {{32, 32, 8}, {32, 16, 8}, {16, 16, 8}};
  if (!spec.empty()) {
    std::array<int, 3> s{};
    if (std::sscanf(spec.c_str(), "%dx%dx%d", &s[0], &s[1], &s[2]) != 3 || s[0] <= 0 || s[2] <= 0 || s[1] % s[2] != 0 ||
        s[0] * s[2] > 1024)
      return t;
    shapes = {s};
  }
  // Fewer channels a texel in more rounds only where no tile holds all of them: each round loads its tile again and
  // walks every set again.
  for (int tv = vch; tv >= 1; tv /= 2)
    for (const auto& [tw, th, by] : shapes) {
      ReshuffleTile c = t;
      c.tw = tw, c.th = th, c.by = by, c.vch = tv, c.rounds = vch / tv;
      if (c.shared_bytes() <= max_shared_bytes) return c;
    }
  return t;
}

int BoxTile::pitch() const {
  // Loads put neighbouring invocations on neighbouring lines at the same position where lines are columns
  // (box1d.comp, AXIS 1): a vec4 access spreads over g = 8 groups of 4 banks (vec2: 16 of 2, float: 32), so with
  // g / lines positions per g invocations a pitch of g / lines (mod g) takes them all; g or more lines need an odd
  // pitch.
  const int n = span(), g = 32 / vch;
  if (lines <= 1) return n;
  const int want = lines >= g ? 1 : g / lines;
  int p = n;
  while (p % g != want && !(lines > g && p % 2 == 1)) ++p;
  return p;
}

std::string BoxTile::defines(int axis, const std::vector<int>& widths) const {
  std::string list;
  for (int w : widths) list += (list.empty() ? "" : ", ") + std::to_string(w);
  return fmt::format(
      "#define AXIS {}\n#define NT {}\n#define TC {}\n#define LS {}\n#define NS {}\n#define N {}\n#define PITCH {}\n"
      "#define R {}\n#define L {}\n#define NW {}\n#define WIDTH_LIST {}\n#define TOTALS {}\n#define SUMS {}\n"
      "#define GROUPED {}\n#define VCH {}\n#define ROUNDS {}\n",
      axis, threads, lines, per, segs(), span(), pitch(), reach, outputs(), widths.size(), list, totals, sums,
      sums == 3 ? grouped : 0, vch, rounds);  // box1d.comp's groups live in the plain sums' totals (PARTS)
}

namespace {

// The window starts: own values only, else the blocks' totals one by one, summed plainly (box1d.comp), up to
// kDirectTotals of them; the scan of the totals (log2(segs) steps a box, each a load and two barriers) beyond. The
// scan was taken beyond 2 log2(segs) blocks before the totals were summed plainly; since, the totals measured
// faster at every width tried (H200, 4096^2 RGBA: box sigma 100 1.630 -> 1.179 ms, 200 (43 blocks) 2.110 -> 1.913,
// integral 200 (33) 4.755 -> 3.901; docs/performance.md "GL box: window starts from parts, plain totals, two lines
// a group"). The cap bounds the plain sum's float32 error (n totals: n ulps of the window sum at worst).
constexpr int kDirectTotals = 64;
// Windows of at least kGroupedTotals whole blocks take them in groups of ~sqrt (box1d.comp GROUPED): H200, RGBA
// 4096^2, against one by one (docs/performance.md "GL box: window starts in groups of totals"): box sigma 48 0.746 ->
// 0.705 ms (7 blocks of 11), 0.770 -> 0.680 (9 blocks of 9), 100 1.153 -> 0.902, 200 1.841 -> 1.152; integral 100
// 1.499 -> 1.278, 200 3.211 -> 2.022; at 5-6 blocks (integral sigma 48) alike, at 3 (sigma 24) 1-4% slower.
constexpr int kGroupedTotals = 7;

// Whole blocks past an invocation's own that the widest box's window starts take (box1d.comp's m).
int whole_blocks(int max_w, int per) { return max_w > per ? (max_w - per) / per : 0; }

// c with the window-start form its widths need (totals_spec: GPUBLUR_GL_BOX_TOTALS).
BoxTile with_totals(BoxTile c, int max_w, const std::string& totals_spec) {
  c.totals = max_w <= c.per ? 0 : whole_blocks(max_w, c.per) <= kDirectTotals ? 1 : 2;
  c.grouped = kGroupedTotals;
  if (c.totals && totals_spec == "direct") c.totals = 1, c.grouped = 0;
  if (c.totals && totals_spec == "grouped") c.totals = 1, c.grouped = 2;
  if (c.totals && totals_spec == "scan") c.totals = 2;
  if (c.totals != 1) c.grouped = 0;  // groups only of the totals one by one (not the scan, not without totals)
  return c;
}

// Whether c is a shape box1d.comp runs: odd positions an invocation, whole lines a group, an output a line, and its
// shared memory (with the totals it needs) within budget.
bool tile_fits(BoxTile c, int max_w, int budget, const std::string& totals_spec) {
  if (c.lines < 1 || c.per < 1 || c.per % 2 == 0 || c.threads % c.lines != 0) return false;
  c = with_totals(c, max_w, totals_spec);
  return c.outputs() >= 1 && c.shared_bytes() <= budget;
}

int widest_box(const std::vector<int>& widths) {
  int max_w = 1;
  for (int w : widths) max_w = std::max(max_w, w);
  return max_w;
}

// A tile's reach (the widths' half-widths summed) and 256 invocations where the device allows; max_w: the widest box.
BoxTile tile_base(const std::vector<int>& widths, int max_invocations, int& max_w) {
  BoxTile t;
  max_w = widest_box(widths);
  for (int w : widths) t.reach += w / 2;
  t.threads = 256;
  while (t.threads > max_invocations) t.threads /= 2;
  return t;
}

// The shared memory a group may take: the device's, at most 48 KiB.
int tile_budget(int max_shared_bytes) { return std::min(max_shared_bytes, 49152); }

// Whether c, a shape with a constant tail (BoxTile::tail), stores `need` outputs and fits `budget` with the window
// starts it needs; not with the scanned totals (their prefix stops at the line's last block).
bool tail_fits(const BoxTile& c, int need, int max_w, int budget, const std::string& totals_spec) {
  return c.outputs() >= need && tile_fits(c, max_w, budget, totals_spec) &&
         with_totals(c, max_w, totals_spec).totals != 2;
}

// c's shape with a constant tail and the fewest positions an invocation, up to max_per, that tail_fits, with the window
// starts it needs. lines == 0: none does.
BoxTile fewest_tail(BoxTile c, int need, int max_per, int max_w, int budget, const std::string& totals_spec) {
  c.tail = true;
  for (int per = 1; per <= max_per; per += 2) {
    c.per = per;
    if (tail_fits(c, need, max_w, budget, totals_spec)) return with_totals(c, max_w, totals_spec);
  }
  c.lines = 0;
  return c;
}

}  // namespace

BoxTile box_tile(const std::vector<int>& widths, int max_shared_bytes, int max_invocations, const std::string& spec,
                 const std::string& totals_spec, int n_along, int channels, bool frac, bool const_tail) {
  int max_w = 1;
  BoxTile t = tile_base(widths, max_invocations, max_w);
  t.vch = line_vch(channels);
  const int budget = tile_budget(max_shared_bytes);
  auto with_totals = [&](const BoxTile& c) { return gpublur::with_totals(c, max_w, totals_spec); };
  auto fits = [&](const BoxTile& c) { return tile_fits(c, max_w, budget, totals_spec); };
  auto whole_blocks = [&](int per) { return gpublur::whole_blocks(max_w, per); };
  if (!spec.empty()) {
    int lines = 0, per = 0;
    BoxTile c = t;
    int threads = 0, vch = 0;  // LINESxPER, LINESxPERxTHREADS or LINESxPERxTHREADSxVCH
    const int got = std::sscanf(spec.c_str(), "%dx%dx%dx%d", &lines, &per, &threads, &vch);
    if (got >= 2) c.lines = lines, c.per = per;
    if (got >= 3 && threads > 0 && threads <= max_invocations) c.threads = threads;
    if (got == 4 && (vch == 1 || vch == 2 || vch == 4)) {
      c.vch = std::max(vch, channels > 2 ? 2 : 1);  // at most two rounds
      c.rounds = c.vch < channels ? 2 : 1;
    }
    // A trailing "t": a constant tail, where the border repeats one value and the group holds the whole line (the
    // tests run tails of shapes the device's own choice never takes there).
    c.tail = spec.back() == 't' && const_tail && n_along > 0;
    if (c.tail ? tail_fits(c, n_along, max_w, budget, totals_spec) : fits(c)) return with_totals(c);
    t.lines = 0;
    return t;
  }
  // Positions per invocation: the most that fit with the totals they need, from max_per down (a group of one
  // line: no pitch padding, the others pad at most 7 positions per line, checked below).
  auto choose = [&](const BoxTile& base, int max_per) {
    for (int per = max_per; per >= 1; per -= 2) {
      BoxTile c = base;
      c.per = per, c.lines = 1;
      if (with_totals(c).shared_bytes() > budget) continue;
      // Two lines per group wherever they store at least 4 reaches (the halo under 1/3 of the loads), else one.
      // H200, 4096^2 RGBA (docs/performance.md "GL box: window starts from parts, plain totals, two lines a group"):
      // 2 x 9 against 4 x 9 box sigma 12 0.601 against 0.635 ms, 2 x 11 against 4 x 11 at sigma 3 0.467 against
      // 0.474; 2 x 9 against 1 x 9 integral sigma 48 (4.2 reaches) 1.472 against 1.510, box sigma 12 0.601 against
      // 0.665.
      // (On an H100 before the loads were fixed, 4 x 9 at sigma 3 ran 10% faster than 16 x 9.)
      if (base.threads >= 16) {
        c.lines = 2;
        if (fits(c) && c.outputs() >= 16 && c.outputs() >= 4 * c.reach) return with_totals(c);
      }
      c.lines = 1;
      if (fits(c) && c.outputs() >= 32) return with_totals(c);
      break;
    }
    BoxTile none = base;
    none.lines = 0;
    return none;
  };
  // Three shapes weighed by the positions their groups load along a line of n_along (a long line where 0), which a
  // line's last group may leave partly idle: 256 invocations of 11 positions (they fit 48 KiB only without totals:
  // every width <= 11), 256 of 9, and 224 (7 warps) of 11, which fit 48 KiB with the totals and parts and start a
  // window every 11 outputs instead of 9. The first of the least loaded wins. H200, RGBA (docs/performance.md "GL box:
  // window starts in groups of totals"), each choice as measured: box 4096^2 sigma 3 2 x 11 x 256 (3 groups of 1408
  // a line) 0.470 ms against 2 x 11 x 224 0.530; sigma 12 2 x 9 (4 of 1152) 0.554 against 224 x 11 (4 of 1232) 0.581;
  // sigma 24 224 x 11 (4 of 1232) 0.606 against 2 x 9 (5 of 1152) 0.646; sigma 100 1 x 9 (3 of 2304) 0.870 against
  // 1 x 11 x 224 (3 of 2464) 0.905; integral sigma 200 1 x 11 x 224 (5 of 2464) 2.022 against 1 x 9 (6 of 2304) 2.342;
  // 1024^2 box sigma 3 (groups of 4 lines then) 4 x 9 0.0498 against 4 x 11 0.0555 (2 groups of 576 or 704 a line).
  std::vector<BoxTile> shapes = {choose(t, 11), choose(t, 9)};
  if (t.threads == 256) {
    BoxTile base = t;
    base.threads = 224;
    const BoxTile c = choose(base, 11);
    if (c.per == 11) shapes.push_back(c);
  }
  // Three or four channels also as lines of two channels in two rounds (box1d.comp ROUNDS 2): half the shared memory a
  // position, so fewer halo positions loaded twice and smaller groups, and round 1 fetches nothing (round 0 holds its
  // channels). One line a group, weighed with the vec4 shapes by the positions they load: a position (both rounds) at
  // 0.7 of a vec4 position with 5 or 9 an invocation, 0.8 with 7, 1.0 with 17 or 21 (fewer groups an SM: more
  // registers); 11 and 13 measured slower (13 the best of one case in 48, by 1%). Integer widths (box) from a reach of
  // kTwoRoundsReach (box sigma 3, reach 8, ran 2-5% slower in two rounds at 4096^2, sigma 12, reach 35, 12% faster;
  // nothing measured between); real widths (frac: integral) at any reach, at most 17 an invocation (21 ran twice as
  // slow), and 15 (integral sigma 200 at 4096^2 in the transposed pair 1.267-1.273 ms against 17's 1.344-1.346, H200,
  // docs/performance.md "GL box: the transposed pair"; not measured for box). Window starts over 3 to
  // kGroupedTotals - 1 whole blocks one by one cost more than their loads say (box sigma 24 in 9 an invocation: 35 ps a
  // position against 26 at sigma 12 and 22 at 48): shapes with them weigh 1.3x.
  // H200, RGBA, box and integral at sigma 3-200, 4096^2 to 1024^2 (docs/performance.md "GL box: round 1's channels
  // held from round 0"): box 4096^2 0.564 -> 0.494 ms at sigma 12, 0.610 -> 0.502 at 24; no case's choice measured
  // over 1% slower than the previous rule's.
  constexpr int kTwoRoundsReach = 32;
  const auto two_round_weight = [](int per) { return per == 7 ? 0.4 : per <= 9 ? 0.35 : 0.5; };
  if (channels > 2 && (frac || t.reach >= kTwoRoundsReach)) {
    for (int per : {5, 7, 9, 15, 17, 21}) {
      if (frac ? per > 17 : per == 15) continue;
      BoxTile c = t;
      c.vch = 2, c.rounds = 2, c.lines = 1, c.per = per;
      if (fits(c) && c.outputs() >= 32) shapes.push_back(with_totals(c));
    }
  }
  // One and two channels whose reach leaves the groups of 9 or 11 positions an invocation under a quarter of their
  // positions to store (box sigma 400, integral sigma 300: 20 and 17 groups of 1 x 11 on 8192-long lines; more below)
  // or none (box sigma 500, integral sigma 400-500 on a 48 KiB device: moving-average's line walkers, integral 6000^2
  // two channels sigma 400 89 ms): groups of 21, 17 or 13 positions in one round, of 384 or 256 invocations, and for
  // two channels also float lines in two rounds (R, then G), weighed by their loads like the others; below, a constant
  // tail wherever one holds the line. H200 (docs/performance.md "GL: reaches beyond groups of 11"): as planned, box
  // sigma 400 (mirror) 2.5-5.0x faster than the groups of 11 at 2048^2-8192^2 (two channels 4096^2 3.647 -> 0.732 ms;
  // integral sigma 300 is taken by its loads, 1.6-2.9x); with shapes forced (as the transposed pair), the least loaded
  // within 5% of the fastest shape at 8192^2 (integral sigma 500 two channels 3.26 ms in float rounds against 4.89 for
  // vec2 lines of 256 x 21), within 13% at 2048^2-6000^2 (one channel integral sigma 500 at 2048^2, 384 x 17 0.220
  // against 384 x 13's 0.195); the line walkers took 10-94 ms (1024^2-6000^2).
  const auto loaded = [&](const BoxTile& c) {
    const int whole = whole_blocks(c.per);
    const double one_by_one = c.totals == 1 && whole >= 3 && whole < kGroupedTotals ? 1.3 : 1.0;
    const double w = (c.rounds == 2 ? 2 * two_round_weight(c.per) : 1.0) * one_by_one;
    return w * (n_along > 0 ? double((n_along + c.outputs() - 1) / c.outputs()) * c.span()
                            : double(c.span()) / c.outputs());
  };
  const auto least_loaded = [&] {
    BoxTile b = shapes[0];
    for (const BoxTile& c : shapes)
      if (c.lines > 0 && (b.lines == 0 || loaded(c) < loaded(b))) b = c;
    return b;
  };
  // Up to a quarter, whatever the line (as above). Up to half for two channels and 0.4 for one where the groups of 9 or
  // 11 take three or more groups a line (docs/performance.md "GL: the wide shapes from half of the positions stored";
  // H200, calls 269-271, against a quarter, as planned, clamp and mirror, 1920x1080 to 8192^2): two channels box sigma
  // 250-300 and integral 200-250 (groups of 11 storing 0.31-0.47) 7-51% faster wherever the plan changed (box 4096^2
  // sigma 300 mirror 1.157 -> 0.741 ms, integral 8192^2 sigma 250 clamp 5.79 -> 3.01), one channel (box sigma 300,
  // integral 250) up to 24%. Two groups a line only on lines of 2048 or more that no tail of the groups' form holds
  // (call 272: two channels box sigma 250 and integral 200, 2048-2560-long lines, 11-30% faster, integral 2048^2 clamp
  // 0.317 -> 0.222 ms): on 1024- to 1920-long lines of two groups or one with a constant tail the wide shapes ran up to
  // 31% slower (box 1024^2 two channels sigma 300 clamp: 224 x 11 with a tail 0.062 ms against 256 x 11's 0.081;
  // 1920x1080 sigma 250 mirror, two groups of 224 x 11 on the 1920-long lines, 0.122 against 256 x 17's 0.144).
  double stored = 0;  // the largest part of a group's positions that the shapes so far store
  for (const BoxTile& c : shapes)
    if (c.lines > 0) stored = std::max(stored, double(c.outputs()) / c.span());
  const BoxTile narrow = least_loaded();
  const long long groups = n_along > 0 && narrow.lines > 0 ? (n_along + narrow.outputs() - 1) / narrow.outputs() : 0;
  // The groups' own form holding the whole line in one group with a constant tail, where it loads fewer (below).
  BoxTile narrow_tc = narrow;
  narrow_tc.lines = 0;
  if (const_tail && n_along > 0 && narrow.lines == 1)
    narrow_tc = fewest_tail(narrow, n_along, narrow.per, max_w, budget, totals_spec);
  const bool narrow_tail = narrow_tc.lines > 0 && loaded(narrow_tc) < loaded(narrow);
  const bool many = groups >= 3 || (groups == 2 && n_along >= 2048 && !narrow_tail);
  const bool beyond = channels <= 2 && (stored < 0.25 || (stored < (channels == 2 ? 0.5 : 0.4) && many));
  if (beyond) {
    for (const int threads : {384, 256}) {
      if (threads > max_invocations) continue;
      for (const int rounds : {1, 2}) {
        if (rounds == 2 && channels != 2) continue;
        for (const int per : {21, 17, 13}) {
          BoxTile c = t;
          c.threads = threads, c.lines = 1, c.per = per;
          if (rounds == 2) c.vch = 1, c.rounds = 2;
          if (fits(c) && c.outputs() >= 32) shapes.push_back(with_totals(c));
        }
      }
    }
  }
  BoxTile best = least_loaded();
  // Where one line a group wins, a constant tail (BoxTile::tail) in the same form (vec4, or two rounds of two channels)
  // with the fewest positions an invocation, at most as many as that shape's, whose group holds the whole line with the
  // halo after it cut to one block (fewest_tail), if it loads fewer positions. H200, clamp, against none
  // (docs/performance.md "GL box: constant tails"): box 4096^2 RGBA sigma 200 0.743 -> 0.711 ms (1 x 21 -> 1 x 19),
  // integral 1024^2 sigma 200 0.166 -> 0.099, 2048^2 sigma 300 0.595 -> 0.346; box 1920x1080 sigma 150-200 2.7% slower
  // (its 1080-long lines from 1 x 9 to a tail of 1 x 7).
  // (Without `beyond` the shapes are those `narrow` was picked from, so best is narrow and its tail the one above.)
  if (!beyond && narrow_tail) best = narrow_tc;
  // Where the line still takes several groups, a tail of 256, 320 or 384 invocations that holds the whole line in one
  // group (the fewest positions an invocation, at most 17 in two rounds of vec2 lines and 21 otherwise; ties to fewer
  // invocations):
  //  - in two rounds at 11 or more positions an invocation (no tail of 256 holds the line): H200, 4096^2 RGBA, clamp,
  //    the transposed pair (docs/performance.md "GL box and integral: tails of more invocations"), integral sigma 200
  //    1.247 -> 0.916 ms (384 x 13; 320 x 17 0.950), sigma 300 1.553 -> 0.972 (320 x 17), box sigma 300 1.000 -> 0.757
  //    (320 x 17). Not where a group of 256 already holds the line (box sigma 200's 1 x 19, 0.709 against 384 x 13's
  //    0.713). 448 x 11 and 288 x 17 or 19 were slower wherever they fit.
  //  - at any positions an invocation where the tail loads under kTailLoaded of the groups' positions (as `loaded`
  //    weighs them): H200, clamp, the tail forced (docs/performance.md "GL tails wherever the groups load more"),
  //    integral RGBA 3000^2 sigma 200 0.861 -> 0.583 ms (4 groups of 1 x 9 -> 384 x 11, 0.65 of the loads), 4096^2
  //    sigma 150 1.132 -> 0.894 (384 x 13, 0.77), sigma 125 1.094 -> 0.901 (0.77); one and two channels (the passes,
  //    groups of 1 x 11) box 4096^2 sigma 400 1.351 -> 0.490 and 3.544 -> 0.543, integral sigma 300 0.942 -> 0.543 and
  //    2.363 -> 0.659, box sigma 250 one channel 0.484 -> 0.454 (0.44); integral one channel sigma 200 alike (0.507 ->
  //    0.508). Where the tail loads more the groups win: box RGBA 4096^2 sigma 75 (5 groups of 1 x 5; 384 x 13 at
  //    1.11 of the loads +8.2%, 256 x 17 +6.5%), 5000^2 sigma 125 (4 of 1 x 9; 320 x 17 at 0.84, +3.7%); and with
  //    three groups, box sigma 48-150 10-41% slower and integral sigma 48-100 2-17% slower as tails (0.99-1.16).
  //  - wherever one holds the line beyond the groups of 11 (`beyond`): H200, clamp, forced (docs/performance.md "GL:
  //    reaches beyond groups of 11"), 2048^2-6000^2, the fastest tail faster than the fastest groups in 16 of 18
  //    cases (two channels integral 6000^2 sigma 500 1.456 ms against 2.167), 1% and 5% slower in two (two channels
  //    box 2048^2 sigma 500; one channel box 6000^2 sigma 500, 1.231 against 1.174).
  constexpr double kTailLoaded = 0.8;
  if (const_tail && n_along > 0 && best.lines == 1 && !best.tail) {
    // The tail in base's form that holds the line as above; lines == 0: none does.
    const auto fewest_tail_of = [&](BoxTile base, int max_per) {
      BoxTile pick = base;
      pick.lines = 0;
      for (const int threads : {256, 320, 384}) {
        if (threads > max_invocations) continue;
        base.threads = threads;
        const BoxTile tc = fewest_tail(base, n_along, max_per, max_w, budget, totals_spec);
        if (tc.lines > 0 && (pick.lines == 0 || tc.per < pick.per)) pick = tc;
      }
      return pick;
    };
    BoxTile form = best;  // two channels: vec2 tails first, then float rounds (below), whichever form `beyond` chose
    if (channels == 2) form.vch = 2, form.rounds = 1;
    BoxTile pick = fewest_tail_of(form, form.rounds == 2 ? 17 : 21);
    // Two channels whose vec2 lines no tail holds (5000-6000 long at sigma 150-400): float lines in two rounds (R, then
    // G; box1d.comp ROUNDS 2, VCH 1), half the shared memory a position. H200, clamp (docs/performance.md "GL: two
    // channels as float lines in two rounds"): box 6000^2 sigma 400 7.759 -> 1.231-1.543 ms, sigma 200 1.501 -> 1.213,
    // integral sigma 300 5.016 -> 1.400, 5000^2 sigma 200 1.480 -> 1.042 (all 384 x 19 or 17). Where a vec2 tail holds
    // the line it was faster than the float rounds (box 4096^2 sigma 200 0.525 against 0.620 ms for 384 x 13).
    if (pick.lines == 0 && channels == 2) {
      BoxTile rounds = form;
      rounds.vch = 1, rounds.rounds = 2;
      pick = fewest_tail_of(rounds, 21);
    }
    const bool wide = best.rounds == 2 && best.per >= 11;
    const int groups = (n_along + best.outputs() - 1) / std::max(1, best.outputs());
    if (pick.lines > 0 && (wide || beyond || (groups >= 4 && loaded(pick) < kTailLoaded * loaded(best)))) best = pick;
  }
  // Two groups an SM: RGBA lines in two rounds with no constant tail yet, where a tail of 160, 144 or 128 invocations
  // holds the line in half the budget (NVIDIA's GL holds 48 KB of shared memory an SM, so two such groups run at once:
  // BoxTile::shared_bytes) and loads at most kTwoGroupsLoaded of the positions the chosen groups load, take that tail
  // (the most invocations that hold it). H200, RGBA, clamp (docs/performance.md "GL: tails of two groups an SM"): box
  // 2048^2 sigma 200 (2 groups of 256 x 9 then 7) 0.2270 -> 0.1958 ms with 160 x 17 (144 x 19 0.2011, 128 x 21 0.2117
  // forced), sigma 75-150 4-8%, 1920x1080 4-6%, 1024^2 sigma 100 (one group of 256 x 7: 0.80 of its positions) 6%;
  // integral 2048^2 sigma 75 / 100 / 150 0.262 / 0.276 / 0.300 -> 0.236 / 0.239 / 0.240, 1024^2 sigma 75 (0.80) 7%.
  // At 0.90 it lost: integral 1448^2 sigma 100, one group of 256 x 9, 0.1318 -> 0.1505 ms as 160 x 13.
  constexpr double kTwoGroupsLoaded = 0.85;
  if (const_tail && n_along > 0 && best.lines == 1 && !best.tail && best.rounds == 2 && channels >= 3 &&
      best.outputs() > 0) {
    const long long groups_loaded = (long long)((n_along + best.outputs() - 1) / best.outputs()) * best.span();
    for (const int threads : {160, 144, 128}) {
      BoxTile base = best;
      base.threads = threads;
      const BoxTile tc = fewest_tail(base, n_along, 21, max_w, budget / 2, totals_spec);
      if (tc.lines > 0) {
        if (tc.span() <= kTwoGroupsLoaded * double(groups_loaded)) best = tc;
        break;
      }
    }
  }
  return best;
}

BoxTile box_last_tile(const BoxTile& t, const std::vector<int>& widths, int max_shared_bytes, int n_along,
                      const std::string& totals_spec, bool frac) {
  BoxTile none = t;
  none.lines = 0;
  if (t.lines < 1 || t.tail || n_along <= 0 || t.outputs() <= 0) return none;  // (outputs() divides by lines)
  const int g = (n_along + t.outputs() - 1) / t.outputs();
  if (g < 2) return none;
  const int rem = n_along - (g - 1) * t.outputs();
  const BoxTile last = fewest_tail(t, rem, t.per - 2, widest_box(widths), tile_budget(max_shared_bytes), totals_spec);
  // One line a group of two channels in two rounds (three and four channels) at any saving where the widths are real
  // (integral): H200, against none (docs/performance.md "GL box: constant tails"), integral sigma 300 1.773 -> 1.563 ms;
  // H100 and H200 (docs/performance.md "GL box: last groups on the H100"), integral 4096^2 RGBA sigma 75 0.906 -> 0.815
  // and 0.899 -> 0.807, 3000^2 sigma 48 0.455 -> 0.406 and 0.452 -> 0.392. Box's integer widths take those last groups
  // as other tiles do: at any saving they ran 8-19% slower on an H100 (box RGBA 4096^2 sigma 100 0.644 -> 0.769 ms, 125
  // 0.653 -> 0.725, 3000^2 sigma 75 0.374 -> 0.404, 100 0.352 -> 0.405) where the H200 gained at most 4.6% (4096^2
  // sigma 100 0.621 -> 0.592; the others within 1.4%). Other tiles (two lines a group, lines of one, two or four
  // channels in one round) only where the last group takes at most a third of their positions an invocation: H200,
  // clamp, 1-4 channels, 1024^2-4096^2 and 1920x1080, sigma 3-200 (docs/performance.md "GL box: last groups of every
  // tile"): those cases up to 9% faster (box RGBA sigma 24 4096^2 0.461 -> 0.430 ms, two channels 1024^2 sigma 24
  // 0.0426 -> 0.0388), none over 1.5% slower; last groups with more of them measured up to 16% slower (one channel
  // 2048^2 sigma 200, 1 x 9 then 1 x 7), and some faster (two channels 4096^2 sigma 100, 1 x 11 then 1 x 9, 11%),
  // with no rule between.
  if (last.lines > 0 && ((frac && t.lines == 1 && t.rounds == 2) || 3 * last.per <= t.per)) return last;
  return none;
}

bool box_walks(const BoxTile& t, int max_shared_bytes, int force) {
  if (force == 0 || t.lines != 1 || t.rounds != 2) return false;
  if (force == 1) return true;
  return t.tail && (t.threads == 256 || t.threads == 384) && 2 * t.shared_bytes() > max_shared_bytes;
}

BoxTile box_pair_tile(const std::vector<int>& widths, int max_shared_bytes, int max_invocations,
                      const std::string& spec, const std::string& totals_spec, int n_along, int channels, bool frac,
                      bool const_tail) {
  if (!spec.empty())
    return box_tile(widths, max_shared_bytes, max_invocations, spec, totals_spec, n_along, channels, frac, const_tail);
  int max_w = 1;
  BoxTile t = tile_base(widths, max_invocations, max_w);
  const int budget = tile_budget(max_shared_bytes);
  // Two lines a group, so that a warp's transposed stores (in quads, box1d.comp QSTORE) write two rows of the
  // destination: lines of two channels in two rounds for three and four channels, as many as the image has
  // otherwise. 5 positions an invocation where the halo is at most 15% of a group's loads, else 9 where at most 28%
  // (real widths: 10%), else box_tile's shape. H200, 4096^2 RGBA, the pair with shapes forced (docs/performance.md
  // "GL box: the transposed pair"), ms: box sigma 3 (halo 2.5% at 5) 0.334 at 5, 0.357 at 9, 0.438 box_tile's;
  // sigma 12 (10.9% at 5) 0.383, 0.388, 0.610; sigma 48 (24.8% at 9) 0.486 at 9, 0.551 box_tile's; sigma 100 (51.9%
  // at 9) 0.732 at 9, 0.615 box_tile's; integral sigma 3 (3.1% at 5) 0.430, 0.481, 0.538; sigma 12 (14.1% at 5)
  // 0.537, 0.535 at 9 (7.8%), 0.570; sigma 24 (16.5% at 9) 0.671 at 9 against the passes' 0.611; sigma 48 (32.1% at 9)
  // 0.851 at 9, 0.768 box_tile's. 7 an invocation was slower (integral sigma 3 0.78).
  // box_tile's constant tail first (one group a line, one line a group): measured faster than two lines a group where
  // it applies (H200, box RGBA sigma 48 at 1024^2 0.0651-0.0652 -> 0.0533-0.0538 ms, 1920x1080 0.1004-0.1010 ->
  // 0.0955-0.0956; docs/performance.md "GL box: constant tails").
  const BoxTile own =
      box_tile(widths, max_shared_bytes, max_invocations, "", totals_spec, n_along, channels, frac, const_tail);
  if (own.tail) return own;
  const double halo_at[2] = {0.15, frac ? 0.10 : 0.28};
  t.lines = 2;
  t.vch = channels > 2 ? 2 : line_vch(channels);
  t.rounds = channels > 2 ? 2 : 1;
  for (int k = 0; k < 2; ++k) {
    BoxTile c = t;
    c.per = k == 0 ? 5 : 9;
    if (!tile_fits(c, max_w, budget, totals_spec) || c.outputs() < 16) continue;
    if (double(c.span() - c.outputs()) <= halo_at[k] * c.span()) return with_totals(c, max_w, totals_spec);
  }
  return own;
}

std::string glsl_floats(const float* w, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    std::string v = fmt::format("{:.9g}", double(w[i]));
    if (v.find_first_of(".e") == std::string::npos) v += ".0";  // a GLSL float literal, not an int
    s += (i ? ", " : "") + v;
  }
  return s;
}

}  // namespace gpublur
