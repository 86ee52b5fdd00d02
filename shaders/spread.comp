// spread: Kosloff's spreading in gather form (core/program.hpp Op::Spread): the float64 table (a storage
// buffer of dvec4, rows of dsize.x, covering [-2, w) x [-2, h): stored pixel t is image pixel t - 2) holds
// s(p) = sum w_a w_b E(p - 1 + (a, b) R), w = (1, -2, 1), E the source read with the border mode on the area
// extended by `extend` pixels and 0 beyond. Its lines -1 and -2 hold the spread before the image folded in (a
// value at -d counts 2 - d times at -1 and d - 1 times at -2).
// FOLD 0: one invocation per image pixel. FOLD 1: one work group per folded table pixel (2 (w + h) + 4 of
// them), whose M or M^2 spread values (M = extend + R - 1) the group sums: values kbegin..kend-1 of them a dispatch,
// added to the table's value where `resume` (llvmpipe ends an invocation's loops after 65535 iterations in all, so
// the host splits large margins over dispatches there; on GPUs one dispatch takes all of them).
#if FOLD
layout(local_size_x = 256) in;
shared dvec4 red[256];
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
uniform int kbegin;
uniform int kend;
uniform bool resume;
#endif

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
#if FOLD
  // Split over y where 2 (w + h) + 4 exceeds a dispatch's 65535 groups in x.
  int m = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  if (m >= 2 * (size.x + size.y) + 4) return;
  ivec2 t;
  if (m < 2 * size.x) {
    t = ivec2(m % size.x, -1 - m / size.x);
  } else if ((m -= 2 * size.x) < 2 * size.y) {
    t = ivec2(-1 - m / size.y, m % size.y);
  } else {
    m -= 2 * size.y;
    t = ivec2(-1 - (m & 1), -1 - (m >> 1));
  }
  int M = extend + R - 1;
  int nx = t.x >= 0 ? 1 : M, ny = t.y >= 0 ? 1 : M;
  dvec4 acc = dvec4(0.0);
  int kn = min(nx * ny, kend);
  for (int k = kbegin + int(gl_LocalInvocationID.x); k < kn; k += 256) {
    int ix = k % nx, iy = k / nx;
    ivec2 p = t;
    double f = 1.0;
    if (t.x < 0) { p.x = -(ix + 1); f *= t.x == -1 ? double(1 - ix) : double(ix); }
    if (t.y < 0) { p.y = -(iy + 1); f *= t.y == -1 ? double(1 - iy) : double(iy); }
    if (f != 0.0) acc += f * spread_at(p);
  }
  red[gl_LocalInvocationID.x] = acc;
  barrier();
  for (uint span = 128u; span > 0u; span >>= 1) {
    if (gl_LocalInvocationID.x < span) red[gl_LocalInvocationID.x] += red[gl_LocalInvocationID.x + span];
    barrier();
  }
  if (gl_LocalInvocationID.x == 0u) {
    int at = (t.y + 2) * dsize.x + t.x + 2;
    dst[at] = resume ? dst[at] + red[0] : red[0];
  }
#else
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  dst[(p.y + 2) * dsize.x + p.x + 2] = spread_at(p);
#endif
}
