// fft-conv1d: Conv1d along one axis (AXIS 0 rows, 1 columns) by FFT, one work group per line
// (gpu/gl/passes/fft_conv1d.cpp; the numbers from core/fft.hpp). The line, extended by `ext` with the border
// mode and zero beyond, is held as FFT_N (a power of two) vec4s, each two complex numbers: (r + i g, b + i a).
// The kernel is real, so correlating r + i g with it keeps r's result in the real part and g's in the
// imaginary one: four channels in one complex transform of length N, nothing unpacked.
// Radix-2, in place, no permutation pass: the forward transform is decimation in frequency (natural order in,
// bit-reversed out), the spectrum (host-permuted to bit-reversed order, scaled by 1/N) multiplies it there, and
// the inverse is decimation in time (bit-reversed in, natural out). The last forward stage, the multiply and the
// first inverse stage touch the same pair of elements, so they run fused without a barrier between them.
// Twiddles exp(-2 pi i m / N), m < N/2, come from a float64 table on the host (no shader sin/cos error).
// SHARED 1: the line in shared memory (16 N bytes); SHARED 0: in a storage buffer slice per group (long
// lines; coherent, with buffer barriers between stages), lines in batches of the buffer's size.
// MODE 0: the convolution (texture in, image out). MODE 1 / 2: the bare forward / inverse (unnormalised)
// transform of lines in the storage buffer at binding 4, natural order in and out (tests of the FFT itself).
layout(local_size_x = THREADS) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 1) readonly buffer Twiddles { vec2 tw[]; };
layout(std430, binding = 2) readonly buffer Spectrum { vec2 spec[]; };
layout(std430, binding = 4) buffer Lines { vec4 lines[]; };
uniform int border;
uniform int ext;    // extension of the line on each side (stored position i is pixel i - ext)
uniform int line0;  // first line of this dispatch

#if SHARED
shared vec4 s[FFT_N];
#define S(i) s[i]
#define SYNC()            \
  memoryBarrierShared(); \
  barrier()
#else
layout(std430, binding = 3) coherent buffer Work { vec4 work[]; };
uint base;
#define S(i) work[base + uint(i)]
#define SYNC()            \
  memoryBarrierBuffer(); \
  barrier()
#endif

#if AXIS == 0
#define AT(along, line) ivec2(along, line)
#else
#define AT(along, line) ivec2(line, along)
#endif

// v's two complex numbers times w.
vec4 cmul(vec4 v, vec2 w) {
  return vec4(v.x * w.x - v.y * w.y, v.x * w.y + v.y * w.x, v.z * w.x - v.w * w.y, v.z * w.y + v.w * w.x);
}

int bitrev(int i) { return LOG_N == 0 ? 0 : int(bitfieldReverse(uint(i)) >> uint(32 - LOG_N)); }

// Butterfly b of the stage whose pairs are `half` = 2^lh apart: its two indices and twiddle exponent.
void pair(int b, int lh, out int i0, out int i1, out vec2 w) {
  int half_n = 1 << lh, j = b & (half_n - 1);
  i0 = ((b >> lh) << (lh + 1)) + j;
  i1 = i0 + half_n;
  w = tw[j << (LOG_N - 1 - lh)];  // exp(-2 pi i j / (2 half)) = table entry j N / (2 half)
}

// Decimation in frequency, one stage: (u, v) -> (u + v, (u - v) w).
void dif_stage(int t, int lh) {
  for (int b = t; b < FFT_N / 2; b += THREADS) {
    int i0, i1;
    vec2 w;
    pair(b, lh, i0, i1, w);
    vec4 u = S(i0), v = S(i1);
    S(i0) = u + v;
    S(i1) = cmul(u - v, w);
  }
  SYNC();
}

// Decimation in time, inverse direction (conjugate twiddles): (u, v) -> (u + v conj(w), u - v conj(w)).
void dit_inverse_stage(int t, int lh) {
  for (int b = t; b < FFT_N / 2; b += THREADS) {
    int i0, i1;
    vec2 w;
    pair(b, lh, i0, i1, w);
    vec4 u = S(i0), v = cmul(S(i1), vec2(w.x, -w.y));
    S(i0) = u + v;
    S(i1) = u - v;
  }
  SYNC();
}

void main() {
  int t = int(gl_LocalInvocationID.x);
  int line = line0 + int(gl_WorkGroupID.x);
#if !SHARED
  base = gl_WorkGroupID.x * uint(FFT_N);
#endif
#if MODE == 0
  ivec2 size = gpublur_src_size;
  int n = AXIS == 0 ? size.x : size.y;
  for (int i = t; i < FFT_N; i += THREADS) {
    int pos = i - ext;
    S(i) = pos < n + ext ? fetch_texel(src, AT(pos, line), size, border) : vec4(0.0);
  }
  SYNC();
  for (int lh = LOG_N - 1; lh >= 1; --lh) dif_stage(t, lh);
#if FFT_N == 1
  if (t == 0) S(0) = cmul(S(0), spec[0]);
#else
  // Last forward stage (pairs 1 apart, twiddle 1), the spectrum, first inverse stage: one pair per butterfly.
  for (int b = t; b < FFT_N / 2; b += THREADS) {
    vec4 u = S(2 * b), v = S(2 * b + 1);
    vec4 a0 = cmul(u + v, spec[2 * b]), a1 = cmul(u - v, spec[2 * b + 1]);
    S(2 * b) = a0 + a1;
    S(2 * b + 1) = a0 - a1;
  }
#endif
  SYNC();
  for (int lh = 1; lh < LOG_N; ++lh) dit_inverse_stage(t, lh);
  for (int x = t; x < n; x += THREADS) imageStore(dst, AT(x, line), S(x + ext));
#elif MODE == 1
  for (int i = t; i < FFT_N; i += THREADS) S(i) = lines[line * FFT_N + i];
  SYNC();
  for (int lh = LOG_N - 1; lh >= 0; --lh) dif_stage(t, lh);
  for (int k = t; k < FFT_N; k += THREADS) lines[line * FFT_N + k] = S(bitrev(k));
#else
  for (int i = t; i < FFT_N; i += THREADS) S(bitrev(i)) = lines[line * FFT_N + i];
  SYNC();
  for (int lh = 0; lh < LOG_N; ++lh) dit_inverse_stage(t, lh);
  for (int k = t; k < FFT_N; k += THREADS) lines[line * FFT_N + k] = S(k);
#endif
}
