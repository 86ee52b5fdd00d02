// scale: dst = f * src over dst's stored area, src a float64 table (dvec4 storage buffer, rows of sw) that
// covers it, read `shift` texels on: dst texel t is pixel t - dst_pad, table texel t - dst_pad + src_pad + shift.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 0) readonly buffer Src { dvec4 src[]; };
uniform ivec2 dsize;  // dst's stored size
uniform int sw;       // the source's stored width
uniform int src_pad;
uniform int dst_pad;
uniform int shift;
uniform double f;

void main() {
  ivec2 t = GLOBAL_ID;
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  ivec2 s = t - dst_pad + src_pad + shift;
  imageStore(dst, t, vec4(f * src[s.y * sw + s.x]));
}
