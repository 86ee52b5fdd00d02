// conv2d: direct 2D convolution from shared-memory blocks, with the weights w[dy] * w[dx] of a separable kernel's
// (2r+1)^2 taps (RX = RY = r, NTAPS padded 1D taps) or, with MATRIX, a full matrix of 2 RY + 1 rows of NTAPS weights
// (conv2d-matrix: the matrix's 2 RX + 1 columns padded). A group of NT invocations owns TH rows x TW columns of
// outputs; each invocation makes P consecutive outputs of one row from a register window (as in conv1d.comp). The
// taps are walked in blocks of CY kernel rows x CX kernel columns: each block loads (TH + CY - 1) x (TW + CX) texels
// into shared memory (border-remapped once per texel) and applies its CY x CX taps from there. P (4 or 8) outputs
// per invocation, NT = TW / P x TH invocations: 8 halves the shared loads per FMA (4 outputs: one 16-byte load per
// 16 FMAs, which on an H100 costs as many shared-memory cycles as the FMAs take). Each kernel row's part is summed
// first and then weighted by w[dy] (separable; a matrix row's weights are its own): the same products, in an order
// that keeps float rounding small at large radii. Horizontal taps are padded with zero weights to a multiple of P.
// Kernel rows dy_begin..dy_end-1 (0-based) and padded columns dx_begin..dx_end-1 (whole CX blocks) per dispatch:
// one dispatch of all taps on GPUs; Mesa llvmpipe silently ends a shader's loops after 65535 iterations in all, so
// there the host splits the rows, and where one block of CY rows is still too many the columns too, over several
// dispatches that carry the running sum in an RGBA32F accumulator (resume / last), in the order of one dispatch.
// VCH 1 / 2 (one- and two-channel images): float / vec2 texels in shared memory and sums (common.glsl), a quarter /
// half of the bytes and arithmetic of the vec4 ones three and four channels take (no VCH).
layout(local_size_x = NT) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(binding = 1, rgba32f) uniform image2D accum;
#if WEIGHTS_UBO
layout(std140, binding = 0) uniform Weights { vec4 w4[NWEIGHTS / 4]; };
#else
layout(std430, binding = 0) readonly buffer Weights { vec4 w4[]; };
#endif
uniform int border;
uniform int dy_begin;
uniform int dy_end;
uniform int dx_begin;  // SPLIT_COLUMNS
uniform int dx_end;
uniform bool resume;  // start from accum instead of zero
uniform bool last;    // write the result to dst instead of accum

#define ROWS (TH + CY - 1)
#define COLS (TW + CX)
shared VEC blk[ROWS * PITCH];

float weight(int j) { return w4[j >> 2][j & 3]; }

void main() {
  ivec2 size = gpublur_src_size;
  int li = int(gl_LocalInvocationIndex);
  ivec2 org = ivec2(gl_WorkGroupID.xy) * ivec2(TW, TH);
  // Neighbouring invocations on neighbouring rows (odd PITCH: different banks).
  int ly = li % TH, x0 = (li / TH) * P;
  ivec2 o = org + ivec2(x0, ly);
  bool live = o.x < size.x && o.y < size.y;
  VEC acc[P];
  for (int p = 0; p < P; ++p) acc[p] = (resume && live) ? pick(imageLoad(accum, o + ivec2(p, 0)), 0) : VEC(0.0);

  for (int ylo = dy_begin; ylo < dy_end; ylo += CY) {
    int cy = min(dy_end - ylo, CY);
#ifdef SPLIT_COLUMNS  // llvmpipe only: GPUs keep the constant bound their compiler unrolls by
    for (int xlo = dx_begin; xlo < dx_end; xlo += CX) {
      int cx = min(dx_end - xlo, CX);
#else
    for (int xlo = 0; xlo < NTAPS; xlo += CX) {
      int cx = min(NTAPS - xlo, CX);
#endif
      int cols = TW + cx;
      for (int i = li; i < (TH + cy - 1) * cols; i += NT) {
        int r = i / cols, cc = i - r * cols;
        int x = remap_index(org.x - RX + xlo + cc, size.x, border);
        int y = remap_index(org.y - RY + ylo + r, size.y, border);
        blk[r * PITCH + cc] = (x < 0 || y < 0) ? VEC(0.0) : pick(texelFetch(src, ivec2(x, y), 0), 0);
      }
      barrier();
#if MATRIX
      // A matrix's block of rows is summed apart, then added: acc takes one term a block, not one a kernel row (a
      // 1001 x 1001 matrix drifted 1.4e-5 from the cpu's float64 sums, past its 1e-5 tolerance; llvmpipe).
      VEC part[P];
      for (int p = 0; p < P; ++p) part[p] = VEC(0.0);
#endif
      for (int dy = 0; dy < cy; ++dy) {
        int s = (ly + dy) * PITCH + x0;
        int wrow = MATRIX != 0 ? (ylo + dy) * NTAPS : 0;  // the row's weights
        VEC row[P];
        for (int p = 0; p < P; ++p) row[p] = VEC(0.0);
        VEC win[P];
        for (int q = 0; q < P; ++q) win[q] = blk[s + q];
        for (int t0 = 0; t0 < cx; t0 += P) {
          VEC nxt[P];
          for (int q = 0; q < P; ++q) nxt[q] = blk[s + t0 + P + q];
          for (int tt = 0; tt < P; ++tt) {
#if MATRIX && NTAPS != 2 * RX + 1
            // A matrix's padding taps are not multiplied: 0 * Inf would be a NaN where the CPU has no tap (the
            // kernel method keeps its own arithmetic on non-finite inputs; gauss-2d's are taken out before).
            if (xlo + t0 + tt > 2 * RX) break;
#endif
            float wt = weight(wrow + xlo + t0 + tt);
            for (int p = 0; p < P; ++p) row[p] += wt * (p + tt < P ? win[p + tt] : nxt[p + tt - P]);
          }
          for (int q = 0; q < P; ++q) win[q] = nxt[q];
        }
#if MATRIX
        for (int p = 0; p < P; ++p) part[p] += row[p];
#else
        float wy = weight(ylo + dy);
        for (int p = 0; p < P; ++p) acc[p] += wy * row[p];
#endif
      }
#if MATRIX
      for (int p = 0; p < P; ++p) acc[p] += part[p];
#endif
      barrier();
    }
  }
  if (!live) return;
  for (int p = 0; p < P; ++p) {
    if (o.x + p >= size.x) break;
    if (last)
      imageStore(dst, o + ivec2(p, 0), as_texel(acc[p]));
    else
      imageStore(accum, o + ivec2(p, 0), as_texel(acc[p]));
  }
}
