// down2: dst(X, Y) = sum_{i, j} t_i t_j src(2X + first + i, 2Y + first + j) (core/program.hpp Op::Down2) over
// dst's stored area (pixel = texel - dst_pad), every texel fetched explicitly with the border mode over src's
// stored area (core/resample.hpp resample_index; no texture filtering: the quasi-convolution's 13/32 split is
// not one the texture unit's 8-bit weights promise, and llvmpipe's filtering differs). Row sums first, then
// the column weights, as the reference. Up to 4 taps (longer kernels: down2_axis.comp). One invocation per
// output, the tap count a uniform, 16 x 16 groups: on an H100 within a few percent of a direct form (the tap
// count a #define, 32 x 8 groups, 1, 2 or 4 outputs per invocation) and the simpler code, the same shape as
// up2.comp (docs/performance.md, "pyramid and --downsample").
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 dsize;  // dst's stored size
uniform int dst_pad;
uniform int src_pad;
uniform int border;
uniform int n;      // taps (even, <= 4 here)
uniform int first;  // the first tap's offset from 2X
uniform float taps[64];

void main() {
  ivec2 t = GLOBAL_ID;
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  ivec2 size = gpublur_src_size;  // stored size: fetch_texel's remap runs over it
  ivec2 o = 2 * (t - dst_pad) + first + src_pad;
  vec4 acc = vec4(0.0);
  for (int j = 0; j < n; ++j) {
    vec4 row = vec4(0.0);
    for (int i = 0; i < n; ++i) row += taps[i] * fetch_texel(src, o + ivec2(i, j), size, border);
    acc += taps[j] * row;
  }
  imageStore(dst, t, acc);
}
