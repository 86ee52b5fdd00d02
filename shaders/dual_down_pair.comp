// dual_down_pair: two DualDown passes in one dispatch, level 0 -> level 1 -> level 2, level 1 never stored
// (core's dual_pair; the GL port of gpu/cuda/passes/dual_fused.cuh down2x2_fill / down2x2_out). A group owns a
// TILE_X x TILE_Y tile of level-2 pixels; level-2 pixel X reads level-1 pixels 2X - 1 .. 2X + 2 (dual_down.comp),
// so the tile reads the level-1 window 2 TILE + 2 per axis from 2 tile0 - 1. Phase 1 fills that window: cell
// (c, r) is level-1 pixel (v0.x + c, v0.y + r) remapped over level 1 with the second pass's border exactly as
// the unfused second pass reads it (zero: the cell is 0), its value the first pass's dual_down.comp sum at the
// remapped pixel. An invocation makes a vertical strip of STRIP cells: where their remapped rows are adjacent
// they read 2 STRIP + 2 source rows of 4 texels (10 fetches a cell for STRIP 4, against 16 one by one and 12
// for pairs), each row's sums going to the cells whose rows it covers in dual_down.comp's order. The window's
// strips are one round of the group's invocations: on an H100 the fill's rounds, not its fetch count, set the
// time (pairs in three rounds 0.187 ms, 2 x 2 quads in one round 0.207, strips of 4 in one round 0.154).
// Phase 2: each level-2 pixel from the window with dual_down.comp's sums in its order. The dual images are
// unpadded.
// #defines: TILE_X, TILE_Y (phase 2: one invocation per output), GROUP_Y (the group is TILE_X x GROUP_Y
// invocations, at least TILE_Y), STRIP (dividing 2 TILE_Y + 2).
layout(local_size_x = TILE_X, local_size_y = GROUP_Y) in;
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
  ivec2 size0 = gpublur_src_size;
  ivec2 dsize = imageSize(dst);
  ivec2 tile0 = ivec2(gl_WorkGroupID.xy) * ivec2(TILE_X, TILE_Y);
  ivec2 v0 = 2 * tile0 - 1;  // level-1 pixel of cell (0, 0)
  const int nthreads = int(gl_WorkGroupSize.x * gl_WorkGroupSize.y);
#if (2 * TILE_Y + 2) % STRIP != 0
#error "STRIP must divide the window's rows"
#endif
  const int CV = STRIP;
  for (int k = int(gl_LocalInvocationIndex); k < WIN_X * (WIN_Y / CV); k += nthreads) {
    int pr = k / WIN_X, c = k - pr * WIN_X, r0 = CV * pr;
    int sx = remap_index(v0.x + c, msize.x, border2);
    int sy0 = remap_index(v0.y + r0, msize.y, border2);
    bool straight = sx >= 0 && sy0 >= 0;
    for (int i = 1; i < CV; ++i) straight = straight && remap_index(v0.y + r0 + i, msize.y, border2) == sy0 + i;
    if (sx < 0) {
      for (int i = 0; i < CV; ++i) win[win_index(r0 + i, c)] = vec4(0.0);
      continue;
    }
    ivec4 cx;
    for (int i = 0; i < 4; ++i) cx[i] = remap_index(2 * sx - 1 + i, size0.x, border1);
    if (straight) {
      vec4 all[CV], inner[CV];
      for (int j = 0; j < 2 * CV + 2; ++j) {
        vec4 sum, mid;
        down_row(cx, remap_index(2 * sy0 - 1 + j, size0.y, border1), sum, mid);
        for (int i = 0; i < CV; ++i) {
          if (j == 2 * i) all[i] = sum;
          if (j == 2 * i + 1) { all[i] += sum; inner[i] = mid; }
          if (j == 2 * i + 2) { all[i] += sum; inner[i] += mid; }
          if (j == 2 * i + 3) win[win_index(r0 + i, c)] = (all[i] + sum) * (1.0 / 32.0) + inner[i] * 0.125;
        }
      }
    } else {
      for (int i = 0; i < CV; ++i) {
        int sy = remap_index(v0.y + r0 + i, msize.y, border2);
        win[win_index(r0 + i, c)] = sy >= 0 ? down_value(cx, sy, size0) : vec4(0.0);
      }
    }
  }
  memoryBarrierShared();
  barrier();
  if (gl_LocalInvocationIndex >= uint(TILE_X * TILE_Y)) return;
#if TILE_Y % 8 == 0
  ivec2 lid = gob_local_id(gl_LocalInvocationIndex, TILE_X);
#else
  ivec2 lid = ivec2(gl_LocalInvocationIndex % uint(TILE_X), gl_LocalInvocationIndex / uint(TILE_X));
#endif
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
