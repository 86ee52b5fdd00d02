// upload_float: an image's float32 values into the input texture. A three-channel image's fourth texel channel is 0,
// as CUDA's float4 layout pads it (every method then computes the same dead channel on both backends; with GL's 1
// there, fft's pairs (b + i a) carried the 1's rounding into B: a 97 x 3 RGB image of values near 1e-30 through fft
// sigma 40 had B off by up to 1.2e-7).
// FROM_BUFFER 1: the values from a storage buffer (CH a pixel, rows without padding). On an H100 a 4096^2 RGB image
// took 28-41 ms this way against 72-83 ms through glTextureSubImage2D's GL_RGB (the driver converts).
// FROM_BUFFER 0: the texture as the driver's upload left it (past the storage-buffer limit, half storage), A set to 0.
layout(local_size_x = 16, local_size_y = 16) in;
#if FROM_BUFFER
layout(binding = 0, STORE_FORMAT) writeonly uniform image2D img;
#if CH == 4
layout(std430, binding = 0) readonly buffer Values { vec4 values[]; };
#else
layout(std430, binding = 0) readonly buffer Values { float values[]; };
#endif
#else
layout(binding = 0, STORE_FORMAT) uniform image2D img;
#endif
uniform ivec2 size;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
#if FROM_BUFFER
  uint i = uint(p.y) * uint(size.x) + uint(p.x);
#if CH == 4
  imageStore(img, p, values[i]);
#else
  vec4 v = vec4(0.0);
  for (int k = 0; k < CH; ++k) v[k] = values[i * uint(CH) + uint(k)];
  imageStore(img, p, v);
#endif
#else
  imageStore(img, p, vec4(imageLoad(img, p).rgb, 0.0));
#endif
}
