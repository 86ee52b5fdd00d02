// reshuffle: Porikli's single-output reshuffling (core/program.hpp Op::Reshuffle; thesis 3.7, Algorithm 3.2):
// per output pixel, for each unique weight the sum of the source texels over its linkage set, then one
// multiply-add of the weight. Weights and links in storage buffers (links: per set its offset count n, then n
// offsets). Two forms (gpu/gl/passes/reshuffle.cpp picks):
//  TILE 1  CUDA's tile (gpu/cuda/passes/reshuffle.cuh): a group of TW x BY invocations makes TW x TH outputs, PER =
//          TH / BY rows each (BY apart); the (TW + 2 REACH) x (TH + 2 REACH) source tile is loaded border-remapped
//          into shared memory once (VCH-float texels: float / vec2 for one / two channels; rows PITCH apart), then
//          every set's offsets are read from there; links are tile offsets (dy + REACH) * PITCH + dx + REACH. Where
//          no tile of all the image's channels fits, ROUNDS rounds of VCH channels each, the tile loaded again.
//  TILE 0  one invocation per output, 16 x 16 groups, every tap by texelFetch (the texture cache serves the
//          neighbours' overlap), the border remap only where the window leaves the image; links packed as
//          ((dy + reach) << 16) | (dx + reach). For reaches whose tile does not fit the shared memory.
// Sets set_begin..set_end-1 per dispatch, their links from link_begin: all on GPUs; on llvmpipe (kLoopBudget) the
// host splits them over dispatches that carry the running sum in an RGBA32F accumulator (resume / last), as
// conv2d.comp does.
#if TILE
layout(local_size_x = TW, local_size_y = BY) in;
#define PER (TH / BY)
#define TILE_W (TW + 2 * REACH)
#define TILE_H (TH + 2 * REACH)
shared VEC tile[PITCH * TILE_H];
#else
layout(local_size_x = 16, local_size_y = 16) in;
#endif
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

#if TILE

#if GATHER
// The tile by 2 x 2 blocks of texels (TILE_W, TILE_H even): where a block lies inside the image, one textureGather a
// channel of the VCH from channel c0 (c0 uniform: a select between constant components) instead of four texelFetch
// of whole texels; the border's blocks by texelFetch of their remapped texels.
vec4 gather_channel(vec2 uv, int c) {
  return c == 0 ? textureGather(src, uv, 0)
                : c == 1 ? textureGather(src, uv, 1) : c == 2 ? textureGather(src, uv, 2) : textureGather(src, uv, 3);
}
VEC channels_from(vec4 t, int c0) {
#if VCH == 1
  return c0 == 0 ? t.r : c0 == 1 ? t.g : c0 == 2 ? t.b : t.a;
#else
  return c0 == 0 ? t.rg : t.ba;
#endif
}
void load_tile(ivec2 org, ivec2 size, int c0, int first) {
  const int BW = TILE_W / 2, BH = TILE_H / 2;
  vec2 inv = 1.0 / vec2(size);
  for (int i = first; i < BW * BH; i += TW * BY) {
    int by = i / BW, bx = i - by * BW;
    int t = 2 * by * PITCH + 2 * bx;
    ivec2 g = org - REACH + 2 * ivec2(bx, by);
    if (all(greaterThanEqual(g, ivec2(0))) && all(lessThan(g + 1, size))) {
      vec2 uv = vec2(g + 1) * inv;  // the corner the four texels share: gather's x (g.x, g.y + 1), y (g + 1),
      vec4 a = gather_channel(uv, c0);  // z (g.x + 1, g.y), w (g)
#if VCH == 1
      tile[t] = a.w, tile[t + 1] = a.z, tile[t + PITCH] = a.x, tile[t + PITCH + 1] = a.y;
#else
      vec4 b = gather_channel(uv, c0 + 1);
      tile[t] = vec2(a.w, b.w), tile[t + 1] = vec2(a.z, b.z), tile[t + PITCH] = vec2(a.x, b.x),
      tile[t + PITCH + 1] = vec2(a.y, b.y);
#endif
    } else {
      for (int k = 0; k < 4; ++k) {
        ivec2 d = ivec2(k & 1, k >> 1);
        int x = remap_index(g.x + d.x, size.x, border), y = remap_index(g.y + d.y, size.y, border);
        tile[t + d.y * PITCH + d.x] = (x < 0 || y < 0) ? VEC(0.0) : channels_from(texelFetch(src, ivec2(x, y), 0), c0);
      }
    }
  }
}
#endif
#if ROUNDS > 1
// Round r's channels of a texel, and their place in the texel the outputs collect (selects, not a dynamic index: the
// round loop need not be unrolled, and NVIDIA's GL put an indexed vec4 in local memory).
#if VCH == 1
float part(vec4 t, int r) { return r == 0 ? t.r : r == 1 ? t.g : r == 2 ? t.b : t.a; }
void set_part(inout vec4 t, int r, float v) { t = mix(t, vec4(v), equal(ivec4(0, 1, 2, 3), ivec4(r))); }
#elif VCH == 2
vec2 part(vec4 t, int r) { return r == 0 ? t.rg : t.ba; }
void set_part(inout vec4 t, int r, vec2 v) {
  if (r == 0)
    t.rg = v;
  else
    t.ba = v;
}
#else
vec4 part(vec4 t, int r) { return t; }
void set_part(inout vec4 t, int r, vec4 v) { t = v; }
#endif

void main() {
  ivec2 size = gpublur_src_size;
  ivec2 org = ivec2(gl_WorkGroupID.xy) * ivec2(TW, TH);
  int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
  ivec2 o = org + ivec2(lx, ly);
  vec4 out_texel[PER];  // the rounds' outputs; channels the image does not have stay 0
  for (int p = 0; p < PER; ++p) out_texel[p] = vec4(0.0);
  VEC acc[PER];
  int base = ly * PITCH + lx;  // the tile at offset (-reach, -reach) of this invocation's first output
  for (int r = 0; r < ROUNDS; ++r) {
    if (r > 0) barrier();  // every invocation's reads of the last round's tile before this round's loads
#if GATHER
    load_tile(org, size, r * VCH, ly * TW + lx);
#else
    for (int i = ly * TW + lx; i < TILE_W * TILE_H; i += TW * BY) {
      int ty = i / TILE_W, tx = i - ty * TILE_W;
      int x = remap_index(org.x - REACH + tx, size.x, border), y = remap_index(org.y - REACH + ty, size.y, border);
      tile[ty * PITCH + tx] = (x < 0 || y < 0) ? VEC(0.0) : part(texelFetch(src, ivec2(x, y), 0), r);
    }
#endif
    barrier();
    for (int p = 0; p < PER; ++p) {
      ivec2 q = o + ivec2(0, p * BY);
      acc[p] = (resume && q.x < size.x && q.y < size.y) ? part(imageLoad(accum, q), r) : VEC(0.0);
    }
    int at = link_begin;
    for (int u = set_begin; u < set_end; ++u) {
      int n = links[at];
      ++at;
      VEC s[PER];
      for (int p = 0; p < PER; ++p) s[p] = VEC(0.0);
      for (int k = 0; k < n; ++k, ++at) {
        int off = base + links[at];
        for (int p = 0; p < PER; ++p) s[p] += tile[off + p * BY * PITCH];
      }
      for (int p = 0; p < PER; ++p) acc[p] += w[u] * s[p];
    }
    for (int p = 0; p < PER; ++p) set_part(out_texel[p], r, acc[p]);
  }
  if (o.x >= size.x) return;
  for (int p = 0; p < PER; ++p) {
    ivec2 q = o + ivec2(0, p * BY);
    if (q.y >= size.y) break;
    if (last)
      imageStore(dst, q, out_texel[p]);
    else
      imageStore(accum, q, out_texel[p]);
  }
}
#else
// One round: the shader as it was before the rounds (the same text with a round loop of one, or none, ran one
// channel at sigma 8-12 6% slower on NVIDIA: calls 395-396).
void main() {
  ivec2 size = gpublur_src_size;
  ivec2 org = ivec2(gl_WorkGroupID.xy) * ivec2(TW, TH);
  int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
#if GATHER
  load_tile(org, size, 0, ly * TW + lx);
#else
  for (int i = ly * TW + lx; i < TILE_W * TILE_H; i += TW * BY) {
    int ty = i / TILE_W, tx = i - ty * TILE_W;
    int x = remap_index(org.x - REACH + tx, size.x, border), y = remap_index(org.y - REACH + ty, size.y, border);
    tile[ty * PITCH + tx] = (x < 0 || y < 0) ? VEC(0.0) : pick(texelFetch(src, ivec2(x, y), 0), 0);
  }
#endif
  barrier();
  ivec2 o = org + ivec2(lx, ly);
  VEC acc[PER];
  for (int p = 0; p < PER; ++p) {
    ivec2 q = o + ivec2(0, p * BY);
    acc[p] = (resume && q.x < size.x && q.y < size.y) ? pick(imageLoad(accum, q), 0) : VEC(0.0);
  }
  int base = ly * PITCH + lx;  // the tile at offset (-reach, -reach) of this invocation's first output
  int at = link_begin;
  for (int u = set_begin; u < set_end; ++u) {
    int n = links[at];
    ++at;
    VEC s[PER];
    for (int p = 0; p < PER; ++p) s[p] = VEC(0.0);
    for (int k = 0; k < n; ++k, ++at) {
      int off = base + links[at];
      for (int p = 0; p < PER; ++p) s[p] += tile[off + p * BY * PITCH];
    }
    for (int p = 0; p < PER; ++p) acc[p] += w[u] * s[p];
  }
  if (o.x >= size.x) return;
  for (int p = 0; p < PER; ++p) {
    ivec2 q = o + ivec2(0, p * BY);
    if (q.y >= size.y) break;
    if (last)
      imageStore(dst, q, as_texel(acc[p]));
    else
      imageStore(accum, q, as_texel(acc[p]));
  }
}
#endif
#else
void main() {
  ivec2 p = GLOBAL_ID;
  ivec2 size = gpublur_src_size;
  if (p.x >= size.x || p.y >= size.y) return;
  bool inside = all(greaterThanEqual(p, ivec2(reach))) && all(lessThan(p + reach, size));
  ivec2 q = p - ivec2(reach);  // offsets are packed from (-reach, -reach)
  VEC acc = resume ? pick(imageLoad(accum, p), 0) : VEC(0.0);
  int at = link_begin;
  for (int u = set_begin; u < set_end; ++u) {
    int n = links[at];
    ++at;
    VEC s = VEC(0.0);
    if (inside) {
      for (int k = 0; k < n; ++k, ++at)
        s += pick(texelFetch(src, q + ivec2(links[at] & 0xffff, links[at] >> 16), 0), 0);
    } else {
      for (int k = 0; k < n; ++k, ++at)
        s += pick(fetch_texel(src, q + ivec2(links[at] & 0xffff, links[at] >> 16), size, border), 0);
    }
    acc += w[u] * s;
  }
  if (last)
    imageStore(dst, p, as_texel(acc));
  else
    imageStore(accum, p, as_texel(acc));
}
#endif
