// gauss-2d: direct 2D convolution, (2r+1)^2 border-remapped fetches per pixel with weight w[dy] * w[dx].
// Each kernel row is summed first and then weighted by w[dy]: the same products, summed in an order that
// keeps float rounding small at large radii (up to 385^2 taps at sigma 64).
// One dispatch covers kernel rows dy_begin..dy_end-1; long kernels take several dispatches that carry the
// running sum in an RGBA32F accumulator. That keeps each invocation's loop short: Mesa llvmpipe silently
// stops loops after 65535 iterations, and short dispatches are kinder to any GPU scheduler.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(binding = 1, rgba32f) uniform image2D accum;
layout(std430, binding = 0) readonly buffer Weights { float w[]; };
uniform int radius;
uniform int border;
uniform int dy_begin;
uniform int dy_end;
uniform bool resume;  // start from accum instead of zero
uniform bool last;    // write the result to dst instead of accum

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = textureSize(src, 0);
  if (p.x >= size.x || p.y >= size.y) return;
  vec4 acc = resume ? imageLoad(accum, p) : vec4(0.0);
  for (int dy = dy_begin; dy < dy_end; ++dy) {
    int y = remap_index(p.y + dy, size.y, border);
    if (y < 0) continue;
    vec4 row = vec4(0.0);
    for (int dx = -radius; dx <= radius; ++dx) {
      int x = remap_index(p.x + dx, size.x, border);
      if (x < 0) continue;
      row += w[dx + radius] * texelFetch(src, ivec2(x, y), 0);
    }
    acc += w[dy + radius] * row;
  }
  if (last)
    imageStore(dst, p, acc);
  else
    imageStore(accum, p, acc);
}
