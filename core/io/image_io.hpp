// Image file I/O behind one interface. Two adapters pass the same conformance tests (tests/io):
//   "oiio" - OpenImageIO for EXR decoding (the default where built); PNGs go through the lean adapter's code;
//   "lean" - OpenEXR and libpng directly, for deployments that cannot carry OIIO's dependencies.
// Readers return float32 pixels: PNG values scaled to [0,1] (still sRGB-encoded; the pipeline linearises),
// palette PNGs expanded, EXR channels in file order with names kept. Errors always name the file.
//
// The details both adapters implement (tests/io checks them):
// - EXR channel order: EXR headers keep channels sorted by name (A,B,G,R), so "file order" is taken as: no-layer
//   channels first, then layers by name; within each, R,G,B,Y,A first, then the rest by name
//   ({A,B,G,N.x,R,Z} -> R,G,B,A,Z,N.x). alpha_channel is the channel named "A".
// - EXR pixel types: all-half files read as Half, anything else (float, uint) as Float, with each channel's type in
//   meta.channel_types where they mix half and float; uint values are kept as numbers, not scaled. Subsampled and
//   deep files are refused. Writes each channel as meta.channel_types says, else half unless meta says Float.
// - EXR windows: the data window is read (width/height are its size); a different display window or a data
//   window offset is logged and not kept: files are written with data window = display window at (0,0).
// - Attributes: EXR string attributes and PNG text chunks (tEXt/zTXt/iTXt), under the file's own names
//   ("comments", "owner", "Description", "Author", ...); structural EXR attributes and OIIO's "oiio:*"
//   bookkeeping are neither reported nor written. EXR attributes of other types (chromaticities, framesPerSecond,
//   pixelAspectRatio, screenWindow*, types OpenEXR does not know, ...) travel as their serialised bytes in
//   meta.exr_attributes, EXR to EXR; a PNG output names those it drops. Both adapters write EXRs through OpenEXR
//   (write_exr_lean). PNG text beyond ASCII is written as iTXt, the rest as tEXt (compressed from 1 KiB:
//   png_texts_compressed); values with a NUL are dropped.
//   PNG chunks saying what the colours mean, pHYs and eXIf travel as their bytes in meta.png_chunks, PNG to PNG
//   (read_png_extras); a PNG written with a colour chunk carried gets no sRGB chunk of ours.
// - PNG: 1 gray (Y), 2 gray+alpha (Y,A), 3 RGB, 4 RGBA; 1/2/4-bit gray scaled to 8 bit; palette and tRNS
//   expanded to RGB(A) 8-bit with meta.palette = true. Values are q / (2^bits - 1), straight alpha, still
//   sRGB-encoded (meta.srgb = true). Writing: 16-bit for UInt16 (and for Half/Float, which PNG cannot hold),
//   else 8-bit; values clamped to [0,1] (NaN -> 0) and rounded half up; palette inputs are written back as
//   8-bit RGB(A), not as a palette; more than 4 channels is an error.
// - Limits: width*height and the channel count are checked from the header before any pixel is allocated.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "core/image.hpp"
#include "core/status.hpp"

namespace gpublur {

struct ReadLimits {
  uint64_t max_pixels = uint64_t(1) << 28;  // 268M pixels: guards against decompression bombs
  int max_channels = 64;
  // 8-bit PNGs (any layout, palettes expanded): the samples go to out.packed as read, and out.image carries
  // the shape only, no float pixels (core/packed.hpp converts them where the backend is).
  bool keep_packed = false;
};

class ImageIO {
 public:
  virtual ~ImageIO() = default;
  virtual std::string name() const = 0;  // "oiio" or "lean"
  virtual Status read(const std::string& path, const ReadLimits& limits, LoadedImage& out) = 0;
  // Writes `img` as meta.format ("exr" or "png") with meta.pixel_type (png: uint8/uint16; exr: half/float),
  // channel names and attributes from meta. Writes exactly `path` (callers handle temp names and renames).
  virtual Status write(const std::string& path, const Image& img, const ImageMeta& meta) = 0;
};

// Writes an 8-bit image's samples as an 8-bit PNG (meta: sRGB chunk, attributes, png_compression), with no
// float pass (core/packed.hpp). GPUBLUR_PNG_LIBPNG=1 sends it through io.write instead, to compare codecs.
// The samples are taken (px is left empty), not copied.
Status write_packed_png(ImageIO& io, const std::string& path, PackedImage&& px, const ImageMeta& meta);

// The adapters compiled into this binary; null if that adapter is not built.
std::unique_ptr<ImageIO> make_oiio_io();
std::unique_ptr<ImageIO> make_lean_io();
// The build's default adapter (CMake GPUBLUR_IO), or by name ("oiio", "lean"); null if unavailable.
std::unique_ptr<ImageIO> make_image_io(const std::string& name = "");

// Width, height and channel count from a file's header alone (no pixels decoded): what the pipeline sizes
// its queues by. False when the file cannot be read or is neither PNG nor EXR.
bool probe_image(const std::string& path, int& width, int& height, int& channels);

// A file name's extension after its last dot, lower-cased ("" where its last component has no dot): "EXR" for
// "a/b.EXR" reads "exr".
std::string lowercase_extension(const std::string& path);
// "exr" / "png" from a file name's extension (case-insensitive), "" if neither.
std::string format_from_extension(const std::string& path);

}  // namespace gpublur
