// dual-up: the dual filter's up pass (core/program.hpp Op::DualUp, core/methods/kawase_dual.cpp). Output pixel
// p of the double-size image has its centre at source point u = (p + 1/2) / 2 (continuous source texels); the
// pass is (s(u +- (1, 0)) + s(u +- (0, 1)) + 2 s(u +- (1/2, 1/2))) / 12 over bilinear samples s. Every sample
// lies a quarter texel off a pixel centre, so the pattern is a fixed 4 x 4 weight matrix per output phase
// (even/odd x and y): per axis over the window X - 2 .. X + 2 of the 2 x 2 outputs 2X, 2X + 1, the sums of
// the 1/4, 3/4 interpolation weights of the axial samples at +-1 (P), the one at 0 (Q) and the diagonal ones
// at +-1/2 (R), weight (P_x Q_y + Q_x P_y + 2 R_x R_y) / 12 -- the same as gpu/cuda/passes/dual.cuh.
// The direct form: one invocation makes the 2 x 2 fine pixels 2X + px, 2Y + py from the 5 x 5 coarse pixels
// X - 2 .. X + 2, Y - 2 .. Y + 2 read straight through texelFetch with the border remap (25 fetches for 4
// outputs; the texture cache catches the overlap of neighbouring windows). No shared memory, no barrier; 16 x 16
// groups (measured best on an H100 against 32 x 8, a shared-memory tile per group, 2 or 4 quads per invocation
// and imageLoad: docs/performance.md, "kawase --impl dual"). The loops have constant trip counts and the
// weights are constant expressions: unrolled (NVIDIA's unroll pragma, gl_tuning.hpp), the zero weights drop out
// as in the CUDA kernel.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;

// [phase * 5 + window index]: per axis the axial samples at +-1 (P), the one at 0 (Q), the diagonal ones at
// +-1/2 (R).
const float P[10] = float[10](0.25, 0.75, 0.25, 0.75, 0.0, 0.0, 0.75, 0.25, 0.75, 0.25);
const float Q[10] = float[10](0.0, 0.25, 0.75, 0.0, 0.0, 0.0, 0.0, 0.75, 0.25, 0.0);
const float R[10] = float[10](0.0, 0.75, 1.0, 0.25, 0.0, 0.0, 0.25, 1.0, 0.75, 0.0);

float weight(int px, int py, int i, int j) {
  return (P[px * 5 + i] * Q[py * 5 + j] + Q[px * 5 + i] * P[py * 5 + j] + 2.0 * R[px * 5 + i] * R[py * 5 + j]) *
         (1.0 / 12.0);
}

// (x, y) already remapped, -1 reads zero.
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : texelFetch(src, ivec2(x, y), 0); }

void main() {
  ivec2 ssize = textureSize(src, 0);
  ivec2 dsize = imageSize(dst);
  // Coarse pixel (X, Y): outputs 2X, 2X + 1 (x) 2Y, 2Y + 1.
  ivec2 g = GLOBAL_ID;
  int X = g.x, Y = g.y;
  if (2 * X >= dsize.x || 2 * Y >= dsize.y) return;
  int cx[5];
  for (int i = 0; i < 5; ++i) cx[i] = remap_index(X - 2 + i, ssize.x, border);
  vec4 acc[4];  // [py * 2 + px]
  for (int k = 0; k < 4; ++k) acc[k] = vec4(0.0);
  for (int j = 0; j < 5; ++j) {
    int ry = remap_index(Y - 2 + j, ssize.y, border);
    for (int i = 0; i < 5; ++i) {
      vec4 v = at(cx[i], ry);
      float w00 = weight(0, 0, i, j), w10 = weight(1, 0, i, j), w01 = weight(0, 1, i, j), w11 = weight(1, 1, i, j);
      if (w00 != 0.0) acc[0] += w00 * v;
      if (w10 != 0.0) acc[1] += w10 * v;
      if (w01 != 0.0) acc[2] += w01 * v;
      if (w11 != 0.0) acc[3] += w11 * v;
    }
  }
  ivec2 p = ivec2(2 * X, 2 * Y);
  imageStore(dst, p, acc[0]);
  if (p.x + 1 < dsize.x) imageStore(dst, p + ivec2(1, 0), acc[1]);
  if (p.y + 1 < dsize.y) imageStore(dst, p + ivec2(0, 1), acc[2]);
  if (p.x + 1 < dsize.x && p.y + 1 < dsize.y) imageStore(dst, p + ivec2(1, 1), acc[3]);
}
