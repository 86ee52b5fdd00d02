// down2: dst(X, Y) = sum_{i, j} t_i t_j src(2X + first + i, 2Y + first + j) (core/program.hpp Op::Down2) over
// dst's stored area (pixel = texel - dst_pad), every texel fetched explicitly with the border mode over src's
// stored area (core/resample.hpp resample_index; no texture filtering: the quasi-convolution's 13/32 split is
// not one the texture unit's 8-bit weights promise, and llvmpipe's filtering differs). Row sums first, then
// the column weights, as the reference.
// N (host #define, the tap count; the default form): constant trip counts, 32 x 8 groups (a warp covers 32
// consecutive outputs of a row), ROWS (1, 2 or 4) outputs per invocation down a column, each source row's
// weighted sum computed once and shared by the outputs that use it (same operations per output as ROWS 1).
// Without N (GPUBLUR_GL_RESAMPLE_TILE=1, the previous form, kept for one A/B measurement): the tap count as a
// uniform, 16 x 16 groups, one output per invocation.
#ifdef N
#ifndef ROWS
#define ROWS 1
#endif
#ifndef LX  // the group shape (GPUBLUR_GL_RESAMPLE_GROUP, gl_tuning.hpp): 32 x 8 by default
#define LX 32
#define LY 8
#endif
layout(local_size_x = LX, local_size_y = LY) in;
#else
layout(local_size_x = 16, local_size_y = 16) in;
#endif
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 dsize;  // dst's stored size
uniform int dst_pad;
uniform int src_pad;
uniform int border;
uniform int n;      // taps (even, <= 64)
uniform int first;  // the first tap's offset from 2X
uniform float taps[64];

#ifdef N
// (x, y) already remapped, -1 reads zero. LOAD_IMAGE (GPUBLUR_GL_RESAMPLE_LOAD=image, an A/B knob): the same
// texels by imageLoad from the source bound as a readonly image too, instead of texelFetch.
#ifdef LOAD_IMAGE
layout(binding = 1, STORE_FORMAT) readonly restrict uniform image2D srci;
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : imageLoad(srci, ivec2(x, y)); }
#else
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : texelFetch(src, ivec2(x, y), 0); }
#endif

void main() {
  ivec2 t = ivec2(gl_GlobalInvocationID.x, gl_GlobalInvocationID.y * ROWS);
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  ivec2 size = textureSize(src, 0);  // stored size: the remap runs over it
  ivec2 o = 2 * (t - dst_pad) + first + src_pad;
  int cx[N];
  for (int i = 0; i < N; ++i) cx[i] = remap_index(o.x + i, size.x, border);
  // Source row o.y + k weighted along x; output r uses rows 2r .. 2r + N - 1.
  vec4 row[2 * ROWS + N - 2];
  for (int k = 0; k < 2 * ROWS + N - 2; ++k) {
    int ry = remap_index(o.y + k, size.y, border);
    vec4 s = vec4(0.0);
    for (int i = 0; i < N; ++i) s += taps[i] * at(cx[i], ry);
    row[k] = s;
  }
  for (int r = 0; r < ROWS; ++r) {
    if (t.y + r < dsize.y) {
      vec4 acc = vec4(0.0);
      for (int j = 0; j < N; ++j) acc += taps[j] * row[2 * r + j];
      imageStore(dst, ivec2(t.x, t.y + r), acc);
    }
  }
}
#else
void main() {
  ivec2 t = ivec2(gl_GlobalInvocationID.xy);
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  ivec2 size = textureSize(src, 0);  // stored size: fetch_texel's remap runs over it
  ivec2 o = 2 * (t - dst_pad) + first + src_pad;
  vec4 acc = vec4(0.0);
  for (int j = 0; j < n; ++j) {
    vec4 row = vec4(0.0);
    for (int i = 0; i < n; ++i) row += taps[i] * fetch_texel(src, o + ivec2(i, j), size, border);
    acc += taps[j] * row;
  }
  imageStore(dst, t, acc);
}
#endif
