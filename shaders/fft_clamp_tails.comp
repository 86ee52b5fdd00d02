// fft-conv1d's unpadded lines (gpu/gl/passes/fft_segments.hpp), clamp: after the segments' transform of the line
// alone (the zero border's result), add the clamp extension's share in closed form: out(x) += x[0] tails[x] for
// x < radius and x[n - 1] tails[radius + n - 1 - x] for n - 1 - x < radius (core/fft.hpp fft_clamp_tails). An
// invocation per (tail position, line): the positions x < a = min(r, n) and x >= b = max(n - r, a); rows along the
// positions, columns across the lines, so that neighbouring invocations touch neighbouring texels.
layout(local_size_x = 256) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) uniform image2D dst;
layout(std430, binding = 1) readonly buffer Tails { float tails[]; };
uniform int radius;

#if AXIS == 0
#define AT(along, line) ivec2(along, line)
#else
#define AT(along, line) ivec2(line, along)
#endif

void main() {
  ivec2 size = gpublur_src_size;
#if AXIS == 0
  int n = size.x, lines = size.y, t = int(gl_GlobalInvocationID.x), ln = int(gl_GlobalInvocationID.y);
#else
  int n = size.y, lines = size.x, ln = int(gl_GlobalInvocationID.x), t = int(gl_GlobalInvocationID.y);
#endif
  int a = min(radius, n), b = max(n - radius, a);
  if (ln >= lines || t >= a + (n - b)) return;
  int x = t < a ? t : b + (t - a);
  vec4 v = imageLoad(dst, AT(x, ln));
  if (x < radius) v += tails[x] * texelFetch(src, AT(0, ln), 0);
  if (n - 1 - x < radius) v += tails[radius + n - 1 - x] * texelFetch(src, AT(n - 1, ln), 0);
  imageStore(dst, AT(x, ln), v);
}
