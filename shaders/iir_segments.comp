// iir1d by segments: the recursive filter along one axis (AXIS 0 rows, 1 columns) with every line cut into S
// segments of L positions, so that lines x S invocations work at once instead of one per line (the CUDA
// segment scan's algorithm, Nehab et al. 2011 in its simplest case, through global memory). Arithmetic as
// core/reference/passes/iir1d.cpp in float64: per term U[i] = x[i] + p U[i-1] (causal) and
// V[i-1] = p (x[i] + V[i]) (anticausal), out = sum Re(c (U + V)); vec4 pixels, dvec4 states, a complex term a
// pair of dvec4. Three dispatches (STAGE):
//   0 local: invocation (line, segment) runs its segment from zero states both ways and stores the end states:
//     U at its last position (forward) and V before its first (backward).
//   1 chain: a work group per line (at most 64 segments, one invocation each) chains each term's segments in
//     float64 by a scan in shared memory (the recursion is linear: the state leaving a segment is p^len times
//     the state entering it plus its zero-start state), finds the line's border states exactly as the
//     reference (clamp x[0] / (1 - p), p x[N-1] / (1 - p); wrap and mirror from the zero-start totals
//     B = U[N-1] and F = V[-1] / p; zero 0), and stores each segment's true entering states over the
//     zero-start ones.
//   2 final: invocation (line, segment) runs its segment forwards from its U (the causal sum, as float, into a
//     position-major line buffer), then backwards from its V, adding, into dst.
// TERMS (the filter's first-order terms) is a define so that the term loops unroll and the states stay in
// registers. States: per (segment, line, term) four dvec4 at ((seg * lines + line) * TERMS + t) * 4: U.re, U.im,
// V.re, V.im.
#define MAX_TERMS 4
layout(local_size_x = 64) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 0) buffer State { dvec4 state[]; };
layout(std430, binding = 1) buffer Partial { vec4 partial[]; };
uniform int border;
uniform dvec4 coef[MAX_TERMS];  // p.re, p.im, c.re, c.im
uniform int seg_len;             // L
uniform int segs;                // S = ceil(n / L)

#if AXIS == 0
#define AT(along, line) ivec2(along, line)
#else
#define AT(along, line) ivec2(line, along)
#endif

int slot(int seg, int line, int lines, int t) { return ((seg * lines + line) * TERMS + t) * 4; }

#if STAGE == 1
shared dvec2 chain_a[2][64];   // A = p^len (complex)
shared dvec4 chain_zr[2][64];  // z (complex dvec4)
shared dvec4 chain_zi[2][64];
shared dvec4 total_r[2], total_i[2];
#endif

// (ar + i ai) (br + i bi) on dvec4 channels.
void cmul(dvec4 ar, dvec4 ai, double br, double bi, out dvec4 rr, out dvec4 ri) {
  rr = ar * br - ai * bi;
  ri = ar * bi + ai * br;
}
// p^e by squaring.
void cpow(double pr, double pi, int e, out double qr, out double qi) {
  qr = 1.0;
  qi = 0.0;
  double br = pr, bi = pi;
  for (; e > 0; e >>= 1) {
    if ((e & 1) != 0) {
      double r = qr * br - qi * bi;
      qi = qr * bi + qi * br;
      qr = r;
    }
    double r = br * br - bi * bi;
    bi = 2.0 * br * bi;
    br = r;
  }
}

void main() {
  ivec2 size = textureSize(src, 0);
#if AXIS == 0
  int n = size.x, lines = size.y;
#else
  int n = size.y, lines = size.x;
#endif
#if STAGE == 1
  int line = int(gl_WorkGroupID.y) * 65535 + int(gl_WorkGroupID.x);  // a work group per line
#else
  int line = int(gl_GlobalInvocationID.x);
#endif
  if (line >= lines) return;
#if STAGE == 0 || STAGE == 2
  int seg = int(gl_GlobalInvocationID.y);
  int a = seg * seg_len, b = min(n, a + seg_len);
  dvec4 ur[TERMS], ui[TERMS], vr[TERMS], vi[TERMS];
  for (int t = 0; t < TERMS; ++t) {
    ur[t] = dvec4(0.0), ui[t] = dvec4(0.0), vr[t] = dvec4(0.0), vi[t] = dvec4(0.0);
  }
#if STAGE == 2
  for (int t = 0; t < TERMS; ++t) {
    int k = slot(seg, line, lines, t);
    ur[t] = state[k], ui[t] = state[k + 1], vr[t] = state[k + 2], vi[t] = state[k + 3];
  }
#endif
  for (int i = a; i < b; ++i) {
    dvec4 x = dvec4(texelFetch(src, AT(i, line), 0));
    dvec4 acc = dvec4(0.0);
    for (int t = 0; t < TERMS; ++t) {
      double pr = coef[t].x, pi = coef[t].y;
      dvec4 r = x + pr * ur[t] - pi * ui[t];
      ui[t] = pr * ui[t] + pi * ur[t];
      ur[t] = r;
      acc += coef[t].z * ur[t] - coef[t].w * ui[t];
    }
#if STAGE == 2
    partial[i * lines + line] = vec4(acc);
#endif
  }
  for (int i = b - 1; i >= a; --i) {
    dvec4 x = dvec4(texelFetch(src, AT(i, line), 0));
#if STAGE == 2
    dvec4 acc = dvec4(partial[i * lines + line]);
#endif
    for (int t = 0; t < TERMS; ++t) {
      double pr = coef[t].x, pi = coef[t].y;
#if STAGE == 2
      acc += coef[t].z * vr[t] - coef[t].w * vi[t];
#endif
      dvec4 sr = x + vr[t];
      vr[t] = pr * sr - pi * vi[t];
      vi[t] = pr * vi[t] + pi * sr;
    }
#if STAGE == 2
    imageStore(dst, AT(i, line), vec4(acc));
#endif
  }
#if STAGE == 0
  for (int t = 0; t < TERMS; ++t) {
    int k = slot(seg, line, lines, t);
    state[k] = ur[t], state[k + 1] = ui[t], state[k + 2] = vr[t], state[k + 3] = vi[t];
  }
#endif
#else  // STAGE 1: a work group per line, invocation j = segment j (segs <= 64)
  // The composition of segments is a scan: the state leaving segments ..j is A_j (the state leaving ..j-1) + z_j
  // with A_j = p^len_j; pairs (A, z) compose as (A2 A1, A2 z1 + z2). Hillis-Steele over the 64 invocations in
  // shared memory, forwards and then backwards, per term (a serial chain per line walked its segments' states
  // through global memory one dependent load at a time).
  int j = int(gl_LocalInvocationID.x);
  bool on = j < segs;
  int last = segs - 1, len_last = n - last * seg_len;
  for (int t = 0; t < TERMS; ++t) {
    double pr = coef[t].x, pi = coef[t].y;
    dvec4 cfr, cfi, cbr, cbi;  // this segment's zero-start entering states: forward (U[a-1]), backward (V[b-1])
    for (int dir = 0; dir < 2; ++dir) {
      int g = dir == 0 ? j : last - j;  // chain order: forwards by segment, backwards from the last
      double ar = 1.0, ai = 0.0;
      dvec4 zr = dvec4(0.0), zi = dvec4(0.0);
      if (on) {
        cpow(pr, pi, g == last ? len_last : seg_len, ar, ai);
        int k = slot(g, line, lines, t) + 2 * dir;
        zr = state[k], zi = state[k + 1];
      }
      int buf = 0;
      chain_a[buf][j] = dvec2(ar, ai), chain_zr[buf][j] = zr, chain_zi[buf][j] = zi;
      barrier();
      for (int d = 1; d < 64; d *= 2) {
        if (j >= d) {  // (A, z) of j-d .. j = element j after the combined j-d
          dvec2 a1 = chain_a[buf][j - d];
          dvec4 z1r = chain_zr[buf][j - d], z1i = chain_zi[buf][j - d];
          dvec4 mr, mi;
          cmul(z1r, z1i, ar, ai, mr, mi);
          zr = mr + zr, zi = mi + zi;
          double r = ar * a1.x - ai * a1.y;
          ai = ar * a1.y + ai * a1.x, ar = r;
        }
        buf ^= 1;
        chain_a[buf][j] = dvec2(ar, ai), chain_zr[buf][j] = zr, chain_zi[buf][j] = zi;
        barrier();
      }
      // Exclusive: the state entering chain element j is the inclusive one of j - 1.
      dvec4 er = j > 0 ? chain_zr[buf][j - 1] : dvec4(0.0), ei = j > 0 ? chain_zi[buf][j - 1] : dvec4(0.0);
      if (dir == 0) {
        cfr = er, cfi = ei;
        total_r[0] = chain_zr[buf][last], total_i[0] = chain_zi[buf][last];  // B = U[N-1] from zero
      } else {
        cbr = er, cbi = ei;
        total_r[1] = chain_zr[buf][last], total_i[1] = chain_zi[buf][last];  // p F = V[-1] from zero
      }
      barrier();
    }
    dvec4 Br = total_r[0], Bi = total_i[0];
    double pd = pr * pr + pi * pi;  // F = (p F) / p
    dvec4 Fr = (total_r[1] * pr + total_i[1] * pi) / pd, Fi = (total_i[1] * pr - total_r[1] * pi) / pd;
    barrier();  // every invocation has read the totals before the next term writes them
    // The border states U[-1] and V[N-1] (core/reference/passes/iir1d.cpp): numerator / denominator.
    dvec4 uar = dvec4(0.0), uai = dvec4(0.0), var = dvec4(0.0), vai = dvec4(0.0);
    double dr = 1.0, di = 0.0;
    if (border == 0) {  // clamp: x[0] / (1 - p), p x[N-1] / (1 - p)
      dvec4 x0 = dvec4(texelFetch(src, AT(0, line), 0)), xn = dvec4(texelFetch(src, AT(n - 1, line), 0));
      uar = x0;
      var = xn * pr, vai = xn * pi;
      dr = 1.0 - pr, di = -pi;
    } else if (border == 2 || border == 1) {
      double qr, qi;
      cpow(pr, pi, n, qr, qi);
      if (border == 2) {  // wrap: B / (1 - p^N), p F / (1 - p^N)
        uar = Br, uai = Bi;
        cmul(Fr, Fi, pr, pi, var, vai);
        dr = 1.0 - qr, di = -qi;
      } else {  // mirror: (F + p^N B) / (1 - p^2N), p (B + p^N F) / (1 - p^2N)
        dvec4 xr, xi;
        cmul(Br, Bi, qr, qi, xr, xi);
        uar = Fr + xr, uai = Fi + xi;
        cmul(Fr, Fi, qr, qi, xr, xi);
        cmul(Br + xr, Bi + xi, pr, pi, var, vai);
        dr = 1.0 - (qr * qr - qi * qi), di = -2.0 * qr * qi;
      }
    }  // zero: both 0
    if (on) {
      double d = dr * dr + di * di;
      dvec4 Ur = (uar * dr + uai * di) / d, Ui = (uai * dr - uar * di) / d;
      dvec4 Vr = (var * dr + vai * di) / d, Vi = (vai * dr - var * di) / d;
      // Segment j's true states: the zero-start ones plus p^(a_j) U[-1] and p^(N - b_j) V[N-1].
      double qr, qi;
      dvec4 mr, mi;
      int k = slot(j, line, lines, t);
      cpow(pr, pi, j * seg_len, qr, qi);
      cmul(Ur, Ui, qr, qi, mr, mi);
      state[k] = cfr + mr, state[k + 1] = cfi + mi;
      // Backward chain element j is segment last - j, whose end is b = min(n, (last - j + 1) L).
      int kb = slot(last - j, line, lines, t);
      cpow(pr, pi, n - min(n, (last - j + 1) * seg_len), qr, qi);
      cmul(Vr, Vi, qr, qi, mr, mi);
      state[kb + 2] = cbr + mr, state[kb + 3] = cbi + mi;
    }
    barrier();
  }
#endif
}
