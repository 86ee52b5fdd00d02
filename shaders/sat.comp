// sat: one pass of Hensley's recursive doubling (thesis 2.1, Algorithm 2.1 with two lookups per pixel) for
// an inclusive float64 summed-area table: along `axis`, T'(t) = T(t) + T(t - d) (T(t - d) = 0 before the
// table's first row/column). With d = 1, 2, 4, ... the passes of one axis give the prefix sums along it in
// ceil(log2 n) passes; the host ping-pongs two storage buffers (dvec4 per pixel, rows of tsize.x) and runs
// the x passes, then the y passes. The first pass reads the source texture instead, extended to the table's
// area: table texel t is image pixel t - table_pad; a padded source is read inside its area, an unpadded one
// with the border mode (zero: 0). SRC_TABLE 1: the source is a float64 table (storage buffer, rows of
// src_w) that covers the table's area (a table of a table: double integration).
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(std430, binding = 0) readonly buffer TableIn { dvec4 tin[]; };
layout(std430, binding = 1) writeonly buffer TableOut { dvec4 tout[]; };
uniform ivec2 tsize;   // the table's stored size
uniform ivec2 size;    // the image's size without padding
uniform int table_pad;
uniform int src_pad;
uniform int border;
uniform int axis;      // 0: along x, 1: along y
uniform int d;         // the lookup distance (0: the first pass only extends the source)
uniform bool first;    // read the source texture (else tin)
#if SRC_TABLE
layout(std430, binding = 2) readonly buffer SrcTable { dvec4 stab[]; };
uniform int src_w;     // the source table's stored width
#endif

dvec4 source(ivec2 t) {
  ivec2 p = t - table_pad;
#if SRC_TABLE
  ivec2 s = p + src_pad;
  return stab[s.y * src_w + s.x];
#else
  return dvec4(src_pad > 0 ? texelFetch(src, p + src_pad, 0) : fetch_texel(src, p, size, border));
#endif
}

void main() {
  // Warps of 16 x 2 invocations, not common.glsl's GOB-shaped GLOBAL_ID: with it the doubling passes measured
  // 6% slower on an H100 (box --impl sat 54.7 against 51.5 ms at 4096^2; docs/performance.md, "GL: warps on GOBs").
  ivec2 t = ivec2(gl_GlobalInvocationID.xy);
  if (t.x >= tsize.x || t.y >= tsize.y) return;
  ivec2 u = t;
  u[axis] -= d;
  bool add = d > 0 && u[axis] >= 0;
  dvec4 v;
  if (first) {
    v = source(t);
    if (add) v += source(u);
  } else {
    v = tin[t.y * tsize.x + t.x];
    if (add) v += tin[u.y * tsize.x + u.x];
  }
  tout[t.y * tsize.x + t.x] = v;
}
