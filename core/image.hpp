// The in-memory image every layer shares: float32, interleaved channels, row-major, no padding.
// Files of any pixel type are converted to this on read and back on write.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace gpublur {

enum class PixelType { UInt8, UInt16, Half, Float };

const char* pixel_type_name(PixelType t);  // "uint8", "uint16", "half", "float"
bool parse_pixel_type(const std::string& s, PixelType& out);

struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<float> data;  // width * height * channels values

  Image() = default;
  Image(int w, int h, int c) : width(w), height(h), channels(c), data(size_t(w) * h * c, 0.0f) {}
  size_t pixel_count() const { return size_t(width) * height; }
  size_t value_count() const { return pixel_count() * channels; }
  size_t byte_count() const { return value_count() * sizeof(float); }
  float& at(int x, int y, int c) { return data[(size_t(y) * width + x) * channels + c]; }
  float at(int x, int y, int c) const { return data[(size_t(y) * width + x) * channels + c]; }
};

// Shapes dst as w x h x c for a download that overwrites every value, keeping its buffer where it holds as many (the
// pipeline downloads into the image it uploaded): a fresh buffer's zero fill and first-touch page faults are a pass
// over the bytes before the copy's own.
inline void shape_for_download(Image& dst, int w, int h, int c) {
  if (dst.data.size() == size_t(w) * h * c)
    dst.width = w, dst.height = h, dst.channels = c;
  else
    dst = Image(w, h, c);
}

// Values a PNG's encoding clips by more than half a level (outside [0, 1] after un-premultiplying, NaN), and the
// colour it drops where alpha writes as 0 (`hidden`: colour that would have shown, such as an EXR's emission at
// alpha 0): counted where the encoding happens (core/color's from_working, core/packed's pack steps on every
// backend), and said by the PNG writer with what it clips itself (they were lost in silence).
struct ClipCounts {
  unsigned long long above = 0, below = 0, nan = 0, hidden = 0;
  unsigned long long total() const { return above + below + nan + hidden; }
  bool operator==(const ClipCounts& o) const {
    return above == o.above && below == o.below && nan == o.nan && hidden == o.hidden;
  }
};

// An EXR attribute of a type other than string, as OpenEXR serialises it: the type's name ("chromaticities", "v2f",
// "rational", ...) and the value's bytes.
struct ExrAttribute {
  std::string name, type, value;
};

// What a file said about itself, beyond the pixels: enough to write it back faithfully.
struct ImageMeta {
  std::string format;                       // "exr" or "png"
  PixelType pixel_type = PixelType::Float;  // storage type in the file
  // An EXR whose channels differ in type (half RGBA beside a float Z): each channel's, in channel_names' order (Half,
  // or Float for float and uint); pixel_type is then Float. Empty where every channel is pixel_type. The EXR written
  // from it keeps them, unless --pixel-type says otherwise.
  std::vector<PixelType> channel_types;
  std::vector<std::string> channel_names;   // one per channel (EXR names; PNG: R,G,B,A / Y,A)
  int alpha_channel = -1;                   // index of alpha, -1 if none
  bool srgb = false;                        // values are sRGB-encoded (PNG); EXR is linear
  bool palette = false;                     // PNG was palette-coded (expanded on read)
  // Encoder settings. Read: the EXR file's compression (OpenEXR's name: "zip", "piz", ...). Write: PNG zlib
  // level 0..9, EXR compression ("" = zip).
  int png_compression = 6;
  std::string exr_compression;
  // A tiled EXR's layout (read; an EXR output keeps it): tile size (0: scanlines), and whether it holds mip-map levels
  // (written anew from the blurred image, halving by 2 x 2 means; levels rounded up where exr_mip_round_up).
  int exr_tile_w = 0, exr_tile_h = 0;
  bool exr_mipmap = false, exr_mip_round_up = false;
  // Metadata carried where the format allows: EXR string attributes, PNG text chunks.
  std::vector<std::pair<std::string, std::string>> attributes;
  // EXR attributes of other types (chromaticities, adoptedNeutral, framesPerSecond, timeCode, pixelAspectRatio,
  // ...): carried from an EXR read to the EXR written; a PNG cannot hold them (the writer says which it drops).
  std::vector<ExrAttribute> exr_attributes;
  // PNG chunks carried from a PNG read to the PNG written, as (type, data): what the colours mean (cHRM, gAMA, iCCP,
  // sRGB, cICP, mDCV, cLLI: a Display P3 photo stays Display P3), the pixel density (pHYs), Exif (eXIf) and the other
  // ancillary chunks marked safe to copy (oFFs, private ones). The values are written back in the encoding they were
  // read in, so these stay true. An EXR output names those it drops, less pHYs (its pixelAspectRatio and xDensity).
  std::vector<std::pair<std::string, std::string>> png_chunks;
  // The name messages give the file being written, where the bytes go to a temporary first (the output's).
  std::string shown_name;
  // Write: what the colour encoding clipped before the writer saw the values (ClipCounts).
  ClipCounts clipped;
};

// An 8-bit image as its file holds it: interleaved samples, rows without padding. The folder job keeps 8-bit
// PNGs in this form so that a backend converts them (core/packed.hpp) where the pixels are: on GPUs, a
// quarter of float32's bytes crosses the bus and the host does no per-pixel work.
struct PackedImage {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<unsigned char> samples;  // width * height * channels
  ClipCounts clipped;                  // a download's: what packing the floats clipped
  size_t value_count() const { return size_t(width) * height * channels; }
};

struct LoadedImage {
  Image image;  // with `packed` filled: width, height and channels only, no data
  ImageMeta meta;
  PackedImage packed;  // only when the reader was asked for it (ReadLimits::keep_packed) and could
};

}  // namespace gpublur
