// kawase: the Intel article's pass: the mean of 4 bilinear samples at (x +- (k + 1/2), y +- (k + 1/2)); at exactly
// half-pixel positions the interpolation weights are 1/2, so each sample is the mean of its 2 x 2 pixels. Two forms
// (gpu/gl/passes/kawase.cpp picks):
//  KK undefined  the 4 samples through the texture unit (a sampler with GL_LINEAR and the border's wrap mode).
//  KK = k        CUDA's runs (gpu/cuda/passes/kawase.cuh; k <= 3 on GPUs, any k on llvmpipe): an invocation makes
//                RUN outputs down its column from the 16 pixels at columns x -+ k, x -+ (k + 1) and the rows
//                likewise, read by texelFetch with the border remap, each row's 4-pixel sum once (2 k + RUN + 2
//                rows for RUN outputs, not 4 RUN).
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;

#ifndef KK
layout(local_size_x = 16, local_size_y = 16) in;
uniform float offset;  // k + 1/2

void main() {
  ivec2 p = GLOBAL_ID;
  ivec2 size = gpublur_src_size;
  if (p.x >= size.x || p.y >= size.y) return;
  vec2 inv = 1.0 / vec2(size);
  vec2 c = vec2(p) + 0.5;
  vec4 sum = texture(src, (c + vec2(-offset, -offset)) * inv) + texture(src, (c + vec2(offset, -offset)) * inv) +
             texture(src, (c + vec2(-offset, offset)) * inv) + texture(src, (c + vec2(offset, offset)) * inv);
  imageStore(dst, p, 0.25 * sum);
}
#else
layout(local_size_x = 32, local_size_y = 8) in;
uniform int border;
#define RUN 4
#define T0 (-KK - 1)
#define NROWS (2 * KK + RUN + 2)  // rows y0 + T0 .. y0 + T0 + NROWS - 1

int offset_of(int i) { return i < 2 ? -(KK + 1 - i) : KK + i - 2; }  // -(k + 1), -k, k, k + 1

void main() {
  ivec2 size = gpublur_src_size;
  int x = int(gl_GlobalInvocationID.x), y0 = int(gl_GlobalInvocationID.y) * RUN;
  if (x >= size.x || y0 >= size.y) return;
  int rx[4];
  for (int i = 0; i < 4; ++i) rx[i] = remap_index(x + offset_of(i), size.x, border);
  VEC acc[RUN];
  for (int j = 0; j < RUN; ++j) acc[j] = VEC(0.0);
  for (int t = 0; t < NROWS; ++t) {
    int dt = T0 + t;  // output j takes this row where dt - j is one of the offsets
    bool used = false;
    for (int j = 0; j < RUN; ++j)
      for (int o = 0; o < 4; ++o) used = used || dt - j == offset_of(o);
    if (!used) continue;
    int ry = remap_index(y0 + dt, size.y, border);
    VEC h = VEC(0.0);
    if (ry >= 0)
      for (int i = 0; i < 4; ++i)
        if (rx[i] >= 0) h += pick(texelFetch(src, ivec2(rx[i], ry), 0), 0);
    for (int j = 0; j < RUN; ++j)
      for (int o = 0; o < 4; ++o)
        if (dt - j == offset_of(o)) acc[j] += h;
  }
  for (int j = 0; j < RUN; ++j)
    if (y0 + j < size.y) imageStore(dst, ivec2(x, y0 + j), as_texel((1.0 / 16.0) * acc[j]));
}
#endif
