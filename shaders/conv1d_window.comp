// conv1d, sliding register-window compute form: one 1D pass (AXIS 0 horizontal, 1 vertical) with no shared
// memory and no barriers. Written for llvmpipe (Mesa's CPU driver), and on GPUs the fastest form below the FFT
// segments' radius: no shared-memory limit on resident groups, the window's fetches served by the texture cache
// (H200: docs/performance.md, "GL gauss-sep as register windows"). llvmpipe runs 8 invocations per SIMD
// vector: a shared-memory or image access with per-invocation addresses becomes a per-lane loop and each
// barrier splits the shader, so the shared-memory forms spend their time moving data (docs/performance.md,
// "GL on llvmpipe"). Here an invocation slides down a run of one line: each step fetches PER new texels into
// a window of 2r + PER values and makes PER outputs, so every texel is fetched about once.
// The host writes the step (WINDOW_BODY, straight-line code; Mesa does not unroll GLSL loops over such a
// window, whose array then lives in memory): the window as named values x0.., the weights as literals,
// symmetric taps folded (w_k (x[i - k] + x[i + k])), then x0.. = x(PER).. for the next step.
// VCH 1 / 2 / 4: float / vec2 / vec4 windows (common.glsl's lines; one and two channels carry no padding).
// Lanes of a vector are neighbouring lines (gl_GlobalInvocationID.x across the axis), .y picks the run of
// n_steps x PER outputs; the last run is moved back to end at the line's end (it rewrites some outputs of
// its neighbour with the same values), so no fetch lies more than r outside the line. The host takes this
// form only where r <= the line's length n: indices in [-n, 2n) then remap by the border mode with selects,
// without the division of remap_index.
layout(local_size_x = LOCAL_X) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
uniform int n_steps;

#if AXIS == 0
#define AT(j) ivec2(j, c)
#else
#define AT(j) ivec2(c, j)
#endif

// remap_index (common.glsl) for i in [-n, 2n) with BORDER a compile-time border code (0 clamp, 1 mirror,
// 2 wrap; 3 zero: the clamped index, and the texel replaced by zero in fetch_near).
int remap_near(int i, int n) {
  bool lo = i < 0, hi = i >= n;
#if BORDER == 1
  return lo ? -1 - i : hi ? 2 * n - 1 - i : i;
#elif BORDER == 2
  return lo ? i + n : hi ? i - n : i;
#else
  return lo ? 0 : hi ? n - 1 : i;
#endif
}

VEC fetch_near(int i, int n, int c) {
  VEC v = pick(texelFetch(src, AT(remap_near(i, n)), 0), 0);
#if BORDER == 3
  if (i < 0 || i >= n) v = VEC(0.0);
#endif
  return v;
}

void main() {
  ivec2 size = gpublur_src_size;
  int c = int(gl_GlobalInvocationID.x);
#if AXIS == 0
  int n = size.x, n_across = size.y;
#else
  int n = size.y, n_across = size.x;
#endif
  if (c >= n_across) return;
  int a = min(n_steps * PER * int(gl_GlobalInvocationID.y), n - n_steps * PER);
#define FETCH(j) fetch_near(a - RADIUS + (j), n, c)
#define STORE(p, v) imageStore(dst, AT(a + (p)), as_texel(v))
  WINDOW_BODY
}
