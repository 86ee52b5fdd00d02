// pack8: the output texture back to 8-bit samples (core/packed.hpp): colour divided by alpha where
// premultiplied (core/color.hpp's straight_colour: 0 where alpha packs as 0), then level(v) = how many
// thresholds are <= v (NaN and v <= 0: 0) by binary search; alpha by its own thresholds. One invocation per
// uint of the sample buffer (4 samples).
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer Samples { uint samples[]; };
layout(std430, binding = 1) readonly buffer Tables {
  float decode[256];
  float decode_alpha[256];
  float encode[255];
  float encode_alpha[255];
};
// Values packing clips by more than half a level (core/packed.hpp's clip bounds): below 0, above 1, NaN; and
// emission dropped where alpha packs as 0 (hidden: core/color.hpp's straight_colour).
layout(std430, binding = 2) buffer Clipped { uint clipped[4]; };
layout(binding = 0) uniform sampler2D src;
uniform vec2 clip;        // colour: below, above
uniform vec2 clip_alpha;  // alpha: below, above
uniform int width;
uniform int channels;
uniform int alpha;        // -1: none
uniform bool premultiply;
uniform uint n_samples;   // width * height * channels

uint level(float v, bool is_alpha) {
  if (!(v > 0.0)) return 0u;
  uint lo = 0u, hi = 255u;
  while (lo < hi) {
    uint mid = (lo + hi) >> 1;
    float t = is_alpha ? encode_alpha[mid] : encode[mid];
    if (t <= v) lo = mid + 1u; else hi = mid;
  }
  return lo;
}

void main() {
  // Groups in 2D when there are more than a dispatch's x limit (65535) allows.
  uint word = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u + gl_GlobalInvocationID.x;
  uint first = word * 4u;
  if (first >= n_samples) return;
  uint word_bits = 0u;
  uvec4 n = uvec4(0u);  // below, above, NaN, hidden among this word's samples
  for (uint j = 0u; j < 4u; ++j) {
    uint i = first + j;
    if (i >= n_samples) break;
    uint pixel = i / uint(channels);
    int k = int(i - pixel * uint(channels));
    vec4 t = texelFetch(src, ivec2(int(pixel % uint(width)), int(pixel / uint(width))), 0);
    uint q;
    float counted;
    vec2 bounds;
    if (k == alpha) {
      q = level(t[k], true);
      counted = t[k];
      bounds = clip_alpha;
    } else {
      float c = t[k];
      if (premultiply) {
        float a = t[alpha];
        // In double, then rounded: GLSL's float division may be approximate (NVIDIA: reciprocal and multiply),
        // and the level must be that of the host's correctly rounded c / a. Alpha below its level 1: colour 0.
        if (a >= encode_alpha[0]) {
          c = float(double(c) / double(a));
        } else {
          n.w += (c > -encode_alpha[0] && c < encode_alpha[0]) ? 0u : 1u;
          c = 0.0;
        }
      }
      q = level(c, false);
      counted = c;
      bounds = clip;
    }
    n.xyz += uvec3(counted < bounds.x ? 1u : 0u, counted > bounds.y ? 1u : 0u, isnan(counted) ? 1u : 0u);
    word_bits |= q << (j * 8u);
  }
  samples[word] = word_bits;
  // Rare in a blur (overshoot, a kernel's gain): an atomic only for a word that clips.
  if (n.x > 0u) atomicAdd(clipped[0], n.x);
  if (n.y > 0u) atomicAdd(clipped[1], n.y);
  if (n.z > 0u) atomicAdd(clipped[2], n.z);
  if (n.w > 0u) atomicAdd(clipped[3], n.w);
}
