// The previous form, kept only for one A/B measurement against dual_up_direct.comp (GPUBLUR_GL_RESAMPLE_TILE=1,
// docs/performance.md); the loser goes after it.
// dual-up: the dual filter's up pass (core/program.hpp Op::DualUp, core/methods/kawase_dual.cpp). Output pixel
// p of the double-size image has its centre at source point u = (p + 1/2) / 2 (continuous source texels); the
// pass is (s(u +- (1, 0)) + s(u +- (0, 1)) + 2 s(u +- (1/2, 1/2))) / 12 over bilinear samples s. Every sample
// lies a quarter texel off a pixel centre, so the pattern is a fixed 4 x 4 weight matrix per output phase
// (even/odd x and y): per axis over the window X - 2 .. X + 2 of the 2 x 2 outputs 2X, 2X + 1, the sums of
// the 1/4, 3/4 interpolation weights of the axial samples at +-1 (P), the one at 0 (Q) and the diagonal ones
// at +-1/2 (R), weight (P_x Q_y + Q_x P_y + 2 R_x R_y) / 12 -- the same as gpu/cuda/passes/dual.cuh.
// Explicit weights instead of 8 texture-unit samples per output: each group loads its 20 x 20 source texels
// once into shared memory (0.4 fetches per output instead of 8 filtered ones) and each invocation makes 2 x 2
// outputs from 5 x 5 of them.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;

const int T = 20;  // 16 coarse columns of outputs + 2 on each side
shared vec4 tile[T * T];

// [phase * 5 + window index]
const float P[10] = float[10](0.25, 0.75, 0.25, 0.75, 0.0, 0.0, 0.75, 0.25, 0.75, 0.25);
const float Q[10] = float[10](0.0, 0.25, 0.75, 0.0, 0.0, 0.0, 0.0, 0.75, 0.25, 0.0);
const float R[10] = float[10](0.0, 0.75, 1.0, 0.25, 0.0, 0.0, 0.25, 1.0, 0.75, 0.0);

float weight(int px, int py, int i, int j) {
  return (P[px * 5 + i] * Q[py * 5 + j] + Q[px * 5 + i] * P[py * 5 + j] + 2.0 * R[px * 5 + i] * R[py * 5 + j]) *
         (1.0 / 12.0);
}

void main() {
  ivec2 ssize = textureSize(src, 0);
  ivec2 dsize = imageSize(dst);
  ivec2 origin = ivec2(gl_WorkGroupID.xy) * 16 - 2;
  for (int k = int(gl_LocalInvocationIndex); k < T * T; k += 256)
    tile[k] = fetch_texel(src, origin + ivec2(k % T, k / T), ssize, border);
  barrier();
  ivec2 q = ivec2(gl_GlobalInvocationID.xy);  // coarse pixel X: outputs 2X, 2X + 1
  if (2 * q.x >= dsize.x || 2 * q.y >= dsize.y) return;
  ivec2 l = ivec2(gl_LocalInvocationID.xy);
  vec4 a00 = vec4(0.0), a10 = vec4(0.0), a01 = vec4(0.0), a11 = vec4(0.0);
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 5; ++i) {
      vec4 v = tile[(l.y + j) * T + l.x + i];
      a00 += weight(0, 0, i, j) * v;
      a10 += weight(1, 0, i, j) * v;
      a01 += weight(0, 1, i, j) * v;
      a11 += weight(1, 1, i, j) * v;
    }
  ivec2 p = 2 * q;
  imageStore(dst, p, a00);
  if (p.x + 1 < dsize.x) imageStore(dst, p + ivec2(1, 0), a10);
  if (p.y + 1 < dsize.y) imageStore(dst, p + ivec2(0, 1), a01);
  if (p.x + 1 < dsize.x && p.y + 1 < dsize.y) imageStore(dst, p + ivec2(1, 1), a11);
}
