// The lean adapter's codecs (internal to core/io): libpng and OpenEXR called directly.
// Callers run preflight_read / prepare_write (io_common.hpp) first.
#pragma once
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/io/image_io.hpp"
#include "core/status.hpp"

namespace gpublur::io {

// Header-only probes (see probe_image).
bool probe_png(const std::string& path, int& width, int& height, int& channels);
bool probe_exr(const std::string& path, int& width, int& height, int& channels);

Status read_png_lean(const std::string& path, const ReadLimits& limits, LoadedImage& out);
Status write_png_lean(const std::string& path, const Image& img, const ImageMeta& meta);
// write_png_lean's libpng path (GPUBLUR_PNG_LIBPNG=1), whatever the environment says: the tests write through both.
Status write_png_libpng(const std::string& path, const Image& img, const ImageMeta& meta);

Status read_exr_lean(const std::string& path, const ReadLimits& limits, LoadedImage& out);
Status write_exr_lean(const std::string& path, const Image& img, const ImageMeta& meta,
                      const std::vector<std::string>& names);
// The EXR's string attributes into meta.attributes and its typed ones into meta.exr_attributes, from its header
// alone, as read_exr_lean takes them, and the same warnings read_exr_lean gives on what the header says is dropped
// (levels): for the OIIO adapter, which reads the pixels through OIIO and writes EXRs through write_exr_lean.
Status read_exr_typed_attributes(const std::string& path, ImageMeta& meta);

}  // namespace gpublur::io
