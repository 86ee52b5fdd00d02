// down2 with a long analysis kernel (n > 4 taps: the pyramid's last level with the coarsest Gaussian folded in),
// two passes through an RGBA32F scratch texture, one invocation per output, N (host #define) taps as a constant
// trip count, 32 x 8 groups. SHARED 1 (where the strip fits the shared budget): the group's source strip is
// loaded into shared memory once, then each output reads its N taps from there (down2-axes 0.063 -> 0.048 ms
// at the quasi pyramid's sigma 12 on an H100; docs/performance.md, "GL: warps on GOBs"); SHARED 0: each tap is
// a texelFetch (the texture cache catches the overlap), no barrier.
//   AXIS 0: tmp(X, sy) = sum_i t_i src(2 (X - dst_pad) + first + i + src_pad, sy) for every stored source row
//           sy and stored dst column X (x remapped with the border mode over src's stored width);
//   AXIS 1: dst(X, Y) = sum_j t_j tmp(X, 2 (Y - dst_pad) + first + j + src_pad) (y remapped over src's stored
//           height, which tmp has).
// The same products in the same order as down2.comp and the reference (each row weighted along x, then the row
// results with the column weights; a row the zero border removes adds 0); the row results are kept in float32
// even with half storage. n (2n fetches per output, instead of the n^2 of down2.comp) on 1 / 4^L of the pixels.
// On an H100 the two passes took 0.072 ms at the pyramid's sigma 12 against 0.279 for one pass with a group's
// rows through shared memory (docs/performance.md, "pyramid and --downsample").
layout(local_size_x = 32, local_size_y = 8) in;
layout(binding = 0) uniform sampler2D src;
#if AXIS == 0
layout(binding = 0, rgba32f) writeonly uniform image2D dst;
#else
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
#endif
uniform int dst_pad;
uniform int src_pad;
uniform int border;
uniform int first;  // the first tap's offset from 2X
uniform float taps[64];

// (x, y) already remapped (x, y >= 0 where called).
vec4 at(int x, int y) { return texelFetch(src, ivec2(x, y), 0); }

#if SHARED
// The group's source strip through shared memory, each texel fetched once (the direct form fetches each about
// N / 2 times: texel-fetch-bound on an H100). AXIS 0: the group's GY rows x (2 (GX - 1) + N) positions along
// x; AXIS 1: its GX columns x (2 (GY - 1) + N) positions along y (the host sizes the strip the same way: down2.cpp
// setup_axes). Same products in the same order as the direct form.
const int GX = int(gl_WorkGroupSize.x), GY = int(gl_WorkGroupSize.y);
const int SPAN = 2 * ((AXIS == 0 ? GX : GY) - 1) + N;
shared vec4 strip[SPAN * (AXIS == 0 ? GY : GX)];

void main() {
  ivec2 osize = imageSize(dst);
  ivec2 size = gpublur_src_size;
  ivec2 g0 = ivec2(gl_WorkGroupID.xy) * ivec2(GX, GY);
  int tid = int(gl_LocalInvocationIndex);
#if AXIS == 0
  int o0 = 2 * (g0.x - dst_pad) + first + src_pad;
  for (int k = tid; k < SPAN * GY; k += GX * GY) {
    int r = k / SPAN, q = k - r * SPAN;
    int x = remap_index(o0 + q, size.x, border), y = min(g0.y + r, size.y - 1);  // rows past the image: never stored
    strip[r * SPAN + q] = x >= 0 ? at(x, y) : vec4(0.0);
  }
#else
  int o0 = 2 * (g0.y - dst_pad) + first + src_pad;
  for (int k = tid; k < SPAN * GX; k += GX * GY) {
    int q = k / GX, c = k - q * GX;
    int y = remap_index(o0 + q, size.y, border), x = min(g0.x + c, size.x - 1);
    strip[q * GX + c] = y >= 0 ? at(x, y) : vec4(0.0);
  }
#endif
  barrier();
  ivec2 l = LOCAL_ID, t = g0 + l;
  if (t.x >= osize.x || t.y >= osize.y) return;
  vec4 acc = vec4(0.0);
#if AXIS == 0
  for (int i = 0; i < N; ++i) acc += taps[i] * strip[l.y * SPAN + 2 * l.x + i];
#else
  for (int j = 0; j < N; ++j) acc += taps[j] * strip[(2 * l.y + j) * GX + l.x];
#endif
  imageStore(dst, t, acc);
}
#else
void main() {
  ivec2 t = GLOBAL_ID;
  ivec2 osize = imageSize(dst);
  if (t.x >= osize.x || t.y >= osize.y) return;
  ivec2 size = gpublur_src_size;
  vec4 acc = vec4(0.0);
#if AXIS == 0
  int o = 2 * (t.x - dst_pad) + first + src_pad;
  for (int i = 0; i < N; ++i) {
    int x = remap_index(o + i, size.x, border);
    if (x >= 0) acc += taps[i] * at(x, t.y);
  }
#else
  int o = 2 * (t.y - dst_pad) + first + src_pad;
  for (int j = 0; j < N; ++j) {
    int y = remap_index(o + j, size.y, border);
    if (y >= 0) acc += taps[j] * at(t.x, y);
  }
#endif
  imageStore(dst, t, acc);
}
#endif
