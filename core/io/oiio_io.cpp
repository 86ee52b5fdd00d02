// The "oiio" adapter: OpenImageIO decodes EXRs. PNGs are read and written, and EXRs written, by the code the lean
// adapter uses (libpng, libdeflate, OpenEXR), each step measured or found wrong through OpenImageIO (the notes at
// each); OpenImageIO's libpng writer stays behind GPUBLUR_PNG_LIBPNG to compare codecs. The conversions that decide
// pixel values (integer <-> float, EXR channel order) are the shared ones in io_common, so both adapters agree.
#include <Imath/half.h>
#include <OpenImageIO/filesystem.h>
#include <OpenImageIO/imageio.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>

#include "core/io/image_io.hpp"
#include "core/io/io_common.hpp"
#include "core/io/lean_formats.hpp"
#include "core/io/png_fast.hpp"

namespace gpublur {

namespace {

// OIIO's output proxy onto a CheckedFile (its writes and positional writes; it is only written).
class CheckedFileProxy : public OIIO::Filesystem::IOProxy {
 public:
  CheckedFileProxy(io::CheckedFile& file, const std::string& path) : IOProxy(path, Write), file_(file) {}
  const char* proxytype() const override { return "gpublur-checked-file"; }
  size_t write(const void* buf, size_t size) override {
    const size_t n = pwrite(buf, size, m_pos);
    m_pos += int64_t(n);
    return n;
  }
  size_t pwrite(const void* buf, size_t size, int64_t offset) override {
    if (offset < 0 || !file_.write_at(buf, size, uint64_t(offset))) return 0;
    return size;
  }
  size_t size() const override { return size_t(file_.size()); }

 private:
  io::CheckedFile& file_;
};

namespace OIIO = OIIO_NAMESPACE;

// OIIO renames some standard attributes (written through it, meta.attributes under the file's names go out under
// OIIO's).
const std::map<std::string, std::string>& oiio_to_file_names(const std::string& format) {
  static const std::map<std::string, std::string> exr = {
      {"ImageDescription", "comments"}, {"Copyright", "owner"}, {"DateTime", "capDate"}};
  static const std::map<std::string, std::string> png = {
      {"ImageDescription", "Description"}, {"Artist", "Author"}, {"DocumentName", "Title"}};
  return format == "exr" ? exr : png;
}

std::string file_to_oiio_name(const std::string& format, const std::string& key) {
  for (const auto& [oiio_name, file_name] : oiio_to_file_names(format))
    if (file_name == key) return oiio_name;
  return key;
}

// Attributes OIIO synthesises from the file's structure rather than from stored metadata.
bool synthesised(const std::string& name) {
  return io::is_oiio_bookkeeping(name) || name.rfind("openexr:", 0) == 0 || name.rfind("png:", 0) == 0 ||
         name == "compression" || name == "planarconfig" || name == "ResolutionUnit" ||
         name == "textureformat" || name == "wrapmodes";
}

// OIIO error texts can span lines ("...\nPNG read error: ...\nPNG library error"): keep reports one line.
std::string one_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (size_t i; (i = s.find('\n')) != std::string::npos;) s.replace(i, 1, "; ");
  return s;
}

class OiioIO final : public ImageIO {
 public:
  std::string name() const override { return "oiio"; }

  Status read(const std::string& path, const ReadLimits& limits, LoadedImage& out) override {
    std::string format;
    if (Status st = io::preflight_read(path, format); !st) return st;
    // PNGs through libpng directly, as the lean adapter reads them: OpenImageIO's PNG reader printed libpng's raw
    // errors on stderr even with -q, worded its errors apart and read a file without IEND in silence, and what it
    // parsed beyond the pixels (text, colour chunks) was already taken from the file by read_png_extras.
    if (format == "png") {
      Status st = io::read_png_lean(path, limits, out);
      if (st) io::warn_non_srgb_png(path, out.meta.png_chunks);
      return st;
    }
    auto in = OIIO::ImageInput::open(path);
    if (!in) return Status::fail(fmt::format("cannot read '{}': {}", path, one_line(OIIO::geterror())));
    const OIIO::ImageSpec spec = in->spec();
    if (Status st = io::check_limits(path, uint64_t(std::max(spec.width, 0)), uint64_t(std::max(spec.height, 0)),
                                     uint64_t(std::max(spec.nchannels, 0)) * uint64_t(std::max(spec.depth, 1)),
                                     limits);
        !st)
      return st;
    if (spec.deep) return Status::fail(fmt::format("cannot read '{}': deep images are not supported", path));
    if (in->seek_subimage(1, 0)) {  // a multi-part EXR: only part 0 is read
      spdlog::warn("'{}': a multi-part EXR; only its first part is read (and written)", path);
      in->seek_subimage(0, 0);
    } else {
      (void)in->geterror();  // no part 1: clear the failed seek's message
    }
    if (spec.x != spec.full_x || spec.y != spec.full_y || spec.width != spec.full_width ||
        spec.height != spec.full_height)
      spdlog::warn("'{}': data window differs from the display window; reading the data window only "
                   "(written back at origin 0,0 with display window = data window)",
                   path);
    else if (spec.x != 0 || spec.y != 0)
      spdlog::warn("'{}': data and display window at ({}, {}); written back at origin 0,0", path, spec.x, spec.y);

    const int w = spec.width, h = spec.height, nc = spec.nchannels;
    Image img(w, h, nc);
    ImageMeta meta;
    meta.format = format;
    // Native channel types, converted here: OIIO would scale uint channels to [0,1], OpenEXR (and we) keep
    // their values.
    std::vector<OIIO::TypeDesc> types(nc, spec.format);
    for (int c = 0; c < nc && c < int(spec.channelformats.size()); ++c) types[c] = spec.channelformats[c];
    std::vector<size_t> offset(nc, 0);
    size_t pixel_bytes = 0;
    for (int c = 0; c < nc; ++c) {
      if (types[c] != OIIO::TypeDesc::HALF && types[c] != OIIO::TypeDesc::FLOAT &&
          types[c] != OIIO::TypeDesc::UINT32)
        return Status::fail(fmt::format("cannot read '{}': unexpected EXR channel type {}", path, types[c].c_str()));
      offset[c] = pixel_bytes;
      pixel_bytes += types[c].size();
    }
    std::vector<unsigned char> raw(pixel_bytes * img.pixel_count());
    if (!in->read_image(0, 0, 0, nc, OIIO::TypeDesc::UNKNOWN, raw.data()))
      return Status::fail(fmt::format("cannot read '{}': corrupt or truncated EXR: {}", path, one_line(in->geterror())));
    std::vector<std::string> names(spec.channelnames.begin(), spec.channelnames.end());
    std::vector<std::string> uints;
    for (int c = 0; c < nc; ++c)
      if (types[c] == OIIO::TypeDesc::UINT32) uints.push_back(names[c]);
    io::warn_uint_channels(path, uints);
    const std::vector<int> order = io::exr_channel_order(names);
    for (int c = 0; c < nc; ++c) {
      const int src = order[c];
      const OIIO::TypeDesc t = types[src];
      for (size_t p = 0, np = img.pixel_count(); p < np; ++p) {
        const unsigned char* v = raw.data() + p * pixel_bytes + offset[src];
        float f;
        if (t == OIIO::TypeDesc::HALF) {
          Imath::half h;
          std::memcpy(&h, v, sizeof h);
          f = float(h);
        } else if (t == OIIO::TypeDesc::FLOAT) {
          std::memcpy(&f, v, sizeof f);
        } else {
          uint32_t u;
          std::memcpy(&u, v, sizeof u);
          f = float(u);
        }
        img.data[p * nc + c] = f;
      }
    }
    bool all_half = true;
    for (const auto& t : types) all_half = all_half && t == OIIO::TypeDesc::HALF;
    meta.pixel_type = all_half ? PixelType::Half : PixelType::Float;
    const bool any_half = std::count(types.begin(), types.end(), OIIO::TypeDesc::HALF) > 0;
    for (int c = 0; c < nc && !all_half && any_half; ++c)  // mixed: each channel's type kept
      meta.channel_types.push_back(types[order[c]] == OIIO::TypeDesc::HALF ? PixelType::Half : PixelType::Float);
    // OIIO names it as OpenEXR does, with a level for some ("dwaa:45", "zip:4"): the name alone is kept.
    const std::string comp = spec.get_string_attribute("compression");
    meta.exr_compression = io::exr_compression_id(comp.substr(0, comp.find(':'))) >= 0 ? comp.substr(0, comp.find(':')) : "";
    for (int c = 0; c < nc; ++c) meta.channel_names.push_back(names[order[c]]);
    meta.alpha_channel = io::find_alpha(meta.channel_names);
    in->close();
    // The EXR's strings and typed attributes from its header (read_exr_typed_attributes), as the lean adapter takes
    // them: OpenImageIO reports only the typed attributes it knows, under its own names and types.
    if (Status st = io::read_exr_typed_attributes(path, meta); !st) return st;
    out.image = std::move(img);
    out.meta = std::move(meta);
    return Status::success();
  }

  Status write(const std::string& path, const Image& img, const ImageMeta& meta) override {
    std::string format;
    std::vector<std::string> names;
    if (Status st = io::prepare_write(path, img, meta, format, names); !st) return st;
    // EXRs through OpenEXR itself, as the lean adapter writes them: every typed attribute kept as the file had it
    // (OIIO carries only those it knows), no capDate of the write's time added, and streamed with every write
    // checked. PNGs through libdeflate (png_fast), or with GPUBLUR_PNG_LIBPNG=1 through OIIO's libpng writer below.
    if (format == "exr") return io::write_exr_lean(path, img, meta, names);
    if (!io::libpng_forced()) return io::write_png_fast(path, img, meta, meta.png_compression);
    const std::string& shown = io::shown_name(meta, path);
    // OpenImageIO's writer takes no chunk as it is (the codec comparison's limit): those the other writers write, an
    // EXR's density as pHYs included, are said.
    if (const auto chunks = io::png_chunks_to_write(meta); !chunks.empty())
      spdlog::warn("'{}': PNG chunks not written through OpenImageIO (GPUBLUR_PNG_LIBPNG): {}", shown,
                   io::chunk_types(chunks));
    io::CheckedFile file(path);  // before out: out's destructor may still reach the proxy
    CheckedFileProxy proxy(file, path);
    auto out = OIIO::ImageOutput::create(format);
    if (!out) return Status::fail(fmt::format("cannot write '{}': {}", path, one_line(OIIO::geterror())));

    const size_t n = img.value_count();
    const bool sixteen = io::png_bit_depth(meta.pixel_type) == 16;
    const OIIO::TypeDesc type = sixteen ? OIIO::TypeDesc::UINT16 : OIIO::TypeDesc::UINT8;
    std::vector<uint8_t> raw8;
    std::vector<uint16_t> raw16;
    if (sixteen) {
      raw16.resize(n);
      for (size_t i = 0; i < n; ++i) raw16[i] = uint16_t(io::quantize(img.data[i], 65535));
    } else {
      raw8.resize(n);
      for (size_t i = 0; i < n; ++i) raw8[i] = uint8_t(io::quantize(img.data[i], 255));
    }
    OIIO::ImageSpec spec(img.width, img.height, img.channels, type);
    spec.channelnames = names;
    spec.alpha_channel = io::find_alpha(names);
    spec.attribute("oiio:UnassociatedAlpha", 1);  // our alpha is straight; do not un-premultiply
    if (meta.srgb) spec.attribute("oiio:ColorSpace", "sRGB");
    spec.attribute("png:compressionLevel", std::clamp(meta.png_compression, 0, 9));
    for (const auto& [key, value] : io::png_text_of(meta, shown))
      if (!synthesised(key)) spec.attribute(file_to_oiio_name(format, key), value);
    // Through the CheckedFile: the file, not the writer, says whether every byte got there.
    if (!out->supports("ioproxy") || !out->set_ioproxy(&proxy))
      return Status::fail(fmt::format("cannot write '{}': OIIO's PNG writer takes no I/O proxy", path));
    if (!out->open(path, spec)) return Status::fail(fmt::format("cannot write '{}': {}", path, one_line(out->geterror())));
    bool ok = out->write_image(type, sixteen ? static_cast<const void*>(raw16.data()) : raw8.data());
    ok = out->close() && ok;
    if (file.failed() || ok) return file.finish();  // the file's own failure first: it says why
    return Status::fail(fmt::format("cannot write '{}': {}", path, one_line(out->geterror())));  // file removed
  }
};

}  // namespace

std::unique_ptr<ImageIO> make_oiio_io() { return std::make_unique<OiioIO>(); }

}  // namespace gpublur
