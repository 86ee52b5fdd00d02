// The previous form, kept only for one A/B measurement against down2_axis.comp (GPUBLUR_GL_RESAMPLE_TILE=1,
// docs/performance.md); the loser goes after it.
// down2 with a long analysis kernel (the pyramid's last level, the coarsest Gaussian folded in: n > 4 taps):
// the same function as down2.comp, computed separably through shared memory. A group of 8 x 8 destination
// pixels first filters the 2 * 8 + n - 2 source rows it needs along x for its 8 columns (n texel fetches each,
// border mode over src's stored area), then each invocation sums n of those row results down its column: 2n
// reads per pixel instead of n^2. Row sums first, then the column weights, as the reference.
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform ivec2 dsize;  // dst's stored size
uniform int dst_pad;
uniform int src_pad;
uniform int border;
uniform int n;      // taps (even, <= 64)
uniform int first;  // the first tap's offset from 2X
uniform float taps[64];

shared vec4 rows[(16 + 64 - 2) * 8];

void main() {
  ivec2 g0 = ivec2(gl_WorkGroupID.xy) * 8;  // the group's first dst texel
  int li = int(gl_LocalInvocationIndex);
  ivec2 size = textureSize(src, 0);
  int nrows = 16 + n - 2;
  // rows[r * 8 + c]: source row 2 (g0.y - dst_pad) + first + r filtered along x for dst column g0.x + c.
  for (int k = li; k < nrows * 8; k += 64) {
    int r = k / 8, c = k - (k / 8) * 8;
    int sy = 2 * (g0.y - dst_pad) + first + r + src_pad;
    int sx = 2 * (g0.x + c - dst_pad) + first + src_pad;
    vec4 acc = vec4(0.0);
    for (int i = 0; i < n; ++i) acc += taps[i] * fetch_texel(src, ivec2(sx + i, sy), size, border);
    rows[k] = acc;
  }
  barrier();
  ivec2 l = ivec2(gl_LocalInvocationID.xy);
  ivec2 t = g0 + l;
  if (t.x >= dsize.x || t.y >= dsize.y) return;
  vec4 acc = vec4(0.0);
  for (int j = 0; j < n; ++j) acc += taps[j] * rows[(2 * l.y + j) * 8 + l.x];
  imageStore(dst, t, acc);
}
