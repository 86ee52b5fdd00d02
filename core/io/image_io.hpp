// Image file I/O behind one interface. Two adapters pass the same conformance tests (tests/io):
//   "oiio" - OpenImageIO (the default where built);
//   "lean" - OpenEXR and libpng directly, for deployments that cannot carry OIIO's dependencies.
// Readers return float32 pixels: PNG values scaled to [0,1] (still sRGB-encoded; the pipeline linearises),
// palette PNGs expanded, EXR channels in file order with names kept. Errors always name the file.
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

// The adapters compiled into this binary; null if that adapter is not built.
std::unique_ptr<ImageIO> make_oiio_io();
std::unique_ptr<ImageIO> make_lean_io();
// The build's default adapter (CMake GPUBLUR_IO), or by name ("oiio", "lean"); null if unavailable.
std::unique_ptr<ImageIO> make_image_io(const std::string& name = "");

// "exr" / "png" from a file name's extension (case-insensitive), "" if neither.
std::string format_from_extension(const std::string& path);

}  // namespace gpublur
