// Shared by every gpublur shader: border index remapping, identical to core/border.hpp remap_index.
// Border codes: 0 clamp, 1 mirror, 2 wrap, 3 zero (gpublur::Border).
// GLSL's % is undefined for negative operands, so negative indices are folded with non-negative ones.

int gpublur_mod(int i, int n) {  // mathematical i mod n, for n > 0
  return i >= 0 ? i % n : (n - 1) - ((-i - 1) % n);
}

// Maps i to [0, n), or -1 where the border reads zero.
int remap_index(int i, int n, int border) {
  if (i >= 0 && i < n) return i;
  if (border == 0) return i < 0 ? 0 : n - 1;
  if (border == 2) return gpublur_mod(i, n);
  if (border == 1) {
    int period = 2 * n;
    int m = gpublur_mod(i, period);
    return m < n ? m : period - 1 - m;
  }
  return -1;
}

// The texel at p (any distance outside the image) under the border mode.
vec4 fetch_texel(sampler2D s, ivec2 p, ivec2 size, int border) {
  int x = remap_index(p.x, size.x, border);
  int y = remap_index(p.y, size.y, border);
  if (x < 0 || y < 0) return vec4(0.0);
  return texelFetch(s, ivec2(x, y), 0);
}
