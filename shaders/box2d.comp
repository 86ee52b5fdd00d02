// box2d: the mean of src over the w x w window centred on each pixel, read directly: w^2 texel fetches per
// pixel (the thesis's 2D box), summed in float64. dst's stored texel t is pixel t - dst_pad; a padded source
// is read inside its area, an unpadded one with the border mode (remapped only where the window leaves it).
// Window rows row_begin .. row_end - 1 per dispatch: all of them on GPUs; on llvmpipe (it ends a shader's
// loops after 65535 iterations in all) the host splits them over dispatches that carry the float64 sum in a
// storage buffer (resume / last).
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 0) buffer Accum { dvec4 accum[]; };
uniform ivec2 size;  // the image without padding
uniform int src_pad;
uniform int dst_pad;
uniform int border;
uniform int h;       // half-width: w = 2 h + 1
uniform double inv_area;
uniform int row_begin;
uniform int row_end;
uniform bool resume;
uniform bool last;

void main() {
  ivec2 t = GLOBAL_ID;
  ivec2 dsize = size + 2 * dst_pad;
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  ivec2 p = t - dst_pad;
  int i = t.y * dsize.x + t.x;
  dvec4 sum = resume ? accum[i] : dvec4(0.0);
  int w = 2 * h + 1;
  bool inside = src_pad > 0 || (p.x - h >= 0 && p.y - h >= 0 && p.x + h < size.x && p.y + h < size.y);
  if (inside) {
    ivec2 o = p - h + src_pad;
    for (int dy = row_begin; dy < row_end; ++dy)
      for (int dx = 0; dx < w; ++dx) sum += dvec4(texelFetch(src, o + ivec2(dx, dy), 0));
  } else {
    for (int dy = row_begin; dy < row_end; ++dy) {
      int y = remap_index(p.y - h + dy, size.y, border);
      if (y < 0) continue;
      for (int dx = 0; dx < w; ++dx) {
        int x = remap_index(p.x - h + dx, size.x, border);
        if (x >= 0) sum += dvec4(texelFetch(src, ivec2(x, y), 0));
      }
    }
  }
  if (last)
    imageStore(dst, t, vec4(sum * inv_area));
  else
    accum[i] = sum;
}
