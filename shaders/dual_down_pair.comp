// dual_down_pair: two DualDown passes in one dispatch, level 0 -> level 1 -> level 2, level 1 never stored
// (core's dual_pair; the GL port of gpu/cuda/passes/dual_fused.cuh down2x2_fill / down2x2_out). A group owns a
// TILE_X x TILE_Y tile of level-2 pixels; level-2 pixel X reads level-1 pixels 2X - 1 .. 2X + 2 (dual_down.comp),
// so the tile reads the level-1 window 2 TILE + 2 per axis from 2 tile0 - 1. Phase 1 fills that window: cell
// (c, r) is level-1 pixel (v0.x + c, v0.y + r) remapped over level 1 with the second pass's border exactly as
// the unfused second pass reads it (zero: the cell is 0), its value the first pass's dual_down.comp sum at the
// remapped pixel. Cells go in vertical pairs: two level-1 pixels one above the other whose remapped rows are
// adjacent share 2 of their 6 source rows (24 fetches instead of 32). Phase 2: each level-2 pixel from the
// window with dual_down.comp's sums in its order. The dual images are unpadded.
// #defines: TILE_X, TILE_Y (the group is TILE_X x TILE_Y invocations, one output each).
layout(local_size_x = TILE_X, local_size_y = TILE_Y) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 msize;  // level 1's size
uniform int border1;  // the first pass's border (reads level 0)
uniform int border2;  // the second pass's border (reads level 1)

// The window, columns even first, then odd: phase 2 reads cells 2 lx + i, so neighbouring invocations read
// neighbouring cells (as down2_pair.comp).
const int WIN_X = 2 * TILE_X + 2, WIN_Y = 2 * TILE_Y + 2;
shared vec4 win[WIN_X * WIN_Y];

int win_index(int r, int c) { return (c & 1) * (WIN_Y * (WIN_X / 2)) + r * (WIN_X / 2) + (c >> 1); }

// (x, y) already remapped, -1 reads zero.
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : texelFetch(src, ivec2(x, y), 0); }

// One source row of dual_down.comp: the 4 window texels' sum and the inner 2's.
void down_row(ivec4 cx, int ry, out vec4 sum, out vec4 mid) {
  mid = at(cx.y, ry) + at(cx.z, ry);
  sum = at(cx.x, ry) + at(cx.w, ry) + mid;
}

// dual_down.comp's value from the sums of its 4 source rows, in its order.
vec4 down_from_rows(vec4 s0, vec4 s1, vec4 s2, vec4 s3, vec4 m1, vec4 m2) {
  vec4 all = vec4(0.0), inner = vec4(0.0);
  all += s0;
  all += s1;
  inner += m1;
  all += s2;
  inner += m2;
  all += s3;
  return all * (1.0 / 32.0) + inner * 0.125;
}

vec4 down_value(ivec4 cx, int y, ivec2 size0) {
  vec4 s[4], m[4];
  for (int j = 0; j < 4; ++j) down_row(cx, remap_index(2 * y - 1 + j, size0.y, border1), s[j], m[j]);
  return down_from_rows(s[0], s[1], s[2], s[3], m[1], m[2]);
}

void main() {
  ivec2 size0 = textureSize(src, 0);
  ivec2 dsize = imageSize(dst);
  ivec2 tile0 = ivec2(gl_WorkGroupID.xy) * ivec2(TILE_X, TILE_Y);
  ivec2 v0 = 2 * tile0 - 1;  // level-1 pixel of cell (0, 0)
  const int nthreads = TILE_X * TILE_Y;
  for (int k = int(gl_LocalInvocationIndex); k < WIN_X * (WIN_Y / 2); k += nthreads) {
    int pr = k / WIN_X, c = k - pr * WIN_X, r = 2 * pr;
    int sx = remap_index(v0.x + c, msize.x, border2);
    int sya = remap_index(v0.y + r, msize.y, border2), syb = remap_index(v0.y + r + 1, msize.y, border2);
    vec4 a = vec4(0.0), b = vec4(0.0);
    if (sx >= 0) {
      ivec4 cx;
      for (int i = 0; i < 4; ++i) cx[i] = remap_index(2 * sx - 1 + i, size0.x, border1);
      if (sya >= 0 && syb == sya + 1) {
        vec4 s[6], m[6];
        for (int j = 0; j < 6; ++j) down_row(cx, remap_index(2 * sya - 1 + j, size0.y, border1), s[j], m[j]);
        a = down_from_rows(s[0], s[1], s[2], s[3], m[1], m[2]);
        b = down_from_rows(s[2], s[3], s[4], s[5], m[3], m[4]);
      } else {
        if (sya >= 0) a = down_value(cx, sya, size0);
        if (syb >= 0) b = down_value(cx, syb, size0);
      }
    }
    win[win_index(r, c)] = a;
    win[win_index(r + 1, c)] = b;
  }
  memoryBarrierShared();
  barrier();
  ivec2 lid = LOCAL_ID;
  ivec2 t = tile0 + lid;
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  vec4 s[4], m[4];
  for (int j = 0; j < 4; ++j) {
    int r = 2 * lid.y + j, c = 2 * lid.x;
    m[j] = win[win_index(r, c + 1)] + win[win_index(r, c + 2)];
    s[j] = win[win_index(r, c)] + win[win_index(r, c + 3)] + m[j];
  }
  imageStore(dst, t, down_from_rows(s[0], s[1], s[2], s[3], m[1], m[2]));
}
