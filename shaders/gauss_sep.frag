// gauss-sep, fragment form (the thesis's ping-pong): one 1D pass per draw into an RGBA32F/RGBA16F
// render target; `axis` 0 horizontal, 1 vertical. Exact texel fetches with the border remap.
layout(binding = 0) uniform sampler2D src;
layout(std430, binding = 0) readonly buffer Weights { float w[]; };
uniform int radius;
uniform int border;
uniform int axis;
layout(location = 0) out vec4 color;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 size = textureSize(src, 0);
  ivec2 step = axis == 0 ? ivec2(1, 0) : ivec2(0, 1);
  vec4 acc = vec4(0.0);
  for (int k = -radius; k <= radius; ++k) acc += w[k + radius] * fetch_texel(src, p + k * step, size, border);
  color = acc;
}
