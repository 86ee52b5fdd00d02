// dual-up: the dual filter's up pass (core/program.hpp Op::DualUp, core/methods/kawase_dual.cpp). Output pixel
// p of the double-size image has its centre at source point u = (p + 1/2) / 2 (continuous source texels); the
// pass is (s(u +- (1, 0)) + s(u +- (0, 1)) + 2 s(u +- (1/2, 1/2))) / 12 over bilinear samples s. Every sample
// lies a quarter texel off a pixel centre, so the pattern is a fixed weight matrix per output phase (even/odd x
// and y): per axis over the coarse window X - 2 .. X + 2 of fine pixel 2X + phase, the sums of the 1/4, 3/4
// interpolation weights of the axial samples at +-1 (P), the one at 0 (Q) and the diagonal ones at +-1/2 (R),
// weight (P_x Q_y + Q_x P_y + 2 R_x R_y) / 12 -- the same as gpu/cuda/passes/dual.cuh. Phase 0 weighs window
// indices 0 .. 3 only, phase 1 indices 1 .. 4: a 4 x 4 window from X - 2 + phase. Zero weights (three corners
// per phase) are skipped, as CUDA's constant folding drops them, so an infinite pixel outside the samples stays
// outside.
// A group owns a TILE x TILE tile of fine pixels (the dual images are unpadded; tiles start on even pixels).
// Phase 1 fills `win` with the coarse pixels the tile reads, TILE / 2 + 4 per axis from tile0 / 2 - 2, each
// once, border-remapped; phase 2 makes one fine pixel per invocation and row step from 16 cells of it, the warps
// on GOBs (LOCAL_ID). The direct form before (25 texelFetch per 2 x 2 outputs, bound by the fetch rate) took 0.27
// ms for the full-size pass on an H100, this one 0.16; 2 or 4 consecutive rows per invocation (fewer shared
// reads, stores over several GOBs) 0.18 / 0.21 (docs/performance.md, "GL dual").
// (The last two ups as one dispatch, the middle level in shared memory from a coarse window, measured 0.28 ms
// against 0.05 + 0.16 for the two: not paired.)
// #defines: TILE (the fine tile, a multiple of 8; the group is TILE x 8 invocations: 32 x 16 took 0.23 ms
// against 0.16 for the full-size pass on an H100).
layout(local_size_x = TILE, local_size_y = 8) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;

const int WIN = TILE / 2 + 4;
shared vec4 win[WIN * WIN];

// Per axis and phase, the weights of the 4 window cells from X - 2 + phase (dual.cuh Pv, Qv, Rv).
const vec4 P0 = vec4(0.25, 0.75, 0.25, 0.75), P1 = vec4(0.75, 0.25, 0.75, 0.25);
const vec4 Q0 = vec4(0.0, 0.25, 0.75, 0.0), Q1 = vec4(0.0, 0.75, 0.25, 0.0);
const vec4 R0 = vec4(0.0, 0.75, 1.0, 0.25), R1 = vec4(0.25, 1.0, 0.75, 0.0);

// w[j][i]: the weight of window row j, column i for an output of phases (px, py).
mat4 up_weights(int px, int py) {
  vec4 Px = px == 0 ? P0 : P1, Qx = px == 0 ? Q0 : Q1, Rx = px == 0 ? R0 : R1;
  vec4 Py = py == 0 ? P0 : P1, Qy = py == 0 ? Q0 : Q1, Ry = py == 0 ? R0 : R1;
  mat4 w;
  for (int j = 0; j < 4; ++j) w[j] = (Px * Qy[j] + Qx * Py[j] + 2.0 * Rx * Ry[j]) * (1.0 / 12.0);
  return w;
}

void main() {
  ivec2 ssize = gpublur_src_size;
  ivec2 dsize = imageSize(dst);
  ivec2 tile0 = ivec2(gl_WorkGroupID.xy) * TILE;
  ivec2 c0 = tile0 / 2 - 2;  // the coarse pixel of cell (0, 0)
  const int nthreads = int(gl_WorkGroupSize.x * gl_WorkGroupSize.y);
  int tid = int(gl_LocalInvocationIndex);
  for (int k = tid; k < WIN * WIN; k += nthreads) {
    int r = k / WIN, c = k - r * WIN;
    win[k] = fetch_texel(src, c0 + ivec2(c, r), ssize, border);
  }
  memoryBarrierShared();
  barrier();
  ivec2 lid = LOCAL_ID;
  int py = lid.y & 1;  // the y phase (the row step, gl_WorkGroupSize.y, is even)
  mat4 w = up_weights(lid.x & 1, py);
  int sx = lid.x / 2 + (lid.x & 1);  // the window column of the output's first cell
  for (int ly = lid.y; ly < TILE; ly += int(gl_WorkGroupSize.y)) {
    ivec2 t = tile0 + ivec2(lid.x, ly);
    if (t.x >= dsize.x || t.y >= dsize.y) continue;
    int base = (ly / 2 + py) * WIN + sx;
    vec4 acc = vec4(0.0);
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i)
        if (w[j][i] != 0.0) acc += w[j][i] * win[base + j * WIN + i];
    imageStore(dst, t, acc);
  }
}
