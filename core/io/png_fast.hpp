// PNG without libpng for the common files (writing, by default; reading only on request, see lean_png.cpp): 8/16-bit gray, gray+alpha, RGB, RGBA, not interlaced, no
// palette/tRNS. Chunks are parsed here, IDAT inflated and deflated in one call by libdeflate (about twice
// zlib's speed at equal level), rows filtered/unfiltered here. Both adapters use it for PNG; anything else
// (palette, tRNS, 1/2/4-bit, interlaced, compressed text, a damaged file) goes to libpng, which also writes
// the canonical error messages. Internal to core/io.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/io/image_io.hpp"
#include "core/status.hpp"

namespace gpublur::io {

// GPUBLUR_PNG_LIBPNG=1 in the environment sends every PNG through libpng (to compare the codecs).
bool libpng_forced();
// GPUBLUR_PNG_FAST_READ=1: the lean adapter reads through read_png_fast too (off by default: slower, see
// lean_png.cpp).
bool fast_read_wanted();

// Reads `path` if it is a file the fast path handles: returns true with `status` set (success, or a limit
// error). Returns false, touching nothing, when libpng should read it instead.
bool read_png_fast(const std::string& path, const ReadLimits& limits, LoadedImage& out, Status& status);

// What a PNG carries beyond its pixels, read from `path`'s chunks in file order:
// - text: tEXt and zTXt (Latin-1 bytes), iTXt (its UTF-8 text, language tag and translated keyword dropped);
//   compressed ones inflated up to 64 MiB (more: skipped with a warning); OpenImageIO's bookkeeping keys left out;
// - chunks: the types ImageMeta::png_chunks lists, the first of each type, of the size the PNG
//   specification gives them, before the image data (eXIf anywhere), with contents a reader accepts (an sRGB intent
//   0-3, an iCCP whose profile inflates to an ICC header of its length, an eXIf with a TIFF header, ...); others are
//   said and left out. Also every other ancillary chunk before the image data whose type marks it safe to copy
//   (oFFs, private chunks), as its bytes; unsafe ones (tIME, bKGD, sBIT) are left out as the specification says.
// An animated PNG (acTL) is said: its default image is what is read.
// Damaged chunks (their CRC) are skipped with a warning, as libpng drops them. Both adapters take these from here:
// OpenImageIO parsed an XMP packet into fields of its own (the packet lost), kept one of two text chunks of one
// keyword and carried none of the chunks.
struct PngExtras {
  std::vector<std::pair<std::string, std::string>> text;
  std::vector<std::pair<std::string, std::string>> chunks;
};
PngExtras read_png_extras(const std::string& path);
// Whether a PNG written with `meta` gets an sRGB chunk of ours: sRGB-encoded values and no chunk carried that declares
// the colour space.
bool png_writes_srgb(const ImageMeta& meta);

// Writes like write_png_lean (same pixels, same chunks: IHDR, the carried chunks, sRGB when png_writes_srgb, tEXt /
// zTXt / iTXt, IDAT, IEND) at zlib-scale level 0..9; rows filtered by libpng's default heuristic (per row, the filter
// with the least sum of absolute signed bytes; level 0: no filtering), so sizes match libpng's closely.
Status write_png_fast(const std::string& path, const Image& img, const ImageMeta& meta, int level);

// The codec pieces, for tests and the codec benchmark: raw big-endian samples <-> PNG file bytes.
struct PngRaw {
  uint32_t width = 0, height = 0;
  int channels = 0, bit_depth = 8;
  std::vector<unsigned char> samples;  // rows of width * channels * bit_depth/8 bytes, no filter bytes
};
Status encode_png_fast(const PngRaw& raw, bool srgb, const std::vector<std::pair<std::string, std::string>>& text,
                       int level, std::vector<unsigned char>& file,
                       const std::vector<std::pair<std::string, std::string>>& chunks = {});
// False when the fast path does not handle these bytes (see read_png_fast).
bool decode_png_fast(const unsigned char* data, size_t size, PngRaw& raw,
                     std::vector<std::pair<std::string, std::string>>& text, bool& srgb);

}  // namespace gpublur::io
