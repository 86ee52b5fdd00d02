// up2: the biquadratic B-spline synthesis (core/program.hpp Op::Up2, core/resample.hpp) over dst's stored area:
// per axis 3/4 on the coarse pixel floor(x / 2) and 1/4 on the one on the fine pixel's side, fetched explicitly
// with the border mode over src's stored area (exact weights; no dependence on the texture unit's precision).
// QUAD 1 (the default form): one invocation per 2 x 2 fine pixels 2X, 2X + 1 (x) 2Y, 2Y + 1 of the image
// frame, which all read coarse pixels X - 1 .. X + 1 (x) Y - 1 .. Y + 1: 9 fetches for 4 outputs instead of
// 16, the same operations per output as the form below; 32 x 8 groups (a warp writes 64 consecutive pixels on
// each of its 2 rows); ROWS (host #define, 1, 2 or 4) quads per invocation down a column ((ROWS + 2) x 3
// fetches for 4 ROWS outputs: 2.25, 1.5, 1.1 per output). QUAD 0 (GPUBLUR_GL_RESAMPLE_TILE=1, the previous
// form, kept for one A/B measurement): one invocation per output, 16 x 16 groups.
#if QUAD
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

#if QUAD
// (x, y) already remapped, -1 reads zero. LOAD_IMAGE (GPUBLUR_GL_RESAMPLE_LOAD=image, an A/B knob): the same
// texels by imageLoad from the source bound as a readonly image too, instead of texelFetch.
#ifdef LOAD_IMAGE
layout(binding = 1, STORE_FORMAT) readonly restrict uniform image2D srci;
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : imageLoad(srci, ivec2(x, y)); }
#else
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : texelFetch(src, ivec2(x, y), 0); }
#endif

void main() {
  // Quad q's first fine pixel is the even frame pixel 2 q - e (e = dst_pad's parity, so that its stored texel
  // 2 q - e + dst_pad >= -1 starts at the first stored texel or one before it). An invocation makes the quads
  // q.y = Q0 .. Q0 + ROWS - 1 of column q.x.
  ivec2 q = ivec2(gl_GlobalInvocationID.x, gl_GlobalInvocationID.y * ROWS);
  int e = dst_pad & 1;
  ivec2 t0 = 2 * q - e;  // stored texel of the first quad's first pixel
  if (t0.x >= dsize.x || t0.y >= dsize.y) return;
  ivec2 size = textureSize(src, 0);
  ivec2 c = (t0 - dst_pad) >> 1;  // coarse pixel X (t0 - dst_pad is even, maybe negative: exact)
  int cx[3];
  for (int k = 0; k < 3; ++k) cx[k] = remap_index(c.x - 1 + k + src_pad, size.x, border);
  // Coarse rows c.y - 1 .. c.y + ROWS; quad r uses rows r .. r + 2.
  vec4 v[(ROWS + 2) * 3];
  for (int j = 0; j < ROWS + 2; ++j) {
    int ry = remap_index(c.y - 1 + j + src_pad, size.y, border);
    for (int i = 0; i < 3; ++i) v[j * 3 + i] = at(cx[i], ry);
  }
  // Fine pixel (px, py) of quad r: near coarse pixel index 1, far one 0 (even) or 2 (odd), per axis.
  for (int r = 0; r < ROWS; ++r)
    for (int py = 0; py < 2; ++py)
      for (int px = 0; px < 2; ++px) {
        ivec2 t = t0 + ivec2(px, 2 * r + py);
        if (t.x < 0 || t.y < 0 || t.x >= dsize.x || t.y >= dsize.y) continue;
        int n = (r + 1) * 3, f = (r + 2 * py) * 3;  // near and far rows
        vec4 a = v[n + 1], b = v[n + 2 * px], cc = v[f + 1], d = v[f + 2 * px];
        imageStore(dst, t, 0.75 * (0.75 * a + 0.25 * b) + 0.25 * (0.75 * cc + 0.25 * d));
      }
}
#else
void main() {
  ivec2 t = ivec2(gl_GlobalInvocationID.xy);
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  ivec2 size = textureSize(src, 0);
  ivec2 p = t - dst_pad;                                   // the fine pixel, >= -1
  ivec2 nr = ivec2(floor(vec2(p) * 0.5));                  // floor(p / 2), negative p included
  ivec2 fr = nr + ivec2((p & 1) * 2 - 1);                  // odd: +1, even: -1 (two's complement: -1 & 1 = 1)
  nr += src_pad;
  fr += src_pad;
  vec4 a = fetch_texel(src, nr, size, border), b = fetch_texel(src, ivec2(fr.x, nr.y), size, border);
  vec4 c = fetch_texel(src, ivec2(nr.x, fr.y), size, border), d = fetch_texel(src, fr, size, border);
  imageStore(dst, t, 0.75 * (0.75 * a + 0.25 * b) + 0.25 * (0.75 * c + 0.25 * d));
}
#endif
