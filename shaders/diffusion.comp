// diffusion: one explicit heat step u + rate * (sum of the 4 neighbours - 4 u), the neighbours read with the
// border mode (the CPU reference's definition); the host dispatches one step after another (ping-pong).
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 size;
uniform int border;
uniform float rate;

void main() {
  ivec2 p = GLOBAL_ID;
  if (p.x >= size.x || p.y >= size.y) return;
  vec4 u = texelFetch(src, p, 0);
  vec4 around = fetch_texel(src, p + ivec2(-1, 0), size, border) + fetch_texel(src, p + ivec2(1, 0), size, border) +
                fetch_texel(src, p + ivec2(0, -1), size, border) + fetch_texel(src, p + ivec2(0, 1), size, border);
  imageStore(dst, p, (1.0 - 4.0 * rate) * u + rate * around);
}
