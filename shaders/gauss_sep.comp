// gauss-sep, compute form: one 1D pass (AXIS 0 horizontal, 1 vertical) with shared-memory tiles.
// A group owns LOCAL_X x LOCAL_Y threads; along the pass axis each thread makes PER consecutive outputs
// from a register window, so a group covers TILE outputs on each of its lines. SPAN is odd so that lines
// start on different banks. The kernel's taps (NTAPS: 2r+1 padded with zero weights to a multiple of PER)
// are walked in rounds of OPR: each round loads TILE + OPR texels per line into shared memory
// (border-remapped once per texel) and applies OPR taps from there, so any radius fits the shared memory.
// The tap loop runs in chunks of PER taps: PER shared loads and one vec4 of weights feed PER x PER vec4
// FMAs, with no bounds tests (RADIUS is a compile-time constant; the chunk's inner loops unroll).
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
#if WEIGHTS_UBO
layout(std140, binding = 0) uniform Weights { vec4 w4[NTAPS / 4]; };
#else
layout(std430, binding = 0) readonly buffer Weights { vec4 w4[]; };
#endif
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

float weight(int j) { return w4[j >> 2][j & 3]; }

void main() {
  ivec2 size = textureSize(src, 0);
  int li = int(gl_LocalInvocationIndex);
  ivec2 gid = ivec2(gl_WorkGroupID.xy);
  // Compute mapping: neighbouring invocations on neighbouring lines (odd SPAN: different banks).
  int lc = li % ACROSS, la = li / ACROSS;
#if AXIS == 0
  int a0 = gid.x * TILE, c0 = gid.y * ACROSS, n_along = size.x, n_across = size.y;
#else
  int a0 = gid.y * TILE, c0 = gid.x * ACROSS, n_along = size.y, n_across = size.x;
#endif
  bool live = c0 + lc < n_across;
  int base = lc * SPAN;
  vec4 acc[PER];
  for (int p = 0; p < PER; ++p) acc[p] = vec4(0.0);

  for (int lo = 0; lo < NTAPS; lo += OPR) {
    int cnt = min(NTAPS - lo, OPR);
    int n_load = TILE + cnt;
    // Load mapping: neighbouring invocations on neighbouring texels of a row (coalesced reads).
    for (int i = li; i < ACROSS * n_load; i += ALONG * ACROSS) {
#if AXIS == 0
      int j = i % n_load, l = i / n_load;
#else
      int l = i % ACROSS, j = i / ACROSS;
#endif
      int c = c0 + l;
      vec4 v = vec4(0.0);
      if (c < n_across) {
        int a = remap_index(a0 - RADIUS + lo + j, n_along, border);
#if AXIS == 0
        if (a >= 0) v = texelFetch(src, ivec2(a, c), 0);
#else
        if (a >= 0) v = texelFetch(src, ivec2(c, a), 0);
#endif
      }
      line[l * SPAN + j] = v;
    }
    barrier();
    // Window win[q] = line[s + t0 + q]; output p takes tap t0 + tt from win/nxt[p + tt].
    int s = base + la * PER;
    vec4 win[PER];
    for (int q = 0; q < PER; ++q) win[q] = line[s + q];
    for (int t0 = 0; t0 < cnt; t0 += PER) {
      vec4 nxt[PER];
      for (int q = 0; q < PER; ++q) nxt[q] = line[s + t0 + PER + q];
      for (int tt = 0; tt < PER; ++tt) {
        float wt = weight(lo + t0 + tt);
        for (int p = 0; p < PER; ++p) acc[p] += wt * (p + tt < PER ? win[p + tt] : nxt[p + tt - PER]);
      }
      for (int q = 0; q < PER; ++q) win[q] = nxt[q];
    }
    barrier();
  }
  if (!live) return;
  int c = c0 + lc;
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
