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

void main() {
  ivec2 t = GLOBAL_ID;
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
