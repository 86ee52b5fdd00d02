// unpack8: an 8-bit image's samples (a storage buffer of bytes, 4 per uint, interleaved channels, rows without
// padding) into the input texture through the colour tables of core/packed.hpp: colour channels by `decode`,
// alpha by `decode_alpha`, colour times alpha where premultiplying. Missing channels are 0, as the float upload
// leaves them (upload_float.comp) and CUDA's layout pads them. One invocation per pixel.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D dst;
layout(std430, binding = 0) readonly buffer Samples { uint samples[]; };
layout(std430, binding = 1) readonly buffer Tables {
  float decode[256];
  float decode_alpha[256];
  float encode[255];
  float encode_alpha[255];
};
uniform ivec2 size;
uniform int channels;
uniform int alpha;        // -1: none
uniform bool premultiply;

uint sample_at(uint i) { return (samples[i >> 2] >> ((i & 3u) * 8u)) & 0xffu; }

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  uint base = (uint(p.y) * uint(size.x) + uint(p.x)) * uint(channels);
  float a = alpha >= 0 ? decode_alpha[sample_at(base + uint(alpha))] : 1.0;
  vec4 v = vec4(0.0);
  for (int k = 0; k < channels; ++k) {
    float c = k == alpha ? a : decode[sample_at(base + uint(k))];
    if (k != alpha && premultiply) c = c * a;
    v[k] = c;
  }
  imageStore(dst, p, v);
}
