// box1d: the cascade of boxes of the odd widths WIDTH_LIST along one axis (AXIS 0 rows, 1 columns), on the
// border-extended line (core/reference/passes/box1d.cpp), with running sums: the cost per pixel does not
// depend on the widths.
// A group of NT invocations owns TC lines and L = N - 2R consecutive outputs of each (R: the cascade's reach):
//  1. loads the N = L + 2R positions of each line, extended with the border mode, into shared memory (vec4
//     float32; loads coalesced: along a row for AXIS 0, across TC neighbouring columns for AXIS 1);
//  2. runs the boxes one after the other in place: invocation (line, seg) owns positions p0 = seg * LS ..
//     p0 + LS - 1 (kept in registers between boxes) and makes the LS outputs of the windows starting there
//     with one float64 running sum (window start p0: its own values, then whole blocks of later invocations
//     from their float64 totals, then single values; each next window adds the value entering and subtracts
//     the one leaving). Output p is stored at position p, so each box moves the line by its half-width and
//     shortens it by w - 1: after all boxes positions 0 .. L-1 hold the outputs (positions beyond are
//     garbage of windows that left the tile and are never stored);
//  3. stores positions 0 .. L-1 of each line.
// Values are float32 between boxes (each box's result rounded once, then added and subtracted as the same
// float). Sums are compensated float32 (F64 0: a float pair hi + lo updated with Knuth's TwoSum, about 48
// bits) or float64 (F64 1); either way every running sum starts afresh at each invocation's block (LS
// outputs), so the error does not grow with the line and stays within float rounding of the float64
// reference. The compensated form costs 16 FP32 operations per value and box; float64 costs 3 conversions,
// which run at a quarter of the FP64 rate on an H100.
// Shared memory: TC x PITCH vec4 (+ NT dvec4 totals where a width exceeds LS); the host picks TC and LS for
// the reach (gl_tiles.hpp BoxTile) and runs the line walkers instead where no tile fits.
layout(local_size_x = NT) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;

const int widths[NW] = int[](WIDTH_LIST);

shared vec4 tile[TC * PITCH];

// Running sums of vec4 values.
#if F64
struct Acc { dvec4 v; };
Acc acc_zero() { return Acc(dvec4(0.0)); }
void acc_add(inout Acc s, vec4 x) { s.v += dvec4(x); }
void acc_sub(inout Acc s, vec4 x) { s.v -= dvec4(x); }
void acc_add_acc(inout Acc s, Acc t) { s.v += t.v; }
#define SCALE double
vec4 acc_scaled(Acc s, SCALE f) { return vec4(s.v * f); }
#else
struct Acc { vec4 hi, lo; };
Acc acc_zero() { return Acc(vec4(0.0), vec4(0.0)); }
// TwoSum: hi + x = t + e exactly (precise: no reassociation or contraction by the compiler).
void acc_add(inout Acc s, vec4 x) {
  precise vec4 t = s.hi + x;
  precise vec4 b = t - s.hi;
  precise vec4 e = (s.hi - (t - b)) + (x - b);
  s.hi = t;
  s.lo += e;
}
void acc_sub(inout Acc s, vec4 x) { acc_add(s, -x); }
void acc_add_acc(inout Acc s, Acc t) {
  acc_add(s, t.hi);
  s.lo += t.lo;
}
#define SCALE float
vec4 acc_scaled(Acc s, SCALE f) { return (s.hi + s.lo) * f; }
#endif
#if TOTALS
shared Acc totals[NT];
#endif

void main() {
  ivec2 size = textureSize(src, 0);
#if AXIS == 0
  int n_along = size.x, n_across = size.y;
#else
  int n_along = size.y, n_across = size.x;
#endif
  int li = int(gl_LocalInvocationIndex);
  int s0 = int(gl_WorkGroupID.x) * L;   // first output along the axis
  int c0 = int(gl_WorkGroupID.y) * TC;  // first line

  // 1. TC x N positions = NT x LS: LS loads per invocation.
  for (int k = 0; k < LS; ++k) {
    int i = li + k * NT;
#if AXIS == 0
    int l = i / N, q = i - l * N;
#else
    int l = i % TC, q = i / TC;
#endif
    int c = min(c0 + l, n_across - 1);  // lines past the image: loaded (any line), never stored
    int a = remap_index(s0 - R + q, n_along, border);
    vec4 v = vec4(0.0);
#if AXIS == 0
    if (a >= 0) v = texelFetch(src, ivec2(a, c), 0);
#else
    if (a >= 0) v = texelFetch(src, ivec2(c, a), 0);
#endif
    tile[l * PITCH + q] = v;
  }
  barrier();

  // 2. Neighbouring invocations own neighbouring blocks of one line (odd LS: different banks).
  int seg = li % NS, line = li / NS;
  int base = line * PITCH, p0 = seg * LS;
  vec4 a[LS];
  for (int j = 0; j < LS; ++j) a[j] = tile[base + p0 + j];
#if TOTALS
  Acc t = acc_zero();
  for (int j = 0; j < LS; ++j) acc_add(t, a[j]);
  totals[li] = t;
  barrier();
#endif
  for (int k = 0; k < NW; ++k) {
    int w = widths[k];
    SCALE inv = SCALE(1.0) / SCALE(w);
    // The window starting at p0: positions p0 .. p0 + w - 1.
    Acc win = acc_zero();
    for (int j = 0; j < LS; ++j)
      if (j < w) acc_add(win, a[j]);
    int q = p0 + LS, rem = w - LS;
#if TOTALS
    for (int b = seg + 1; rem >= LS && b < NS; ++b, q += LS, rem -= LS) acc_add_acc(win, totals[line * NS + b]);
#endif
    for (int j = 0; j < LS - 1; ++j)
      if (j < rem) acc_add(win, tile[base + min(q + j, N - 1)]);
    // LS outputs; a[j] leaves the window after output j.
    for (int j = 0; j < LS; ++j) {
      vec4 leaving = a[j];
      a[j] = acc_scaled(win, inv);
      acc_add(win, tile[base + min(p0 + j + w, N - 1)]);
      acc_sub(win, leaving);
    }
    barrier();
    for (int j = 0; j < LS; ++j) tile[base + p0 + j] = a[j];
#if TOTALS
    t = acc_zero();
    for (int j = 0; j < LS; ++j) acc_add(t, a[j]);
    totals[li] = t;
#endif
    barrier();
  }

  // 3. TC x L outputs.
  for (int k = 0; k < (TC * L + NT - 1) / NT; ++k) {
    int i = li + k * NT;
    if (i >= TC * L) break;
#if AXIS == 0
    int l = i / L, q = i - l * L;
#else
    int l = i % TC, q = i / TC;
#endif
    int c = c0 + l, o = s0 + q;
    if (c >= n_across || o >= n_along) continue;
#if AXIS == 0
    imageStore(dst, ivec2(o, c), tile[l * PITCH + q]);
#else
    imageStore(dst, ivec2(c, o), tile[l * PITCH + q]);
#endif
  }
}
