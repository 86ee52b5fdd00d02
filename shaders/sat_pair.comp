// sat_pair: two inclusive summed-area tables of a float64 table (spread's Sat, Sat: sat_pair in core/program.hpp)
// as Px^2 Py^2, the double prefix sum along rows (PHASE 0) and then down columns (PHASE 1), each value read twice
// and written once an axis (Hensley's doubling, sat.comp, reads two and writes one a pass, log2 n passes an axis).
// A sum is carried in pairs: s1 the running sum, s2 the running sum of s1. A piece of n values (a row's chunk, a
// column's segment) has the totals (t1, t2) from zero; the piece after it starts from s2 + t2 + n s1, s1 + t1.
// Tables: storage buffers of one dvec4 per pixel, rows of tsize.x pixels.
#if PHASE == 0
// A work group a stored row (row = x + 65535 y of the groups), LX invocations each a chunk of consecutive pixels;
// the chunks' first sums from two scans of the chunks' totals in shared memory.
layout(local_size_x = LX) in;
layout(std430, binding = 0) restrict readonly buffer Src { dvec4 src[]; };
layout(std430, binding = 1) restrict writeonly buffer Dst { dvec4 dst[]; };
uniform ivec2 tsize;
shared dvec4 sh[LX];

// The sum of v over the invocations before this one (all invocations call it).
dvec4 exclusive_scan(dvec4 v) {
  uint i = gl_LocalInvocationID.x;
  sh[i] = v;
  barrier();
  for (uint o = 1u; o < uint(LX); o <<= 1) {
    dvec4 add = i >= o ? sh[i - o] : dvec4(0.0);
    barrier();
    sh[i] += add;
    barrier();
  }
  dvec4 before = i > 0u ? sh[i - 1u] : dvec4(0.0);
  barrier();  // before the next scan writes sh
  return before;
}

void main() {
  int y = int(gl_WorkGroupID.x + 65535u * gl_WorkGroupID.y);
  if (y >= tsize.y) return;  // whole groups: barrier() stays uniform
  int n = tsize.x, E = (n + LX - 1) / LX;
  int x0 = min(n, int(gl_LocalInvocationID.x) * E), x1 = min(n, x0 + E);
  int row = y * n;
  dvec4 s1 = dvec4(0.0), s2 = dvec4(0.0);
  for (int x = x0; x < x1; ++x) {
    s1 += src[row + x];
    s2 += s1;
  }
  s1 = exclusive_scan(s1);
  s2 = exclusive_scan(s2 + double(x1 - x0) * s1);
  for (int x = x0; x < x1; ++x) {
    s1 += src[row + x];
    s2 += s1;
    dst[row + x] = s2;
  }
}
#else
// An invocation a double of a stored row (its column) and a segment of SEGS along y; groups of 32 columns.
layout(local_size_x = 32, local_size_y = SEGS) in;
layout(std430, binding = 0) restrict readonly buffer Src { double src[]; };
layout(std430, binding = 1) restrict writeonly buffer Dst { double dst[]; };
uniform ivec2 tsize;
shared double seg1[SEGS][32], seg2[SEGS][32];

void main() {
  int values = 4 * tsize.x, rows = tsize.y;
  int v = int(gl_WorkGroupID.x) * 32 + int(gl_LocalInvocationID.x), k = int(gl_LocalInvocationID.y);
  int E = (rows + SEGS - 1) / SEGS;
  int r0 = min(rows, k * E), r1 = min(rows, r0 + E);
  double s1 = 0.0, s2 = 0.0;
  if (v < values)
    for (int r = r0; r < r1; ++r) {
      s1 += src[r * values + v];
      s2 += s1;
    }
  seg1[k][gl_LocalInvocationID.x] = s1;
  seg2[k][gl_LocalInvocationID.x] = s2;
  barrier();
  s1 = 0.0;
  s2 = 0.0;
  for (int i = 0; i < k; ++i) {
    s2 += seg2[i][gl_LocalInvocationID.x] + double(min(rows, (i + 1) * E) - min(rows, i * E)) * s1;
    s1 += seg1[i][gl_LocalInvocationID.x];
  }
  if (v < values)
    for (int r = r0; r < r1; ++r) {
      s1 += src[r * values + v];
      s2 += s1;
      dst[r * values + v] = s2;
    }
}
#endif
