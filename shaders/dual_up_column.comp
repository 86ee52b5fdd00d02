// dual-up, column form: a candidate against dual_up.comp for one A/B run (GPUBLUR_GL_DUAL_UP=column,
// docs/performance.md "kawase --impl dual"); the loser goes after it. The same function and weights as
// dual_up.comp. Why: dual_up.comp's invocation writes a 2 x 2 quad, so each of its 4 stores writes every other
// pixel of a row across a warp (half of each 32-byte sector per store instruction, 2x the store transactions);
// up2 measured 0.210 ms one output per invocation against 0.393 as 2 x 2 quads on an H100, though the quads
// fetch less. Here one invocation makes one fine column x and 4 fine rows 4G .. 4G + 3 (coarse rows
// Y0 = 2G, Y0 + 1): each store instruction writes a warp's consecutive pixels of a row, and the fetches stay
// as few as the quad's (6 coarse rows x 4 columns = 24 for 4 outputs, against 25). The x phase px = x & 1 is
// the lane's: its 4 window columns start at X - 2 + px (X = x >> 1), where the phase-1 weights are the phase-0
// ones reversed, picked by a select (no divergence). Per coarse row the x-weighted sums a = sum P_x v,
// b = sum Q_x v, c = sum R_x v; each output adds (Q_y a + P_y b + 2 R_y c) / 12 with its y weights, constants.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;

// Phase 0 over window indices 0 .. 3 (coarse X - 2 .. X + 1); phase 1 over 1 .. 4 is each reversed.
const vec4 P0 = vec4(0.25, 0.75, 0.25, 0.75);
const vec4 Q0 = vec4(0.0, 0.25, 0.75, 0.0);
const vec4 R0 = vec4(0.0, 0.75, 1.0, 0.25);
// y weights over the 4 window rows, phase py, already / 12 (R: 2 R / 12).
float wp(int py, int j) { return (py == 0 ? P0[j] : P0[3 - j]) * (1.0 / 12.0); }
float wq(int py, int j) { return (py == 0 ? Q0[j] : Q0[3 - j]) * (1.0 / 12.0); }
float wr(int py, int j) { return (py == 0 ? R0[j] : R0[3 - j]) * (2.0 / 12.0); }

// (x, y) already remapped, -1 reads zero.
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : texelFetch(src, ivec2(x, y), 0); }

void main() {
  ivec2 ssize = textureSize(src, 0);
  ivec2 dsize = imageSize(dst);
  int x = int(gl_GlobalInvocationID.x), f0 = 4 * int(gl_GlobalInvocationID.y);  // fine column, first fine row
  if (x >= dsize.x || f0 >= dsize.y) return;
  bool odd = (x & 1) == 1;
  vec4 px = odd ? P0.wzyx : P0, qx = odd ? Q0.wzyx : Q0, rx = odd ? R0.wzyx : R0;
  int c0 = (x >> 1) - 2 + (x & 1);
  int cx[4];
  for (int i = 0; i < 4; ++i) cx[i] = remap_index(c0 + i, ssize.x, border);
  int Y0 = f0 >> 1;
  vec4 acc[4];  // fine rows f0 + 2 r + py: [r * 2 + py]
  for (int k = 0; k < 4; ++k) acc[k] = vec4(0.0);
  // Coarse row Y0 - 2 + k is window row j = k - r - py of output (r, py).
  for (int k = 0; k < 6; ++k) {
    int ry = remap_index(Y0 - 2 + k, ssize.y, border);
    vec4 a = vec4(0.0), b = vec4(0.0), c = vec4(0.0);
    for (int i = 0; i < 4; ++i) {
      vec4 v = at(cx[i], ry);
      a += px[i] * v;
      b += qx[i] * v;
      c += rx[i] * v;
    }
    for (int r = 0; r < 2; ++r)
      for (int py = 0; py < 2; ++py) {
        int j = k - r - py;
        if (j < 0 || j > 3) continue;
        float q = wq(py, j), p = wp(py, j), w = wr(py, j);
        vec4 s = acc[r * 2 + py];
        if (q != 0.0) s += q * a;
        if (p != 0.0) s += p * b;
        if (w != 0.0) s += w * c;
        acc[r * 2 + py] = s;
      }
  }
  for (int k = 0; k < 4; ++k)
    if (f0 + k < dsize.y) imageStore(dst, ivec2(x, f0 + k), acc[k]);
}
