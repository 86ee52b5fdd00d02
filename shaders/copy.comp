// copy: one read and one write per pixel, the bandwidth floor the blurs are compared with.
// PADDED 1 (padded images, core/program.hpp): dst's stored texel t is pixel t - dst_pad of the image frame;
// a padded source is read inside its area, an unpadded one with the border mode.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
#if PADDED
uniform ivec2 size;  // the image without padding
uniform int src_pad;
uniform int dst_pad;
uniform int border;
#endif

void main() {
  ivec2 p = GLOBAL_ID;
#if PADDED
  if (p.x >= size.x + 2 * dst_pad || p.y >= size.y + 2 * dst_pad) return;
  ivec2 q = p - dst_pad;
  imageStore(dst, p, src_pad > 0 ? texelFetch(src, q + src_pad, 0) : fetch_texel(src, q, size, border));
#else
  ivec2 size = gpublur_src_size;
  if (p.x >= size.x || p.y >= size.y) return;
  imageStore(dst, p, texelFetch(src, p, 0));
#endif
}
