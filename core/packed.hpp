// The colour steps between an 8-bit PNG's samples and the blur's working pixels, as tables, so that a backend
// can run them where its pixels are (issue 12 point 2: on GPUs the file's bytes cross the bus, a quarter of
// float32's) with results equal bit for bit to the float path: core/color.hpp's to_working / from_working and
// the PNG writer's quantisation. unpack_image / pack_image are the host forms, the reference every backend's
// own form is tested against.
#pragma once
#include <cstdint>

#include "core/color.hpp"
#include "core/image.hpp"

namespace gpublur {

struct PackedColour {
  int alpha_channel = -1;     // -1: none
  bool premultiply = false;   // colour x alpha after decoding; before encoding core/color's straight_colour
  bool out_srgb = false;      // the written values are sRGB-encoded (the PNG's sRGB chunk)
  float decode[256];          // colour channels: sample -> working value
  float decode_alpha[256];    // the alpha channel: q / 255
  // Encoding: level(v) = how many thresholds are <= v (NaN and v <= 0: 0); thresholds[k] is the smallest
  // float whose level is k + 1 (found by bisection over float bit patterns: exact, not approximated).
  float encode[255];          // colour channels
  float encode_alpha[255];    // the alpha channel (the writer's plain rounding)
  // Where packing clips by more than half a level (core/color.hpp's png_clip_bounds): the download counts those
  // values, and the colour dropped where alpha packs as 0 (encode_alpha[0] is png_alpha_one(255)), into
  // PackedImage::clipped, as the float path's from_working and writer do.
  ClipBounds clip, clip_alpha;
};

// The steps for an 8-bit PNG read as `meta` (channels 1..4) and written back as an 8-bit PNG; `state` is what
// to_working would have returned (for the callers that download float pixels after all).
PackedColour packed_colour(const ImageMeta& meta, int channels, const ColorOptions& opt, ColorState& state);

// level(v) as defined above, by binary search over 255 thresholds.
uint32_t packed_level(float v, const float* thresholds);

// Host forms: samples -> working float pixels, and working float pixels -> samples (dst.clipped counted).
void unpack_image(const PackedImage& src, const PackedColour& c, Image& dst);
void pack_image(const Image& src, const PackedColour& c, PackedImage& dst);

}  // namespace gpublur
