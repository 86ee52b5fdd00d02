// spread: Kosloff's spreading in gather form (core/program.hpp Op::Spread): each pixel of the float64
// destination (a storage buffer of dvec4, rows of dsize.x) sums the nine weighted source pixels that spread
// onto it, dst(t) = sum w_a w_b E(p - 1 + (a, b) R), w = (1, -2, 1), p = t - 2 dst_pad (all of dst's padding
// lies before the image); E is the source read
// with the border mode on the area extended by `extend` pixels and 0 beyond.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(std430, binding = 0) writeonly buffer Dst { dvec4 dst[]; };
uniform ivec2 dsize;  // dst's stored size
uniform ivec2 size;   // the image without padding
uniform int dst_pad;
uniform int R;
uniform int extend;
uniform int border;

void main() {
  ivec2 t = ivec2(gl_GlobalInvocationID.xy);
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  ivec2 p = t - 2 * dst_pad - 1;
  dvec4 acc = dvec4(0.0);
  for (int b = -1; b <= 1; ++b) {
    int y = p.y + b * R;
    if (y < -extend || y >= size.y + extend) continue;
    for (int a = -1; a <= 1; ++a) {
      int x = p.x + a * R;
      if (x < -extend || x >= size.x + extend) continue;
      double w = double((a == 0 ? -2 : 1) * (b == 0 ? -2 : 1));
      acc += w * dvec4(fetch_texel(src, ivec2(x, y), size, border));
    }
  }
  dst[t.y * dsize.x + t.x] = acc;
}
