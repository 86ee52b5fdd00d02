// conv2d-matrix: direct 2D correlation with a full KW x KH matrix of weights (core/program.hpp
// Op::Conv2dMatrix), the weights in a storage buffer, row-major. One invocation per output pixel, 16 x 16
// groups, every source texel read through texelFetch with the border remap (the texture cache serves the
// neighbours' overlap). Kernel rows dy_begin..dy_end-1 per dispatch: all of them on GPUs; on llvmpipe (its
// loop limit, gl_pass_context.hpp kLoopBudget) the host splits them over dispatches that carry the running sum
// in an RGBA32F accumulator (resume / last), as conv2d.comp does.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(binding = 1, rgba32f) uniform image2D accum;
layout(std430, binding = 0) readonly buffer Weights { float w[]; };
uniform int border;
uniform int kw;  // matrix width (odd); the height is implied by the rows dispatched
uniform int ry;  // half the matrix height
uniform int dy_begin;
uniform int dy_end;
uniform bool resume;
uniform bool last;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = gpublur_src_size;
  if (p.x >= size.x || p.y >= size.y) return;
  int rx = kw / 2;
  vec4 acc = resume ? imageLoad(accum, p) : vec4(0.0);
  for (int j = dy_begin; j < dy_end; ++j) {
    int y = remap_index(p.y - ry + j, size.y, border);
    if (y < 0) continue;
    vec4 row = vec4(0.0);
    int base = j * kw;
    for (int i = 0; i < kw; ++i) {
      int x = remap_index(p.x - rx + i, size.x, border);
      if (x >= 0) row += w[base + i] * texelFetch(src, ivec2(x, y), 0);
    }
    acc += row;
  }
  if (last)
    imageStore(dst, p, acc);
  else
    imageStore(accum, p, acc);
}
