// down2 with a long analysis kernel (n > 4 taps: the pyramid's last level with the coarsest Gaussian folded in),
// the default form: two direct passes through an RGBA32F scratch texture, one invocation per output, no shared
// memory, no barrier, N (host #define) taps as a constant trip count, 32 x 8 groups.
//   AXIS 0: tmp(X, sy) = sum_i t_i src(2 (X - dst_pad) + first + i + src_pad, sy) for every stored source row
//           sy and stored dst column X (x remapped with the border mode over src's stored width);
//   AXIS 1: dst(X, Y) = sum_j t_j tmp(X, 2 (Y - dst_pad) + first + j + src_pad) (y remapped over src's stored
//           height, which tmp has).
// The same products in the same order as down2.comp and the reference (each row weighted along x, then the row
// results with the column weights; a row the zero border removes adds 0); the row results are kept in float32
// even with half storage. n (2n fetches per output, instead of the n^2 of down2.comp) on 1 / 4^L of the pixels.
// down2_sep.comp (a group's rows through shared memory) is the previous form, GPUBLUR_GL_RESAMPLE_TILE=1.
#ifndef LX  // the group shape (GPUBLUR_GL_RESAMPLE_GROUP, gl_tuning.hpp): 32 x 8 by default
#define LX 32
#define LY 8
#endif
layout(local_size_x = LX, local_size_y = LY) in;
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

#if AXIS == 0
#define SRC_FORMAT STORE_FORMAT
#else
#define SRC_FORMAT rgba32f
#endif
// (x, y) already remapped, -1 reads zero. LOAD_IMAGE (GPUBLUR_GL_RESAMPLE_LOAD=image, an A/B knob): the same
// texels by imageLoad from the source bound as a readonly image too, instead of texelFetch.
#ifdef LOAD_IMAGE
layout(binding = 1, SRC_FORMAT) readonly restrict uniform image2D srci;
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : imageLoad(srci, ivec2(x, y)); }
#else
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : texelFetch(src, ivec2(x, y), 0); }
#endif

void main() {
  ivec2 t = ivec2(gl_GlobalInvocationID.xy);
  ivec2 osize = imageSize(dst);
  if (t.x >= osize.x || t.y >= osize.y) return;
  ivec2 size = textureSize(src, 0);
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
