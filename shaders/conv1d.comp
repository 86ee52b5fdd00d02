// conv1d, compute form: one 1D pass (AXIS 0 horizontal, 1 vertical) with shared-memory tiles.
// A group owns LOCAL_X x LOCAL_Y threads; along the pass axis each thread makes PER consecutive outputs
// from a register window, so a group covers TILE outputs on each of its lines. SPAN is odd so that lines
// start on different banks. The kernel's taps (NTAPS: 2r+1 padded with zero weights to a multiple of PER)
// are walked in rounds of up to OPR: each round loads TILE + its taps texels per line into shared memory
// (border-remapped once per texel) and applies those taps from there, so any radius fits the shared memory.
// The tap loop runs in chunks of PER taps: PER shared loads and PER weights feed PER x PER FMAs of the line's
// values, with no bounds tests.
// BALANCED 1: NROUNDS rounds of exactly OPR taps (the host balances them and pads NTAPS to NROUNDS x OPR
// with zero weights), so every loop's trip count is a compile-time constant, except the round loop's
// where OUTER_UNIFORM (there NVIDIA's unroll pragma unrolls the chunk loops but not the round loop).
// Which form is faster depends on the radius (H100: docs/performance.md, GL round 4).
// VCH 1 / 2 (one- and two-channel images): float / vec2 lines (common.glsl), a quarter / half of the shared memory and
// arithmetic of the vec4 lines three and four channels take (no VCH).
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
#if WEIGHTS_UBO
layout(std140, binding = 0) uniform Weights { vec4 w4[NTAPS / 4]; };
#else
layout(std430, binding = 0) readonly buffer Weights { vec4 w4[]; };
#endif
uniform int border;
#ifndef OUTER_UNIFORM
#define OUTER_UNIFORM 0
#endif
#ifndef BALANCED
#define BALANCED 1
#endif
#if OUTER_UNIFORM
uniform int n_outer;  // = NROUNDS from the host: NVIDIA's unroll pragma then leaves the round loop rolled
#define ROUND_BOUND n_outer
#else
#define ROUND_BOUND NROUNDS
#endif

#if AXIS == 0
#define ALONG LOCAL_X
#define ACROSS LOCAL_Y
#else
#define ALONG LOCAL_Y
#define ACROSS LOCAL_X
#endif
#define TILE (ALONG * PER)
#define NT (LOCAL_X * LOCAL_Y)
#define N_LOAD (TILE + OPR)  // texels per line and round
#define LOAD_ITERS ((ACROSS * N_LOAD + NT - 1) / NT)

shared VEC line[ACROSS * SPAN];

float weight(int j) { return w4[j >> 2][j & 3]; }

void main() {
  ivec2 size = gpublur_src_size;
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
  VEC acc[PER];
  for (int p = 0; p < PER; ++p) acc[p] = VEC(0.0);

#if BALANCED
  for (int round = 0; round < ROUND_BOUND; ++round) {
    int lo = round * OPR;
#define CNT OPR
#define NLOAD N_LOAD
#else
  // The previous form (BALANCED 0): rounds of up to OPR taps, the last one shorter; trip counts computed at
  // run time (measured faster on an H100 at radius 9 and 144, docs/performance.md, GL round 4).
  for (int lo = 0; lo < NTAPS; lo += OPR) {
    int cnt = min(NTAPS - lo, OPR);
    int n_load = TILE + cnt;
#define CNT cnt
#define NLOAD n_load
#endif
    // Load mapping: neighbouring invocations on neighbouring texels of a row (coalesced reads).
#if BALANCED
    for (int k = 0; k < LOAD_ITERS; ++k) {
      int i = li + k * NT;
      if (i >= ACROSS * NLOAD) break;
#else
    for (int i = li; i < ACROSS * NLOAD; i += NT) {
#endif
#if AXIS == 0
      int j = i % NLOAD, l = i / NLOAD;
#else
      int l = i % ACROSS, j = i / ACROSS;
#endif
      int c = c0 + l;
      VEC v = VEC(0.0);
      if (c < n_across) {
        int a = remap_index(a0 - RADIUS + lo + j, n_along, border);
#if AXIS == 0
        if (a >= 0) v = pick(texelFetch(src, ivec2(a, c), 0), 0);
#else
        if (a >= 0) v = pick(texelFetch(src, ivec2(c, a), 0), 0);
#endif
      }
      line[l * SPAN + j] = v;
    }
    barrier();
    // Window win[q] = line[s + t0 + q]; output p takes tap t0 + tt from win/nxt[p + tt].
    int s = base + la * PER;
    VEC win[PER];
    for (int q = 0; q < PER; ++q) win[q] = line[s + q];
    for (int t0 = 0; t0 < CNT; t0 += PER) {
      VEC nxt[PER];
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
    imageStore(dst, ivec2(a, c), as_texel(acc[p]));
#else
    imageStore(dst, ivec2(c, a), as_texel(acc[p]));
#endif
  }
}
