// down2: dst(X, Y) = sum_{i, j} t_i t_j src(2X + first + i, 2Y + first + j) (core/program.hpp Op::Down2), every
// texel fetched explicitly through the border mode (no texture filtering: the quasi-convolution's 13/32 split
// is not one the texture unit's 8-bit weights promise, and llvmpipe's filtering differs). The row sums first,
// then the column weights, as the reference's products.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 dsize;
uniform int border;
uniform int n;      // taps (2 or 4)
uniform int first;  // the first tap's offset from 2X
uniform vec4 taps;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= dsize.x || p.y >= dsize.y) return;
  ivec2 size = textureSize(src, 0);
  ivec2 o = 2 * p + first;
  vec4 acc = vec4(0.0);
  for (int j = 0; j < n; ++j) {
    vec4 row = vec4(0.0);
    for (int i = 0; i < n; ++i) row += taps[i] * fetch_texel(src, o + ivec2(i, j), size, border);
    acc += taps[j] * row;
  }
  imageStore(dst, p, acc);
}
