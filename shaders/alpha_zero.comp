// alpha_zero: a three-channel image's fourth texel channel set to 0 after the float upload, which pads it with 1
// (unpack8.comp writes 0 itself). CUDA's float4 layout pads with 0, and every method then computes the same dead
// channel on both backends; with 1 there, fft's pairs (b + i a) carried the 1's rounding into B (a 97 x 3 RGB image
// of values near 1e-30 through fft sigma 40: B off by up to 1.2e-7 on GL, exact on CUDA and the cpu backend).
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0, STORE_FORMAT) uniform image2D img;
uniform ivec2 size;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  imageStore(img, p, vec4(imageLoad(img, p).rgb, 0.0));
}
