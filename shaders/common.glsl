// Shared by every gpublur shader: border index remapping, identical to core/border.hpp remap_index.
// Border codes: 0 clamp, 1 mirror, 2 wrap, 3 zero (gpublur::Border).
// GLSL's % is undefined for negative operands, so negative indices are folded with non-negative ones.

int gpublur_mod(int i, int n) {  // mathematical i mod n, for n > 0
  return i >= 0 ? i % n : (n - 1) - ((-i - 1) % n);
}

// Maps i to [0, n), or -1 where the border reads zero.
int remap_index(int i, int n, int border) {
  if (i >= 0 && i < n) return i;
  if (border == 0) return i < 0 ? 0 : n - 1;
  if (border == 2) return gpublur_mod(i, n);
  if (border == 1) {
    int period = 2 * n;
    int m = gpublur_mod(i, period);
    return m < n ? m : period - 1 - m;
  }
  return -1;
}

// Where diffusion's radius-1 steps can run on an extended image that they keep extended (core/border.hpp
// stencil_extension, the same function): the index in [0, n) and the sign (1, -1, or 0 on zero's lines).
int stencil_extension(int i, int n, int border, out float sign) {
  sign = 1.0;
  if (i >= 0 && i < n) return i;
  if (border != 3) return remap_index(i, n, border == 2 ? 2 : 1);
  int period = 2 * (n + 1);
  int m = gpublur_mod(i + 1, period);
  if (m == 0 || m == n + 1) {
    sign = 0.0;
    return 0;
  }
  if (m <= n) return m - 1;
  sign = -1.0;
  return period - m - 1;
}

// The source texture's stored size (textureSize(src, 0)), set by the backend where it binds src
// (GlPassContext::bind_src): on NVIDIA's GL a textureSize query before the first fetch made a plain copy of
// 4096^2 RGBA32F 0.176 ms against 0.132 without it (H200; docs/performance.md, "The copy floors").
uniform ivec2 gpublur_src_size;

// The texel at p (any distance outside the image) under the border mode.
vec4 fetch_texel(sampler2D s, ivec2 p, ivec2 size, int border) {
  int x = remap_index(p.x, size.x, border);
  int y = remap_index(p.y, size.y, border);
  if (x < 0 || y < 0) return vec4(0.0);
  return texelFetch(s, ivec2(x, y), 0);
}

// A compute invocation's place in its group with each 32-invocation warp on a 4 x 8 block of pixels (groups of
// a multiple of 4 by a multiple of 8; GLOBAL_ID is the pixel). NVIDIA lays textures out block-linear, in GOBs
// of 64 bytes x 8 rows: a 4 x 8 block of RGBA32F texels is one GOB, so a warp's fetches and stores touch one
// 512-byte piece of memory instead of the 4 or 8 GOBs that 16 x 2 or 32 x 1 pixels span. On an H100: copy
// 0.232 -> 0.219 ms, up2-pair 0.164 -> 0.127 (docs/performance.md, "GL: warps on GOBs"). Elsewhere (llvmpipe)
// only a permutation of the invocations. R32F and RG32F texels stay on 4 x 8 too: warps 64 bytes of texels wide
// measured no faster, two channels up to 25% slower ("GL textures as narrow as the image").
ivec2 gob_local_id(uint i, uint group_x) {
  uint lane = i & 31u, warp = i >> 5, per_row = group_x / 4u;
  return ivec2((warp % per_row) * 4u + (lane & 3u), (warp / per_row) * 8u + (lane >> 2));
}
#define LOCAL_ID gob_local_id(gl_LocalInvocationIndex, gl_WorkGroupSize.x)
#define GLOBAL_ID (ivec2(gl_WorkGroupID.xy) * ivec2(gl_WorkGroupSize.xy) + LOCAL_ID)

#ifdef VCH
// A line of VCH channels (1, 2 or 4; gl_tiles.hpp line_vch) of the images' textures (R32F, RG32F, RGBA32F for three
// and four channels: GlPassContext::store_format; a fetch gives G, B = 0, A = 1 where they have none): float / vec2 /
// vec4 values. pick(t, rd) is a texel's channels of round rd (vec2 lines of three or four channels: RG, then BA; float
// lines of two channels: R, then G); as_texel(v) the texel a line writes, zeros in the channels it does not carry.
#if VCH == 1
#define VEC float
#define DVEC double
float pick(vec4 t, int rd) { return rd == 0 ? t.r : t.g; }
vec4 as_texel(float v) { return vec4(v, 0.0, 0.0, 0.0); }
#elif VCH == 2
#define VEC vec2
#define DVEC dvec2
vec2 pick(vec4 t, int rd) { return rd == 0 ? t.rg : t.ba; }
vec4 as_texel(vec2 v) { return vec4(v, 0.0, 0.0); }
#else
#define VEC vec4
#define DVEC dvec4
vec4 pick(vec4 t, int rd) { return t; }
vec4 as_texel(vec4 v) { return v; }
#endif
#else
// No VCH: the vec4 lines of three and four channels in the shaders that also take narrow ones (conv1d.comp,
// conv2d.comp, reshuffle.comp, kawase.comp; gl_tiles.hpp vch_define).
#define VEC vec4
#define pick(t, rd) (t)
#define as_texel(v) (v)
#endif
