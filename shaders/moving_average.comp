// moving-average: one box of the cascade along one axis (AXIS 0 rows, 1 columns) as the Intel article's
// compute shader: one invocation per line walks along it with a running (moving) sum: the first window summed,
// then per output the value entering added and the one leaving subtracted (read again from the input).
// The cascade runs on the border-extended line (core/reference/passes/box1d.cpp): box k reads the line
// extended by e_in = e_out + w / 2 and writes it extended by e_out (the host runs one dispatch per box, with
// e_out = 0 for the last). The first box reads the source texture (border-remapped), later ones a storage
// buffer; the last writes the destination image, earlier ones a storage buffer. Buffers hold vec4 float32,
// position-major ([position][line]: neighbouring invocations touch neighbouring vec4s). Sums are float64 over
// float32 values (each value added and later subtracted as the same float), so long lines stay within float
// rounding of the float64 reference.
layout(local_size_x = 64) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 0) readonly buffer LineIn { vec4 line_in[]; };
layout(std430, binding = 1) writeonly buffer LineOut { vec4 line_out[]; };
uniform int border;
uniform int w;      // this box's width (odd); with frac > 0 its integer part (Integral1d, core/integral.hpp)
uniform float frac;  // the end pixels' weight: the box spans w + 2 positions, real width w + 2 frac
uniform int e_out;  // the output line's extension on each side
uniform bool first;  // read the source texture (else line_in)
uniform bool last;   // write dst (else line_out)

#if AXIS == 0
#define AT(along, line) ivec2(along, line)
#else
#define AT(along, line) ivec2(line, along)
#endif

void main() {
  ivec2 size = gpublur_src_size;
#if AXIS == 0
  int n = size.x, lines = size.y;
#else
  int n = size.y, lines = size.x;
#endif
  int line = int(gl_GlobalInvocationID.x);
  if (line >= lines) return;
  int r = w / 2, h = r + (frac > 0.0 ? 1 : 0), e_in = e_out + h;
  double inv = 1.0lf / (double(w) + 2.0lf * double(frac));
#define IN(pos) (first ? fetch_texel(src, AT(pos, line), size, border) : line_in[((pos) + e_in) * lines + line])
  dvec4 sum = dvec4(0.0);
  for (int q = -e_out - r; q <= -e_out + r; ++q) sum += dvec4(IN(q));
  for (int x = -e_out; x < n + e_out; ++x) {
    vec4 v = vec4(sum * inv);
    if (frac > 0.0) v = vec4((sum + double(frac) * (dvec4(IN(x - r - 1)) + dvec4(IN(x + r + 1)))) * inv);
    if (last)
      imageStore(dst, AT(x, line), v);
    else
      line_out[(x + e_out) * lines + line] = v;
    if (x + 1 < n + e_out) sum += dvec4(IN(x + r + 1)) - dvec4(IN(x - r));
  }
}
