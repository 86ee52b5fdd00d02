// download_float: the output texture's values (CH a pixel, rows without padding) into a storage buffer, which the
// host then reads in one copy; the counterpart of upload_float.comp (docs/performance.md, "GL uploads through a storage
// buffer", downloads).
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
#if CH == 4
layout(std430, binding = 0) writeonly buffer Values { vec4 values[]; };
#else
layout(std430, binding = 0) writeonly buffer Values { float values[]; };
#endif
uniform ivec2 size;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  uint i = uint(p.y) * uint(size.x) + uint(p.x);
  vec4 t = texelFetch(src, p, 0);
#if CH == 4
  values[i] = t;
#else
  for (int k = 0; k < CH; ++k) values[i * uint(CH) + uint(k)] = t[k];
#endif
}
