// bilinear1d: one 1D pass of bilinear taps through the texture unit (AXIS 0 horizontal, 1 vertical).
// out = tw[0] * s(x) + sum_k tw[k] * (s(x - o_k) + s(x + o_k)), s = the sampler's linear interpolation
// (GL_LINEAR, wrap mode = the border mode) at normalised coordinates. Taps (N_TAPS, compile-time) come as
// (offset, weight) pairs in a storage buffer, or as compile-time constants where TAP_LIST is defined.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
#ifdef TAP_LIST
const float tap_data[N_TAPS * 2] = float[](TAP_LIST);
#define TAP(k) vec2(tap_data[2 * (k)], tap_data[2 * (k) + 1])
#else
layout(std430, binding = 1) readonly buffer Taps { vec2 taps[]; };
#define TAP(k) taps[k]
#endif

#if AXIS == 0
#define DIR vec2(1.0, 0.0)
#else
#define DIR vec2(0.0, 1.0)
#endif

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = gpublur_src_size;
  if (p.x >= size.x || p.y >= size.y) return;
  vec2 inv = 1.0 / vec2(size);
  vec2 centre = vec2(p) + 0.5;
  vec4 acc = TAP(0).y * texture(src, centre * inv);
  for (int k = 1; k < N_TAPS; ++k) {
    vec2 d = TAP(k).x * DIR;
    acc += TAP(k).y * (texture(src, (centre - d) * inv) + texture(src, (centre + d) * inv));
  }
  imageStore(dst, p, acc);
}
