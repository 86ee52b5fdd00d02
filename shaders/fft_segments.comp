// fft-conv1d as overlap-save segments (gpu/gl/passes/fft_segments.hpp: layout, schedule, plan): one work group
// per (segment, NB lines); the segment's M = 2^LOG_M border-extended positions are transformed in shared memory
// (Stockham, natural order in and out, in place with a barrier between a pass's loads and its stores), multiplied
// by the kernel's M bins, transformed back; positions radius .. radius + len - 1 are stored. The first forward
// pass reads the texture and the last inverse pass writes the image: the image is read about once and written
// once. Elements are vec4s holding two complex numbers (r + i g, b + i a: the taps are real, channels never mix).
// LPE (lines an element, 4 / VCH): one-channel images pack four lines' values into an element, two-channel images two
// lines' r and g, so that no part of an element is transformed for nothing; a group's NB element lines are then
// NB x LPE lines of the image.
// ELEMS elements per invocation and pass: radix-ELEMS passes (NBIG of them), then radix ELEMS / 2 (NSMALL).
// Twiddles from a float64 table on the host (exp(-2 pi i m / M), m < M): every one rounded once, no shader
// sin/cos error. Loops run at most ELEMS iterations per pass and 2 * (NBIG + NSMALL) passes: far under
// llvmpipe's loop budget.
#ifndef LPE
#define LPE 1
#endif
#define M (1 << LOG_M)
#define LS (M + M / 8)              // shared slots per line (fft_segments.hpp seg_line_slots)
#define T (NB * M / ELEMS)          // invocations
#define P (NBIG + NSMALL)           // passes each way
#define LG (ELEMS == 8 ? 3 : 2)     // log2 ELEMS
#define SRC_SHARED 0
#define SRC_IMAGE 1
#define DST_SHARED 0
#define DST_BINS 1
#define DST_IMAGE 2
layout(local_size_x = T) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 1) readonly buffer Twiddles { vec2 tw[]; };
layout(std430, binding = 2) readonly buffer Spectrum { vec2 bins[]; };
uniform int border;
uniform int radius;
uniform int len;  // outputs per segment, M - 2 radius

#if AXIS == 0
#define AT(along, line) ivec2(along, line)
#else
#define AT(along, line) ivec2(line, along)
#endif

shared vec4 s[NB * LS];
vec4 v[8];
int t, seg, line0, n, lines;

int slot(int line, int i) { return line * LS + i + (i >> 3); }

vec4 cmul(vec4 a, vec2 w) {
  return vec4(a.x * w.x - a.y * w.y, a.x * w.y + a.y * w.x, a.z * w.x - a.w * w.y, a.z * w.y + a.w * w.x);
}
// a times S i (S = +-1).
vec4 cmuli(vec4 a, float S) { return S * vec4(-a.y, a.x, -a.w, a.z); }
// a times exp(S i pi / 4) = (1 + S i) / sqrt 2, and times exp(3 S i pi / 4) = (-1 + S i) / sqrt 2.
vec4 cmul_w8(vec4 a, float S) {
  return 0.70710678118654752 * vec4(a.x - S * a.y, a.y + S * a.x, a.z - S * a.w, a.w + S * a.z);
}
vec4 cmul_w83(vec4 a, float S) {
  return 0.70710678118654752 * vec4(-a.x - S * a.y, -a.y + S * a.x, -a.z - S * a.w, -a.w + S * a.z);
}

// In-place DFTs of sign S on v[o ..] (X_q = sum_m a_m exp(S 2 pi i q m / R)), natural order in and out.
void dft2(int o) {
  vec4 a = v[o], b = v[o + 1];
  v[o] = a + b, v[o + 1] = a - b;
}
void dft4(float S, int o0, int o1, int o2, int o3) {
  vec4 t0 = v[o0] + v[o2], t1 = v[o0] - v[o2], t2 = v[o1] + v[o3], t3 = cmuli(v[o1] - v[o3], S);
  v[o0] = t0 + t2, v[o2] = t0 - t2, v[o1] = t1 + t3, v[o3] = t1 - t3;
}
void dft8(float S, int o) {
  dft4(S, o, o + 2, o + 4, o + 6);  // the even inputs' DFT: E_q in v[o + 2q]
  dft4(S, o + 1, o + 3, o + 5, o + 7);  // the odd inputs': O_q in v[o + 2q + 1]
  v[o + 3] = cmul_w8(v[o + 3], S), v[o + 5] = cmuli(v[o + 5], S), v[o + 7] = cmul_w83(v[o + 7], S);
  vec4 x0 = v[o] + v[o + 1], x4 = v[o] - v[o + 1], x1 = v[o + 2] + v[o + 3], x5 = v[o + 2] - v[o + 3];
  vec4 x2 = v[o + 4] + v[o + 5], x6 = v[o + 4] - v[o + 5], x3 = v[o + 6] + v[o + 7], x7 = v[o + 6] - v[o + 7];
  v[o] = x0, v[o + 1] = x1, v[o + 2] = x2, v[o + 3] = x3, v[o + 4] = x4, v[o + 5] = x5, v[o + 6] = x6, v[o + 7] = x7;
}

// Butterfly u of this invocation in a pass of radix R: its line (< NB) and index j (< M / R). Lines fastest
// where the pass touches the image (NB = 2: neighbouring invocations read one row's 32 bytes), positions
// fastest in shared memory.
void butterfly(int R, bool lines_fast, int u, out int line, out int j) {
  int b = t + u * T;
  if (lines_fast) {
    line = b % NB, j = b / NB;
  } else {
    line = b / (M / R), j = b % (M / R);
  }
}

// Line ln's texel at x, zeros past the image's lines (an element's later lines, LPE > 1).
vec4 texel_of_line(int x, int ln) { return ln < lines ? texelFetch(src, AT(x, ln), 0) : vec4(0.0); }

vec4 load(int src_kind, int line, int i) {
  if (src_kind == SRC_SHARED) return s[slot(line, i)];
  int ln = line0 + line * LPE;
  if (ln >= lines) return vec4(0.0);
  int x = remap_index(seg * len - radius + i, n, border);
  if (x < 0) return vec4(0.0);
#if LPE == 1
  return texelFetch(src, AT(x, ln), 0);
#elif LPE == 2
  return vec4(texelFetch(src, AT(x, ln), 0).rg, texel_of_line(x, ln + 1).rg);
#else
  return vec4(texelFetch(src, AT(x, ln), 0).r, texel_of_line(x, ln + 1).r, texel_of_line(x, ln + 2).r,
              texel_of_line(x, ln + 3).r);
#endif
}

void store(int dst_kind, int line, int i, vec4 e) {
  if (dst_kind == DST_SHARED) {
    s[slot(line, i)] = e;
  } else if (dst_kind == DST_BINS) {
    s[slot(line, i)] = cmul(e, bins[i]);
  } else {
    int ln = line0 + line * LPE, q = i - radius, x = seg * len + q;
    if (ln >= lines || q < 0 || q >= len || x >= n) return;
#if LPE == 1
    imageStore(dst, AT(x, ln), e);
#elif LPE == 2
    imageStore(dst, AT(x, ln), vec4(e.xy, 0.0, 0.0));
    if (ln + 1 < lines) imageStore(dst, AT(x, ln + 1), vec4(e.zw, 0.0, 0.0));
#else
    imageStore(dst, AT(x, ln), vec4(e.x, 0.0, 0.0, 0.0));
    if (ln + 1 < lines) imageStore(dst, AT(x, ln + 1), vec4(e.y, 0.0, 0.0, 0.0));
    if (ln + 2 < lines) imageStore(dst, AT(x, ln + 2), vec4(e.z, 0.0, 0.0, 0.0));
    if (ln + 3 < lines) imageStore(dst, AT(x, ln + 3), vec4(e.w, 0.0, 0.0, 0.0));
#endif
  }
}

// One Stockham pass of radix R and sign S after sub-transforms of length ns (fft_segments.hpp).
void stockham_pass(int R, int ns, float S, int src_kind, int dst_kind) {
  int U = ELEMS / R;
  bool lines_fast = src_kind == SRC_IMAGE || dst_kind == DST_IMAGE;
  for (int u = 0; u < U; ++u) {
    int line, j;
    butterfly(R, lines_fast, u, line, j);
    for (int q = 0; q < R; ++q) v[u * R + q] = load(src_kind, line, j + q * (M / R));
  }
  if (src_kind == SRC_SHARED && dst_kind != DST_IMAGE) {  // in place: every load before any store
    memoryBarrierShared();
    barrier();
  }
  for (int u = 0; u < U; ++u) {
    int line, j;
    butterfly(R, lines_fast, u, line, j);
    int k = j & (ns - 1), step = k * (M / (ns * R));
    for (int q = 1; q < R; ++q) {
      vec2 w = tw[q * step];
      v[u * R + q] = cmul(v[u * R + q], vec2(w.x, -S * w.y));
    }
    if (R == 8) dft8(S, u * R);
    else if (R == 4) dft4(S, u * R, u * R + 1, u * R + 2, u * R + 3);
    else dft2(u * R);
    int base = (j - k) * R + k;
    for (int q = 0; q < R; ++q) store(dst_kind, line, base + q * ns, v[u * R + q]);
  }
  if (dst_kind != DST_IMAGE) {
    memoryBarrierShared();
    barrier();
  }
}

int ns_of(int p) { return 1 << (LG * min(p, NBIG) + (LG - 1) * max(0, p - NBIG)); }

// Passes p0 .. p1 - 1 of sign S, shared memory to shared memory: the radix-ELEMS ones, then the others.
void shared_passes(int p0, int p1, float S) {
  for (int p = p0; p < min(p1, NBIG); ++p) stockham_pass(ELEMS, ns_of(p), S, SRC_SHARED, DST_SHARED);
  for (int p = max(p0, NBIG); p < p1; ++p) stockham_pass(ELEMS / 2, ns_of(p), S, SRC_SHARED, DST_SHARED);
}

void main() {
  t = int(gl_LocalInvocationID.x);
  seg = int(gl_WorkGroupID.x);
  line0 = int(gl_WorkGroupID.y) * NB * LPE;
  ivec2 size = gpublur_src_size;
  n = AXIS == 0 ? size.x : size.y;
  lines = AXIS == 0 ? size.y : size.x;
  const int last_r = NSMALL == 0 ? ELEMS : ELEMS / 2;
  // Forward: texture -> shared, the middle passes, the last one times the bins.
  stockham_pass(ELEMS, 1, -1.0, SRC_IMAGE, DST_SHARED);
  shared_passes(1, P - 1, -1.0);
  stockham_pass(last_r, ns_of(P - 1), -1.0, SRC_SHARED, DST_BINS);
  // Inverse: shared -> shared, the last pass shared -> image.
  shared_passes(0, P - 1, 1.0);
  stockham_pass(last_r, ns_of(P - 1), 1.0, SRC_SHARED, DST_IMAGE);
}
