// conv1d, fragment form (the thesis's ping-pong): one 1D pass per draw into an RGBA32F/RGBA16F
// render target, AXIS 0 horizontal, 1 vertical. Exact texel fetches; RADIUS is a compile-time constant.
// Pixels whose whole footprint lies inside the image (all but r per side) take plain fetches; only the
// border strips pay for the remap.
layout(binding = 0) uniform sampler2D src;
#if WEIGHTS_UBO
layout(std140, binding = 0) uniform Weights { vec4 w4[NTAPS / 4]; };
#else
layout(std430, binding = 0) readonly buffer Weights { vec4 w4[]; };
#endif
uniform int border;
layout(location = 0) out vec4 color;

#if AXIS == 0
#define DIR ivec2(1, 0)
#else
#define DIR ivec2(0, 1)
#endif

float weight(int j) { return w4[j >> 2][j & 3]; }

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 size = gpublur_src_size;
  int a = AXIS == 0 ? p.x : p.y, n = AXIS == 0 ? size.x : size.y;
  vec4 acc = vec4(0.0);
  if (a >= RADIUS && a + RADIUS < n) {
    ivec2 q = p - RADIUS * DIR;
    for (int k = 0; k <= 2 * RADIUS; ++k) acc += weight(k) * texelFetch(src, q + k * DIR, 0);
  } else {
    for (int k = 0; k <= 2 * RADIUS; ++k) acc += weight(k) * fetch_texel(src, p + (k - RADIUS) * DIR, size, border);
  }
  color = acc;
}
