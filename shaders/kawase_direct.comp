// kawase, direct form (GPUBLUR_GL_KAWASE=direct, measured against the sampler form kawase.comp in one A/B run;
// docs/performance.md): the 4 bilinear samples at (x +- (k + 1/2), y +- (k + 1/2)) as the means of their 2 x 2
// pixels, read with texelFetch and the border remap, as gpu/cuda/passes/kawase.cu (16 reads, then / 16): no
// texture filtering (a filtered RGBA32F fetch is slower than an unfiltered one), no shared memory, no barrier,
// 32 x 8 groups. ROWS (host #define, 1, 2 or 4) outputs per invocation down a column: outputs y .. y + ROWS - 1
// read rows y - k - 1 .. y - k + ROWS - 1 and y + k .. y + k + ROWS, each row's two horizontal pair sums
// computed once (16, 12, 10 fetches per output); per output the same operations in the same order as ROWS 1.
#ifndef ROWS
#define ROWS 1
#endif
#ifndef LX  // the group shape (GPUBLUR_GL_RESAMPLE_GROUP, gl_tuning.hpp): 32 x 8 by default
#define LX 32
#define LY 8
#endif
layout(local_size_x = LX, local_size_y = LY) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int k;  // the pass's offset: samples at +-(k + 1/2)
uniform int border;

// (x, y) already remapped, -1 reads zero. LOAD_IMAGE (GPUBLUR_GL_RESAMPLE_LOAD=image, an A/B knob): the same
// texels by imageLoad from the source bound as a readonly image too, instead of texelFetch.
#ifdef LOAD_IMAGE
layout(binding = 1, STORE_FORMAT) readonly restrict uniform image2D srci;
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : imageLoad(srci, ivec2(x, y)); }
#else
vec4 at(int x, int y) { return x < 0 || y < 0 ? vec4(0.0) : texelFetch(src, ivec2(x, y), 0); }
#endif

void main() {
  ivec2 size = textureSize(src, 0);
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y) * ROWS;
  if (x >= size.x || y >= size.y) return;
  // Columns of the left sample (x - k, x - k - 1) and the right one (x + k, x + k + 1).
  int l0 = remap_index(x - k, size.x, border), l1 = remap_index(x - k - 1, size.x, border);
  int r0 = remap_index(x + k, size.x, border), r1 = remap_index(x + k + 1, size.x, border);
  // Row group 0: rows y - k - 1 + i (the upper samples), group 1: rows y + k + i (the lower), i = 0 .. ROWS.
  vec4 left[2 * (ROWS + 1)], right[2 * (ROWS + 1)];
  for (int g = 0; g < 2; ++g)
    for (int i = 0; i <= ROWS; ++i) {
      int ry = remap_index(g == 0 ? y - k - 1 + i : y + k + i, size.y, border);
      left[g * (ROWS + 1) + i] = at(l0, ry) + at(l1, ry);
      right[g * (ROWS + 1) + i] = at(r0, ry) + at(r1, ry);
    }
  for (int r = 0; r < ROWS; ++r) {
    if (y + r < size.y) {
      // Upper samples: rows y + r - k (index r + 1) and y + r - k - 1 (index r); lower: y + r + k (index r) and
      // y + r + k + 1 (index r + 1); in the CUDA kernel's order (sy = -1, +1; sx = -1, +1; row y0 then y1).
      int u = r, d = ROWS + 1 + r;
      vec4 sum = left[u + 1] + left[u];
      sum += right[u + 1] + right[u];
      sum += left[d] + left[d + 1];
      sum += right[d] + right[d + 1];
      imageStore(dst, ivec2(x, y + r), sum * (1.0 / 16.0));
    }
  }
}
