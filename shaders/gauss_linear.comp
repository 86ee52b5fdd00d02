// gauss-linear: one 1D pass of bilinear taps (AXIS 0 horizontal, 1 vertical).
// out = tw[0] * s(x) + sum_k tw[k] * (s(x - o_k) + s(x + o_k)), s = linear interpolation between texels.
// Taps (N_TAPS, compile-time) come precomputed per tap as (offset, weight, floor(offset), fraction).
// HARDWARE 1: s comes from the sampler (GL_LINEAR, wrap mode = border mode), at normalised coordinates.
// HARDWARE 0: s fetches the two texels and interpolates in full float precision, with the offset split
//             into integer and fraction so large coordinates lose nothing. Pixels whose footprint lies
//             inside the image take plain fetches; only the border strips pay for the remap.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
#ifdef TAP_LIST
// Compile-time taps (the host's default): offsets and weights are immediates of the unrolled tap loop.
const float tap_data[N_TAPS * 4] = float[](TAP_LIST);
#define TAP(k) vec4(tap_data[4 * (k)], tap_data[4 * (k) + 1], tap_data[4 * (k) + 2], tap_data[4 * (k) + 3])
#else
layout(std430, binding = 1) readonly buffer Taps { vec4 taps[]; };
#define TAP(k) taps[k]
#endif
uniform int border;

#if AXIS == 0
#define DIR ivec2(1, 0)
#else
#define DIR ivec2(0, 1)
#endif

#if !HARDWARE
// Interpolates between texels i0 and i0 + 1 along the axis with fraction f (border-remapped).
vec4 lerp_at(ivec2 p, int i0, float f, ivec2 size) {
  vec4 a = fetch_texel(src, p + i0 * DIR, size, border);
  if (f == 0.0) return a;
  vec4 b = fetch_texel(src, p + (i0 + 1) * DIR, size, border);
  return (1.0 - f) * a + f * b;
}
#endif

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = textureSize(src, 0);
  if (p.x >= size.x || p.y >= size.y) return;
#if HARDWARE
  vec2 inv = 1.0 / vec2(size);
  vec2 centre = vec2(p) + 0.5;
  vec4 acc = TAP(0).y * texture(src, centre * inv);
  for (int k = 1; k < N_TAPS; ++k) {
    vec2 d = TAP(k).x * vec2(DIR);
    acc += TAP(k).y * (texture(src, (centre - d) * inv) + texture(src, (centre + d) * inv));
  }
#else
  vec4 acc = TAP(0).y * texelFetch(src, p, 0);
  int a = AXIS == 0 ? p.x : p.y, n = AXIS == 0 ? size.x : size.y;
  if (a > MAX_REACH && a + MAX_REACH < n) {
    // Interior: s(x +- o) from texels x +- oi and the next one out; x - o = (x - oi - 1) + (1 - of).
    for (int k = 1; k < N_TAPS; ++k) {
      vec4 t = TAP(k);
      int oi = int(t.z);
      float of = t.w;
      vec4 m0 = texelFetch(src, p - oi * DIR, 0), m1 = texelFetch(src, p - (oi + 1) * DIR, 0);
      vec4 p0 = texelFetch(src, p + oi * DIR, 0), p1 = texelFetch(src, p + (oi + 1) * DIR, 0);
      acc += t.y * (mix(m0, m1, of) + mix(p0, p1, of));
    }
  } else {
    for (int k = 1; k < N_TAPS; ++k) {
      vec4 t = TAP(k);
      int oi = int(t.z);
      float of = t.w;
      vec4 minus = of == 0.0 ? lerp_at(p, -oi, 0.0, size) : lerp_at(p, -oi - 1, 1.0 - of, size);
      vec4 plus = lerp_at(p, oi, of, size);
      acc += t.y * (minus + plus);
    }
  }
#endif
  imageStore(dst, p, acc);
}
