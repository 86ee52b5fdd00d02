// dual-up, direct form (the default; dual_up.comp is the shared-memory tile form kept for one A/B measurement,
// GPUBLUR_GL_RESAMPLE_TILE=1). The same function and weights as dual_up.comp and gpu/cuda/passes/dual.cuh: one
// invocation makes the 2 x 2 fine pixels 2X + px, 2Y + py from the 5 x 5 coarse pixels X - 2 .. X + 2,
// Y - 2 .. Y + 2 read straight through texelFetch with the border remap (25 fetches for 4 outputs; the texture
// cache catches the overlap of neighbouring windows). No shared memory, no barrier; 32 x 8 groups, so a warp
// reads 36 consecutive coarse texels per row and writes 64 consecutive fine pixels on each of its 2 rows. The
// loops have constant trip counts and the weights are constant expressions: unrolled (NVIDIA's unroll
// pragma, gl_tuning.hpp), the zero weights drop out as in the CUDA kernel. ROWS (host #define, 1, 2 or 4)
// such quads per invocation down a column: they share coarse rows, fetched once ((ROWS + 4) x 5 fetches for
// 4 ROWS outputs: 6.25, 3.75, 2.5 per output).
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

// [phase * 5 + window index]: per axis the axial samples at +-1 (P), the one at 0 (Q), the diagonal ones at
// +-1/2 (R), as dual_up.comp.
const float P[10] = float[10](0.25, 0.75, 0.25, 0.75, 0.0, 0.0, 0.75, 0.25, 0.75, 0.25);
const float Q[10] = float[10](0.0, 0.25, 0.75, 0.0, 0.0, 0.0, 0.0, 0.75, 0.25, 0.0);
const float R[10] = float[10](0.0, 0.75, 1.0, 0.25, 0.0, 0.0, 0.25, 1.0, 0.75, 0.0);

float weight(int px, int py, int i, int j) {
  return (P[px * 5 + i] * Q[py * 5 + j] + Q[px * 5 + i] * P[py * 5 + j] + 2.0 * R[px * 5 + i] * R[py * 5 + j]) *
         (1.0 / 12.0);
}

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
  // Coarse pixels X, Y0 .. Y0 + ROWS - 1: outputs 2X, 2X + 1 (x) 2Y, 2Y + 1 for each Y.
  int X = int(gl_GlobalInvocationID.x), Y0 = int(gl_GlobalInvocationID.y) * ROWS;
  if (2 * X >= dsize.x || 2 * Y0 >= dsize.y) return;
  int cx[5];
  for (int i = 0; i < 5; ++i) cx[i] = remap_index(X - 2 + i, ssize.x, border);
  vec4 acc[4 * ROWS];  // [r * 4 + py * 2 + px]
  for (int k = 0; k < 4 * ROWS; ++k) acc[k] = vec4(0.0);
  // Coarse row Y0 - 2 + k is window row j = k - r of quad r: each row is fetched once for every quad using it,
  // and each quad still sums its window rows in order (the same operations as ROWS 1).
  for (int k = 0; k < ROWS + 4; ++k) {
    int ry = remap_index(Y0 - 2 + k, ssize.y, border);
    vec4 v[5];
    for (int i = 0; i < 5; ++i) v[i] = at(cx[i], ry);
    for (int r = 0; r < ROWS; ++r) {
      int j = k - r;
      if (j < 0 || j > 4) continue;
      for (int i = 0; i < 5; ++i) {
        float w00 = weight(0, 0, i, j), w10 = weight(1, 0, i, j), w01 = weight(0, 1, i, j),
              w11 = weight(1, 1, i, j);
        if (w00 != 0.0) acc[r * 4] += w00 * v[i];
        if (w10 != 0.0) acc[r * 4 + 1] += w10 * v[i];
        if (w01 != 0.0) acc[r * 4 + 2] += w01 * v[i];
        if (w11 != 0.0) acc[r * 4 + 3] += w11 * v[i];
      }
    }
  }
  for (int r = 0; r < ROWS; ++r) {
    ivec2 p = ivec2(2 * X, 2 * (Y0 + r));
    if (p.y >= dsize.y) break;
    imageStore(dst, p, acc[r * 4]);
    if (p.x + 1 < dsize.x) imageStore(dst, p + ivec2(1, 0), acc[r * 4 + 1]);
    if (p.y + 1 < dsize.y) imageStore(dst, p + ivec2(0, 1), acc[r * 4 + 2]);
    if (p.x + 1 < dsize.x && p.y + 1 < dsize.y) imageStore(dst, p + ivec2(1, 1), acc[r * 4 + 3]);
  }
}
