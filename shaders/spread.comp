// spread: Kosloff's spreading in gather form (core/program.hpp Op::Spread): the float64 table (a storage
// buffer of dvec4, rows of dsize.x, covering [-2, w) x [-2, h): stored pixel t is image pixel t - 2) holds
// s(p) = sum w_a w_b E(p - 1 + (a, b) R), w = (1, -2, 1), E the source read with the border mode on the area
// extended by `extend` pixels and 0 beyond. Its lines -1 and -2 hold the spread before the image folded in (a
// value at -d counts 2 - d times at -1 and d - 1 times at -2).
// FOLD 0: one invocation per image pixel. The fold goes through the taps on the source's lines
// (core/spread_fold.hpp, the host's spread_fold_taps), so its work is bounded by the image at any R, where a folded
// pixel's M or M^2 spread values (M = extend + R - 1) cost 9 reads each (64^2 at R 2048 on llvmpipe: 11.6 s):
// FOLD 1: the lines' sums S_t(j) (rows over the x taps) and C_u(i) (columns over the y taps) into `sums`, a work
// group per 16 lines whose invocations stride over the taps, then a fixed-order shared-memory reduction (the
// results do not depend on scheduling; a line's loop is at most n / 16 iterations, under llvmpipe's loop limit).
// FOLD 2: the folded pixels from the sums: three of them each on the lines -1 / -2 beside the image, and each
// corner a work group's fixed-order reduction over the y taps of S_t.
#if FOLD
layout(local_size_x = 256) in;
#else
layout(local_size_x = 16, local_size_y = 16) in;
#endif
layout(binding = 0) uniform sampler2D src;
layout(std430, binding = 0) buffer Dst { dvec4 dst[]; };
uniform ivec2 dsize;  // dst's stored size
uniform ivec2 size;   // the image without padding
uniform int R;
uniform int extend;
uniform int border;
#if FOLD
// core/spread_fold.hpp SpreadFoldTap (same std430 layout: 24 bytes): the x taps [0, ntx), then the y taps.
struct Tap {
  int index;
  double w1;
  double w2;
};
layout(std430, binding = 1) readonly buffer Taps { Tap taps[]; };
// S_-1 (h values), S_-2 (h), C_-1 (w), C_-2 (w).
layout(std430, binding = 2) buffer Sums { dvec4 sums[]; };
uniform int ntx;
uniform int nty;
#endif

#if FOLD == 1
shared dvec4 red1[256];
shared dvec4 red2[256];

void main() {
  // Groups [0, gx): rows 16 a group, invocation l on row l >> 4 and tap lane l & 15 (neighbours read neighbouring
  // taps of a row); then columns 16 a group, column l & 15 and tap lane l >> 4 (neighbours read a row's columns).
  int gx = (size.y + 15) / 16, g = int(gl_WorkGroupID.x), l = int(gl_LocalInvocationID.x);
  bool rows = g < gx;
  int lane = rows ? (l & 15) : (l >> 4), unit = rows ? 1 : 16;
  int line = rows ? g * 16 + (l >> 4) : (g - gx) * 16 + (l & 15);
  int n = rows ? size.y : size.x;
  dvec4 s1 = dvec4(0.0), s2 = dvec4(0.0);
  if (line < n) {
    int first = rows ? 0 : ntx, count = rows ? ntx : nty;
    for (int k = lane; k < count; k += 16) {
      Tap tp = taps[first + k];
      dvec4 v = dvec4(texelFetch(src, rows ? ivec2(tp.index, line) : ivec2(line, tp.index), 0));
      s1 += tp.w1 * v;
      s2 += tp.w2 * v;
    }
  }
  red1[l] = s1;
  red2[l] = s2;
  barrier();
  for (int span = 8; span > 0; span >>= 1) {
    if (lane < span) {
      red1[l] += red1[l + span * unit];
      red2[l] += red2[l + span * unit];
    }
    barrier();
  }
  if (lane == 0 && line < n) {
    int base = rows ? 0 : 2 * size.y;
    sums[base + line] = red1[l];
    sums[base + n + line] = red2[l];
  }
}
#elif FOLD == 2
shared dvec4 red[256];

// E's index along an axis of n pixels at q: the border mode's, -1 where E is 0.
int e_index(int q, int n) { return q < -extend || q >= n + extend ? -1 : remap_index(q, n, border); }

void main() {
  int g = int(gl_WorkGroupID.x), l = int(gl_LocalInvocationID.x);
  if (g < 4) {  // corner (t, u) = (-1 - (g & 1), -1 - (g >> 1)): sum over the y taps of w_u S_t
    int t = g & 1, u = g >> 1;
    dvec4 acc = dvec4(0.0);
    for (int k = l; k < nty; k += 256) {
      Tap tp = taps[ntx + k];
      acc += (u == 0 ? tp.w1 : tp.w2) * sums[t * size.y + tp.index];
    }
    red[l] = acc;
    barrier();
    for (int span = 128; span > 0; span >>= 1) {
      if (l < span) red[l] += red[l + span];
      barrier();
    }
    if (l == 0) dst[(1 - u) * dsize.x + 1 - t] = red[0];
    return;
  }
  int m = (g - 4) * 256 + l;
  dvec4 acc = dvec4(0.0);
  if (m < 2 * size.y) {  // column t (0: -1, 1: -2) of row y: sum_b w_b S_t at E's row y - 1 + b R
    int t = m / size.y, y = m % size.y;
    for (int b = -1; b <= 1; ++b) {
      int j = e_index(y - 1 + b * R, size.y);
      if (j >= 0) acc += double(b == 0 ? -2 : 1) * sums[t * size.y + j];
    }
    dst[(y + 2) * dsize.x + 1 - t] = acc;
  } else if ((m -= 2 * size.y) < 2 * size.x) {  // row u of column x: sum_a w_a C_u at E's column x - 1 + a R
    int u = m / size.x, x = m % size.x;
    for (int a = -1; a <= 1; ++a) {
      int i = e_index(x - 1 + a * R, size.x);
      if (i >= 0) acc += double(a == 0 ? -2 : 1) * sums[2 * size.y + u * size.x + i];
    }
    dst[(1 - u) * dsize.x + x + 2] = acc;
  }
}
#else
dvec4 spread_at(ivec2 q) {
  ivec2 p = q - 1;
  dvec4 acc = dvec4(0.0);
  for (int b = -1; b <= 1; ++b) {
    int y = p.y + b * R;
    if (y < -extend || y >= size.y + extend) continue;
    for (int a = -1; a <= 1; ++a) {
      int x = p.x + a * R;
      if (x < -extend || x >= size.x + extend) continue;
      double w = double((a == 0 ? -2 : 1) * (b == 0 ? -2 : 1));
      acc += w * dvec4(fetch_texel(src, ivec2(x, y), size, border));
    }
  }
  return acc;
}

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  dst[(p.y + 2) * dsize.x + p.x + 2] = spread_at(p);
}
#endif
