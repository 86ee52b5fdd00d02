// bilateral (axis < 0: the (2r+1)^2 window) and bilateral1d (axis 0 / 1): out = sum w_s w_r I(q) / sum w_s w_r,
// w_s the product of the 1D weights, w_r = exp(-range * |I(p) - I(q)|^2) over the colour channels (`colour`
// masks them: every channel of the image but its alpha, core's pass_alpha). Border reads as the CPU reference.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 1) readonly buffer Weights { float wt[]; };
uniform ivec2 size;
uniform int border;
uniform int radius;
uniform int axis;
uniform float range;
uniform vec4 colour;

void main() {
  ivec2 p = GLOBAL_ID;
  if (p.x >= size.x || p.y >= size.y) return;
  vec4 centre = texelFetch(src, p, 0);
  int ry = axis != 0 ? radius : 0, rx = axis != 1 ? radius : 0;
  vec4 sum = vec4(0.0);
  float total = 0.0;
  for (int dy = -ry; dy <= ry; ++dy) {
    float wy = axis == 0 ? 1.0 : wt[dy + radius];
    for (int dx = -rx; dx <= rx; ++dx) {
      vec4 q = fetch_texel(src, p + ivec2(dx, dy), size, border);
      // Selected, not multiplied: a non-finite value in a channel outside the colour (alpha) must not reach the weight
      // (Inf x 0 is NaN; the CPU reference and CUDA leave those channels out of the sum).
      vec4 d = mix(vec4(0.0), q - centre, notEqual(colour, vec4(0.0)));
      float d2 = dot(d, d);
      float w = (axis == 1 ? wy : wy * wt[dx + radius]) * exp(-range * d2);
      // The weight floor (core/program.hpp bilateral_weight_floor): every weight of a finite distance is positive.
      if (d2 <= 3.40282347e38) w = max(w, 1.17549435e-38);
      total += w;
      sum += w * q;
    }
  }
  imageStore(dst, p, sum / total);
}
