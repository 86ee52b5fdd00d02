#include "core/color.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>


namespace gpublur {

float srgb_to_linear(float v) {
  // Computed in double so the round trip through linear_to_srgb is exact to float precision.
  const double x = v;
  return float(x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4));
}

float linear_to_srgb(float v) {
  const double x = v;
  return float(x <= 0.0031308 ? x * 12.92 : 1.055 * std::pow(x, 1.0 / 2.4) - 0.055);
}

// ---------------------------------------------------------------------------------------------------------
// Table-driven transfer functions. Every result equals what the functions above give (and, for encoding,
// what quantising their result gives): the tables only remember those results, they approximate nothing.

namespace {

// Decoding: a value read from a q-bit file is exactly q / maxval in float; such values take the table entry
// computed from that very float, any other value (a float file, a value not on the grid) the function.
struct DecodeTable {
  uint32_t maxval;
  std::vector<float> grid, linear;  // grid[q] = float(q) / maxval, linear[q] = srgb_to_linear(grid[q])
  explicit DecodeTable(uint32_t m) : maxval(m), grid(m + 1), linear(m + 1) {
    for (uint32_t q = 0; q <= m; ++q) {
      grid[q] = float(q) / float(m);
      linear[q] = srgb_to_linear(grid[q]);
    }
  }
  float operator()(float v) const {
    const float s = v * float(maxval) + 0.5f;
    if (s >= 0.0f && s < float(maxval) + 1.0f) {
      const uint32_t q = uint32_t(s);
      if (grid[q] == v) return linear[q];
    }
    return srgb_to_linear(v);
  }
};

uint32_t float_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
float bits_float(uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Encoding straight to a quantised level: level(v) = quantize(linear_to_srgb(v)) (round half up, clamped,
// NaN -> 0; core/io's quantize) is non-decreasing in v, so it is the number of thresholds t[1..maxval] at or
// below v, t[q] being the smallest float with level >= q (found by bisection over float bit patterns).
// A bucket table over the float's exponent and top mantissa bits gives the level at each bucket's start;
// the few thresholds inside a bucket are stepped over.
struct EncodeTable {
  static constexpr int kMinExp = 127 - 24;  // below 2^-24 every level is 0 (even 16-bit level 1 needs ~6e-7)
  uint32_t maxval;
  int mant_bits;
  std::vector<float> threshold;   // [maxval + 2]: t[0] = 0, t[maxval + 1] = +inf
  std::vector<uint32_t> bucket;   // level at the start of each bucket

  static uint32_t exact_level(float v, uint32_t maxval) {
    const float s = linear_to_srgb(v);
    if (!(s > 0.0f)) return 0;
    if (s >= 1.0f) return maxval;
    return uint32_t(double(s) * maxval + 0.5);
  }

  EncodeTable(uint32_t m, int bits) : maxval(m), mant_bits(bits), threshold(m + 2) {
    threshold[0] = 0.0f;
    threshold[m + 1] = INFINITY;
    const uint32_t one = float_bits(1.0f);
    uint32_t lo = 0;  // bit pattern: level(bits_float(lo)) < q, for the current q
    for (uint32_t q = 1; q <= m; ++q) {
      // Bracket the threshold by galloping from its estimate (the curve's inverse at the half level, within a few
      // floats of it), then bisect: a few pow calls a level where bisecting from `lo` to 1.0 took 30 (the 16-bit
      // table took 27 ms, charged to the first 16-bit PNG a process wrote).
      const float guess = srgb_to_linear(float((q - 0.5) / m));
      uint32_t g = std::clamp(float_bits(guess), lo + 1, one), hi = one;
      if (exact_level(bits_float(g), m) >= q) {
        hi = g;
        for (uint32_t step = 1; hi - lo > 1; step *= 2) {
          const uint32_t below = hi - lo > step ? hi - step : lo;
          if (below == lo || exact_level(bits_float(below), m) < q) {
            lo = below;
            break;
          }
          hi = below;
        }
      } else {
        lo = g;
        for (uint32_t step = 1; hi - lo > 1; step *= 2) {
          const uint32_t above = one - lo > step ? lo + step : one;
          if (above == one || exact_level(bits_float(above), m) >= q) {
            hi = above;
            break;
          }
          lo = above;
        }
      }
      while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        (exact_level(bits_float(mid), m) >= q ? hi : lo) = mid;
      }
      threshold[q] = bits_float(hi);
      lo = hi - 1;  // thresholds do not decrease
    }
    const uint32_t buckets = uint32_t(127 - kMinExp) << bits;
    bucket.resize(buckets);
    uint32_t q = 0;
    for (uint32_t b = 0; b < buckets; ++b) {
      const float start = bits_float((uint32_t(kMinExp) << 23) + (b << (23 - bits)));
      while (threshold[q + 1] <= start) ++q;
      bucket[b] = q;
    }
  }

  uint32_t operator()(float v) const {
    if (!(v > 0.0f)) return 0;  // NaN, zero, negatives
    if (v >= 1.0f) return maxval;
    const uint32_t b = float_bits(v);
    const int e = int(b >> 23);
    uint32_t q = e < kMinExp ? 0 : bucket[((uint32_t(e - kMinExp)) << mant_bits) | ((b & 0x7fffff) >> (23 - mant_bits))];
    while (threshold[q + 1] <= v) ++q;
    return q;
  }
};

const DecodeTable& decode8() {
  static const DecodeTable t(255);
  return t;
}
const DecodeTable& decode16() {
  static const DecodeTable t(65535);
  return t;
}
const EncodeTable& encode8() {
  static const EncodeTable t(255, 8);
  return t;
}
const EncodeTable& encode16() {
  static const EncodeTable t(65535, 12);
  return t;
}

// The per-pixel loops below run on one thread: the pipeline already runs one image per I/O thread, so
// threads inside an image would only oversubscribe the cores. (The range form keeps the loops ready for it.)
template <typename F>
void for_pixels(size_t n, F f) {
  f(size_t(0), n);
}

template <typename F>
void map_colour(Image& img, int alpha_channel, F f) {
  const int c = img.channels;
  float* data = img.data.data();
  for_pixels(img.pixel_count(), [&](size_t begin, size_t end) {
    if (alpha_channel < 0) {
      for (size_t i = begin * c; i < end * c; ++i) data[i] = f(data[i]);
      return;
    }
    for (size_t i = begin; i < end; ++i) {
      float* p = data + i * c;
      for (int k = 0; k < c; ++k)
        if (k != alpha_channel) p[k] = f(p[k]);
    }
  });
}

}  // namespace

float srgb_decode_fast(float v, PixelType source) {
  if (source == PixelType::UInt8) return decode8()(v);
  if (source == PixelType::UInt16) return decode16()(v);
  return srgb_to_linear(v);
}

uint32_t srgb_encode_level(float v, uint32_t maxval) {
  if (maxval == 255) return encode8()(v);
  if (maxval == 65535) return encode16()(v);
  return EncodeTable::exact_level(v, maxval);
}

// Premultiply and its inverse, with the channel count a compile-time constant for the common layouts so the
// compiler unrolls and vectorises the inner loop.
namespace {

template <int C>
void premultiply_fixed(float* data, size_t begin, size_t end, int a) {
  for (size_t i = begin; i < end; ++i) {
    float* p = data + i * C;
    const float alpha = p[a];
    for (int k = 0; k < C; ++k) p[k] = k == a ? alpha : p[k] * alpha;
  }
}

template <int C>
void unpremultiply_fixed(float* data, size_t begin, size_t end, int a, float one, ClipCounts& n) {
  for (size_t i = begin; i < end; ++i) {
    float* p = data + i * C;
    const float alpha = p[a];
    for (int k = 0; k < C; ++k)
      if (k != a) p[k] = straight_colour(p[k], alpha, one, n);
  }
}

}  // namespace

void premultiply_alpha(Image& img, int a) {
  const int c = img.channels;
  float* data = img.data.data();
  for_pixels(img.pixel_count(), [&](size_t begin, size_t end) {
    if (c == 4) return premultiply_fixed<4>(data, begin, end, a);
    if (c == 2) return premultiply_fixed<2>(data, begin, end, a);
    for (size_t i = begin; i < end; ++i) {
      float* p = data + i * c;
      for (int k = 0; k < c; ++k)
        if (k != a) p[k] *= p[a];
    }
  });
}

void unpremultiply_alpha(Image& img, int a, float one, ClipCounts& n) {
  const int c = img.channels;
  float* data = img.data.data();
  for_pixels(img.pixel_count(), [&](size_t begin, size_t end) {
    if (c == 4) return unpremultiply_fixed<4>(data, begin, end, a, one, n);
    if (c == 2) return unpremultiply_fixed<2>(data, begin, end, a, one, n);
    for (size_t i = begin; i < end; ++i) {
      float* p = data + i * c;
      const float alpha = p[a];
      for (int k = 0; k < c; ++k)
        if (k != a) p[k] = straight_colour(p[k], alpha, one, n);
    }
  });
}

float png_alpha_one(uint32_t maxval) {
  // The writer's rounding: level = floor(a * maxval + 0.5) in double (exact), so level 1 from a * maxval >= 0.5.
  float a = float(0.5 / double(maxval));
  while (double(a) * maxval < 0.5) a = std::nextafter(a, 1.0f);
  while (double(std::nextafter(a, 0.0f)) * maxval >= 0.5) a = std::nextafter(a, 0.0f);
  return a;
}

ColorState to_working(Image& img, const ImageMeta& meta, const ColorOptions& opt) {
  ColorState s;
  s.alpha_channel = (meta.alpha_channel >= 0 && meta.alpha_channel < img.channels) ? meta.alpha_channel : -1;
  s.srgb_encoded = meta.srgb;
  if (meta.srgb && opt.linear) {
    // Integer files: a table lookup per value (exactly srgb_to_linear of the value read).
    if (meta.pixel_type == PixelType::UInt8) {
      const DecodeTable& t = decode8();
      map_colour(img, s.alpha_channel, [&](float v) { return t(v); });
    } else if (meta.pixel_type == PixelType::UInt16) {
      const DecodeTable& t = decode16();
      map_colour(img, s.alpha_channel, [&](float v) { return t(v); });
    } else {
      map_colour(img, s.alpha_channel, srgb_to_linear);
    }
    s.srgb_encoded = false;
  }
  // PNG alpha is straight; EXR alpha is premultiplied by convention.
  const bool straight = meta.format == "png";
  if (s.alpha_channel >= 0) {
    s.premultiplied = !straight;
    if (straight && opt.premultiply) {
      premultiply_alpha(img, s.alpha_channel);
      s.premultiplied = true;
    }
  }
  return s;
}

ClipBounds png_clip_bounds(uint32_t maxval, bool srgb) {
  const double h = 0.5 / double(maxval);
  if (!srgb) return {float(-h), float(1 + h)};
  return {float(-h / 12.92), float(std::pow((1 + h + 0.055) / 1.055, 2.4))};
}

void count_clipping(const Image& img, int alpha_channel, ClipBounds b, ClipCounts& c) {
  const int ch = img.channels;
  const size_t pixels = img.pixel_count();
  const float* d = img.data.data();
  for (size_t i = 0; i < pixels; ++i, d += ch)
    for (int k = 0; k < ch; ++k)
      if (k != alpha_channel) count_clipped_value(d[k], b, c);
}

void from_working(Image& img, const ColorState& s, const std::string& out_format, const ColorOptions& opt,
                  ImageMeta& out_meta) {
  const bool png = out_format == "png";
  // PNG has an alpha slot only in gray + alpha and RGBA: a lone channel (an EXR matte named A) is gray, encoded as
  // the gray a PNG reader decodes (it was written linear, and read back darker).
  const int alpha = png && img.channels % 2 == 1 ? -1 : s.alpha_channel;
  bool encoded = s.srgb_encoded;
  const bool encode = png && opt.linear && !encoded;
  // Un-premultiply in linear light, before encoding, the inverse order of to_working. A PNG is 8 or 16 bits
  // (io's png_bit_depth): its alpha's level 0 decides which pixels are transparent.
  if (alpha >= 0 && s.premultiplied && png && opt.premultiply) {
    const uint32_t levels = out_meta.pixel_type == PixelType::UInt8 ? 255 : 65535;
    unpremultiply_alpha(img, alpha, png_alpha_one(levels), out_meta.clipped);
  }
  if (encode) {
    // An integer output: straight to the level the writer would quantise linear_to_srgb(v) to, stored as
    // that level's exact value (the writer's quantize gives the level back), so the file is bit for bit what
    // the pow-based path writes. Other pixel types get linear_to_srgb itself.
    const PixelType t = out_meta.pixel_type;
    const uint32_t maxval = t == PixelType::UInt8 ? 255 : t == PixelType::UInt16 ? 65535 : 0;
    if (maxval > 0) count_clipping(img, alpha, png_clip_bounds(maxval, true), out_meta.clipped);
    if (maxval == 255) {
      const EncodeTable& e = encode8();
      const DecodeTable& g = decode8();
      map_colour(img, alpha, [&](float v) { return g.grid[e(v)]; });
    } else if (maxval == 65535) {
      const EncodeTable& e = encode16();
      const DecodeTable& g = decode16();
      map_colour(img, alpha, [&](float v) { return g.grid[e(v)]; });
    } else {
      map_colour(img, alpha, linear_to_srgb);
    }
    encoded = true;
  }
  out_meta.srgb = png && encoded;
}

Image extract_channels(const Image& src, int first, int count) {
  Image out(src.width, src.height, count);
  const size_t n = src.pixel_count();
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < count; ++k) out.data[i * count + k] = src.data[i * src.channels + first + k];
  return out;
}

void insert_channels(const Image& part, int first, Image& dst) {
  const size_t n = dst.pixel_count();
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < part.channels; ++k) dst.data[i * dst.channels + first + k] = part.data[i * part.channels + k];
}

}  // namespace gpublur
