// up2: the biquadratic B-spline synthesis (core/program.hpp Op::Up2, core/resample.hpp): per axis 3/4 on the
// coarse texel floor(x / 2) and 1/4 on the one on the fine pixel's side, fetched explicitly through the border
// mode (the weights are exact in float; no dependence on the texture unit's interpolation precision).
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 dsize;
uniform int border;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= dsize.x || p.y >= dsize.y) return;
  ivec2 size = textureSize(src, 0);
  ivec2 nr = p >> 1;                                       // p >= 0: floor(p / 2)
  ivec2 fr = nr + ivec2((p & 1) * 2 - 1);                  // odd: +1, even: -1
  vec4 a = fetch_texel(src, nr, size, border), b = fetch_texel(src, ivec2(fr.x, nr.y), size, border);
  vec4 c = fetch_texel(src, ivec2(nr.x, fr.y), size, border), d = fetch_texel(src, fr, size, border);
  imageStore(dst, p, 0.75 * (0.75 * a + 0.25 * b) + 0.25 * (0.75 * c + 0.25 * d));
}
