// The previous form, kept only for one A/B measurement against dual_down_direct.comp (GPUBLUR_GL_RESAMPLE_TILE=1,
// docs/performance.md); the loser goes after it.
// dual-down: the dual filter's down pass (core/program.hpp Op::DualDown, core/methods/kawase_dual.cpp). Output
// pixel p of the half-size image has its centre at source point c = 2p + 1 (continuous source texels); the pass
// is (4 s(c) + s(c +- (1, 1)) + s(c +- (1, -1))) / 8 over bilinear samples s, each exactly halfway between
// source pixels: the centre sample is the mean of source pixels 2p .. 2p + 1, the corner ones the means of the
// four 2 x 2 blocks tiling 2p - 1 .. 2p + 2, so the pass is inner 2 x 2 / 8 + all 4 x 4 / 32 (as
// gpu/cuda/passes/dual.cuh). Explicit weights instead of 5 texture-unit samples per output (each a 64-byte
// RGBA32F footprint): each 16 x 16 group loads its 34 x 34 source texels once into shared memory (texelFetch
// with the border remap, 16 bytes each: 4.5 fetches per output) and each invocation sums its 4 x 4 of them.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;

const int T = 34;  // 2 * 16 source columns of the group's outputs + 1 on each side
shared vec4 tile[T * T];

void main() {
  ivec2 ssize = textureSize(src, 0);
  ivec2 dsize = imageSize(dst);
  ivec2 origin = ivec2(gl_WorkGroupID.xy) * 32 - 1;
  for (int k = int(gl_LocalInvocationIndex); k < T * T; k += 256)
    tile[k] = fetch_texel(src, origin + ivec2(k % T, k / T), ssize, border);
  barrier();
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= dsize.x || p.y >= dsize.y) return;
  ivec2 l = 2 * ivec2(gl_LocalInvocationID.xy);  // the window's first tile texel
  vec4 all = vec4(0.0), inner = vec4(0.0);
  for (int j = 0; j < 4; ++j) {
    int row = (l.y + j) * T + l.x;
    vec4 mid = tile[row + 1] + tile[row + 2];
    all += tile[row] + tile[row + 3] + mid;
    if (j == 1 || j == 2) inner += mid;
  }
  imageStore(dst, p, all * (1.0 / 32.0) + inner * 0.125);
}
