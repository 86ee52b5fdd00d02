// gauss-sep, compute form: one 1D pass (AXIS 0 horizontal, 1 vertical) with shared-memory tiles.
// A group owns LOCAL_X x LOCAL_Y threads; along the pass axis each thread makes PER consecutive outputs
// from a register window (each shared-memory load feeds PER outputs), so a group covers TILE outputs on
// each of its lines. SPAN is odd so that lines start on different banks. The kernel's offsets are walked in rounds: each round loads
// TILE + cnt - 1 texels per line into shared memory (border-remapped once per texel) and applies cnt
// offsets from there, so any radius works within the shared-memory limit (SPAN texels per line).
// Sums run over offsets -r..r in order, like the CPU reference.
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 0) readonly buffer Weights { float w[]; };
uniform int radius;
uniform int border;

#if AXIS == 0
#define ALONG LOCAL_X
#define ACROSS LOCAL_Y
#else
#define ALONG LOCAL_Y
#define ACROSS LOCAL_X
#endif
#define TILE (ALONG * PER)

shared vec4 line[ACROSS * SPAN];

void main() {
  ivec2 size = textureSize(src, 0);
  ivec2 lid = ivec2(gl_LocalInvocationID.xy);
  ivec2 gid = ivec2(gl_WorkGroupID.xy);
#if AXIS == 0
  int la = lid.x, lc = lid.y, a0 = gid.x * TILE, c = gid.y * ACROSS + lc, n_along = size.x, n_across = size.y;
#else
  int la = lid.y, lc = lid.x, a0 = gid.y * TILE, c = gid.x * ACROSS + lc, n_along = size.y, n_across = size.x;
#endif
  bool live = c < n_across;
  int base = lc * SPAN;
  vec4 acc[PER];
  for (int p = 0; p < PER; ++p) acc[p] = vec4(0.0);

  for (int lo = -radius; lo <= radius;) {
    int cnt = min(radius - lo + 1, SPAN - TILE + 1);
    int n_load = TILE + cnt - 1;
    for (int j = la; j < n_load; j += ALONG) {
      vec4 v = vec4(0.0);
      if (live) {
        int a = remap_index(a0 + lo + j, n_along, border);
#if AXIS == 0
        if (a >= 0) v = texelFetch(src, ivec2(a, c), 0);
#else
        if (a >= 0) v = texelFetch(src, ivec2(c, a), 0);
#endif
      }
      line[base + j] = v;
    }
    barrier();
    // Texel m of this thread's window is offset t = m - p for output p (the test is uniform per group).
    int s = base + la * PER;
    for (int m = 0; m < cnt + PER - 1; ++m) {
      vec4 v = line[s + m];
      for (int p = 0; p < PER; ++p) {
        int t = m - p;
        if (t >= 0 && t < cnt) acc[p] += w[lo + t + radius] * v;
      }
    }
    barrier();
    lo += cnt;
  }
  if (!live) return;
  for (int p = 0; p < PER; ++p) {
    int a = a0 + la * PER + p;
    if (a >= n_along) break;
#if AXIS == 0
    imageStore(dst, ivec2(a, c), acc[p]);
#else
    imageStore(dst, ivec2(c, a), acc[p]);
#endif
  }
}
