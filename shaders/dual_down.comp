// dual-down: the dual filter's down pass (core/program.hpp Op::DualDown, core/methods/kawase_dual.cpp) through
// the texture unit (a sampler with GL_LINEAR and the border's wrap mode). Output pixel p of the half-size image;
// its centre is source point c = 2p + 1 (continuous source texels); samples at c and c +- (1, 1): every one
// exactly halfway between source pixels, where the interpolation weights are 1/2 (as kawase.comp's).
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(dst);
  if (p.x >= size.x || p.y >= size.y) return;
  vec2 inv = 1.0 / vec2(textureSize(src, 0));
  vec2 c = 2.0 * vec2(p) + 1.0;
  vec4 sum = 4.0 * texture(src, c * inv);
  sum += texture(src, (c + vec2(-1.0, -1.0)) * inv) + texture(src, (c + vec2(1.0, -1.0)) * inv) +
         texture(src, (c + vec2(-1.0, 1.0)) * inv) + texture(src, (c + vec2(1.0, 1.0)) * inv);
  imageStore(dst, p, sum * 0.125);
}
