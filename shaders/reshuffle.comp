// reshuffle: Porikli's single-output reshuffling (core/program.hpp Op::Reshuffle; thesis 3.7, Algorithm 3.2):
// per output pixel, for each unique weight the sum of the source texels over its linkage set, then one
// multiply-add of the weight. Weights and links in storage buffers (links: per set its offset count n, then n
// offsets packed as ((dy + reach) << 16) | (dx + reach): one load per tap). One invocation per output pixel, 16 x 16 groups, texelFetch (the texture cache serves the
// neighbours' overlap); the border remap only where the window leaves the image. Sets set_begin..set_end-1 per
// dispatch, their links from link_begin: all on GPUs; on llvmpipe (kLoopBudget) the host splits them over
// dispatches that carry the running sum in an RGBA32F accumulator (resume / last), as conv2d_matrix.comp does.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(binding = 1, rgba32f) uniform image2D accum;
layout(std430, binding = 0) readonly buffer Weights { float w[]; };
layout(std430, binding = 1) readonly buffer Links { int links[]; };
uniform int border;
uniform int reach;  // every |dx|, |dy| <= reach
uniform int set_begin;
uniform int set_end;
uniform int link_begin;
uniform bool resume;
uniform bool last;

void main() {
  ivec2 p = GLOBAL_ID;
  ivec2 size = gpublur_src_size;
  if (p.x >= size.x || p.y >= size.y) return;
  bool inside = all(greaterThanEqual(p, ivec2(reach))) && all(lessThan(p + reach, size));
  ivec2 q = p - ivec2(reach);  // offsets are packed from (-reach, -reach)
  vec4 acc = resume ? imageLoad(accum, p) : vec4(0.0);
  int at = link_begin;
  for (int u = set_begin; u < set_end; ++u) {
    int n = links[at];
    ++at;
    vec4 s = vec4(0.0);
    if (inside) {
      for (int k = 0; k < n; ++k, ++at) s += texelFetch(src, q + ivec2(links[at] & 0xffff, links[at] >> 16), 0);
    } else {
      for (int k = 0; k < n; ++k, ++at) s += fetch_texel(src, q + ivec2(links[at] & 0xffff, links[at] >> 16), size, border);
    }
    acc += w[u] * s;
  }
  if (last)
    imageStore(dst, p, acc);
  else
    imageStore(accum, p, acc);
}
