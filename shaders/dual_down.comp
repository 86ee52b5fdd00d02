// dual-down: the dual filter's down pass (core/program.hpp Op::DualDown, core/methods/kawase_dual.cpp). Output
// pixel p of the half-size image has its centre at source point c = 2p + 1 (continuous source texels); the pass
// is (4 s(c) + s(c +- (1, 1)) + s(c +- (1, -1))) / 8 over bilinear samples s, each exactly halfway between
// source pixels: the centre sample is the mean of source pixels 2p .. 2p + 1, the corner ones the means of the
// four 2 x 2 blocks tiling 2p - 1 .. 2p + 2, so the pass is inner 2 x 2 / 8 + all 4 x 4 / 32 over source pixels
// 2X - 1 .. 2X + 2 with the border remap (as gpu/cuda/passes/dual.cuh). Explicit weights instead of 5
// texture-unit samples per output (each a 64-byte RGBA32F footprint). The direct form: each invocation reads its
// 4 x 4 window straight through texelFetch (the texture cache catches the overlap of neighbouring windows, as
// L1 does for CUDA), no shared memory, no barrier; 16 x 16 groups (measured best on an H100 against 32 x 8,
// a shared-memory tile per group, 2 or 4 outputs per invocation and imageLoad: docs/performance.md, "kawase
// --impl dual"), 8 x 8 for small outputs (gpu/gl/passes/dual.cpp).
// #defines: GROUP (the group is GROUP x GROUP invocations, a multiple of 8).
layout(local_size_x = GROUP, local_size_y = GROUP) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;

// (x, y) already remapped, -1 reads zero.
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : texelFetch(src, ivec2(x, y), 0); }

void main() {
  ivec2 ssize = gpublur_src_size;
  ivec2 dsize = imageSize(dst);
  ivec2 p = GLOBAL_ID;
  if (p.x >= dsize.x || p.y >= dsize.y) return;
  int c0 = remap_index(2 * p.x - 1, ssize.x, border), c1 = remap_index(2 * p.x, ssize.x, border);
  int c2 = remap_index(2 * p.x + 1, ssize.x, border), c3 = remap_index(2 * p.x + 2, ssize.x, border);
  // Source row 2 p.y - 1 + j: its 4 window texels' sum into `all`, the inner 2 of rows j = 1, 2 into `inner`.
  vec4 all = vec4(0.0), inner = vec4(0.0);
  for (int j = 0; j < 4; ++j) {
    int ry = remap_index(2 * p.y - 1 + j, ssize.y, border);
    vec4 mid = at(c1, ry) + at(c2, ry);
    all += at(c0, ry) + at(c3, ry) + mid;
    if (j == 1 || j == 2) inner += mid;
  }
  imageStore(dst, p, all * (1.0 / 32.0) + inner * 0.125);
}
