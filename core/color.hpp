// Colour handling around the blur: sRGB PNG data is blurred in linear light, straight alpha is premultiplied
// for the blur (a blur of straight-alpha colour bleeds transparent pixels' colour into visible ones), and both
// are undone for the output format. EXR is linear and premultiplied by convention, so it is left alone.
// Also: splitting images wider than 4 channels into groups, since backends take 1..4 channels.
#pragma once
#include <cstdint>
#include <string>

#include "core/border.hpp"  // GPUBLUR_HD
#include "core/image.hpp"

namespace gpublur {

// The exact sRGB transfer functions (IEC 61966-2-1), in float on values nominally in [0,1].
float srgb_to_linear(float v);
float linear_to_srgb(float v);

// Table-driven equivalents, equal bit for bit to the functions above: srgb_to_linear of a value read from a
// file of `source` type (UInt8/UInt16: a table lookup when v is exactly a code's value, else the function);
// and the integer level quantize(linear_to_srgb(v), maxval) the PNG writer would store (round half up,
// clamped to [0, maxval], NaN -> 0), by threshold tables for maxval 255 and 65535.
float srgb_decode_fast(float v, PixelType source);
uint32_t srgb_encode_level(float v, uint32_t maxval);

// Where a value written to a PNG of maxval + 1 levels (255, 65535) is clipped by more than half a level: below
// `below` or above `above` (NaN too). Plain: the value is the level's fraction (-h, 1 + h, h = 0.5 / maxval);
// sRGB: a linear value, through the encoding's curve extended past [0, 1] (-h / 12.92, its inverse at 1 + h).
struct ClipBounds {
  float below = 0, above = 1;
};
ClipBounds png_clip_bounds(uint32_t maxval, bool srgb);
// Adds to `c` the values of every channel but alpha_channel (-1: every channel) outside b, and the NaNs.
void count_clipping(const Image& img, int alpha_channel, ClipBounds b, ClipCounts& c);
// One value (host, and CUDA's pack8: the same rule on every backend but GL's shader).
GPUBLUR_HD void count_clipped_value(float v, ClipBounds b, ClipCounts& c) {
  c.below += v < b.below, c.above += v > b.above, c.nan += v != v;
}

// The smallest alpha a PNG of maxval + 1 levels writes as level 1 (below it, or NaN: level 0).
float png_alpha_one(uint32_t maxval);
// A PNG's straight colour from premultiplied colour c at alpha a (host, and CUDA's pack8; GL's shader the same
// rule). A pixel whose alpha writes as level 0 (a < alpha_one, NaN) is transparent and its colour is written 0:
// c / a there is mostly a blur's float residue over residue (1e-21 / 1e-22), which differed by backend and counted
// as clipping. Colour more than such a pixel's coverage explains (|c| >= alpha_one, NaN: an EXR's emission at alpha
// 0) is counted in n.hidden; a faint fringe (c <= a < alpha_one) loses no more than its alpha's rounding.
GPUBLUR_HD float straight_colour(float c, float a, float alpha_one, ClipCounts& n) {
  if (a >= alpha_one) {
#ifdef __CUDA_ARCH__
    return __fdiv_rn(c, a);  // correctly rounded whatever the division flags, as on the host
#else
    return c / a;
#endif
  }
  n.hidden += !(c > -alpha_one && c < alpha_one);
  return 0.0f;
}

struct ColorOptions {
  bool linear = true;       // --no-linear turns off: sRGB data is blurred as encoded
  bool premultiply = true;  // --no-premultiply turns off: alpha is left as it is
};

// What the working pixels are after to_working, so from_working can undo the right things.
struct ColorState {
  bool srgb_encoded = false;  // colour channels still hold sRGB-encoded values
  bool premultiplied = false; // colour channels are multiplied by alpha
  int alpha_channel = -1;
};

// Converts file pixels (as read; meta says what they are) to the blur's working space, in place.
ColorState to_working(Image& img, const ImageMeta& meta, const ColorOptions& opt);

// Converts working pixels to what `out_format` ("png": sRGB, straight alpha; "exr": linear, premultiplied)
// expects, in place, and sets out_meta.srgb to whether the written values are sRGB-encoded. When
// out_meta.pixel_type is UInt8/UInt16 the sRGB values are snapped to the level the writer will store (the
// file is the same; it saves the writer's work and the pow per value); the colour values that encoding clips are
// added to out_meta.clipped (the writer then sees them in range).
void from_working(Image& img, const ColorState& state, const std::string& out_format, const ColorOptions& opt,
                  ImageMeta& out_meta);

// In-place helpers (alpha_channel must be valid): colour channels are every channel but alpha.
void premultiply_alpha(Image& img, int alpha_channel);
// straight_colour on every pixel for a PNG: colour 0 where alpha writes as 0 (below alpha_one), emission there
// counted in counts.hidden.
void unpremultiply_alpha(Image& img, int alpha_channel, float alpha_one, ClipCounts& counts);

// Channel groups of at most 4 (backends take 1..4 channels): copy channels [first, first+count) out of src,
// and back into dst (same width/height).
Image extract_channels(const Image& src, int first, int count);
void insert_channels(const Image& part, int first, Image& dst);

}  // namespace gpublur
