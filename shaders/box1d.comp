// box1d: the cascade of boxes of the odd widths WIDTH_LIST along one axis (AXIS 0 rows, 1 columns), on the
// border-extended line (core/reference/passes/box1d.cpp), with running sums: the cost per pixel does not
// depend on the widths.
// A group of NT invocations owns TC lines and L = N - 2R consecutive outputs of each (R: the cascade's reach):
//  1. loads the N = L + 2R positions of each line, extended with the border mode, into shared memory (vec4
//     float32; loads coalesced: along a row for AXIS 0, across TC neighbouring columns for AXIS 1);
//  2. runs the boxes one after the other in place: invocation (line, seg) owns the block of positions
//     p0 = seg * LS .. p0 + LS - 1 (kept in registers between boxes) and makes the LS outputs of the windows
//     starting there with one running sum: the first window's sum, then per output the value entering added
//     and the one leaving subtracted. Output p is stored at position p, so each box moves the line by its
//     half-width and shortens it by w - 1: after all boxes positions 0 .. L-1 hold the outputs (positions
//     beyond hold windows that left the tile and are never stored);
//  3. stores positions 0 .. L-1 of each line.
// The first window's sum (TOTALS): 0, every width <= LS: the invocation's own values; 1: its own values,
// whole later blocks from their totals (shared memory; with GROUPED > 0, m >= GROUPED of them in groups of
// ~sqrt(m)), then the first w mod LS values of the next block, as its part (SUMS 3) or single values; 2 (boxes
// wider than 64 blocks): the line's prefix sums at block starts (a Hillis-Steele scan of the block totals, log2(NS)
// steps per box), so a window is two prefix lookups and < LS single values whatever its width.
// Values are float32 between boxes (each box's result rounded once, then added and subtracted as the same
// float). Sums (SUMS): 0 a float pair hi + lo whose running updates use Fast2Sum (exact for non-negative
// values, where the sum never falls below the value added or removed; otherwise no worse than plain float),
// 1 the same with Knuth's TwoSum (exact for any signs), 2 float64; sums of sums take TwoSum in both pair forms. Every running sum starts afresh at each block (LS outputs),
// so the error does not grow with the line. Per value and box the float pair costs 10 (TwoSum 16) FP32
// operations; float64 costs 3 conversions, which run at a quarter of the FP64 rate on an H100.
// Real widths (Integral1d, the integral method; FRAC_LIST defined): box k is the odd integer box widths[k]
// plus the end pixels one further out on each side weighted fracs[k] (core/integral.hpp), divided by the real
// width wreals[k] = widths[k] + 2 fracs[k]; a box with a fraction > 0 spans widths[k] + 2 positions (R, L
// count them). Output p = (sum of positions p + 1 .. p + w + e (p and p + w + 1)) / wreal: the window sum
// starting at p0 is shifted by one position, then runs as above; the fractional ends are read directly (no
// prefix difference, so nothing cancels).
// VCH: the channels a line carries (1, 2 or 4), ROUNDS (1 or 2): one- and two-channel images run float / vec2 lines,
// and an RGBA image may run vec2 lines in two rounds (RG, then BA: round 0's outputs wait in registers for round 1's to
// be stored as one texel, and round 0 keeps the fetched texels' BA for round 1, which fetches nothing: GL box 4096^2
// 0.625 -> 0.552 ms at sigma 48, integral 0.619 -> 0.541 at sigma 3, docs/performance.md "GL box: round 1's channels
// held from round 0"). A vec2 position takes half a vec4's shared memory, so a group holds twice the positions: whole
// 4096 lines at box sigma 200 with no halo (docs/performance.md "GL box: lines of two channels in two rounds").
// Likewise a two-channel image may run float lines in two rounds (R, then G). VEC, DVEC, pick and as_texel:
// common.glsl.
// Every read past the N positions (values, block totals, parts) clamps to the last ones: a tile with a constant tail
// (gpu/gl/gl_tiles.hpp BoxTile::tail: a line's last group, L = N - R - LS) relies on it, its last block holding the
// border's one value past the line whatever box has run.
// TRANSPOSE (with AXIS 1; gpu/gl/passes/box_pair.cpp): output p of column c is stored at (p, c), so the destination is
// the transposed image; the stores of groups of several lines run in quads (QSTORE), a warp's covering two or more
// rows of the destination (whole 32-byte sectors of NVIDIA's block-linear layout, 16 bytes of two rows each).
// WALK (the pair's one line a group in two rounds with a constant tail; gpu/gl/gl_tiles.hpp box_walks): each group takes
// two lines, g and g + G of G groups (the groups running at once hold neighbouring lines, as without it), and fetches
// the second's texels into registers (nxt) during the first's round 1, after round 0's texels have left them, so that
// one group an SM overlaps a fetch with its boxes and stores: GL box 4096^2 RGBA sigma 200 0.711 -> 0.635 ms on an
// H200 (docs/performance.md "GL box: groups of two lines, the second fetched ahead"). The two lines are written out,
// not looped: llvmpipe (Mesa 22.3) computed wrong outputs with these barriers inside a loop, even of constant count.
layout(local_size_x = NT) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;
#ifndef S0_BASE
#define S0_BASE 0  // the first output of group 0 along the axis (a line's last group dispatched on its own: not 0)
#endif

const int widths[NW] = int[](WIDTH_LIST);
#ifdef FRAC_LIST
const float fracs[NW] = float[](FRAC_LIST);
const float wreals[NW] = float[](WREAL_LIST);
#endif

shared VEC tile[TC * PITCH];

#if SUMS == 2
struct Acc { DVEC v; };
Acc acc_zero() { return Acc(DVEC(0.0)); }
void acc_add(inout Acc s, VEC x) { s.v += DVEC(x); }
void acc_sub(inout Acc s, VEC x) { s.v -= DVEC(x); }
void acc_add_acc(inout Acc s, Acc t) { s.v += t.v; }
void acc_sub_acc(inout Acc s, Acc t) { s.v -= t.v; }
#define SCALE double
VEC acc_scaled(Acc s, SCALE f) { return VEC(s.v * f); }
#else
struct Acc { VEC hi, lo; };  // the sum is hi + lo
Acc acc_zero() { return Acc(VEC(0.0), VEC(0.0)); }
// TwoSum: a + b = s + e exactly for any signs (precise: no reassociation or contraction by the compiler).
void two_sum(VEC a, VEC b, out VEC s, out VEC e) {
  precise VEC t = a + b;
  precise VEC bb = t - a;
  precise VEC err = (a - (t - bb)) + (b - bb);
  s = t;
  e = err;
}
// The running sum's update (the hot loop): Fast2Sum (SUMS 0), exact where |hi| >= |x|, which holds for
// non-negative values since the window sum contains every value added to or removed from it; TwoSum (SUMS 1);
// plain float32 (SUMS 3: at most LS - 1 updates after a compensated start, as CUDA's chunks of <= 21).
void acc_add(inout Acc s, VEC x) {
#if SUMS == 3
  s.hi += x;
#else
#if SUMS == 1
  VEC t, e;
  two_sum(s.hi, x, t, e);
#else
  precise VEC t = s.hi + x;
  precise VEC e = x - (t - s.hi);
#endif
  s.hi = t;
  s.lo += e;
#endif
}
void acc_sub(inout Acc s, VEC x) { acc_add(s, -x); }
// Sums of sums (block totals, prefixes of similar magnitude): TwoSum in both forms.
void acc_add_acc(inout Acc s, Acc t) {
  VEC h, e;
  two_sum(s.hi, t.hi, h, e);
  s.hi = h;
  s.lo += e + t.lo;
}
void acc_sub_acc(inout Acc s, Acc t) {
  VEC h, e;
  two_sum(s.hi, -t.hi, h, e);
  s.hi = h;
  s.lo += e - t.lo;
}
#define SCALE float
VEC acc_scaled(Acc s, SCALE f) { return (s.hi + s.lo) * f; }
#endif

#if TOTALS == 1 && SUMS == 3
// Block totals of plain sums (their lo is 0: plain vectors suffice), and each block's part: the sum of its first
// w mod LS values, which the window starts of a box of width w >= LS take from the block w / LS further on. Its
// owner sums them from its registers (with the totals), so a window start loads one part instead of up to LS - 1
// values (docs/performance.md "GL box: window starts from parts, plain totals, two lines a group"). Both arrays take
// the bytes of TOTALS' Acc.
#define PARTS 1
shared VEC totals_v[NT];
shared VEC parts[NT];
Acc total_at(int i) { return Acc(totals_v[i], VEC(0.0)); }
void total_set(int i, Acc t) { totals_v[i] = t.hi; }
// Box k's part of the values a[] (when the box takes parts: w >= LS, w mod LS > 0).
bool has_part(int k) { return widths[k] >= LS && widths[k] % LS > 0; }
void part_set(int i, VEC a[LS], int k) {
  int r = widths[k] % LS;
  VEC p = VEC(0.0);
  for (int j = 0; j < LS - 1; ++j)
    if (j < r) p += a[j];
  parts[i] = p;
}
#elif TOTALS
#define PARTS 0
shared Acc totals[NT];  // per block: its total (TOTALS 1) or the line's sum through it (TOTALS 2)
Acc total_at(int i) { return totals[i]; }
void total_set(int i, Acc t) { totals[i] = t; }
#endif

#if (AXIS == 0 || defined(TRANSPOSE)) && TC >= 2
#define QSTORE 1
#else
#define QSTORE 0
#endif
#if QSTORE
// Rows of several lines take a group's positions in quads (the loads and stores below; with TRANSPOSE the stores):
// index i is line (i mod 4 TC) / 4, position 4 (i / 4 TC) + i mod 4.
ivec2 quad_order(int i) {
  int quad = i / (4 * TC), r = i - quad * (4 * TC);
  return ivec2(r / 4, quad * 4 + (r & 3));
}
#endif

// Texels an invocation fetches a round (the loads in 1. below; rows of several lines in quads of positions, NQ4: N
// rounded up).
#if AXIS == 0 && TC >= 2
#define NQ4 (((N + 3) / 4) * 4)
#define LOADS ((TC * NQ4 + NT - 1) / NT)
#else
#define LOADS LS
#endif

#if ROUNDS == 2
// Round 0's outputs, by the store loop's iterations (3. below), until round 1 stores both halves.
#if QSTORE
#define KST ((TC * (((L + 3) / 4) * 4) + NT - 1) / NT)
#else
#define KST ((TC * L + NT - 1) / NT)
#endif
VEC kept[KST];
// Round 1's channels of the texels round 0 fetched, so that round 1 fetches nothing.
VEC held[LOADS];
#define FETCH(k, p) if (a >= 0) { \
    if (rd == 0) { vec4 t_ = texelFetch(src, p, 0); v[k] = pick(t_, 0); held[k] = pick(t_, 1); } else v[k] = held[k]; }
#else
#define FETCH(k, p) if (a >= 0) v[k] = pick(texelFetch(src, p, 0), rd)
#endif

#ifdef WALK
#if TC != 1 || AXIS != 1 || ROUNDS != 2
#error "WALK: one line a group along columns in two rounds (its texels' second channels wait in held)"
#endif
vec4 nxt[LOADS];                  // the texels of the group's next line
int walk_line = 0, walk_next = -1;  // the line this round runs, the next (-1: none)
void prefetch(int c) {
  ivec2 size = gpublur_src_size;
  int li = int(gl_LocalInvocationIndex);
  c = min(c, size.x - 1);  // lines past the image: loaded (any line), never stored
  for (int k = 0; k < LOADS; ++k) {
    int a = remap_index(S0_BASE - R + li + k * NT, size.y, border);
    nxt[k] = a >= 0 ? texelFetch(src, ivec2(c, a), 0) : vec4(0.0);
  }
}
#endif
// One round: the channels pick(, rd) of TC lines' L outputs.
void one_round(int rd) {
  ivec2 size = gpublur_src_size;
#if AXIS == 0
  int n_along = size.x, n_across = size.y;
#else
  int n_along = size.y, n_across = size.x;
#endif
  int li = int(gl_LocalInvocationIndex);
  int s0 = S0_BASE + int(gl_WorkGroupID.x) * L;  // first output along the axis
#ifdef WALK
  int c0 = walk_line;
#else
  int c0 = int(gl_WorkGroupID.y) * TC;  // first line
#endif

  // 1. TC x N positions = NT x LS: LS loads per invocation, all fetches issued before any shared-memory store.
  //    Stored one at a time as fetched (one loop), the loads and stores alone took 0.68 ms for the box pair at 4096^2
  //    RGBA (3.8 copies; NVIDIA's compiler apparently waits for each fetch before the next), 0.43 this way (H200,
  //    docs/performance.md "GL box: fetches before stores"). Fetching unconditionally (a clamped index and a
  //    select) lost the gain again.
#if AXIS == 0 && TC >= 2
  // Rows of a group of several lines: a warp on 4 positions of each of TC lines (4 x 8, 8 x 4 or 16 x 2 texels), so
  // that its fetches (and the stores below) touch whole 128-byte pieces of NVIDIA's block-linear GOBs (64 bytes x 8
  // rows) rather than halves of 8 GOBs: GL box 4096^2 0.558 -> 0.512 ms at sigma 3 (4 lines), 0.785 -> 0.747 at 12,
  // 1.117 -> 1.096 at 48 (2 lines); one line a group (sigma 200) keeps the plain order (H200, docs/performance.md
  // "GL box: fetches before stores"). Positions run in quads (NQ4: N rounded up).
  {
    VEC v[LOADS];
    int at[LOADS];
    for (int k = 0; k < LOADS; ++k) {
      int i = li + k * NT;
      ivec2 lq = quad_order(i);
      int l = lq.x, q = lq.y;
      bool ok = q < N && i < TC * NQ4;
      int c = min(c0 + l, n_across - 1);
      int a = ok ? remap_index(s0 - R + q, n_along, border) : -1;
      at[k] = ok ? l * PITCH + q : -1;
      v[k] = VEC(0.0);
      FETCH(k, ivec2(a, c));
    }
    for (int k = 0; k < LOADS; ++k)
      if (at[k] >= 0) tile[at[k]] = v[k];
  }
#else
  {
    VEC v[LOADS];
    int at[LOADS];
    for (int k = 0; k < LOADS; ++k) {
      int i = li + k * NT;
#if AXIS == 0
      int l = i / N, q = i - l * N;
#else
      int l = i % TC, q = i / TC;
#endif
      int c = min(c0 + l, n_across - 1);  // lines past the image: loaded (any line), never stored
      int a = remap_index(s0 - R + q, n_along, border);
      at[k] = l * PITCH + q;
      v[k] = VEC(0.0);
#ifdef WALK
      if (rd == 0) {
        v[k] = pick(nxt[k], 0);
        held[k] = pick(nxt[k], 1);
      } else
        v[k] = held[k];
#elif AXIS == 0
      FETCH(k, ivec2(a, c));
#else
      FETCH(k, ivec2(c, a));
#endif
    }
    for (int k = 0; k < LOADS; ++k) tile[at[k]] = v[k];
#ifdef WALK
    if (rd == 1 && walk_next >= 0) prefetch(walk_next);  // nxt is free again: round 0 took its texels
#endif
  }
#endif
  barrier();

  // 2. Neighbouring invocations own neighbouring blocks of one line (odd LS: different banks).
  int seg = li % NS, line = li / NS;
  int base = line * PITCH, p0 = seg * LS;
  VEC a[LS];
  for (int j = 0; j < LS; ++j) a[j] = tile[base + p0 + j];
#if TOTALS
  // The block totals of the current values (phase B of each box writes the next ones).
  Acc t = acc_zero();
  for (int j = 0; j < LS; ++j) acc_add(t, a[j]);
  total_set(li, t);
#if PARTS
  if (has_part(0)) part_set(li, a, 0);
#endif
  barrier();
#endif
  for (int k = 0; k < NW; ++k) {
#if TOTALS == 2
    // Their inclusive prefix along the line.
    for (int d = 1; d < NS; d *= 2) {
      Acc v = acc_zero();
      if (seg >= d) v = total_at(li - d);
      barrier();
      if (seg >= d) {
        acc_add_acc(t, v);
        total_set(li, t);
      }
      barrier();
    }
#endif
    int w = widths[k];
#ifdef FRAC_LIST
    float e = fracs[k];
    SCALE inv = SCALE(1.0) / SCALE(wreals[k]);
#else
    SCALE inv = SCALE(1.0) / SCALE(w);
#endif
    // The window starting at p0: positions p0 .. p0 + w - 1.
    Acc win = acc_zero();
#if TOTALS == 2
    // prefix(p0 + w) - prefix(p0), prefix(q) = the sum of positions < q: through block b - 1, then single values.
    int b = (p0 + w) / LS, rem = p0 + w - b * LS;
    if (b > 0) win = total_at(line * NS + min(b, NS) - 1);
    for (int j = 0; j < LS - 1; ++j)
      if (j < rem) acc_add(win, tile[base + min(b * LS + j, N - 1)]);
    if (seg > 0) acc_sub_acc(win, total_at(li - 1));
#else
#if TOTALS == 1
    if (w >= LS)
      win = t;  // the block's own total: the same sum as below
    else
#endif
    for (int j = 0; j < LS; ++j)
      if (j < w) acc_add(win, a[j]);
    int q = p0 + LS, rem = w - LS, b = seg + 1;
#if TOTALS == 1
    // m whole blocks, the same for every invocation of the box; blocks past the line clamp to its last (only windows
    // whose outputs are never stored reach them).
    int m = rem >= LS ? rem / LS : 0;
#if PARTS
    // Whole blocks' totals summed plainly, then added once: a TwoSum of an Acc each cost as much as a running step
    // of the box per component (GL box 4096^2 sigma 48: ~10 of them per window start, 0.940 -> 0.770 ms). Float32
    // error: n totals (at most 64, box_tile) add at most n ulps of the window sum (GlBox1d.ReachAtTheTileLimit).
    VEC whole = VEC(0.0);
#if GROUPED
    // m >= GROUPED: in nq groups of g ~ sqrt(m) totals and r < g single ones. Each invocation sums the g totals from
    // its own block on and leaves that sum in place of its total (two barriers), so a start loads g + nq + r values
    // instead of m (docs/performance.md "GL box: window starts in groups of totals").
    if (m >= GROUPED) {
      int g = max(2, int(sqrt(float(m)) + 0.5)), nq = m / g, r = m - nq * g, lb = line * NS;
      VEC own_group = VEC(0.0);
      for (int j = 0; j < g; ++j) own_group += totals_v[lb + min(seg + j, NS - 1)];
      for (int j = 0; j < r; ++j) whole += totals_v[lb + min(b + nq * g + j, NS - 1)];
      barrier();
      totals_v[li] = own_group;
      barrier();
      for (int j = 0; j < nq; ++j) whole += totals_v[lb + min(b + j * g, NS - 1)];
    } else
#endif
    // Fewer: one by one, a loop of the box's constant count (docs/performance.md "GL box: round 1's channels held
    // from round 0", the constant-count loop).
    for (int j = 0; j < m; ++j) whole += totals_v[line * NS + min(b + j, NS - 1)];
    acc_add(win, whole);
#else
    // The pair and float64 sums (GPUBLUR_GL_BOX_SUMS): the same count, each total added as an Acc.
    for (int j = 0; j < m; ++j) acc_add_acc(win, total_at(line * NS + min(b + j, NS - 1)));
#endif
    b += m, q += m * LS, rem -= m * LS;
#endif
#if PARTS
    if (has_part(k)) {
      if (rem > 0) acc_add(win, parts[line * NS + min(b, NS - 1)]);
    } else
#endif
    for (int j = 0; j < LS - 1; ++j)
      if (j < rem) acc_add(win, tile[base + min(q + j, N - 1)]);
#endif
#ifdef FRAC_LIST
    if (e > 0.0) {
      // The window p0 + 1 .. p0 + w; output j adds e (a[j] + the position after the window); a[j + 1] leaves.
      acc_add(win, tile[base + min(p0 + w, N - 1)]);
      acc_sub(win, a[0]);
      float ew = e * float(inv);
#if SUMS == 3
      VEC mean = acc_scaled(win, inv);  // the window's mean, as below
#endif
      for (int j = 0; j < LS; ++j) {
        VEC own = a[j], right = tile[base + min(p0 + j + w + 1, N - 1)];
        VEC leaving = a[min(j + 1, LS - 1)];
#if SUMS == 3
        a[j] = fma(own + right, VEC(ew), mean);
        if (j + 1 < LS) mean = fma(right - leaving, VEC(inv), mean);
#else
        a[j] = acc_scaled(win, inv) + (own + right) * ew;
        if (j + 1 < LS) {
          acc_add(win, right);
          acc_sub(win, leaving);
        }
#endif
      }
    } else
#endif
#if SUMS == 3
    {
      // Plain sums carry the window's mean: a subtraction and an FMA a step instead of a subtraction, an addition and
      // a multiplication (inv's rounding telescopes to inv's error times the mean's change over the block).
      VEC mean = acc_scaled(win, inv);
      for (int j = 0; j < LS; ++j) {
        VEC leaving = a[j];
        a[j] = mean;
        mean = fma(tile[base + min(p0 + j + w, N - 1)] - leaving, VEC(inv), mean);
      }
    }
#else
    // LS outputs; a[j] leaves the window after output j.
    for (int j = 0; j < LS; ++j) {
      VEC leaving = a[j];
      a[j] = acc_scaled(win, inv);
      acc_add(win, tile[base + min(p0 + j + w, N - 1)]);
      acc_sub(win, leaving);
    }
#endif
    barrier();
    for (int j = 0; j < LS; ++j) tile[base + p0 + j] = a[j];
#if TOTALS
    if (k + 1 < NW) {
      t = acc_zero();
      for (int j = 0; j < LS; ++j) acc_add(t, a[j]);
      total_set(li, t);
#if PARTS
      if (has_part(k + 1)) part_set(li, a, k + 1);
#endif
    }
#endif
    barrier();
  }

  // 3. TC x L outputs (rows of several lines in quads of positions, as the loads). Two rounds: round 0 keeps its
  //    values, round 1 stores both.
#if ROUNDS == 2 && VCH == 1
#define STORE(p, v) if (rd == 0) kept[k] = v; else imageStore(dst, p, vec4(kept[k], v, 0.0, 0.0))
#elif ROUNDS == 2
#define STORE(p, v) if (rd == 0) kept[k] = v; else imageStore(dst, p, vec4(kept[k], v))
#else
#define STORE(p, v) imageStore(dst, p, as_texel(v))
#endif
#if QSTORE
#define LQ4 (((L + 3) / 4) * 4)
  for (int k = 0; k < (TC * LQ4 + NT - 1) / NT; ++k) {
    int i = li + k * NT;
    if (i >= TC * LQ4) continue;  // (not break: kept[k] wants the loop unrolled)
    ivec2 lq = quad_order(i);
    int l = lq.x, q = lq.y;
    int c = c0 + l, o = s0 + q;
    if (q >= L || c >= n_across || o >= n_along) continue;
    STORE(ivec2(o, c), tile[l * PITCH + q]);
  }
#else
  for (int k = 0; k < (TC * L + NT - 1) / NT; ++k) {
    int i = li + k * NT;
    if (i >= TC * L) continue;
#if AXIS == 0
    int l = i / L, q = i - l * L;
#else
    int l = i % TC, q = i / TC;
#endif
    int c = c0 + l, o = s0 + q;
    if (c >= n_across || o >= n_along) continue;
#if AXIS == 0 || defined(TRANSPOSE)
    STORE(ivec2(o, c), tile[l * PITCH + q]);
#else
    STORE(ivec2(c, o), tile[l * PITCH + q]);
#endif
  }
#endif
}

// A line's rounds (each of a walk's two lines).
void line_rounds() {
  one_round(0);
#if ROUNDS == 2
  barrier();  // round 0's stores read the tile
  one_round(1);
#endif
}

void main() {
#ifdef WALK
  int g = int(gl_WorkGroupID.y), n = int(gl_NumWorkGroups.y);
  prefetch(g);
  walk_line = g;
  walk_next = g + n;
  line_rounds();
  barrier();  // round 1's stores read the tile
  walk_line = g + n;
  walk_next = -1;
#endif
  line_rounds();
}
