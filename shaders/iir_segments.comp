// iir1d by segments: the recursive filter along one axis (AXIS 0 rows, 1 columns), a work group per LPG lines,
// each line cut into segs <= SEGS segments of seg_len positions, one invocation per (segment, line), the lines
// fastest so that neighbouring invocations read neighbouring lines (the CUDA segment scan's algorithm, Nehab et
// al. 2011 in its simplest case). The recursion as core/reference/passes/iir1d.cpp's: per term
// U[i] = x[i] + p U[i-1] (causal) and V[i-1] = p (x[i] + V[i]) (anticausal), out = sum Re(c (U + V)); vec4
// pixels, a complex state a pair of vec4 (dvec4 in the chains). Two sweeps over the texels:
//   1. forwards from zero states, every term (float, as CUDA's tiles: a segment is short): the causal sums U0,
//      their outputs y0 = sum Re(c U0) into a line buffer laid out [group][step][segment][line] (a step's
//      invocations touch neighbouring vec4), U0 at the segment's last position, and V's zero-start sum before
//      its first, V0[a-1] = sum_i p^(i-a+1) x[i], from p^m made on the host (powers);
// then per term:
//   2. the segments chain in shared memory (the recursion is linear: the state leaving a segment is p^len times
//      the state entering it plus its zero-start one; pairs (A, z) compose as (A2 A1, A2 z1 + z2)): a
//      Hillis-Steele prefix scan for U, a suffix scan for V, in float64;
//   3. the line's border states by the closed forms every backend takes from core/iir.hpp (iir_border_form: the
//      host's coefficients times x[0] and x[N-1] for clamp, times the zero-start totals B = U[N-1] and
//      F = V[-1] / p for wrap and mirror; zero 0), and each segment's true entering states U[a-1], V[b-1]: the
//      chained ones plus p^a U[-1] and p^(N - b) V[N-1], in float64;
//   4. backwards (float): y[i] = y0[i] + sum Re(c p^(i-a+1) U[a-1]) + sum Re(c V[i]), V from V[b-1], into dst.
// One dispatch per pass; a first form in three (local states, chain, outputs) moved the segments' states through
// a storage buffer between them.
// TERMS (the filter's first-order terms) is a define so that the term loops unroll and the states stay in registers. On
// an H200 (docs/performance.md "GL iir's segments in float" and "GL iir's real term, two sweeps"), sweeps in float64
// cost 2-6% at 512^2-1448^2 RGBA, a compile-time seg_len (the sweeps unrolled) up to 2.2x; four sweeps (both zero-start
// sums, then the outputs both ways) 0-13% over these two (call 226), 1448^2 0.140 -> 0.123 ms.
#define MAX_TERMS 4
// REAL_MASK (bit t: term t is real, p and c with no imaginary part, as Young-van Vliet's real pole) is defined by
// the host; a real term's recursions run on the real parts only (the imaginary parts would stay exactly 0): H200,
// Young-van Vliet RGBA 1024^2 0.085 -> 0.080 ms (call 223).
#define IS_REAL(t) ((((REAL_MASK) >> (t)) & 1) != 0)
// LPG (lines per work group) and SEGS (most segments a line) are defined by the host (gpu/gl/passes/iir1d.cpp).
layout(local_size_x = SEGS * LPG) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 1) buffer Partial { vec4 partial[]; };
layout(std430, binding = 2) readonly buffer Powers { vec2 powers[]; };  // [m * TERMS + t] = p_t^m, m <= seg_len
// Per term and segment slot j < SEGS, made on the host in float64: p^(b - a) (the segment's chain element; (1, 0)
// past the line), p^a and p^(N - b) (the border states carried to the segment).
layout(std430, binding = 3) readonly buffer SegPowers { dvec2 segpow[]; };  // [(t * SEGS + j) * 3 + q]
uniform int border;
uniform dvec4 coef[MAX_TERMS];  // p.re, p.im, c.re, c.im
// Per term the border's closed-form coefficients edge, same, other (core/iir.hpp iir_border_form, for this pass's
// line length) and 1 / p, complex, made on the host.
uniform dvec2 bform[3 * MAX_TERMS];
uniform dvec2 pinv[MAX_TERMS];
uniform int seg_len;             // L
uniform int segs;                // S = ceil(n / L) <= SEGS

#if AXIS == 0
#define AT(along, line) ivec2(along, line)
#else
#define AT(along, line) ivec2(line, along)
#endif

// The chain elements (A, z), index segment * LPG + line: one buffer, each scan step reads, waits, then writes.
shared dvec2 chain_a[SEGS * LPG];   // A = p^len (complex)
shared dvec4 chain_zr[SEGS * LPG];  // z (complex dvec4)
shared dvec4 chain_zi[SEGS * LPG];
shared dvec4 total_r[2][LPG], total_i[2][LPG];

// (ar + i ai) (br + i bi) on dvec4 channels.
void cmul(dvec4 ar, dvec4 ai, double br, double bi, out dvec4 rr, out dvec4 ri) {
  rr = ar * br - ai * bi;
  ri = ar * bi + ai * br;
}
// The scan of the chain elements (A, z) of line ll, this invocation's (segment j) in (ar, ai, zr, zi):
// inclusive, prefix (dir 0, element j after j - d) or suffix (dir 1, element j after j + d); the result in
// zr, zi and in shared memory.
void chain_scan(int j, int ll, int dir, inout double ar, inout double ai, inout dvec4 zr, inout dvec4 zi) {
  chain_a[j * LPG + ll] = dvec2(ar, ai), chain_zr[j * LPG + ll] = zr, chain_zi[j * LPG + ll] = zi;
  barrier();
  for (int d = 1; d < SEGS; d *= 2) {
    int o = dir == 0 ? j - d : j + d;
    bool take = o >= 0 && o < SEGS;  // elements past segs hold (1, 0): composing with them changes nothing
    dvec2 a1 = dvec2(1.0, 0.0);
    dvec4 z1r = dvec4(0.0), z1i = dvec4(0.0);
    if (take) a1 = chain_a[o * LPG + ll], z1r = chain_zr[o * LPG + ll], z1i = chain_zi[o * LPG + ll];
    barrier();
    if (take) {
      dvec4 mr, mi;
      cmul(z1r, z1i, ar, ai, mr, mi);
      zr = mr + zr, zi = mi + zi;
      double r = ar * a1.x - ai * a1.y;
      ai = ar * a1.y + ai * a1.x, ar = r;
      chain_a[j * LPG + ll] = dvec2(ar, ai), chain_zr[j * LPG + ll] = zr, chain_zi[j * LPG + ll] = zi;
    }
    barrier();
  }
}

void main() {
  ivec2 size = gpublur_src_size;
#if AXIS == 0
  int n = size.x, lines = size.y;
#else
  int n = size.y, lines = size.x;
#endif
  int group = int(gl_WorkGroupID.y) * 65535 + int(gl_WorkGroupID.x);
  int ll = int(gl_LocalInvocationID.x) % LPG, j = int(gl_LocalInvocationID.x) / LPG;  // line in the group, segment
  int line = group * LPG + ll;
  // Lines past the image take part in the barriers with empty segments.
  bool on = j < segs && line < lines;
  int last = segs - 1;
  int a = j * seg_len, b = on ? min(n, a + seg_len) : a;  // this segment's positions [a, b)
  vec4 ur[TERMS], ui[TERMS], vr[TERMS], vi[TERMS];  // the true entering states, per term (float: see outputs)
  // 1. One sweep forwards from zero states, every term: the causal sums U0 (float; a segment is short, and CUDA's
  // tiles do the same), their outputs y0 = sum Re(c U0) into the line buffer, U0 at the segment's last position
  // (zf), and V's zero-start sum before its first position, zb = V0[a-1] = sum_i p^(i-a+1) x[i], from the powers.
  vec4 zfr[TERMS], zfi[TERMS], zbr[TERMS], zbi[TERMS];
  for (int t = 0; t < TERMS; ++t) zfr[t] = vec4(0.0), zfi[t] = vec4(0.0), zbr[t] = vec4(0.0), zbi[t] = vec4(0.0);
  for (int i = a; i < b; ++i) {
    vec4 x = texelFetch(src, AT(i, line), 0);
    vec4 acc = vec4(0.0);
    for (int t = 0; t < TERMS; ++t) {
      vec4 cf = vec4(coef[t]);
      vec2 w = powers[(i - a + 1) * TERMS + t];
      if (IS_REAL(t)) {
        zfr[t] = x + cf.x * zfr[t];
        acc += cf.z * zfr[t];
        zbr[t] += w.x * x;
      } else {
        vec4 r = x + cf.x * zfr[t] - cf.y * zfi[t];
        zfi[t] = cf.x * zfi[t] + cf.y * zfr[t], zfr[t] = r;
        acc += cf.z * zfr[t] - cf.w * zfi[t];
        zbr[t] += w.x * x, zbi[t] += w.y * x;
      }
    }
    partial[((group * seg_len + i - a) * segs + j) * LPG + ll] = acc;
  }
  for (int t = 0; t < TERMS; ++t) {
    double pr = coef[t].x, pi = coef[t].y;
    dvec4 fr = dvec4(zfr[t]), fi = dvec4(zfi[t]), br = dvec4(zbr[t]), bi = dvec4(zbi[t]);
    // 2. The chains: prefix for U (the state entering segment j is the inclusive value of j - 1), suffix for V
    // (that of j + 1). Elements past the line are the identity (1, 0): the host's table holds it for j >= segs
    // (lines past the image chain among themselves and are never stored).
    dvec2 sp = segpow[(t * SEGS + j) * 3];
    double lr = sp.x, li = sp.y;
    double sar = lr, sai = li;
    chain_scan(j, ll, 0, sar, sai, fr, fi);
    dvec4 cfr = j > 0 ? chain_zr[(j - 1) * LPG + ll] : dvec4(0.0);
    dvec4 cfi = j > 0 ? chain_zi[(j - 1) * LPG + ll] : dvec4(0.0);
    if (j == last) total_r[0][ll] = fr, total_i[0][ll] = fi;  // B = U[N-1] from zero
    barrier();
    sar = lr, sai = li;
    chain_scan(j, ll, 1, sar, sai, br, bi);
    dvec4 cbr = j < SEGS - 1 ? chain_zr[(j + 1) * LPG + ll] : dvec4(0.0);
    dvec4 cbi = j < SEGS - 1 ? chain_zi[(j + 1) * LPG + ll] : dvec4(0.0);
    if (j == 0) total_r[1][ll] = br, total_i[1][ll] = bi;  // p F = V[-1] from zero
    barrier();
    // 3. The border states (core/iir.hpp): U[-1] = edge x[0] + same B + other F, W[N] = edge x[N-1] + same F +
    // other B, V[N-1] = p W[N], from the host's coefficients: products only, where quotients cost float64
    // divisions in every invocation (docs/performance.md "GL iir's segments in float"). Each branch reads its own
    // coefficients and sums: read before the branches (with the products through temporaries) they took Deriche at
    // 2048^2 from 0.227 to 0.283 ms on an H200, Young-van Vliet unchanged (call 234, "The border forms in core").
    dvec4 Ur = dvec4(0.0), Ui = dvec4(0.0), Wr = dvec4(0.0), Wi = dvec4(0.0);
    if (border == 0) {  // clamp
      int cl = min(line, lines - 1);  // lines past the image: any line, never stored
      dvec4 x0 = dvec4(texelFetch(src, AT(0, cl), 0)), xn = dvec4(texelFetch(src, AT(n - 1, cl), 0));
      dvec2 ed = bform[3 * t];
      Ur = x0 * ed.x, Ui = x0 * ed.y;
      Wr = xn * ed.x, Wi = xn * ed.y;
    } else if (border == 1 || border == 2) {  // mirror, wrap
      dvec4 Br = total_r[0][ll], Bi = total_i[0][ll];
      dvec2 sa = bform[3 * t + 1], ot = bform[3 * t + 2];
      dvec4 Fr, Fi;  // F = (p F) / p
      cmul(total_r[1][ll], total_i[1][ll], pinv[t].x, pinv[t].y, Fr, Fi);
      Ur = sa.x * Br - sa.y * Bi + ot.x * Fr - ot.y * Fi, Ui = sa.x * Bi + sa.y * Br + ot.x * Fi + ot.y * Fr;
      Wr = sa.x * Fr - sa.y * Fi + ot.x * Br - ot.y * Bi, Wi = sa.x * Fi + sa.y * Fr + ot.x * Bi + ot.y * Br;
    }  // zero: both 0
    dvec4 Vr, Vi;
    cmul(Wr, Wi, pr, pi, Vr, Vi);
    dvec4 mr, mi;
    dvec2 q = segpow[(t * SEGS + j) * 3 + 1];
    cmul(Ur, Ui, q.x, q.y, mr, mi);
    ur[t] = vec4(cfr + mr), ui[t] = vec4(cfi + mi);
    q = segpow[(t * SEGS + j) * 3 + 2];
    cmul(Vr, Vi, q.x, q.y, mr, mi);
    vr[t] = vec4(cbr + mr), vi[t] = vec4(cbi + mi);
  }
  // 4. One sweep backwards, in float from the true states: y[i] = y0[i] (the line buffer) + sum Re(c p^(i-a+1)
  // U[a-1]) (U's entering state carried to i, from the powers: a recursion back from i = b-1 would grow from
  // p^len, which is 0 in float for long segments) + sum Re(c V[i]) (V from the true V[b-1]), into dst.
  vec4 cf[TERMS], kr[TERMS], ki[TERMS];  // k = c U[a-1]
  for (int t = 0; t < TERMS; ++t) {
    cf[t] = vec4(coef[t]);
    kr[t] = cf[t].z * ur[t] - cf[t].w * ui[t], ki[t] = cf[t].z * ui[t] + cf[t].w * ur[t];
  }
  for (int i = b - 1; i >= a; --i) {
    vec4 x = texelFetch(src, AT(i, line), 0);
    vec4 acc = partial[((group * seg_len + i - a) * segs + j) * LPG + ll];
    for (int t = 0; t < TERMS; ++t) {
      vec2 w = powers[(i - a + 1) * TERMS + t];
      if (IS_REAL(t)) {
        acc += w.x * kr[t] + cf[t].z * vr[t];
        vr[t] = cf[t].x * (x + vr[t]);
      } else {
        acc += w.x * kr[t] - w.y * ki[t] + cf[t].z * vr[t] - cf[t].w * vi[t];
        vec4 sr = x + vr[t];
        vr[t] = cf[t].x * sr - cf[t].y * vi[t];
        vi[t] = cf[t].x * vi[t] + cf[t].y * sr;
      }
    }
    imageStore(dst, AT(i, line), acc);
  }
}
