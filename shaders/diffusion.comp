// diffusion: STEPS explicit heat steps a dispatch as a walk down the image, CUDA's form (gpu/cuda/passes/diffusion.cu):
// a group of NT invocations owns a strip of NT * CPL columns, each invocation CPL neighbouring columns, and walks the
// rows of a segment plus STEPS above and below. Each new row (level 0) moves every level k < STEPS on by one row: level
// k + 1 at the row before level k's newest, from level k's last three rows (two a level in registers) and its left /
// right neighbours (the invocations' edge columns through shared memory, one barrier a level). Level STEPS is stored
// STEPS rows behind the input. Rows and columns are loaded from the extension the steps preserve (stencil_extension),
// so cells outside the image evolve like the pixels they mirror and no step remaps.
layout(local_size_x = NT) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 size;
uniform int border;
uniform float rate;
uniform int seg;  // output rows a group

const int VALID = NT * CPL - 2 * STEPS;
shared VEC edge[2][2][NT];  // [parity][first / last column][invocation]

void load_row(int y, float sy, int xi[CPL], float xs[CPL], out VEC v[CPL]) {
  for (int j = 0; j < CPL; ++j) v[j] = (xs[j] * sy) * pick(texelFetch(src, ivec2(xi[j], y), 0), 0);
}

void main() {
  const int tid = int(gl_LocalInvocationID.x);
  const int q0 = tid * CPL, x0 = int(gl_WorkGroupID.x) * VALID - STEPS + q0, y0 = int(gl_WorkGroupID.y) * seg;
  int xi[CPL];
  float xs[CPL];
  for (int j = 0; j < CPL; ++j) xi[j] = stencil_extension(x0 + j, size.x, border, xs[j]);
  VEC prev[STEPS][CPL], cur[STEPS][CPL];  // level k's rows before its newest and its newest
  for (int k = 0; k < STEPS; ++k)
    for (int j = 0; j < CPL; ++j) prev[k][j] = cur[k][j] = VEC(0.0);
  const int n = min(seg, size.y - y0), rows = n + 2 * STEPS;  // input rows y0 - STEPS .. y0 + n + STEPS - 1
  VEC next[CPL];
  float sy;
  load_row(stencil_extension(y0 - STEPS, size.y, border, sy), sy, xi, xs, next);
  int parity = 0;
  for (int i = 0; i < rows; ++i) {
    VEC v[CPL] = next;
    if (i + 1 < rows) load_row(stencil_extension(y0 - STEPS + i + 1, size.y, border, sy), sy, xi, xs, next);
    for (int k = 0; k < STEPS; ++k) {
      // v: level k's row i - k; level k + 1 at row i - k - 1 from prev (i - k - 2), cur (i - k - 1) and v.
      edge[parity][0][tid] = cur[k][0];
      edge[parity][1][tid] = cur[k][CPL - 1];
      barrier();  // one a level: the next level writes the other parity's edges
      // The group's outer invocations take their own value: wrong, but only in the cone that is not stored.
      const VEC left = tid > 0 ? edge[parity][1][tid - 1] : cur[k][0];
      const VEC right = tid + 1 < NT ? edge[parity][0][tid + 1] : cur[k][CPL - 1];
      parity ^= 1;
      VEC o[CPL];
      for (int j = 0; j < CPL; ++j) {
        const VEC l = j == 0 ? left : cur[k][max(j - 1, 0)], r = j == CPL - 1 ? right : cur[k][min(j + 1, CPL - 1)];
        // u + c (neighbours - 4 u), not (1 - 4c) u + c neighbours: float's 1 - 4c is not 1 - 4c, and over
        // thousands of steps that drifted even a constant image (a 4x4 of 0.7 to 0.69994 in 20000 steps).
        const VEC u = cur[k][j];
        o[j] = u + rate * (((l + r) + (prev[k][j] + v[j])) - 4.0 * u);
      }
      for (int j = 0; j < CPL; ++j) {
        prev[k][j] = cur[k][j];
        cur[k][j] = v[j];
        v[j] = o[j];
      }
    }
    // v: level STEPS at row i - STEPS of the walk, image row y0 + i - 2 STEPS
    if (i >= 2 * STEPS) {
      const int y = y0 + i - 2 * STEPS;
      for (int j = 0; j < CPL; ++j) {
        const int q = q0 + j, x = x0 + j;
        if (q >= STEPS && q < STEPS + VALID && x < size.x) imageStore(dst, ivec2(x, y), as_texel(v[j]));
      }
    }
  }
}
