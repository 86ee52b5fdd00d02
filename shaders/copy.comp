// copy: one read and one write per pixel, the bandwidth floor the blurs are compared with.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = textureSize(src, 0);
  if (p.x >= size.x || p.y >= size.y) return;
  imageStore(dst, p, texelFetch(src, p, 0));
}
