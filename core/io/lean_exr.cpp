// EXR through OpenEXR directly. OpenEXR throws (Iex::BaseExc derives from std::exception): every call is
// inside try/catch and comes back as a Status naming the file.
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#include <ImfMultiPartInputFile.h>
#include <ImfOpaqueAttribute.h>
#include <ImfOutputFile.h>
#include <ImfPartType.h>
#include <ImfStandardAttributes.h>
#include <ImfStdIO.h>
#include <ImfStringAttribute.h>
#include <ImfTileDescription.h>
#include <ImfTiledOutputFile.h>
#include <ImfVersion.h>
#include <Imath/half.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>

#include "core/io/io_common.hpp"
#include "core/io/lean_formats.hpp"

namespace gpublur::io {

namespace {

// InputFile composites a deep file into flat pixels without a word: refused instead, as the other adapter does.
bool is_deep(const Imf::Header& header) { return header.hasType() && Imf::isDeepData(header.type()); }

// The typed attributes carried: every non-string one but the structure the writer sets itself and the preview (a
// thumbnail of the unblurred pixels: wrong once they change, as PNG's unsafe-to-copy chunks are); of the structural
// ones, the geometry the data window does not say (pixel aspect ratio, screen window).
bool carried_typed(const std::string& name) {
  return name == "pixelAspectRatio" || name == "screenWindowCenter" || name == "screenWindowWidth" ||
         !(is_structural_exr_attribute(name) || is_oiio_bookkeeping(name) || name == "preview");
}

constexpr int kAttributeVersion = 2;  // EXR_VERSION: what the attribute serialisers are told

// The header's own geometry at its defaults (every EXR has them) says nothing: not carried, so that a PNG output
// names only what it really drops.
bool at_default(const Imf::Header& header, const std::string& name) {
  if (name == "pixelAspectRatio") return header.pixelAspectRatio() == 1.0f;
  if (name == "screenWindowCenter") return header.screenWindowCenter() == Imath::V2f(0, 0);
  if (name == "screenWindowWidth") return header.screenWindowWidth() == 1.0f;
  return false;
}

void take_typed_attributes(const Imf::Header& header, const std::string& path, ImageMeta& meta) {
  if (header.hasPreviewImage()) spdlog::debug("'{}': preview not carried (a thumbnail of the unblurred pixels)", path);
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (dynamic_cast<const Imf::StringAttribute*>(&it.attribute()) || !carried_typed(it.name()) ||
        at_default(header, it.name()))
      continue;
    Imf::StdOSStream os;
    it.attribute().writeValueTo(os, kAttributeVersion);
    meta.exr_attributes.push_back({it.name(), it.attribute().typeName(), os.str()});
  }
}

void put_typed_attributes(const std::string& shown, const ImageMeta& meta, Imf::Header& header) {
  for (const ExrAttribute& a : meta.exr_attributes) {
    if (!carried_typed(a.name)) continue;
    try {
      std::unique_ptr<Imf::Attribute> attr(Imf::Attribute::knownType(a.type.c_str())
                                               ? Imf::Attribute::newAttribute(a.type.c_str())
                                               : new Imf::OpaqueAttribute(a.type.c_str()));
      Imf::StdISStream is;
      is.str(a.value);
      attr->readValueFrom(is, int(a.value.size()), kAttributeVersion);
      header.insert(a.name, *attr);
    } catch (const std::exception& e) {
      spdlog::warn("'{}': attribute '{}' ({}) not written: {}", shown, a.name, a.type, e.what());
    }
  }
}

// The header's string attributes (not structure, not OpenImageIO's bookkeeping), as the file holds them: both adapters
// take them from here, so one file gives one set (OpenImageIO's own list dropped empty strings, textureformat and
// wrapmodes).
void take_string_attributes(const Imf::Header& header, ImageMeta& meta) {
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (is_structural_exr_attribute(it.name()) || is_oiio_bookkeeping(it.name())) continue;
    if (auto* s = dynamic_cast<const Imf::StringAttribute*>(&it.attribute()))
      meta.attributes.emplace_back(it.name(), s->value());
  }
}

// A tiled file's layout, which an EXR output keeps (tiles of the same size; a mip-map's levels made anew from the
// blurred image). A rip-mapped file's top level is read and its output has that level only: said.
void take_tiles(const Imf::Header& header, const std::string& path, ImageMeta& meta) {
  if (!header.hasTileDescription()) return;
  const Imf::TileDescription& td = header.tileDescription();
  meta.exr_tile_w = int(td.xSize), meta.exr_tile_h = int(td.ySize);
  meta.exr_mipmap = td.mode == Imf::MIPMAP_LEVELS;
  meta.exr_mip_round_up = td.roundingMode == Imf::ROUND_UP;
  if (td.mode == Imf::RIPMAP_LEVELS)
    spdlog::warn("'{}': a rip-mapped EXR; its full-resolution level is read, the output has that level only", path);
}

}  // namespace

Status read_exr_typed_attributes(const std::string& path, ImageMeta& meta) {
  try {
    Imf::InputFile file(path.c_str());
    take_string_attributes(file.header(), meta);
    take_typed_attributes(file.header(), path, meta);
    take_tiles(file.header(), path, meta);
    return Status::success();
  } catch (const std::exception& e) {
    return Status::fail(fmt::format("cannot read '{}': corrupt or truncated EXR: {}", path, e.what()));
  }
}

bool probe_exr(const std::string& path, int& width, int& height, int& channels) {
  try {
    Imf::InputFile file(path.c_str());
    if (is_deep(file.header())) return false;
    const Imath::Box2i dw = file.header().dataWindow();
    width = dw.max.x - dw.min.x + 1;
    height = dw.max.y - dw.min.y + 1;
    channels = 0;
    for (auto it = file.header().channels().begin(); it != file.header().channels().end(); ++it) ++channels;
    return width > 0 && height > 0 && channels > 0;
  } catch (const std::exception&) {
    return false;
  }
}

Status read_exr_lean(const std::string& path, const ReadLimits& limits, LoadedImage& out) {
  try {
    {
      // The first part's header alone: InputFile's constructor throws on a deep tiled part, or a deep one without
      // A, and the refusal read "corrupt or truncated EXR" (the other adapter says deep).
      Imf::MultiPartInputFile parts(path.c_str());
      if (parts.parts() > 0 && is_deep(parts.header(0)))
        return Status::fail(
            fmt::format("cannot read '{}': deep EXR images ({}) are not supported", path, parts.header(0).type()));
    }
    Imf::InputFile file(path.c_str());
    const Imf::Header& header = file.header();
    const Imath::Box2i dw = header.dataWindow();
    const int64_t width = int64_t(dw.max.x) - dw.min.x + 1;
    const int64_t height = int64_t(dw.max.y) - dw.min.y + 1;

    std::vector<std::string> file_names;
    std::vector<Imf::PixelType> file_types;
    for (auto it = header.channels().begin(); it != header.channels().end(); ++it) {
      if (it.channel().xSampling != 1 || it.channel().ySampling != 1)
        return Status::fail(fmt::format("cannot read '{}': channel '{}' is subsampled ({}x{}); not supported", path,
                                        it.name(), it.channel().xSampling, it.channel().ySampling));
      file_names.push_back(it.name());
      file_types.push_back(it.channel().type);
    }
    // Limits first: nothing proportional to the image is allocated before this check.
    if (Status st = check_limits(path, uint64_t(std::max<int64_t>(width, 0)), uint64_t(std::max<int64_t>(height, 0)),
                                 file_names.size(), limits);
        !st)
      return st;
    if (Imf::isMultiPart(file.version()))  // InputFile reads the first part only
      spdlog::warn("'{}': a multi-part EXR; only its first part is read (and written)", path);
    if (header.displayWindow() != dw)
      spdlog::warn("'{}': data window differs from the display window; reading the data window only "
                   "(written back at origin 0,0 with display window = data window)",
                   path);
    else if (dw.min != Imath::V2i(0, 0))
      spdlog::warn("'{}': data and display window at ({}, {}); written back at origin 0,0", path, dw.min.x, dw.min.y);

    const std::vector<int> order = exr_channel_order(file_names);
    const int nc = int(file_names.size());
    Image img(int(width), int(height), nc);
    ImageMeta meta;
    meta.format = "exr";
    meta.pixel_type = PixelType::Half;
    Imf::FrameBuffer fb;
    const size_t xstride = sizeof(float) * nc, ystride = xstride * size_t(width);
    std::vector<std::string> uints;
    for (int c = 0; c < nc; ++c) {
      const int src = order[c];
      meta.channel_names.push_back(file_names[src]);
      // uint channels are converted to float too; any non-half channel makes the image "float".
      if (file_types[src] != Imf::HALF) meta.pixel_type = PixelType::Float;
      if (file_types[src] == Imf::UINT) uints.push_back(file_names[src]);
      fb.insert(file_names[src],
                Imf::Slice::Make(Imf::FLOAT, img.data.data() + c, dw, xstride, ystride));
    }
    io::warn_uint_channels(path, uints);
    for (int c = 0; c < nc && meta.pixel_type == PixelType::Float; ++c)  // mixed: each channel's type kept
      meta.channel_types.push_back(file_types[order[c]] == Imf::HALF ? PixelType::Half : PixelType::Float);
    if (std::count(meta.channel_types.begin(), meta.channel_types.end(), PixelType::Half) == 0)
      meta.channel_types.clear();
    meta.alpha_channel = find_alpha(meta.channel_names);
    meta.exr_compression = exr_compression_name(int(header.compression()));
    take_string_attributes(header, meta);
    take_typed_attributes(header, path, meta);
    take_tiles(header, path, meta);
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    out.image = std::move(img);
    out.meta = std::move(meta);
    return Status::success();
  } catch (const std::bad_alloc&) {  // a whole file the memory could not hold is not a corrupt one
    return Status::fail(fmt::format("cannot read '{}': out of memory decoding it", path));
  } catch (const std::exception& e) {
    return Status::fail(fmt::format("cannot read '{}': corrupt or truncated EXR: {}", path, e.what()));
  }
}

namespace {

// OpenEXR's output stream onto a CheckedFile; a failed write throws (to stop the writer) and stays in the file.
class CheckedStream : public Imf::OStream {
 public:
  CheckedStream(CheckedFile& file, const std::string& path) : Imf::OStream(path.c_str()), file_(file) {}
  void write(const char c[], int n) override {
    if (!file_.write_at(c, size_t(n), pos_)) throw std::runtime_error(file_.reason());
    pos_ += uint64_t(n);
  }
  uint64_t tellp() override { return pos_; }
  void seekp(uint64_t pos) override { pos_ = pos; }

 private:
  CheckedFile& file_;
  uint64_t pos_ = 0;
};

}  // namespace

Status write_exr_lean(const std::string& path, const Image& img, const ImageMeta& meta,
                      const std::vector<std::string>& names) {
  try {
    Imf::Header header(img.width, img.height);
    const int compression = meta.exr_compression.empty() ? int(Imf::ZIP_COMPRESSION)
                                                         : exr_compression_id(meta.exr_compression);
    if (compression < 0)
      return Status::fail(fmt::format("cannot write '{}': unknown EXR compression '{}'", path, meta.exr_compression));
    header.compression() = Imf::Compression(compression);
    // Each channel's type: meta.channel_types where the file mixed them, else the image's.
    const bool per_channel = meta.channel_types.size() == size_t(img.channels);
    std::vector<Imf::PixelType> types(size_t(img.channels));
    bool any_half = false;
    for (int c = 0; c < img.channels; ++c) {
      const PixelType t = per_channel ? meta.channel_types[size_t(c)] : meta.pixel_type;
      types[size_t(c)] = exr_writes_float(t) ? Imf::FLOAT : Imf::HALF;
      any_half = any_half || types[size_t(c)] == Imf::HALF;
    }
    // OutputFile does not convert: half channels need a half buffer (Imath::half rounds to nearest even).
    std::vector<Imath::half> halves;
    if (any_half) {
      halves.resize(img.data.size());
      // Finite values half cannot hold, written as +-Inf, so say it: those that round to Inf (|v| >= 65520), not all
      // above 65504 (65504.0078, a blur of 65504s in float32, is written as 65504).
      size_t beyond = 0;
      for (size_t i = 0; i < img.data.size(); ++i) {  // one pass: converted and counted
        if (types[i % size_t(img.channels)] != Imf::HALF) continue;
        const float v = img.data[i];
        halves[i] = Imath::half(v);
        beyond += std::isfinite(v) && halves[i].isInfinity();
      }
      if (beyond > 0)
        spdlog::warn("'{}': {} values beyond half's range (+-65504) written as +-Inf (--pixel-type float keeps them)",
                     shown_name(meta, path), beyond);
    }
    for (int c = 0; c < img.channels; ++c) header.channels().insert(names[c], Imf::Channel(types[size_t(c)]));
    // A frame buffer over an image of w x h (its floats, and their halves for the half channels).
    const auto frame = [&](const std::vector<float>& data, const std::vector<Imath::half>& hv, int w) {
      Imf::FrameBuffer fb;
      for (int c = 0; c < img.channels; ++c) {
        const bool half = types[size_t(c)] == Imf::HALF;
        const size_t sample = half ? sizeof(Imath::half) : sizeof(float);
        const char* base = half ? reinterpret_cast<const char*>(hv.data()) : reinterpret_cast<const char*>(data.data());
        const size_t xstride = sample * img.channels, ystride = xstride * size_t(w);
        fb.insert(names[c], Imf::Slice(types[size_t(c)], const_cast<char*>(base + c * sample), xstride, ystride));
      }
      return fb;
    };
    const bool tiled = meta.exr_tile_w > 0 && meta.exr_tile_h > 0;
    if (tiled)
      header.setTileDescription(Imf::TileDescription(
          unsigned(meta.exr_tile_w), unsigned(meta.exr_tile_h), meta.exr_mipmap ? Imf::MIPMAP_LEVELS : Imf::ONE_LEVEL,
          meta.exr_mip_round_up ? Imf::ROUND_UP : Imf::ROUND_DOWN));
    std::set<std::string> written;
    for (const auto& [text_key, value] : meta.attributes) {
      if (text_key.empty() || is_oiio_bookkeeping(text_key)) {
        spdlog::debug("'{}': attribute '{}' not written (OpenImageIO's own)", path, text_key);
        continue;
      }
      // A text (a PNG's) named as a part of the EXR's structure (type, name, channels) or a typed standard attribute
      // (xDensity: the write failed where a pHYs set it; chromaticities) goes under "png:" and its name: it was
      // dropped, or written as a string of the wrong type.
      std::string key = text_key;
      if (is_structural_exr_attribute(key) || is_typed_standard_exr_attribute(key)) {
        key = "png:" + text_key;
        spdlog::warn("'{}': text '{}' written as '{}': the EXR's '{}' is {}", shown_name(meta, path), text_key, key,
                     text_key, is_structural_exr_attribute(text_key) ? "part of its structure" : "not a string");
      }
      // A PNG may hold several text chunks of one keyword; an EXR one attribute of a name: the first is kept, the
      // others said (they were replaced in silence).
      if (!written.insert(key).second) {
        spdlog::warn("'{}': a second text '{}' not written: an EXR holds one attribute of a name ('{}' kept)",
                     shown_name(meta, path), key, key);
        continue;
      }
      header.insert(key, Imf::StringAttribute(value));
    }
    put_typed_attributes(shown_name(meta, path), meta, header);
    if (Density d; exr_density_of(meta, d)) {  // a PNG's pHYs as the EXR's density
      header.pixelAspectRatio() = d.aspect;
      if (d.x_ppi > 0) Imf::addXDensity(header, d.x_ppi);
    }
    if (const std::string lost = chunks_lost_in_exr(meta); !lost.empty())
      spdlog::warn("'{}': PNG chunks an EXR cannot hold not written: {}", shown_name(meta, path), lost);
    // Through a CheckedFile: OutputFile's destructor writes the offset table and swallows what a failed write
    // throws, so the file, not the writer, says whether every byte got there.
    CheckedFile out(path);
    {
      CheckedStream os(out, path);
      if (!tiled) {
        Imf::OutputFile file(os, header);
        file.setFrameBuffer(frame(img.data, halves, img.width));
        file.writePixels(img.height);
      } else {
        Imf::TiledOutputFile file(os, header);
        const std::vector<float>* above = &img.data;  // the level written last (the image itself first, not copied)
        std::vector<float> level;
        int w = img.width, h = img.height;
        for (int l = 0; l < file.numLevels(); ++l) {
          if (l > 0) {  // this level from the one above: 2 x 2 means, the last row and column repeated where odd
            const int lw = file.levelWidth(l), lh = file.levelHeight(l), nc = img.channels;
            const std::vector<float>& up = *above;
            std::vector<float> next(size_t(lw) * size_t(lh) * size_t(nc));
            for (int y = 0; y < lh; ++y)
              for (int x = 0; x < lw; ++x)
                for (int c = 0; c < nc; ++c) {
                  const int x0 = std::min(2 * x, w - 1), x1 = std::min(2 * x + 1, w - 1);
                  const int y0 = std::min(2 * y, h - 1), y1 = std::min(2 * y + 1, h - 1);
                  const auto at = [&](int xx, int yy) { return up[(size_t(yy) * size_t(w) + size_t(xx)) * nc + c]; };
                  next[(size_t(y) * size_t(lw) + size_t(x)) * nc + c] =
                      0.25f * (at(x0, y0) + at(x1, y0) + at(x0, y1) + at(x1, y1));
                }
            level = std::move(next), above = &level, w = lw, h = lh;
          }
          std::vector<Imath::half> hv;
          if (any_half && l > 0) {
            hv.resize(level.size());
            for (size_t i = 0; i < level.size(); ++i) hv[i] = Imath::half(level[i]);
          }
          file.setFrameBuffer(frame(*above, l > 0 ? hv : halves, w));
          file.writeTiles(0, file.numXTiles(l) - 1, 0, file.numYTiles(l) - 1, l);
        }
      }
    }
    return out.finish();
  } catch (const std::exception& e) {  // what the CheckedFile created, it removed
    return Status::fail(fmt::format("cannot write '{}': {}", path, e.what()));
  }
  return Status::success();
}

}  // namespace gpublur::io
