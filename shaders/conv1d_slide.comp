// conv1d, sliding fused compute form of a separable pair (Conv1d along x then y with the same taps): both
// 1D passes in one dispatch with little shared memory per group.
// A group of NT = TW x PR / 4 invocations owns a strip of TW columns and SH rows of outputs and slides down
// it in steps of PR rows:
//  1. horizontal: PR new rows x TW columns, each invocation 4 outputs of one row from a register window
//     fed straight by texelFetch (neighbouring invocations read neighbouring texels: L1 hits, no shared
//     memory for the input), stored into a ring of horizontally filtered rows in shared memory;
//  2. vertical: once 2r + PR rows are in the ring, PR output rows, each invocation 4 rows of one column
//     from a register window over the ring, stored to the image.
// Only the strip's 2r halo rows are filtered twice (once per strip, not per tile), and the image is read
// and written once. The ring holds 2r + 2 PR rows, so one barrier per step suffices: the rows a step
// overwrites were last read two steps before. Every loop's trip count is a compile-time constant, except
// the step loop's where OUTER_UNIFORM (see n_outer).
// The border remap (rows once per row, columns only in strips near the left/right edges) equals
// separate passes: remapping whole rows commutes with the horizontal filter, zero rows stay zero.
layout(local_size_x = NT) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;
#ifndef OUTER_UNIFORM
#define OUTER_UNIFORM 0
#endif
#if OUTER_UNIFORM
// The step loop's bound from the host (= STEPS): NVIDIA's `unroll all` pragma then unrolls the window loops
// but cannot unroll the step loop (measured: without the pragma the window loops stay rolled even with
// constant trip counts, and an unrolled step loop would multiply the code by STEPS).
uniform int n_outer;
#define STEP_BOUND n_outer
#else
#define STEP_BOUND STEPS
#endif

const float w[NTAPS] = float[](WEIGHT_LIST);  // 2r+1 weights, zeros up to NTAPS (a multiple of 4)

#define P 4
#define R2 (2 * RADIUS)
#define D ((R2 + PR - 1) / PR)  // steps before the first vertical output
#define PAD (D * PR - R2)       // extra rows above the halo so steps stay PR-aligned
#define RING (R2 + 2 * PR)
#define STEPS (D + SH / PR)
#define LAST_IDX (R2 + P - 1)  // the window's last index read with a non-zero weight

shared vec4 ring[RING * TW];

// 4 outputs from window values v(j), j = 0 .. 2r + 3: out p = sum_t w[t] v(p + t). Chunks of 4 taps:
// 4 new values feed 16 vec4 FMAs; values past LAST_IDX meet only zero weights and are not read.
#define WINDOW(acc, V)                                                                       \
  {                                                                                          \
    for (int p = 0; p < P; ++p) acc[p] = vec4(0.0);                                          \
    vec4 win[P], nxt[P];                                                                     \
    for (int q = 0; q < P; ++q) win[q] = V(q);                                               \
    for (int t0 = 0; t0 < NTAPS; t0 += P) {                                                  \
      for (int q = 0; q < P; ++q) nxt[q] = t0 + P + q <= LAST_IDX ? V(t0 + P + q) : vec4(0.0); \
      for (int tt = 0; tt < P; ++tt)                                                         \
        for (int p = 0; p < P; ++p) acc[p] += w[t0 + tt] * (p + tt < P ? win[p + tt] : nxt[p + tt - P]); \
      for (int q = 0; q < P; ++q) win[q] = nxt[q];                                           \
    }                                                                                        \
  }

void main() {
  ivec2 size = gpublur_src_size;
  int li = int(gl_LocalInvocationIndex);
  int X0 = int(gl_WorkGroupID.x) * TW, Y0 = int(gl_WorkGroupID.y) * SH;
  // Horizontal item: row hi of the step, columns 4 hq .. 4 hq + 3 of the strip.
  int hq = li % (TW / P), hi = li / (TW / P);
  int xs = X0 + P * hq - RADIUS;  // first texel of the window
  bool x_inside = xs >= 0 && xs + LAST_IDX < size.x;
  // Vertical item: column vc, rows 4 vq .. 4 vq + 3 of the step.
  int vc = li % TW, vq = li / TW;

  for (int k = 0; k < STEP_BOUND; ++k) {
    // 1. Ring row hr = k PR + hi is image row Y0 - RADIUS - PAD + hr.
    int hr = k * PR + hi;
    int y = remap_index(Y0 - RADIUS - PAD + hr, size.y, border);
    vec4 h[P];
    if (y < 0) {
      for (int p = 0; p < P; ++p) h[p] = vec4(0.0);
    } else if (x_inside) {
#define FETCH(j) texelFetch(src, ivec2(xs + (j), y), 0)
      WINDOW(h, FETCH)
#undef FETCH
    } else {
#define FETCH(j) fetch_texel(src, ivec2(xs + (j), y), size, border)
      WINDOW(h, FETCH)
#undef FETCH
    }
    int hs = (hr % RING) * TW + P * hq;
    for (int p = 0; p < P; ++p) ring[hs + p] = h[p];
    barrier();
    // 2. Output rows Y0 + (k - D) PR + 4 vq + p need ring rows from (k - D) PR + PAD + 4 vq on.
    if (k >= D) {
      int o = (k - D) * PR + P * vq;
      int base = (o + PAD) % RING;
#define RING_AT(j) ring[(base + (j) < RING ? base + (j) : base + (j) - RING) * TW + vc]
      vec4 acc[P];
      WINDOW(acc, RING_AT)
#undef RING_AT
      ivec2 out_p = ivec2(X0 + vc, Y0 + o);
      if (out_p.x < size.x)
        for (int p = 0; p < P; ++p)
          if (out_p.y + p < size.y) imageStore(dst, out_p + ivec2(0, p), acc[p]);
    }
  }
}
