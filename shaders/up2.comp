// up2: the biquadratic B-spline synthesis (core/program.hpp Op::Up2, core/resample.hpp) over dst's stored area:
// per axis 3/4 on the coarse pixel floor(x / 2) and 1/4 on the one on the fine pixel's side, fetched explicitly
// with the border mode over src's stored area (exact weights; no dependence on the texture unit's precision).
// One invocation per stored fine pixel (4 fetches), 16 x 16 groups: on an H100 0.210 ms for the full-size pass
// against 0.393 for a direct form with one invocation per 2 x 2 fine pixels from 3 x 3 coarse texels (9
// fetches for 4 outputs) in 32 x 8 groups (docs/performance.md, "pyramid and --downsample").
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 dsize;  // dst's stored size
uniform int dst_pad;
uniform int src_pad;
uniform int border;

void main() {
  ivec2 t = GLOBAL_ID;
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  ivec2 size = gpublur_src_size;
  ivec2 p = t - dst_pad;                                   // the fine pixel, >= -1
  ivec2 nr = ivec2(floor(vec2(p) * 0.5));                  // floor(p / 2), negative p included
  ivec2 fr = nr + ivec2((p & 1) * 2 - 1);                  // odd: +1, even: -1 (two's complement: -1 & 1 = 1)
  nr += src_pad;
  fr += src_pad;
  vec4 a = fetch_texel(src, nr, size, border), b = fetch_texel(src, ivec2(fr.x, nr.y), size, border);
  vec4 c = fetch_texel(src, ivec2(nr.x, fr.y), size, border), d = fetch_texel(src, fr, size, border);
  imageStore(dst, t, 0.75 * (0.75 * a + 0.25 * b) + 0.25 * (0.75 * c + 0.25 * d));
}
