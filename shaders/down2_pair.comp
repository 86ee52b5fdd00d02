// down2_pair: two Down2 passes in one dispatch, level 0 -> level 1 -> level 2, level 1 never stored (core's
// resample_pair; the GL port of gpu/cuda/passes/resample_fused.cuh down2x2_fill / down2x2_out). A group owns a
// TILE_X x TILE_Y tile of stored level-2 pixels. Phase 1 fills the level-1 window that tile reads, in level-1
// coordinates before the border remap: cell (c, r) is level-1 pixel (v0.x + c, v0.y + r), remapped over level
// 1's stored area with the second pass's border exactly as the unfused second pass reads it (zero: the cell is
// 0), its value the first pass's down2.comp sum at that stored pixel. Phase 2: each output from the window with
// the second pass's taps, rows first, then the column weights (down2.comp's order, so the result is the unfused
// passes' up to float32 rounding of the same sums). Texels are fetched, never filtered (see down2.comp).
// #defines: TILE_X, TILE_Y (level-2 tile), THREADS_Y (the group is TILE_X x THREADS_Y, at least TILE_Y), N1 (2
// or 4), N2 (<= 4), STRIP (optional: phase 1 in vertical strips of STRIP cells, else in pairs; gpu/gl/passes/
// down2.cpp picks by N1).
layout(local_size_x = TILE_X, local_size_y = THREADS_Y) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 dsize;    // level 2's stored size
uniform int dst_pad;    // level 2's padding
uniform ivec2 msize;    // level 1's stored size
uniform int mid_pad;    // level 1's padding
uniform int src_pad;    // level 0's padding
uniform int border1;    // the first pass's border (reads level 0)
uniform int border2;    // the second pass's border (reads level 1)
uniform int first1;
uniform int first2;
uniform float taps1[4];
uniform float taps2[4];

// The window for the largest second kernel (4 taps): 2 T + 2 per axis, the columns even first, then odd. Phase
// 2 reads cells 2 lx + i: in one array per row neighbouring invocations would read two cells apart (CUDA: a
// 2-way bank conflict on every read, half of the fused kernel's shared traffic on an H100); split by parity
// they read neighbouring cells.
const int WIN_X = 2 * TILE_X + 2, WIN_Y = 2 * TILE_Y + 2;
shared vec4 win[WIN_X * WIN_Y];

int win_index(int r, int c) { return (c & 1) * (WIN_Y * (WIN_X / 2)) + r * (WIN_X / 2) + (c >> 1); }

// The first pass at level-1 stored pixel s (down2.comp's sums and order).
vec4 down_at(ivec2 s, ivec2 size0) {
  ivec2 o = 2 * (s - mid_pad) + first1 + src_pad;
  vec4 acc = vec4(0.0);
  for (int j = 0; j < N1; ++j) {
    vec4 row = vec4(0.0);
    for (int i = 0; i < N1; ++i) row += taps1[i] * fetch_texel(src, o + ivec2(i, j), size0, border1);
    acc += taps1[j] * row;
  }
  return acc;
}

void main() {
  const int ww = 2 * TILE_X + N2 - 2, wh = 2 * TILE_Y + N2 - 2;  // the cells this kernel reads (wh even)
  ivec2 size0 = gpublur_src_size;
  ivec2 tile0 = ivec2(gl_WorkGroupID.xy) * ivec2(TILE_X, TILE_Y);
  ivec2 v0 = 2 * (tile0 - dst_pad) + first2;  // level-1 pixel of cell (0, 0)
  int tid = int(gl_LocalInvocationIndex);
  const int nthreads = int(gl_WorkGroupSize.x * gl_WorkGroupSize.y);
#ifdef STRIP
  // Phase 1 in vertical strips of STRIP window rows (the last of a column shorter): level-1 pixels one below the
  // other whose stored rows are adjacent read 2 STRIP + N1 - 2 source rows once, each row's x sum going to the
  // cells whose rows it covers (down_at's sums, in its order); one round of the group's invocations (as
  // dual_down_pair.comp). Where the remap puts them elsewhere, each is down_at on its own.
  const int per_col = (wh + STRIP - 1) / STRIP;
  for (int k = tid; k < ww * per_col; k += nthreads) {
    int st = k / ww, c = k - st * ww, r0 = STRIP * st, cnt = min(STRIP, wh - r0);
    int sx = remap_index(v0.x + c + mid_pad, msize.x, border2);
    int sy0 = remap_index(v0.y + r0 + mid_pad, msize.y, border2);
    bool straight = sx >= 0 && sy0 >= 0;
    for (int i = 1; i < cnt; ++i)
      straight = straight && remap_index(v0.y + r0 + i + mid_pad, msize.y, border2) == sy0 + i;
    if (straight) {
      ivec2 o = 2 * (ivec2(sx, sy0) - mid_pad) + first1 + src_pad;
      int xs[N1];
      for (int i = 0; i < N1; ++i) xs[i] = remap_index(o.x + i, size0.x, border1);
      vec4 acc[STRIP];
      for (int j = 0; j < 2 * STRIP + N1 - 2; ++j) {
        if (j >= 2 * cnt + N1 - 2) break;
        int y = remap_index(o.y + j, size0.y, border1);
        vec4 h = vec4(0.0);
        if (y >= 0)
          for (int i = 0; i < N1; ++i)
            if (xs[i] >= 0) h += taps1[i] * texelFetch(src, ivec2(xs[i], y), 0);
        for (int i = 0; i < STRIP; ++i) {
          int t = j - 2 * i;  // cell i's tap for source row j
          if (t == 0) acc[i] = vec4(0.0);
          if (t >= 0 && t < N1) acc[i] += taps1[t] * h;
          if (t == N1 - 1 && i < cnt) win[win_index(r0 + i, c)] = acc[i];
        }
      }
    } else {
      for (int i = 0; i < cnt; ++i) {
        int sy = remap_index(v0.y + r0 + i + mid_pad, msize.y, border2);
        win[win_index(r0 + i, c)] = sx >= 0 && sy >= 0 ? down_at(ivec2(sx, sy), size0) : vec4(0.0);
      }
    }
  }
#else
  // Phase 1 in pairs of window rows: two level-1 pixels one above the other whose stored rows are adjacent share
  // N1 - 2 of their N1 + 2 source rows (12 fetches each instead of 16 at N1 = 4); where the remap puts them
  // elsewhere, each is down_at on its own. The sums are down_at's, in its order.
  for (int k = tid; k < ww * (wh / 2); k += nthreads) {
    int pr = k / ww, c = k - pr * ww, r = 2 * pr;
    int sx = remap_index(v0.x + c + mid_pad, msize.x, border2);
    int sya = remap_index(v0.y + r + mid_pad, msize.y, border2);
    int syb = remap_index(v0.y + r + 1 + mid_pad, msize.y, border2);
    vec4 a = vec4(0.0), b = vec4(0.0);
    if (sx >= 0) {
      if (sya >= 0 && syb == sya + 1) {
        ivec2 o = 2 * (ivec2(sx, sya) - mid_pad) + first1 + src_pad;
        int xs[N1];
        for (int i = 0; i < N1; ++i) xs[i] = remap_index(o.x + i, size0.x, border1);
        vec4 h[N1 + 2];
        for (int j = 0; j < N1 + 2; ++j) {
          int y = remap_index(o.y + j, size0.y, border1);
          h[j] = vec4(0.0);
          if (y >= 0)
            for (int i = 0; i < N1; ++i)
              if (xs[i] >= 0) h[j] += taps1[i] * texelFetch(src, ivec2(xs[i], y), 0);
        }
        for (int j = 0; j < N1; ++j) {
          a += taps1[j] * h[j];
          b += taps1[j] * h[j + 2];
        }
      } else {
        if (sya >= 0) a = down_at(ivec2(sx, sya), size0);
        if (syb >= 0) b = down_at(ivec2(sx, syb), size0);
      }
    }
    win[win_index(r, c)] = a;
    win[win_index(r + 1, c)] = b;
  }
#endif
  memoryBarrierShared();
  barrier();
  ivec2 lid = LOCAL_ID;
  int lx = lid.x;
  for (int ly = lid.y; ly < TILE_Y; ly += THREADS_Y) {
    ivec2 t = tile0 + ivec2(lx, ly);
    if (t.x >= dsize.x || t.y >= dsize.y) continue;
    vec4 acc = vec4(0.0);
    for (int j = 0; j < N2; ++j) {
      vec4 line = vec4(0.0);
      for (int i = 0; i < N2; ++i) line += taps2[i] * win[win_index(2 * ly + j, 2 * lx + i)];
      acc += taps2[j] * line;
    }
    imageStore(dst, t, acc);
  }
}
