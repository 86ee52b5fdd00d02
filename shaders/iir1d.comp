// iir1d: the recursive filter along one axis (AXIS 0 rows, 1 columns), core/reference/passes/iir1d.cpp's
// arithmetic in float64: one invocation per line (vec4 pixels, dvec4 states; a complex term is a pair of
// dvec4), per term U[i] = x[i] + p U[i-1] and V[i-1] = p (x[i] + V[i]), out = sum Re(c (U + V)).
// The host runs the sweeps as phases, each over a range of positions (llvmpipe ends a shader's loops after
// 65535 iterations, so it gets chunks; other drivers one dispatch per phase):
//   0  backward over the line: F = sum p^j x[j]          (wrap, mirror: the periodic initial states)
//   1  forward:                B = sum p^j x[N-1-j]
//   2  forward:  U from its border state; the causal sum into the line buffer (position-major)
//   3  backward: V from its border state; causal + anticausal sum to dst
// The running states live in a storage buffer between dispatches: per line, slot s (0 U, 1 V, 2 F, 3 B),
// term t, re / im at state[((line * 4 + s) * MAX_TERMS + t) * 2 + 0 / 1].
#define MAX_TERMS 4
layout(local_size_x = 64) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 0) buffer State { dvec4 state[]; };
layout(std430, binding = 1) buffer Partial { vec4 partial[]; };
uniform int border;
uniform int terms;
uniform dvec4 coef[MAX_TERMS];  // p.re, p.im, c.re, c.im
uniform int phase;
uniform int from;   // first position of this dispatch (in sweep order: descending for phases 0 and 3)
uniform int count;  // positions in this dispatch
uniform bool start; // the first dispatch of the phase: initialise the state

#if AXIS == 0
#define AT(along, line) ivec2(along, line)
#else
#define AT(along, line) ivec2(line, along)
#endif

int slot(int line, int s, int t) { return ((line * 4 + s) * MAX_TERMS + t) * 2; }

// (a + i b) (c + i d) on dvec4 channels.
void cmul(dvec4 ar, dvec4 ai, double br, double bi, out dvec4 rr, out dvec4 ri) {
  rr = ar * br - ai * bi;
  ri = ar * bi + ai * br;
}

void main() {
  ivec2 size = textureSize(src, 0);
#if AXIS == 0
  int n = size.x, lines = size.y;
#else
  int n = size.y, lines = size.x;
#endif
  int line = int(gl_GlobalInvocationID.x);
  if (line >= lines) return;
  int s = phase == 0 ? 2 : phase == 1 ? 3 : phase == 2 ? 0 : 1;
  bool backward = phase == 0 || phase == 3;
  dvec4 re[MAX_TERMS], im[MAX_TERMS];
  for (int t = 0; t < MAX_TERMS; ++t) {
    re[t] = dvec4(0.0);
    im[t] = dvec4(0.0);
  }
  if (!start) {
    for (int t = 0; t < terms; ++t) {
      re[t] = state[slot(line, s, t)];
      im[t] = state[slot(line, s, t) + 1];
    }
  } else if (phase >= 2 && border != 3) {  // border states (zero: 0)
    for (int t = 0; t < terms; ++t) {
      double pr = coef[t].x, pi = coef[t].y;
      dvec4 ar, ai;  // the state's numerator
      double dr, di; // its denominator
      if (border == 0) {  // clamp: x[0] / (1 - p), p x[N-1] / (1 - p)
        dvec4 x = phase == 2 ? dvec4(texelFetch(src, AT(0, line), 0)) : dvec4(texelFetch(src, AT(n - 1, line), 0));
        ar = phase == 2 ? x : x * pr;
        ai = phase == 2 ? dvec4(0.0) : x * pi;
        dr = 1.0 - pr;
        di = -pi;
      } else {
        dvec4 Fr = state[slot(line, 2, t)], Fi = state[slot(line, 2, t) + 1];
        dvec4 Br = state[slot(line, 3, t)], Bi = state[slot(line, 3, t) + 1];
        double qr = 1.0, qi = 0.0, br = pr, bi = pi;  // p^n by squaring
        for (int e = n; e > 0; e >>= 1) {
          if ((e & 1) != 0) {
            double r = qr * br - qi * bi;
            qi = qr * bi + qi * br;
            qr = r;
          }
          double r = br * br - bi * bi;
          bi = 2.0 * br * bi;
          br = r;
        }
        if (border == 2) {  // wrap: B / (1 - p^N), p F / (1 - p^N)
          if (phase == 2) {
            ar = Br;
            ai = Bi;
          } else {
            cmul(Fr, Fi, pr, pi, ar, ai);
          }
          dr = 1.0 - qr;
          di = -qi;
        } else {  // mirror: (F + p^N B) / (1 - p^2N), p (B + p^N F) / (1 - p^2N)
          dvec4 xr, xi;
          if (phase == 2) {
            cmul(Br, Bi, qr, qi, xr, xi);
            ar = Fr + xr;
            ai = Fi + xi;
          } else {
            cmul(Fr, Fi, qr, qi, xr, xi);
            cmul(Br + xr, Bi + xi, pr, pi, ar, ai);
          }
          dr = 1.0 - (qr * qr - qi * qi);
          di = -2.0 * qr * qi;
        }
      }
      double d = dr * dr + di * di;  // a / (dr + i di)
      re[t] = (ar * dr + ai * di) / d;
      im[t] = (ai * dr - ar * di) / d;
    }
  }
  for (int k = 0; k < count; ++k) {
    int i = backward ? from - k : from + k;
    dvec4 x = dvec4(texelFetch(src, AT(i, line), 0));
    if (phase <= 1) {
      for (int t = 0; t < terms; ++t) {
        double pr = coef[t].x, pi = coef[t].y;
        dvec4 r = x + pr * re[t] - pi * im[t];
        im[t] = pr * im[t] + pi * re[t];
        re[t] = r;
      }
    } else if (phase == 2) {
      dvec4 acc = dvec4(0.0);
      for (int t = 0; t < terms; ++t) {
        double pr = coef[t].x, pi = coef[t].y;
        dvec4 r = x + pr * re[t] - pi * im[t];
        im[t] = pr * im[t] + pi * re[t];
        re[t] = r;
        acc += coef[t].z * re[t] - coef[t].w * im[t];
      }
      partial[i * lines + line] = vec4(acc);
    } else {
      dvec4 acc = dvec4(partial[i * lines + line]);
      for (int t = 0; t < terms; ++t) {
        double pr = coef[t].x, pi = coef[t].y;
        acc += coef[t].z * re[t] - coef[t].w * im[t];
        dvec4 sr = x + re[t];
        re[t] = pr * sr - pi * im[t];
        im[t] = pr * im[t] + pi * sr;
      }
      imageStore(dst, AT(i, line), vec4(acc));
    }
  }
  for (int t = 0; t < terms; ++t) {
    state[slot(line, s, t)] = re[t];
    state[slot(line, s, t) + 1] = im[t];
  }
}
