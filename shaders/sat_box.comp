// sat-box: the mean of the w x w window centred on each pixel from four lookups in an inclusive float64
// summed-area table (thesis 2.1, equation 2.3), / w^2; lookups before the table's first row or column read 0
// (the empty sum). dst's stored texel t is pixel t - dst_pad; table texel t is pixel t - table_pad.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 0) readonly buffer Table { dvec4 table[]; };
uniform ivec2 dsize;  // dst's stored size
uniform int tw;       // the table's stored width
uniform int table_pad;
uniform int dst_pad;
uniform int h;        // half-width: w = 2 h + 1
uniform double inv_area;

dvec4 S(int x, int y) {  // image coordinates
  x += table_pad, y += table_pad;
  return x < 0 || y < 0 ? dvec4(0.0) : table[y * tw + x];
}

void main() {
  ivec2 t = GLOBAL_ID;
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  ivec2 p = t - dst_pad;
  dvec4 sum = S(p.x + h, p.y + h) - S(p.x - h - 1, p.y + h) - S(p.x + h, p.y - h - 1) + S(p.x - h - 1, p.y - h - 1);
  imageStore(dst, t, vec4(sum * inv_area));
}
