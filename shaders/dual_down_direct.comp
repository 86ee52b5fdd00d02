// dual-down, direct form (the default; dual_down.comp is the shared-memory tile form kept for one A/B
// measurement, GPUBLUR_GL_RESAMPLE_TILE=1). The same function as dual_down.comp and gpu/cuda/passes/dual.cuh:
// inner 2 x 2 / 8 + all 4 x 4 / 32 over source pixels 2X - 1 .. 2X + 2, with the border remap. No shared
// memory, no barrier: each invocation reads its 4 x 4 window straight through texelFetch (the texture cache
// catches the overlap of neighbouring windows, as L1 does for CUDA), 32 x 8 groups so that a warp covers 32
// consecutive outputs of one row (64 + 2 consecutive source texels per row). ROWS (host #define, 1, 2 or 4)
// outputs per invocation down a column: consecutive outputs share 2 source rows, each row's sums are
// computed once (16, 12, 10 fetches per output). Per output the same operations in the same order as ROWS 1.
#ifndef ROWS
#define ROWS 1
#endif
#ifndef LX  // the group shape (GPUBLUR_GL_RESAMPLE_GROUP, gl_tuning.hpp): 32 x 8 by default
#define LX 32
#define LY 8
#endif
layout(local_size_x = LX, local_size_y = LY) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;

// (x, y) already remapped, -1 reads zero. LOAD_IMAGE (GPUBLUR_GL_RESAMPLE_LOAD=image, an A/B knob): the same
// texels by imageLoad from the source bound as a readonly image too, instead of texelFetch.
#ifdef LOAD_IMAGE
layout(binding = 1, STORE_FORMAT) readonly restrict uniform image2D srci;
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : imageLoad(srci, ivec2(x, y)); }
#else
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : texelFetch(src, ivec2(x, y), 0); }
#endif

void main() {
  ivec2 ssize = textureSize(src, 0);
  ivec2 dsize = imageSize(dst);
  int X = int(gl_GlobalInvocationID.x), Y0 = int(gl_GlobalInvocationID.y) * ROWS;
  if (X >= dsize.x || Y0 >= dsize.y) return;
  int c0 = remap_index(2 * X - 1, ssize.x, border), c1 = remap_index(2 * X, ssize.x, border);
  int c2 = remap_index(2 * X + 1, ssize.x, border), c3 = remap_index(2 * X + 2, ssize.x, border);
  // Source row 2 Y0 - 1 + j: sum[j] = (a + d) + mid over its 4 window texels, mid[j] = its inner 2.
  vec4 sum[2 * ROWS + 2], mid[2 * ROWS + 2];
  for (int j = 0; j < 2 * ROWS + 2; ++j) {
    int ry = remap_index(2 * Y0 - 1 + j, ssize.y, border);
    mid[j] = at(c1, ry) + at(c2, ry);
    sum[j] = at(c0, ry) + at(c3, ry) + mid[j];
  }
  for (int r = 0; r < ROWS; ++r) {
    if (Y0 + r < dsize.y) {
      vec4 all = sum[2 * r] + sum[2 * r + 1] + sum[2 * r + 2] + sum[2 * r + 3];
      vec4 inner = mid[2 * r + 1] + mid[2 * r + 2];
      imageStore(dst, ivec2(X, Y0 + r), all * (1.0 / 32.0) + inner * 0.125);
    }
  }
}
