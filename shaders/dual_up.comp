// dual-up: the dual filter's up pass (core/program.hpp Op::DualUp, core/methods/kawase_dual.cpp) through the
// texture unit (a sampler with GL_LINEAR and the border's wrap mode). Output pixel p of the double-size image;
// its centre is source point u = (p + 1/2) / 2 (continuous source texels); samples at u +- (1, 0), u +- (0, 1)
// (weight 1) and u +- (1/2, 1/2) (weight 2), / 12. Every sample lies a quarter texel off a pixel centre, where
// the interpolation weights 1/4, 3/4 are exact in the texture unit's 8 fractional bits.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(dst);
  if (p.x >= size.x || p.y >= size.y) return;
  vec2 inv = 1.0 / vec2(textureSize(src, 0));
  vec2 u = (vec2(p) + 0.5) * 0.5;
  vec4 axial = texture(src, (u + vec2(-1.0, 0.0)) * inv) + texture(src, (u + vec2(1.0, 0.0)) * inv) +
               texture(src, (u + vec2(0.0, -1.0)) * inv) + texture(src, (u + vec2(0.0, 1.0)) * inv);
  vec4 diagonal = texture(src, (u + vec2(-0.5, -0.5)) * inv) + texture(src, (u + vec2(0.5, -0.5)) * inv) +
                  texture(src, (u + vec2(-0.5, 0.5)) * inv) + texture(src, (u + vec2(0.5, 0.5)) * inv);
  imageStore(dst, p, (axial + 2.0 * diagonal) * (1.0 / 12.0));
}
