// up2_pair: two Up2 passes in one dispatch, coarse -> middle -> fine, the middle level never stored (core's
// resample_pair; the GL port of gpu/cuda/passes/resample_fused.cuh up2x2_fill / up2x2_out). A group owns a
// TILE_X x TILE_Y tile of stored fine pixels, which reads the middle pixels floor(x / 2) - 1 .. floor(x_last /
// 2) + 1 per axis (TILE / 2 + 3 with a tile starting on an odd pixel). Phase 1 fills that window: cell (c, r) is
// middle pixel (v0.x + c, v0.y + r), remapped over the middle level's stored area with the second pass's border
// as the unfused second pass reads it (zero: the cell is 0), its value the first pass's up2.comp sum at that
// stored pixel. Phase 2: each fine pixel from the window with up2.comp's weights and order.
// #defines: TILE_X, TILE_Y (even), THREADS_X, THREADS_Y (the group).
layout(local_size_x = THREADS_X, local_size_y = THREADS_Y) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 dsize;  // the fine level's stored size
uniform int dst_pad;  // the fine level's padding
uniform ivec2 msize;  // the middle level's stored size
uniform int mid_pad;
uniform int src_pad;  // the coarse level's padding
uniform int border1;  // the first pass's border (reads the coarse level)
uniform int border2;  // the second pass's border (reads the middle level)

const int WIN_X = TILE_X / 2 + 3, WIN_Y = TILE_Y / 2 + 3;
shared vec4 win[WIN_X * WIN_Y];

int floor_half(int x) { return x >= 0 ? x / 2 : -((1 - x) / 2); }  // floor(x / 2), negative x included

void main() {
  ivec2 size2 = gpublur_src_size;
  ivec2 tile0 = ivec2(gl_WorkGroupID.xy) * ivec2(TILE_X, TILE_Y);
  ivec2 v0 = ivec2(floor_half(tile0.x - dst_pad), floor_half(tile0.y - dst_pad)) - 1;  // middle pixel of cell 0
  int tid = int(gl_LocalInvocationIndex);
  const int nthreads = THREADS_X * THREADS_Y;
  for (int k = tid; k < WIN_X * WIN_Y; k += nthreads) {
    int r = k / WIN_X, c = k - r * WIN_X;
    int sx = remap_index(v0.x + c + mid_pad, msize.x, border2), sy = remap_index(v0.y + r + mid_pad, msize.y, border2);
    vec4 v = vec4(0.0);
    if (sx >= 0 && sy >= 0) {
      ivec2 p = ivec2(sx, sy) - mid_pad;  // the middle pixel, >= -mid_pad
      ivec2 nr = ivec2(floor_half(p.x), floor_half(p.y));
      ivec2 fr = nr + ivec2((p & 1) * 2 - 1);
      nr += src_pad;
      fr += src_pad;
      vec4 a = fetch_texel(src, nr, size2, border1), b = fetch_texel(src, ivec2(fr.x, nr.y), size2, border1);
      vec4 cc = fetch_texel(src, ivec2(nr.x, fr.y), size2, border1), d = fetch_texel(src, fr, size2, border1);
      v = 0.75 * (0.75 * a + 0.25 * b) + 0.25 * (0.75 * cc + 0.25 * d);
    }
    win[k] = v;
  }
  memoryBarrierShared();
  barrier();
  ivec2 lid = LOCAL_ID;
  for (int ly = lid.y; ly < TILE_Y; ly += THREADS_Y) {
    for (int lx = lid.x; lx < TILE_X; lx += THREADS_X) {
      ivec2 t = tile0 + ivec2(lx, ly);
      if (t.x >= dsize.x || t.y >= dsize.y) continue;
      ivec2 p = t - dst_pad;
      ivec2 nr = ivec2(floor_half(p.x), floor_half(p.y));
      ivec2 fr = nr + ivec2((p & 1) * 2 - 1);
      nr -= v0;
      fr -= v0;
      vec4 a = win[nr.y * WIN_X + nr.x], b = win[nr.y * WIN_X + fr.x];
      vec4 cc = win[fr.y * WIN_X + nr.x], d = win[fr.y * WIN_X + fr.x];
      imageStore(dst, t, 0.75 * (0.75 * a + 0.25 * b) + 0.25 * (0.75 * cc + 0.25 * d));
    }
  }
}
