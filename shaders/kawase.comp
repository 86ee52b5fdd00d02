// kawase: the Intel article's pass: the mean of 4 bilinear samples at (x +- (k + 1/2), y +- (k + 1/2)) through
// the texture unit (a sampler with GL_LINEAR and the border's wrap mode); at exactly half-pixel positions the
// interpolation weights are 1/2, so each sample is the mean of its 2 x 2 pixels.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform float offset;  // k + 1/2

void main() {
  ivec2 p = GLOBAL_ID;
  ivec2 size = gpublur_src_size;
  if (p.x >= size.x || p.y >= size.y) return;
  vec2 inv = 1.0 / vec2(size);
  vec2 c = vec2(p) + 0.5;
  vec4 sum = texture(src, (c + vec2(-offset, -offset)) * inv) + texture(src, (c + vec2(offset, -offset)) * inv) +
             texture(src, (c + vec2(-offset, offset)) * inv) + texture(src, (c + vec2(offset, offset)) * inv);
  imageStore(dst, p, 0.25 * sum);
}
