// rgb_upload: a three-channel image into its RGBA texture, the fourth channel 0 as CUDA's float4 layout pads it (every
// method then computes the same dead channel on both backends; with GL's 1 there, fft's pairs (b + i a) carried the
// 1's rounding into B: a 97 x 3 RGB image of values near 1e-30 through fft sigma 40 had B off by up to 1.2e-7).
// FROM_BUFFER 1: the floats from a storage buffer (3 a pixel, rows without padding). NVIDIA's driver took
// glTextureSubImage2D's GL_RGB floats at 242-262 ms for 4096^2 on an H100, against 64 for RGBA (it converts them).
// FROM_BUFFER 0: the texture as that upload left it (images past the storage-buffer limit), A set to 0.
layout(local_size_x = 16, local_size_y = 16) in;
#if FROM_BUFFER
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D img;
layout(std430, binding = 0) readonly buffer Values { float values[]; };
#else
layout(binding = 0, STORE_FORMAT) uniform image2D img;
#endif
uniform ivec2 size;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
#if FROM_BUFFER
  uint i = (uint(p.y) * uint(size.x) + uint(p.x)) * 3u;
  imageStore(img, p, vec4(values[i], values[i + 1u], values[i + 2u], 0.0));
#else
  imageStore(img, p, vec4(imageLoad(img, p).rgb, 0.0));
#endif
}
