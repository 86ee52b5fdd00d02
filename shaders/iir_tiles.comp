// iir1d as tiles: the recursive filter along one axis (AXIS 0 rows, 1 columns), every pixel line cut into tiles
// of TILE positions, one invocation per (line, tile), lines fastest (neighbouring invocations read neighbouring
// texels of one row for columns). The CUDA tiles' algorithm (gpu/cuda/passes/iir_tiles.cuh) on pixel lines
// (VCH channels), in three dispatches (PHASE):
//   1. sums: each tile's first-order sums from zero states, per term, in float32 (from zero they stay within
//      min(TILE, 1 / (1 - |p|)) of the inputs): U at its last position (U[i] = x[i] + p U[i-1]) and W at its
//      first (W[i] = x[i] + p W[i+1], so that V[i] = p W[i+1]), into the aggregates;
//   2. chains: one invocation per (line, term, channel) chains the tiles' sums in float64, causal and
//      anticausal interleaved (U_before(j+1) = p^len U_before(j) + sum(j), likewise backwards), from the border
//      states for clamp and zero; wrap and mirror chain from zero, the chains then ending at the border sums B
//      and F, and a second sweep adds the closed-form border states (core/iir.hpp iir_border_form) as
//      p^a U[-1] and p^(N - b) W[N] (the recursion is linear). The aggregates become each tile's true states
//      U[a-1], W[b];
//   3. final (4: the same for the rows of an x/y pair, with the columns' sums of the group's square, below):
//      each tile reruns from its true states, scaled by the term weights (u = c U, v = c V: a term's
//      output is Re(u + v) and its state stays within the term's gain of the inputs; a real term, and every
//      term of one-channel lines, runs the plain sums U and W, below), the outputs summed in registers and stored
//      once: RGBA and two-channel lines a half tile at a time, one-channel lines the whole tile.
// Aggregate (tile j, sequence s, line l), s < TERMS the causal sum of term s, s >= TERMS the anticausal sum of
// term s - TERMS: agg[2 i] real and agg[2 i + 1] imaginary parts, i = (j * 2 TERMS + s) * lines + l.
// TERMS (the filter's first-order terms) is a define so that the term loops unroll and the states stay in
// registers; TILE (positions per tile) and LX (invocations per work group) come from the host
// (gpu/gl/passes/iir1d.cpp).
#define MAX_TERMS 4
// REAL_MASK (bit t: term t is real, p and c with no imaginary part, as Young-van Vliet's real pole; from the host): a
// real term's recursions run on the real parts only (the imaginary parts would stay exactly 0), its outputs from the
// plain sums U[i] = x[i] + p U[i-1] and W[i] = x[i] + p W[i+1] (its output c (U + W) - c x, the c x of all real terms
// taken once a position: csum), two operations a step each way. H200, 4096^2 RGBA Young-van Vliet 0.752 -> 0.690 ms,
// two channels 0.553 -> 0.530 (call 329). Measured slower in the halves (docs/performance.md, iir, "The 1D paths'
// outputs from the plain sums"): the real term as c x + p u on real parts (call 224, 0.757 -> 0.794), every term as
// plain sums (RGBA 0.752 -> 0.995-0.996, Deriche 0.765 -> 1.007-1.009; call 329); one-channel lines take that form.
#define IS_REAL(t) ((((REAL_MASK) >> (t)) & 1) != 0)
layout(local_size_x = LX) in;
// VCH: the channels a line carries (1, 2 or 4; 3 take 4): one- and two-channel images run float / vec2 lines (a
// quarter / half the registers, arithmetic and aggregates of vec4 lines). VEC, DVEC, pick and as_texel: common.glsl.
#define FETCH(p) pick(texelFetch(src, p, 0), 0)
#define STORE_IMG(p, v) imageStore(dst, p, as_texel(v))
layout(binding = 0) uniform sampler2D src;
#if PHASE >= 3
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
#endif
#if PHASE == 2 && VCH > 1
// The chains take one invocation per (line, channel, term), the aggregates read as floats: a vec4 line's chain
// was 256 warps at 4096^2, two an SM (docs/performance.md "GL iir: chains per channel, outputs fetched ahead").
#define CSPLIT 1
layout(std430, binding = 1) buffer Agg { float aggf[]; };
#define AGG(i) aggf[(i) * VCH + cc]
#define CV float
#define CDV double
#else
layout(std430, binding = 1) buffer Agg { VEC agg[]; };
#define AGG(i) agg[i]
#define CV VEC
#define CDV DVEC
#endif
#if PHASE == 4
// The x/y pair (rows, then columns with the same filter; core/program.hpp iir_pair): the rows' outputs of the
// group's LX rows x TILE columns also go to a shared tile, and after a barrier its invocations make the columns'
// sums of that square (LX / TILE column tiles of TILE rows, TILE columns) from it into the column pass's
// aggregates: the column pass then runs its chains and outputs only, one read of the image fewer.
layout(std430, binding = 2) buffer AggC { VEC aggc[]; };
#define PITCH (TILE + 1)
shared VEC tilesm[LX * PITCH];
#define STORE(p, v)                                                           \
  {                                                                           \
    ivec2 sp_ = (p);                                                          \
    VEC sv_ = (v);                                                            \
    STORE_IMG(sp_, sv_);                                                      \
    tilesm[(sp_.y - int(gl_WorkGroupID.x) * LX) * PITCH + sp_.x - int(gl_WorkGroupID.y) * TILE] = sv_; \
  }
#else
#define STORE(p, v) STORE_IMG(p, v)
#endif
uniform int border;
uniform dvec4 coef[MAX_TERMS];  // p.re, p.im, c.re, c.im
uniform int ntiles;
#if PHASE == 2
// Per term the border's closed-form coefficients edge, same, other (complex; core/iir.hpp iir_border_form, for this
// pass's line length, made on the host): U[-1] = edge x[0] + same B + other F, W[N] = edge x[N-1] + same F + other B.
uniform dvec2 bform[3 * MAX_TERMS];
#endif

#ifdef CSPLIT
#define CFETCH(p) texelFetch(src, p, 0)[cc]
#else
#define CFETCH(p) FETCH(p)
#endif
#if AXIS == 0
#define AT(along, line) ivec2(along, line)
#else
#define AT(along, line) ivec2(line, along)
#endif

// Step guards: whole tiles run unguarded (every tile but a line's last; per-step guards cost more than the
// recursion), a line's last tile tests each position against its length cnt.
#define ALL(q) true
#define PART(q) ((q) < cnt)

int agg_index(int j, int s, int l, int lines) { return ((j * 2 * TERMS + s) * lines + l) * 2; }

// p^e by squaring (float64).
dvec2 cpow(dvec2 p, int e) {
  dvec2 q = dvec2(1.0, 0.0), b = p;
  for (; e > 0; e >>= 1) {
    if ((e & 1) != 0) q = dvec2(q.x * b.x - q.y * b.y, q.x * b.y + q.y * b.x);
    b = dvec2(b.x * b.x - b.y * b.y, 2.0 * b.x * b.y);
  }
  return q;
}

// The sums' step q (PHASE 1, and the pair's column sums in PHASE 4) on ur, ui, wr, wi, the tile's count cnt in
// scope, LOAD(q) its input q: forwards (U) and backwards (W) interleaved, two chains in flight per term.
#define SUMS_STEP(GUARD, LOAD)                                                \
  {                                                                           \
    int qb = TILE - 1 - q;                                                    \
    VEC xf = VEC(0.0), xb = VEC(0.0);                                         \
    if (GUARD(q)) xf = LOAD(q);                                               \
    if (GUARD(qb)) xb = LOAD(qb);                                             \
    for (int t = 0; t < TERMS; ++t) {                                         \
      float pr = float(coef[t].x), pi = float(coef[t].y);                     \
      if (IS_REAL(t)) {                                                       \
        if (GUARD(q)) ur[t] = xf + pr * ur[t];                                \
        if (GUARD(qb)) wr[t] = xb + pr * wr[t];                               \
      } else {                                                                \
        if (GUARD(q)) {                                                       \
          VEC r = xf + pr * ur[t] - pi * ui[t];                               \
          ui[t] = pr * ui[t] + pi * ur[t], ur[t] = r;                         \
        }                                                                     \
        if (GUARD(qb)) {                                                      \
          VEC r = xb + pr * wr[t] - pi * wi[t];                               \
          wi[t] = pr * wi[t] + pi * wr[t], wr[t] = r;                         \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  }
// The sums into BUF: tile J, line L of LINES.
#define SUMS_OUT(BUF, J, L, LINES)                                            \
  for (int t = 0; t < TERMS; ++t) {                                           \
    int i = agg_index(J, t, L, LINES), k = agg_index(J, TERMS + t, L, LINES); \
    BUF[i] = ur[t], BUF[i + 1] = ui[t];                                       \
    BUF[k] = wr[t], BUF[k + 1] = wi[t];                                       \
  }

void main() {
  ivec2 size = gpublur_src_size;
#if AXIS == 0
  int n = size.x, lines = size.y;
#else
  int n = size.y, lines = size.x;
#endif
#ifdef CSPLIT
  int l = int(gl_GlobalInvocationID.x) / VCH, cc = int(gl_GlobalInvocationID.x) % VCH;
#else
  int l = int(gl_GlobalInvocationID.x);
#endif
#if PHASE != 4
  if (l >= lines) return;
#endif
  int last = ntiles - 1;
  int lastlen = n - last * TILE;
#if PHASE == 1
  int j = int(gl_WorkGroupID.y);
  int a = j * TILE, cnt = min(TILE, n - a);
  VEC ur[TERMS], ui[TERMS], wr[TERMS], wi[TERMS];
  for (int t = 0; t < TERMS; ++t) ur[t] = VEC(0.0), ui[t] = VEC(0.0), wr[t] = VEC(0.0), wi[t] = VEC(0.0);
#define LOAD_TEX(q) FETCH(AT(a + (q), l))
  if (cnt == TILE) {
    for (int q = 0; q < TILE; ++q) SUMS_STEP(ALL, LOAD_TEX)
  } else {
    for (int q = 0; q < TILE; ++q) SUMS_STEP(PART, LOAD_TEX)
  }
  SUMS_OUT(agg, j, l, lines)
#elif PHASE == 2
  int t = int(gl_GlobalInvocationID.y);
  dvec2 p = coef[t].xy, pT = cpow(p, TILE), pL = cpow(p, lastlen);
  CDV zr = CDV(0.0), zi = CDV(0.0), yr = CDV(0.0), yi = CDV(0.0);  // causal z, anticausal y
  dvec2 ed = bform[3 * t], sa = bform[3 * t + 1], ot = bform[3 * t + 2];
  if (border == 0) {  // clamp: U[-1] = edge x[0], W[N] = edge x[N-1]
    CDV x0 = CDV(CFETCH(AT(0, l))), xn = CDV(CFETCH(AT(n - 1, l)));
    zr = x0 * ed.x, zi = x0 * ed.y;
    yr = xn * ed.x, yi = xn * ed.y;
  }
  // AHEAD tiles' sums loaded at once: they do not depend on the chains (each load behind the previous store
  // would leave the chains latency-bound). AHEAD comes from the host (gpu/gl/passes/iir1d.cpp chain_ahead).
  for (int k0 = 0; k0 < ntiles; k0 += AHEAD) {
    CV cr[AHEAD], ci[AHEAD], br[AHEAD], bi[AHEAD];
    for (int e = 0; e < AHEAD; ++e) {
      int k = min(k0 + e, last);
      int ic = agg_index(k, t, l, lines), ib = agg_index(last - k, TERMS + t, l, lines);
      cr[e] = AGG(ic), ci[e] = AGG(ic + 1), br[e] = AGG(ib), bi[e] = AGG(ib + 1);
    }
    for (int e = 0; e < AHEAD; ++e) {
      int k = k0 + e;
      if (k < ntiles) {
        int jc = k, jb = last - k;
        int ic = agg_index(jc, t, l, lines), ib = agg_index(jb, TERMS + t, l, lines);
        AGG(ic) = CV(zr), AGG(ic + 1) = CV(zi);
        AGG(ib) = CV(yr), AGG(ib + 1) = CV(yi);
        dvec2 fc = jc == last ? pL : pT, fb = jb == last ? pL : pT;
        CDV r = fc.x * zr - fc.y * zi + CDV(cr[e]);
        zi = fc.x * zi + fc.y * zr + CDV(ci[e]), zr = r;
        r = fb.x * yr - fb.y * yi + CDV(br[e]);
        yi = fb.x * yi + fb.y * yr + CDV(bi[e]), yr = r;
      }
    }
  }
  if (border == 1 || border == 2) {
    // From zero, the chains ended at B = U[N-1] (causal, z) and F = W[0] (anticausal, y): U[-1] = same B + other F,
    // W[N] = same F + other B.
    CDV u0r = sa.x * zr - sa.y * zi + ot.x * yr - ot.y * yi, u0i = sa.x * zi + sa.y * zr + ot.x * yi + ot.y * yr;
    CDV wnr = sa.x * yr - sa.y * yi + ot.x * zr - ot.y * zi, wni = sa.x * yi + sa.y * yr + ot.x * zi + ot.y * zr;
    dvec2 pc = dvec2(1.0, 0.0), pb = dvec2(1.0, 0.0);  // p^a for tile jc, p^(N - b) for tile jb
    for (int k0 = 0; k0 < ntiles; k0 += AHEAD) {  // loaded ahead, as the chains above
      CV cr[AHEAD], ci[AHEAD], br[AHEAD], bi[AHEAD];
      for (int e = 0; e < AHEAD; ++e) {
        int k = min(k0 + e, last);
        int ic = agg_index(k, t, l, lines), ib = agg_index(last - k, TERMS + t, l, lines);
        cr[e] = AGG(ic), ci[e] = AGG(ic + 1), br[e] = AGG(ib), bi[e] = AGG(ib + 1);
      }
      for (int e = 0; e < AHEAD; ++e) {
        int k = k0 + e;
        if (k < ntiles) {
          int jc = k, jb = last - k;
          int ic = agg_index(jc, t, l, lines), ib = agg_index(jb, TERMS + t, l, lines);
          AGG(ic) = CV(CDV(cr[e]) + pc.x * u0r - pc.y * u0i);
          AGG(ic + 1) = CV(CDV(ci[e]) + pc.x * u0i + pc.y * u0r);
          AGG(ib) = CV(CDV(br[e]) + pb.x * wnr - pb.y * wni);
          AGG(ib + 1) = CV(CDV(bi[e]) + pb.x * wni + pb.y * wnr);
          pc = dvec2(pc.x * pT.x - pc.y * pT.y, pc.x * pT.y + pc.y * pT.x);
          dvec2 f = jb == last ? pL : pT;
          pb = dvec2(pb.x * f.x - pb.y * f.y, pb.x * f.y + pb.y * f.x);
        }
      }
    }
  }
#else
  int j = int(gl_WorkGroupID.y);
  int a = j * TILE, cnt = min(TILE, n - a);
#if PHASE == 4
  if (l < lines) {  // (no early return: the group meets at a barrier below)
#endif
  // Per term: u = c U[a-1] and v = c V[b-1] = c p W[b], from the chains' true states; where the term runs the plain
  // sums (PLAIN: a real term, every term of one-channel lines), U[a-1] and W[b] as they are.
#if VCH >= 2
#define PLAIN(t) IS_REAL(t)
#else
#define PLAIN(t) true
#endif
  VEC ur[TERMS], ui[TERMS], vr[TERMS], vi[TERMS];
  double csum_d = 0.0;
  for (int t = 0; t < TERMS; ++t) {
    int i = agg_index(j, t, l, lines), k = agg_index(j, TERMS + t, l, lines);
    if (PLAIN(t)) {
      ur[t] = agg[i], ui[t] = agg[i + 1], vr[t] = agg[k], vi[t] = agg[k + 1];
      csum_d += coef[t].z;
      continue;
    }
    dvec2 p = coef[t].xy, c = coef[t].zw, cp = dvec2(c.x * p.x - c.y * p.y, c.x * p.y + c.y * p.x);
    DVEC Ur = DVEC(agg[i]), Ui = DVEC(agg[i + 1]), Wr = DVEC(agg[k]), Wi = DVEC(agg[k + 1]);
    ur[t] = VEC(c.x * Ur - c.y * Ui), ui[t] = VEC(c.x * Ui + c.y * Ur);
    vr[t] = VEC(cp.x * Wr - cp.y * Wi), vi[t] = VEC(cp.x * Wi + cp.y * Wr);
  }
  float csum = float(csum_d);
#if VCH >= 2
  // RGBA and two channels: a half tile at a time (HALF vec4 / vec2 outputs in registers, where a whole tile's
  // TILE left few warps; H100, 4096^2: GL iir RGBA 1.037 -> 0.952 ms, two channels 0.819 -> 0.787;
  // docs/performance.md "GL tiles"):
  // (1) the upper half's anticausal recursion from v = c V[b-1] to the half (no outputs) gives m, the state the
  // lower half's anticausal sweep starts from, while the lower half's causal sweep runs beside it; (2) the lower
  // half's anticausal sweep from m, its outputs stored; (3) the upper half, causal from where (1) ended, then
  // anticausal from v. Causal u[i] = c x[i] + p u[i-1], y[i] += Re(u[i]); anticausal y[i] +=
  // Re(v[i]), v[i-1] = p (c x[i] + v[i]); a real term U[i] = x[i] + p U[i-1], y[i] += c U[i] - c x[i] and
  // W[i] = x[i] + p W[i+1], y[i] += c W[i]. The upper half's texels are fetched three times (the whole-tile
  // form below fetches each twice).
#define HALF (TILE / 2)
  VEC ys[HALF];
  VEC mr[TERMS], mi[TERMS];
  for (int t = 0; t < TERMS; ++t) mr[t] = vr[t], mi[t] = vi[t];
// Each loop fetches its texels OUT_AHEAD steps ahead of the recursion that takes them (H200, 4096^2, three rounds:
// RGBA 0.790-0.792 -> 0.773-0.775 ms, two channels 0.579-0.582 -> 0.566-0.567; 4 or 8 ahead measured no better;
// docs/performance.md "GL iir: chains per channel, outputs fetched ahead").
#define OUT_AHEAD 2
#define NO_OUT(t)
#define OUT_LO(t) ys[q] += IS_REAL(t) ? cr * mr[t] : mr[t];
#define OUT_HI(t) ys[q] += IS_REAL(t) ? cr * vr[t] : vr[t];
#define CAUSAL(Q, GUARD, D, XV)                                               \
  if (GUARD(Q)) {                                                             \
    VEC xf = XV;                                                              \
    VEC acc = -csum * xf;                                                     \
    for (int t = 0; t < TERMS; ++t) {                                         \
      float pr = float(coef[t].x), pi = float(coef[t].y);                     \
      float cr = float(coef[t].z), ci = float(coef[t].w);                     \
      if (IS_REAL(t)) {                                                       \
        ur[t] = xf + pr * ur[t];                                              \
        acc += cr * ur[t];                                                    \
      } else {                                                                \
        VEC r = cr * xf + pr * ur[t] - pi * ui[t];                            \
        ui[t] = ci * xf + pr * ui[t] + pi * ur[t], ur[t] = r;                 \
        acc += r;                                                             \
      }                                                                       \
    }                                                                         \
    ys[D] = acc;                                                              \
  }
#define ANTI(Q, GUARD, SR, SI, OUT, XV)                                       \
  if (GUARD(Q)) {                                                             \
    VEC xb = XV;                                                              \
    for (int t = 0; t < TERMS; ++t) {                                         \
      float pr = float(coef[t].x), pi = float(coef[t].y);                     \
      float cr = float(coef[t].z), ci = float(coef[t].w);                     \
      if (IS_REAL(t)) {                                                       \
        SR[t] = xb + pr * SR[t];                                              \
        OUT(t)                                                                \
      } else {                                                                \
        OUT(t)                                                                \
        VEC sr = cr * xb + SR[t], si = ci * xb + SI[t];                       \
        SR[t] = pr * sr - pi * si, SI[t] = pr * si + pi * sr;                 \
      }                                                                       \
    }                                                                         \
  }
// Texel P of the tile into ARR[e] (zero past a short tile's end).
#define AHEAD_FETCH(ARR, GUARD, P)                                            \
  ARR[e] = VEC(0.0);                                                          \
  if (GUARD(P)) ARR[e] = FETCH(AT(a + (P), l));
#define HALVES(GUARD)                                                         \
  for (int q0 = 0; q0 < HALF; q0 += OUT_AHEAD) {                              \
    VEC xg[OUT_AHEAD], xh[OUT_AHEAD];                                         \
    for (int e = 0; e < OUT_AHEAD; ++e) {                                     \
      AHEAD_FETCH(xg, GUARD, q0 + e)                                          \
      AHEAD_FETCH(xh, GUARD, TILE - 1 - (q0 + e))                             \
    }                                                                         \
    for (int e = 0; e < OUT_AHEAD; ++e) {                                     \
      int q = q0 + e;                                                         \
      CAUSAL(q, GUARD, q, xg[e])                                              \
      ANTI(TILE - 1 - q, GUARD, mr, mi, NO_OUT, xh[e])                        \
    }                                                                         \
  }                                                                           \
  for (int q0 = HALF - 1; q0 >= 0; q0 -= OUT_AHEAD) {                         \
    VEC xg[OUT_AHEAD];                                                        \
    for (int e = 0; e < OUT_AHEAD; ++e) { AHEAD_FETCH(xg, GUARD, q0 - e) }    \
    for (int e = 0; e < OUT_AHEAD; ++e) {                                     \
      int q = q0 - e;                                                         \
      ANTI(q, GUARD, mr, mi, OUT_LO, xg[e])                                   \
    }                                                                         \
  }                                                                           \
  for (int q = 0; q < HALF; ++q)                                              \
    if (GUARD(q)) STORE(AT(a + q, l), ys[q]);                                 \
  for (int q0 = 0; q0 < HALF; q0 += OUT_AHEAD) {                              \
    VEC xg[OUT_AHEAD];                                                        \
    for (int e = 0; e < OUT_AHEAD; ++e) { AHEAD_FETCH(xg, GUARD, HALF + q0 + e) } \
    for (int e = 0; e < OUT_AHEAD; ++e) {                                     \
      int q = q0 + e;                                                         \
      CAUSAL(HALF + q, GUARD, q, xg[e])                                       \
    }                                                                         \
  }                                                                           \
  for (int q0 = HALF - 1; q0 >= 0; q0 -= OUT_AHEAD) {                         \
    VEC xg[OUT_AHEAD];                                                        \
    for (int e = 0; e < OUT_AHEAD; ++e) { AHEAD_FETCH(xg, GUARD, HALF + q0 - e) } \
    for (int e = 0; e < OUT_AHEAD; ++e) {                                     \
      int q = q0 - e;                                                         \
      ANTI(HALF + q, GUARD, vr, vi, OUT_HI, xg[e])                            \
    }                                                                         \
  }                                                                           \
  for (int q = 0; q < HALF; ++q)                                              \
    if (GUARD(HALF + q)) STORE(AT(a + HALF + q, l), ys[q]);
  if (cnt == TILE) {
    HALVES(ALL)
  } else {
    HALVES(PART)
  }
#else
  // One channel: the whole tile at once (its TILE float outputs fit; in halves it read 8% slower on an H100).
  VEC ys[TILE];
  for (int q = 0; q < TILE; ++q) ys[q] = VEC(0.0);
  // Every term as plain sums: causal U[i] = x[i] + p U[i-1], y[i] += Re(c U[i]) - Re(sum c) x[i]; anticausal
  // W[i] = x[i] + p W[i+1], y[i] += Re(c W[i]); forwards and backwards interleaved, each texel fetched once per
  // direction. H200, 4096^2 (call 331): Deriche 0.5164-0.5178 -> 0.5053-0.5062 ms, Young-van Vliet 0.5146-0.5165 ->
  // 0.5124-0.5140.
#define FINAL_STEP(GUARD)                                                     \
  {                                                                           \
    int qb = TILE - 1 - q;                                                    \
    VEC xf = VEC(0.0), xb = VEC(0.0);                                         \
    if (GUARD(q)) xf = FETCH(AT(a + q, l)), ys[q] -= csum * xf;               \
    if (GUARD(qb)) xb = FETCH(AT(a + qb, l));                                 \
    for (int t = 0; t < TERMS; ++t) {                                         \
      float pr = float(coef[t].x), pi = float(coef[t].y);                     \
      float cr = float(coef[t].z), ci = float(coef[t].w);                     \
      if (IS_REAL(t)) {                                                       \
        if (GUARD(q)) ur[t] = xf + pr * ur[t], ys[q] += cr * ur[t];           \
        if (GUARD(qb)) vr[t] = xb + pr * vr[t], ys[qb] += cr * vr[t];         \
      } else {                                                                \
        if (GUARD(q)) {                                                       \
          VEC r = xf + pr * ur[t] - pi * ui[t];                               \
          ui[t] = pr * ui[t] + pi * ur[t], ur[t] = r;                         \
          ys[q] += cr * r - ci * ui[t];                                       \
        }                                                                     \
        if (GUARD(qb)) {                                                      \
          VEC r = xb + pr * vr[t] - pi * vi[t];                               \
          vi[t] = pr * vi[t] + pi * vr[t], vr[t] = r;                         \
          ys[qb] += cr * r - ci * vi[t];                                      \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  }
  if (cnt == TILE) {
    for (int q = 0; q < TILE; ++q) FINAL_STEP(ALL)
    for (int q = 0; q < TILE; ++q) STORE(AT(a + q, l), ys[q]);
  } else {
    for (int q = 0; q < TILE; ++q) FINAL_STEP(PART)
    for (int q = 0; q < TILE; ++q)
      if (q < cnt) STORE(AT(a + q, l), ys[q]);
  }
#endif
#if PHASE == 4
  }
  barrier();
  // The columns' sums of the square: invocation i takes column a + i % TILE and the group's column tile i / TILE
  // (TILE rows); the column pass's lines are the image's columns.
  {
    int li = int(gl_LocalInvocationID.x), xq = li % TILE, rq = li / TILE;
    int x = a + xq, rt = int(gl_WorkGroupID.x) * (LX / TILE) + rq;
    int cnt = min(TILE, lines - rt * TILE);  // (the column pass's n is the rows pass's lines)
    if (x < n && cnt > 0) {
      VEC ur[TERMS], ui[TERMS], wr[TERMS], wi[TERMS];
      for (int t = 0; t < TERMS; ++t) ur[t] = VEC(0.0), ui[t] = VEC(0.0), wr[t] = VEC(0.0), wi[t] = VEC(0.0);
#define LOAD_SHARED(q) tilesm[(rq * TILE + (q)) * PITCH + xq]
      if (cnt == TILE) {
        for (int q = 0; q < TILE; ++q) SUMS_STEP(ALL, LOAD_SHARED)
      } else {
        for (int q = 0; q < TILE; ++q) SUMS_STEP(PART, LOAD_SHARED)
      }
      SUMS_OUT(aggc, rt, x, n)
    }
  }
#endif
#endif
}
