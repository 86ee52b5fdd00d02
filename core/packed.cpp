#include "core/packed.hpp"

#include <cstring>
#include <vector>

namespace gpublur {

namespace {

// The writer's rounding (core/io's quantize at 255): clamped, round half up, NaN -> 0.
uint32_t plain_level(float v) {
  if (!(v > 0.0f)) return 0;
  if (v >= 1.0f) return 255;
  return uint32_t(double(v) * 255 + 0.5);
}

uint32_t srgb_level(float v) { return srgb_encode_level(v, 255); }

float bits_float(uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// t[k] = the smallest positive float with level >= k + 1, for a non-decreasing level with level(1) = 255.
template <typename Level>
void thresholds(Level level, float* t) {
  uint32_t lo = 0;  // bit pattern of a float whose level is below the current one
  for (uint32_t q = 1; q <= 255; ++q) {
    uint32_t hi = 0x3f800000u;  // 1.0f
    while (hi - lo > 1) {
      const uint32_t mid = lo + (hi - lo) / 2;
      (level(bits_float(mid)) >= q ? hi : lo) = mid;
    }
    t[q - 1] = bits_float(hi);
    lo = hi - 1;
  }
}

struct Tables {
  float plain[255], srgb[255];
  Tables() {
    thresholds(plain_level, plain);
    thresholds(srgb_level, srgb);
  }
};
const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

PackedColour packed_colour(const ImageMeta& meta, int channels, const ColorOptions& opt, ColorState& state) {
  PackedColour c;
  // As to_working decides (PNG: straight alpha, sRGB-encoded samples) and from_working undoes.
  state = ColorState{};
  state.alpha_channel = meta.alpha_channel >= 0 && meta.alpha_channel < channels ? meta.alpha_channel : -1;
  const bool linearise = meta.srgb && opt.linear;
  state.srgb_encoded = meta.srgb && !linearise;
  state.premultiplied = state.alpha_channel >= 0 && opt.premultiply;
  c.alpha_channel = state.alpha_channel;
  c.premultiply = state.premultiplied;
  for (int q = 0; q < 256; ++q) {
    const float v = float(q) / float(255);  // core/io's dequantize
    c.decode[q] = linearise ? srgb_decode_fast(v, PixelType::UInt8) : v;
    c.decode_alpha[q] = v;
  }
  const bool encode_srgb = opt.linear && !state.srgb_encoded;
  c.out_srgb = state.srgb_encoded || encode_srgb;
  std::memcpy(c.encode, encode_srgb ? tables().srgb : tables().plain, sizeof c.encode);
  std::memcpy(c.encode_alpha, tables().plain, sizeof c.encode_alpha);
  c.clip = png_clip_bounds(255, encode_srgb);
  c.clip_alpha = png_clip_bounds(255, false);
  return c;
}

uint32_t packed_level(float v, const float* t) {
  if (!(v > 0.0f)) return 0;
  uint32_t lo = 0, hi = 255;
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (t[mid] <= v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void unpack_image(const PackedImage& src, const PackedColour& c, Image& dst) {
  const int ch = src.channels, a = c.alpha_channel;
  dst = Image();
  dst.width = src.width, dst.height = src.height, dst.channels = ch;
  dst.data.resize(src.value_count());  // every value written below
  const unsigned char* s = src.samples.data();
  float* d = dst.data.data();
  const size_t n = size_t(src.width) * src.height;
  for (size_t i = 0; i < n; ++i, s += ch, d += ch) {
    const float alpha = a >= 0 ? c.decode_alpha[s[a]] : 1.0f;
    for (int k = 0; k < ch; ++k) {
      if (k == a)
        d[k] = alpha;
      else
        d[k] = c.premultiply ? c.decode[s[k]] * alpha : c.decode[s[k]];
    }
  }
}

void pack_image(const Image& src, const PackedColour& c, PackedImage& dst) {
  const int ch = src.channels, a = c.alpha_channel;
  dst.width = src.width, dst.height = src.height, dst.channels = ch;
  dst.samples.resize(src.value_count());
  dst.clipped = ClipCounts{};
  const float* s = src.data.data();
  unsigned char* d = dst.samples.data();
  const size_t n = src.pixel_count();
  for (size_t i = 0; i < n; ++i, s += ch, d += ch) {
    const float alpha = a >= 0 ? s[a] : 1.0f;
    for (int k = 0; k < ch; ++k) {
      if (k == a) {
        d[k] = (unsigned char)packed_level(s[k], c.encode_alpha);
        count_clipped_value(s[k], c.clip_alpha, dst.clipped);
      } else {
        const float v = !c.premultiply ? s[k] : straight_colour(s[k], alpha, c.encode_alpha[0], dst.clipped);
        d[k] = (unsigned char)packed_level(v, c.encode);
        count_clipped_value(v, c.clip, dst.clipped);
      }
    }
  }
}

}  // namespace gpublur
