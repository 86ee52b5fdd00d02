// conv1d, fused compute form of a separable pair (Conv1d along x then y with the same taps) for small radii:
// both 1D passes in one dispatch, the image read and written once. A group of NT invocations owns a TW x TH
// output tile:
//  1. loads the (TW + 2r) x (TH + 2r) input tile + halo into shared memory (the border remap only here);
//  2. horizontal pass over all TH + 2r rows, 4 outputs per work item from a register window, kept in
//     registers until every invocation has read the input, then written over the same shared array;
//  3. vertical pass, 4 outputs per work item, stored to the image.
// Remapping the halo rows first and filtering them horizontally gives the intermediate's border rows
// exactly (the remap moves whole rows, zero rows stay zero), so the result equals two separate passes.
// RADIUS and the weights are compile-time constants: the tap loops unroll without bounds tests.
// Pitches are odd: in step 2 neighbouring invocations work on neighbouring rows, so their vec4 loads fall
// on different banks.
layout(local_size_x = NT) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int border;

const float w[NTAPS] = float[](WEIGHT_LIST);  // 2r+1 weights, zeros up to NTAPS (a multiple of 4)

// The tile is NTAPS (not 2r + 1) texels wider and taller, so every 4-tap chunk of the windows below reads
// loaded texels (the padding taps weigh zero).
#define IN_W (TW + NTAPS)
#define IN_H (TH + NTAPS)
#define P 4
#define H_ITEMS (IN_H * (TW / P))
#define H_ITER ((H_ITEMS + NT - 1) / NT)
#define V_ITEMS (TW * (TH / P))
#define V_ITER ((V_ITEMS + NT - 1) / NT)

shared vec4 buf[IN_H * (PIN > PMID ? PIN : PMID)];

// P outputs from the line starting at buf[s] with element stride `step`: output p = sum_t w[t] buf[s + (p + t) step].
// Chunks of P taps: P new loads feed P x P vec4 FMAs from a register window, no bounds tests.
void window(int s, int step, out vec4 acc[P]) {
  for (int p = 0; p < P; ++p) acc[p] = vec4(0.0);
  vec4 win[P];
  for (int q = 0; q < P; ++q) win[q] = buf[s + q * step];
  for (int t0 = 0; t0 < NTAPS; t0 += P) {
    vec4 nxt[P];
    for (int q = 0; q < P; ++q) nxt[q] = buf[s + (t0 + P + q) * step];
    for (int tt = 0; tt < P; ++tt)
      for (int p = 0; p < P; ++p) acc[p] += w[t0 + tt] * (p + tt < P ? win[p + tt] : nxt[p + tt - P]);
    for (int q = 0; q < P; ++q) win[q] = nxt[q];
  }
}

void main() {
  ivec2 size = gpublur_src_size;
  int li = int(gl_LocalInvocationIndex);
  ivec2 org = ivec2(gl_WorkGroupID.xy) * ivec2(TW, TH);

  // 1. Input tile + halo; rows and columns remapped once each.
  for (int i = li; i < IN_W * IN_H; i += NT) {
    int ty = i / IN_W, tx = i - ty * IN_W;
    int x = remap_index(org.x - RADIUS + tx, size.x, border);
    int y = remap_index(org.y - RADIUS + ty, size.y, border);
    buf[ty * PIN + tx] = (x < 0 || y < 0) ? vec4(0.0) : texelFetch(src, ivec2(x, y), 0);
  }
  barrier();

  // 2. Horizontal: item k = row k % IN_H, outputs (k / IN_H) * P .. + P - 1.
  vec4 h[H_ITER][P];
  for (int it = 0; it < H_ITER; ++it) {
    int k = li + it * NT;
    if (k < H_ITEMS) window((k % IN_H) * PIN + (k / IN_H) * P, 1, h[it]);
  }
  barrier();
  for (int it = 0; it < H_ITER; ++it) {
    int k = li + it * NT;
    if (k < H_ITEMS) {
      int s = (k % IN_H) * PMID + (k / IN_H) * P;
      for (int p = 0; p < P; ++p) buf[s + p] = h[it][p];
    }
  }
  barrier();

  // 3. Vertical: item k = column k % TW, outputs rows (k / TW) * P .. + P - 1.
  for (int it = 0; it < V_ITER; ++it) {
    int k = li + it * NT;
    if (k >= V_ITEMS) break;
    int col = k % TW, y0 = (k / TW) * P;
    vec4 acc[P];
    window(y0 * PMID + col, PMID, acc);
    ivec2 o = org + ivec2(col, y0);
    if (o.x < size.x)
      for (int p = 0; p < P; ++p)
        if (o.y + p < size.y) imageStore(dst, o + ivec2(0, p), acc[p]);
  }
}
