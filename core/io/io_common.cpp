// Adapter selection, extension mapping and the checks both adapters share (see io_common.hpp).
#include "core/io/io_common.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <set>
#include <vector>

#include "core/color.hpp"
#include "core/io/image_io.hpp"

#ifndef GPUBLUR_IO_DEFAULT
#define GPUBLUR_IO_DEFAULT "lean"
#endif

namespace gpublur {


std::unique_ptr<ImageIO> make_image_io(const std::string& name) {
  const std::string n = name.empty() ? std::string(GPUBLUR_IO_DEFAULT) : name;
  if (n == "lean") return make_lean_io();
  if (n == "oiio") return make_oiio_io();
  return nullptr;
}

#ifndef GPUBLUR_WITH_OIIO
// Lean builds carry no OIIO at all; asking for it yields null, as the interface promises.
std::unique_ptr<ImageIO> make_oiio_io() { return nullptr; }
#endif

namespace io {

namespace {
const unsigned char kPngMagic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
const unsigned char kExrMagic[4] = {0x76, 0x2f, 0x31, 0x01};

bool starts_with(const unsigned char* b, size_t n, const void* magic, size_t m) {
  return n >= m && std::memcmp(b, magic, m) == 0;
}
}  // namespace

std::string describe_content(const unsigned char* b, size_t n) {
  if (starts_with(b, n, kPngMagic, 8)) return "png";
  if (starts_with(b, n, kExrMagic, 4)) return "exr";
  struct Known { const char* magic; size_t len; const char* name; };
  static const Known known[] = {
      {"\xff\xd8\xff", 3, "JPEG"}, {"II*\0", 4, "TIFF"}, {"MM\0*", 4, "TIFF"}, {"GIF8", 4, "GIF"},
      {"BM", 2, "BMP"}, {"8BPS", 4, "Photoshop PSD"}, {"\x1a\x45\xdf\xa3", 4, "Matroska/WebM"},
      {"%PDF", 4, "PDF"}, {"PK\x03\x04", 4, "ZIP archive"}, {"\x1f\x8b", 2, "gzip data"},
      {"#?RADIANCE", 10, "Radiance HDR"}, {"#?RGBE", 6, "Radiance HDR"}, {"SIMPLE", 6, "FITS"},
  };
  for (const auto& k : known)
    if (starts_with(b, n, k.magic, k.len)) return k.name;
  if (n >= 12 && std::memcmp(b, "RIFF", 4) == 0 && std::memcmp(b + 8, "WEBP", 4) == 0) return "WebP";
  if (starts_with(b, n, kPngMagic, std::min<size_t>(n, 8)) && n < 8) return "a truncated PNG signature";
  std::string hex;
  for (size_t i = 0; i < std::min<size_t>(n, 8); ++i) hex += fmt::format("{}{:02x}", i ? " " : "", b[i]);
  return fmt::format("unrecognised data (first bytes: {})", hex);
}

namespace {

// A PNG whose file is too small for the pixels its header declares cannot be whole: deflate packs at most 1032
// bytes into one (a 258-byte match in two bits), so the pixel bytes need at least 1/1032 of their size in IDAT.
// Refused before anything the size of the image is allocated: a 100-byte file declaring 16384^2 RGBA16 cost
// 2.1 GB (lean) or 6.4 GB (OIIO) and seconds before its error, and a folder of them, one reader per core, more.
Status check_png_size(const std::string& path, const unsigned char* head, size_t n, uint64_t file_size) {
  // IHDR first, as the PNG specification requires: libpng refuses a known chunk before it ("gAMA: missing IHDR") but
  // passed over those the lean reader asks it to skip, so the two adapters disagreed on such a file.
  if (n >= 16 && std::memcmp(head + 12, "IHDR", 4) != 0) {
    std::string type;
    for (int k = 12; k < 16; ++k) type += std::isalpha(head[k]) ? char(head[k]) : '?';
    return Status::fail(fmt::format("cannot read '{}': bad PNG header: the first chunk is '{}', not IHDR", path, type));
  }
  if (n < 29) return Status::success();  // the decoder says what is wrong
  const double width = be32(head + 16), height = be32(head + 20), bits = head[24];
  static const int samples[7] = {1, 0, 3, 1, 2, 0, 4};  // by colour type: gray, -, RGB, palette, gray+alpha, -, RGBA
  const int type = head[25];
  if (type > 6 || samples[type] == 0) return Status::success();
  const double pixel_bytes = height * std::ceil(width * samples[type] * bits / 8);  // filter bytes left out
  if (double(file_size) * 1032 + 4096 >= pixel_bytes) return Status::success();
  return Status::fail(fmt::format("cannot read '{}': truncated or corrupt PNG: {} bytes cannot hold the {:.0f}x{:.0f} "
                                  "image its header declares ({:.0f} bytes of pixels; deflate packs at most 1032:1)",
                                  path, file_size, width, height, pixel_bytes));
}

// The same for an EXR's (first part's) pixels: each compression packs at most so many pixel bytes into a byte of a
// whole file (its chunk headers and offset table only lower that), so a file too small at that ratio, judged with room,
// cannot be whole. A 197 KB file declaring 16384^2 float pixels cost 1.06 GB before "Scan line 1 is missing", a 4.8 KB
// PIZ file declaring 16384^2 x 8 halves 8.4 GB and 50 s. The best ratios, from OpenEXR 3.1's decoders:
// - RLE: a run of at most 128 bytes in 2 (ImfRle.cpp). ZIP, ZIPS: deflate, a 258-byte match in 2 bits (a constant
//   image's ZIP blocks come near 1032:1 with their chunk headers).
// - PIZ: Huffman over 16-bit values (its wavelet and LUT keep their count); the densest code repeats the last value
//   at most 255 times for a 1-bit run code and an 8-bit count (ImfHuf.cpp getCode, ImfFastHuf.cpp): 510 bytes in
//   9 bits, 453:1. OpenEXR writes a constant image at up to ~400:1.
// - PXR24: zlib over floats cut to 24 bits (halves and uints keep theirs): 4/3 of 1032 (written: ~1300:1).
// - B44, B44A: a 4x4 block of halves (32 bytes) in at least 3 (a flat block, which both decode); float and uint
//   channels as they are (ImfB44Compressor.cpp).
// - DWAA, DWAB: RLE'd bytes (alpha-like channels) then zlib, 64 x 1032; a DCT channel's 8x8 block needs a 2-byte DC
//   and at least one 2-byte AC value, each then zlib'd or Huffman-coded: 256 float bytes in 4 before a 1032:1 stage,
//   the same 66048:1. OpenEXR writes constant float alphas at 47000:1 (65536x256) to 56000:1 (16384x512 x 8).
struct ExrPacking {
  double ratio;      // judged by: above the codec's best
  const char* says;  // the codec's best, for the message
};

ExrPacking exr_packing(int compression) {
  switch (compression) {
    case 0: return {1, "uncompressed"};
    case 1: return {200, "RLE packs at most 64:1"};
    case 2: case 3: return {1500, "deflate packs at most 1032:1"};
    case 4: return {600, "PIZ packs at most 454:1"};
    case 5: return {2000, "PXR24 packs at most 1376:1"};
    case 6: return {16, "B44 packs at most 10.7:1"};
    case 7: return {16, "B44A packs at most 10.7:1"};
    case 8: return {100000, "DWAA packs at most 66048:1"};
    case 9: return {100000, "DWAB packs at most 66048:1"};
    default: return {0, ""};  // newer than OpenEXR 3.1: the decoder's
  }
}

uint32_t le32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Natural sizes of OpenEXR 3.1's fixed-size attribute types. OpenEXR reads these at their natural size whatever size
// the attribute declares, and the next attribute from there, so a declared size of another length would make this walk
// and the decoder's disagree on where the attributes end.
struct ExrFixedType {
  const char* type;
  uint32_t size;
};
constexpr ExrFixedType kExrFixedTypes[] = {
    {"box2i", 16},     {"box2f", 16},   {"chromaticities", 32}, {"compression", 1}, {"deepImageState", 1},
    {"double", 8},     {"envmap", 1},   {"float", 4},           {"int", 4},         {"keycode", 28},
    {"lineOrder", 1},  {"m33f", 36},    {"m33d", 72},           {"m44f", 64},       {"m44d", 128},
    {"rational", 8},   {"tiledesc", 9}, {"timecode", 8},        {"v2i", 8},         {"v2f", 8},
    {"v2d", 16},       {"v3i", 12},     {"v3f", 12},            {"v3d", 24}};

}  // namespace

std::string shown_bytes(const std::string& s, size_t max_chars) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == max_chars) return out + "...";
    const unsigned char c = static_cast<unsigned char>(s[i]);
    out += c >= 0x20 && c < 0x7f ? std::string(1, char(c)) : fmt::format("\\x{:02x}", c);
  }
  return out;
}

namespace {

Status check_exr_size(const std::string& path, uint64_t file_size) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::success();  // the decoder says what is wrong
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(f, &std::fclose);
  unsigned char head[8];
  if (std::fread(head, 1, 8, f) != 8) return Status::success();
  const uint32_t version = le32(&head[4]);
  // The headers are walked to their end, however long, as OpenEXR 3.1 reads them (Header::readFrom): OpenEXR
  // writes attributes in name order, so a long one ("AAAApadding", 70 KB) may come before `channels`; and a
  // multi-part file's every header (0x1000; up to its empty one), which OpenEXR reads on opening it. Where the walk
  // and the decoder could disagree on where an attribute ends, the file is refused, not passed: a fuzzing run found
  // 1-channel 16384^2 files that passed through such a disagreement (an `int` of declared size 20, an empty type
  // name, a chlist of size 0, ...) and cost 1.5-2.0 GB before the decoder failed them, a 29-byte file whose string
  // declared 2 GB (OpenEXR allocates and fills it before finding the file short; from a second part's header too:
  // 1 KB, 2.1 GB), and a repeated `channels` (OpenEXR adds its channels to the first's: 2.7-4.6 GB).
  const bool multipart = (version & 0x1000) != 0;
  uint64_t at = 8;
  std::string name, type;
  int part = 0;
  // The attribute being read, as messages name it (formatted only for a message: formatted per attribute, a 50 MB
  // header of 2M attributes took 4.2 s against 2.3 s, both beside a CI build on this 2-core machine).
  const auto attr = [&](bool with_type) {
    return fmt::format("attribute '{}'{}{}", shown_bytes(name, 64), part ? fmt::format(" of part {}", part + 1) : "",
                       with_type ? " of type " + shown_bytes(type, 64) : "");  // (an empty type: opaque to OpenEXR too)
  };
  const auto bad = [&](const std::string& why) {
    return Status::fail(fmt::format("cannot read '{}': corrupt EXR header: {}", path, why));
  };
  const auto read_name = [&](std::string& s) {  // NUL-terminated; false at the file's end or past 255 characters
    s.clear();
    for (int c; (c = std::getc(f)) != EOF;) {
      ++at;
      if (c == 0) return true;
      if (s.size() == 255) return false;
      s += char(c);
    }
    return false;
  };
  const auto unread = [&](const std::string& what) {
    return bad(std::feof(f) ? fmt::format("the file ends within {} (truncated)", what)
                            : fmt::format("{} runs past 255 characters", what));
  };
  // The first part's (the one read) values the size is judged by.
  double per_pixel = -1;  // bytes of one pixel of every channel (subsampled channels by their share)
  int compression = 3;                          // OpenEXR's default header, kept where the file has none: ZIP
  long long x0 = 0, y0 = 0, x1 = 63, y1 = 63;   // and a 64x64 data window
  std::string part_type;  // the `type` attribute's value (OpenEXR keeps a repeated attribute's last)
  std::vector<unsigned char> value;  // an attribute judged
  unsigned char skipped[4096];
  for (;; ++part) {
    bool seen_channels = false, empty = true;
    while (true) {
      if (!read_name(name)) return unread(empty && part > 0 ? "a header" : "an attribute name");
      if (name.empty()) break;  // the header's terminating NUL
      empty = false;
      unsigned char size_bytes[4];
      if (!read_name(type)) return unread("the type of " + attr(false));
      if (std::fread(size_bytes, 1, 4, f) != 4) return bad(fmt::format("the file ends within {}", attr(true)));
      const uint64_t size = le32(size_bytes), v = at + 4;
      if (size > 0x7fffffff) return bad(fmt::format("{}: a negative size", attr(true)));
      if (v + size > file_size) return bad(fmt::format("{} declares {} bytes, past the file's end", attr(true), size));
      at = v + size;
      for (const ExrFixedType& k : kExrFixedTypes)
        if (type == k.type && size != k.size)
          return bad(fmt::format("{} declares {} bytes, not its type's {}", attr(true), size, k.size));
      // Read whole: the variable-size types OpenEXR parses (a chlist to its empty name, whatever its size; a preview
      // or stringvector by what its fields say) and the values the size is judged by.
      const bool judged = type == "chlist" || type == "preview" || type == "stringvector" ||
                          (part == 0 && ((name == "compression" && type == "compression") ||
                                         (name == "type" && type == "string" && size <= 64) ||
                                         (name == "dataWindow" && type == "box2i")));
      if (!judged) {
        if (part == 0 && name == "type" && type == "string") part_type.clear();  // too long to be a deep type
        if (type == "floatvector" && size % 4)
          return bad(fmt::format("{}: {} bytes, not whole floats", attr(true), size));
        // A small one is read past, not sought past: a 50 MB header of 2M v2i took 2.8 s sought, 1.5 s read.
        if (size <= sizeof skipped ? std::fread(skipped, 1, size, f) != size : ::fseeko(f, off_t(size), SEEK_CUR) != 0)
          return bad(fmt::format("{}: cannot read past it", attr(true)));
        continue;
      }
      value.resize(size);
      if (std::fread(value.data(), 1, size, f) != size) return bad(fmt::format("{}: cannot read it", attr(true)));
      const auto mismatch = [&](const char* what) {
        return bad(fmt::format("{}: its {} disagree with its size ({} bytes)", attr(true), what, size));
      };
      if (type == "preview") {
        if (size < 8 || 8 + 4.0 * le32(&value[0]) * le32(&value[4]) != double(size))
          return mismatch("width and height");
      } else if (type == "stringvector") {
        for (size_t c = 0; c < size;) {
          if (size - c < 4 || le32(&value[c]) > size - c - 4) return mismatch("string lengths");
          c += 4 + le32(&value[c]);
        }
      } else if (type == "chlist") {
        double pp = 0;
        size_t c = 0;
        while (true) {
          const size_t start = c;
          while (c < size && value[c]) ++c;  // the channel's name
          if (c >= size) return mismatch("channel names");
          const size_t n = c++ - start;
          if (n > 255) return bad(fmt::format("{}: a channel name over 255 characters", attr(true)));
          if (n == 0) break;  // the list's end
          if (c + 16 > size) return mismatch("channels");
          const uint32_t pt = le32(&value[c]);
          const double xs = std::max<int32_t>(1, int32_t(le32(&value[c + 8])));
          const double ys = std::max<int32_t>(1, int32_t(le32(&value[c + 12])));
          pp += (pt == 1 ? 2 : 4) / (xs * ys);
          c += 16;
        }
        if (c != size) return mismatch("channels");
        if (name == "channels") {  // OpenEXR adds a repeated list's channels to the first's
          if (seen_channels) return bad(fmt::format("{} repeated", attr(true)));
          seen_channels = true;
          if (part == 0) per_pixel = pp;
        }
      } else if (name == "compression") {
        compression = value[0];
      } else if (name == "type") {
        part_type.assign(reinterpret_cast<const char*>(value.data()), size);
      } else {
        x0 = int32_t(le32(&value[0])), y0 = int32_t(le32(&value[4]));
        x1 = int32_t(le32(&value[8])), y1 = int32_t(le32(&value[12]));
      }
    }
    if (!multipart || empty) break;  // a multi-part file's headers end with an empty one
  }
  // Deep parts are the decoder's, known by their `type`: OpenEXR reads a single-part file as an image unless the
  // version's non-image bit (0x800) is set and `type` is deepscanline or deeptile (with the bit set and type
  // scanlineimage, a patched PIZ bomb decoded 5 GB; without it, a deepscanline type is read as scanlineimage). A
  // multi-part file (0x1000) has a type for each part; its first header comes first, and its first part is the one
  // read (and the file holds at least that part's bytes): its pixels are judged as a single part's (a 10 KB file
  // whose first part declared 16384^2 x 64 channels made both adapters ask for 68 GB).
  const bool deep = (part_type == "deepscanline" || part_type == "deeptile") && (version & 0x1800) != 0;
  if (deep) return Status::success();
  if (per_pixel <= 0 || x1 < x0 || y1 < y0) return Status::success();
  const double w = double(x1 - x0 + 1), hgt = double(y1 - y0 + 1), pixel_bytes = w * hgt * per_pixel;
  const ExrPacking packing = exr_packing(compression);
  if (packing.ratio == 0 || double(file_size) * packing.ratio + 65536 >= pixel_bytes) return Status::success();
  return Status::fail(fmt::format("cannot read '{}': truncated or corrupt EXR: {} bytes cannot hold the {:.0f}x{:.0f} "
                                  "image its header declares ({:.0f} bytes of pixels, {})",
                                  path, file_size, w, hgt, pixel_bytes, packing.says));
}

}  // namespace

Status preflight_read(const std::string& path, std::string& format) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Status::fail(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return Status::fail(fmt::format("cannot read '{}': not a regular file", path));
  format = format_from_extension(path);
  if (format.empty())
    return Status::fail(fmt::format("cannot read '{}': unsupported file extension (expected .exr or .png)", path));
  if (st.st_size == 0) return Status::fail(fmt::format("cannot read '{}': the file is empty (0 bytes)", path));

  unsigned char head[29] = {};  // a PNG's signature and IHDR chunk: 8 + 8 + 13
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::fail(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  const std::string content = describe_content(head, std::min<size_t>(n, 16));
  if (content != format) {
    const char* want = format == "exr" ? "EXR" : "PNG";
    const char* article = format == "exr" ? "an" : "a";
    if (content == "png" || content == "exr")
      return Status::fail(fmt::format("cannot read '{}': the name says {} but the content is {} (mislabelled file)",
                                      path, want, content == "png" ? "PNG" : "EXR"));
    return Status::fail(
        fmt::format("cannot read '{}': not {} {} file; the content is {}", path, article, want, content));
  }
  if (format == "exr") return check_exr_size(path, uint64_t(st.st_size));
  return check_png_size(path, head, n, uint64_t(st.st_size));
}

void warn_uint_channels(const std::string& path, const std::vector<std::string>& names) {
  if (names.empty()) return;
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  // Read here, written later as the output's type says (float in an EXR unless --pixel-type): the read is what loses.
  spdlog::warn("'{}': uint channel(s) {} read as float: values above 2^24 (16777216) lose their low bits", path,
               list);
}

bool png_colour_chunk(const std::string& type) {
  return type == "cHRM" || type == "gAMA" || type == "iCCP" || type == "sRGB" || type == "cICP";
}

std::string png_colour_not_srgb(const std::string& type, const unsigned char* body, size_t len) {
  if (type == "sRGB") return "";
  if (type == "gAMA" && len == 4) {
    const uint32_t g = be32(body);  // 1/2.2 is 45455
    if (g >= 44500 && g <= 46500) return "";
    return g == 0 ? "a gamma of 0 (invalid)" : fmt::format("gamma {:.4g}", 100000.0 / g);
  }
  if (type == "cHRM" && len == 32) {
    static const uint32_t kSrgb[8] = {31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000};
    for (int i = 0; i < 8; ++i)
      if (std::abs(int64_t(be32(body + 4 * i)) - kSrgb[i]) > 1000) return "chromaticities other than sRGB's";
    return "";
  }
  // ITU-T H.273 code points: BT.709 primaries (1), the sRGB transfer (13), RGB (matrix 0), full range (1).
  if (type == "cICP" && len == 4)
    return body[0] == 1 && body[1] == 13 && body[2] == 0 && body[3] == 1
               ? ""
               : fmt::format("cICP primaries {}, transfer {}, matrix {}, {} range (H.273)", body[0], body[1], body[2],
                             body[3] ? "full" : "narrow");
  if (type == "iCCP") {  // judged by the profile's name: "sRGB IEC61966-2.1", not "Linear sRGB"
    const std::string name(reinterpret_cast<const char*>(body), strnlen(reinterpret_cast<const char*>(body), len));
    std::string lower = name;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    const bool srgb = lower.find("srgb") != std::string::npos || lower.find("iec61966") != std::string::npos;
    if (srgb && lower.find("linear") == std::string::npos) return "";
    return fmt::format("ICC profile '{}'", name);
  }
  return "";
}

std::string png_declared_not_srgb(const std::vector<std::pair<std::string, std::string>>& chunks) {
  // PNG's order of precedence (third edition): cICP over iCCP over sRGB over cHRM and gAMA.
  for (const char* top : {"cICP", "iCCP", "sRGB"})
    for (const auto& [type, body] : chunks)
      if (type == top && (type == "iCCP" || body.size() == (type == "cICP" ? 4u : 1u)))  // of its size: in force
        return png_colour_not_srgb(type, reinterpret_cast<const unsigned char*>(body.data()), body.size());
  std::string found;
  for (const auto& [type, body] : chunks) {
    if (type != "cHRM" && type != "gAMA") continue;
    const std::string said = png_colour_not_srgb(type, reinterpret_cast<const unsigned char*>(body.data()), body.size());
    if (!said.empty()) found += (found.empty() ? "" : ", ") + said;
  }
  return found;
}

void warn_non_srgb_png(const std::string& path, const std::vector<std::pair<std::string, std::string>>& chunks) {
  const std::string found = png_declared_not_srgb(chunks);
  if (!found.empty())
    spdlog::warn("'{}': the PNG declares {}, not sRGB: read as sRGB (gpublur's PNG colour model); written as a PNG, "
                 "the output keeps the declaration",
                 path, found);
}

Status check_limits(const std::string& path, uint64_t width, uint64_t height, uint64_t channels,
                    const ReadLimits& limits) {
  if (width == 0 || height == 0)
    return Status::fail(fmt::format("cannot read '{}': the image is empty ({}x{})", path, width, height));
  // width and height come from 32-bit header fields, so the product cannot overflow 64 bits.
  if (width * height > limits.max_pixels)
    return Status::fail(fmt::format("cannot read '{}': {}x{} = {} pixels exceeds the limit of {} pixels", path,
                                    width, height, width * height, limits.max_pixels));
  if (channels == 0 || channels > uint64_t(std::max(limits.max_channels, 0)))
    return Status::fail(fmt::format("cannot read '{}': {} channels (the limit is 1 to {})", path, channels,
                                    limits.max_channels));
  return Status::success();
}

int png_color_type(const std::string& path) {
  // Signature (8) + IHDR length and type (8) + width, height (8) + bit depth (1): colour type is byte 25.
  unsigned char b[26] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return -1;
  size_t n = std::fread(b, 1, sizeof b, f);
  std::fclose(f);
  if (n < sizeof b || std::memcmp(b + 12, "IHDR", 4) != 0) return -1;
  return b[25];
}

namespace {
// A channel name's colour role: its name after the last '.', upper-cased where it is one of r g b y a (some
// writers use lower case); else "".
std::string colour_role(const std::string& name) {
  const auto dot = name.find_last_of('.');
  std::string base = dot == std::string::npos ? name : name.substr(dot + 1);
  if (base.size() != 1) return "";
  const char c = char(std::toupper(static_cast<unsigned char>(base[0])));
  return std::string("RGBYA").find(c) == std::string::npos ? "" : std::string(1, c);
}
}  // namespace

std::vector<int> exr_channel_order(const std::vector<std::string>& names) {
  auto split = [](const std::string& n) {
    auto dot = n.find_last_of('.');
    if (dot == std::string::npos) return std::make_pair(std::string(), n);
    return std::make_pair(n.substr(0, dot), n.substr(dot + 1));
  };
  auto rank = [](const std::string& base) {  // R, G, B, Y, A, then the rest
    const std::string role = colour_role(base);
    return role.empty() ? 5 : int(std::string("RGBYA").find(role));
  };
  std::vector<int> order(names.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    auto [la, ba] = split(names[a]);
    auto [lb, bb] = split(names[b]);
    if (la != lb) return la < lb;  // "" (no layer) sorts first
    int ra = rank(ba), rb = rank(bb);
    if (ra != rb) return ra < rb;
    if (ba != bb) return ba < bb;
    return names[a] < names[b];  // "Z" and ".Z" split alike: the whole name, not the decoder's listing order
  });
  return order;
}

bool is_alpha_name(const std::string& name) { return colour_role(name) == "A"; }

int find_alpha(const std::vector<std::string>& names) {
  // A, or a layer's (diffuse.A): PNG's alpha slot takes either (png_layout_fits), so the colour steps must too (a
  // layer's alpha was written to PNG as colour, sRGB-encoded, its colours left premultiplied).
  for (size_t i = 0; i < names.size(); ++i)
    if (is_alpha_name(names[i])) return int(i);
  return -1;
}

std::vector<std::string> png_channel_names(int channels) {
  switch (channels) {
    case 1: return {"Y"};
    case 2: return {"Y", "A"};
    case 3: return {"R", "G", "B"};
    case 4: return {"R", "G", "B", "A"};
    default: return {};
  }
}

Status png_layout_fits(const std::string& path, int channels, const std::vector<std::string>& channel_names) {
  if (channels > 4)
    return Status::fail(fmt::format(
        "cannot write '{}': PNG holds 1 to 4 channels (gray, gray+alpha, RGB, RGBA), this image has {}; "
        "write EXR instead",
        path, channels));
  const std::vector<std::string> names = png_channel_names(channels);
  // PNG's channels are positional: where the image's names give colour roles (R, G, B, Y, A, in any layer or
  // case) that are not PNG's order, writing them would scramble the colours (an EXR of A, diffuse.R, diffuse.G,
  // diffuse.B put alpha into red). Names without a colour role (Z, N.x) are taken as they come in the colour
  // slots, but not as PNG's alpha: R, G, B, Z made a PNG whose coverage was the depth, sRGB-encoded.
  if (int(channel_names.size()) == channels)
    for (int c = 0; c < channels; ++c) {
      const std::string role = colour_role(channel_names[size_t(c)]);
      // A lone channel is gray whatever it is (a matte named A too); gray + alpha's gray takes any colour.
      const std::string& slot = names[size_t(c)];
      const bool fits = (role.empty() && slot != "A") || role == slot || channels == 1 || (slot == "Y" && role != "A");
      if (!fits)
        return Status::fail(fmt::format(
            "cannot write '{}': its channel {} ('{}') would be PNG's {}; PNG takes gray, gray + alpha, RGB or RGBA "
            "in that order: write EXR instead",
            path, c, channel_names[size_t(c)], names[size_t(c)]));
    }
  return Status::success();
}

void warn_png_clipping(const std::string& shown, const ClipCounts& c) {
  if (c.total() - c.hidden > 0)
    spdlog::warn("'{}': {} value(s) above 1, {} below 0 and {} NaN clipped to PNG's [0, 1] (NaN as 0); EXR keeps "
                 "them",
                 shown, c.above, c.below, c.nan);
  if (c.hidden > 0)
    spdlog::warn("'{}': {} colour value(s) of pixels whose alpha writes as 0 dropped (written 0: a PNG's transparent "
                 "pixel has no colour); EXR keeps them",
                 shown, c.hidden);
}

Status prepare_write(const std::string& path, const Image& img, const ImageMeta& meta, std::string& format,
                     std::vector<std::string>& names) {
  format = meta.format.empty() ? format_from_extension(path) : meta.format;
  if (format != "exr" && format != "png")
    return Status::fail(fmt::format("cannot write '{}': unsupported format '{}' (expected exr or png)", path,
                                    format));
  if (img.width <= 0 || img.height <= 0 || img.channels <= 0)
    return Status::fail(fmt::format("cannot write '{}': empty image ({}x{}, {} channels)", path, img.width,
                                    img.height, img.channels));
  if (img.data.size() != img.value_count())
    return Status::fail(fmt::format("cannot write '{}': the image holds {} values, expected {}x{}x{}", path,
                                    img.data.size(), img.width, img.height, img.channels));
  if (format == "png") {
    if (Status fit = png_layout_fits(path, img.channels, meta.channel_names); !fit) return fit;
    names = png_channel_names(img.channels);
    // PNG holds [0, 1]: what lies outside (an EXR's highlights, a sharpening kernel's overshoot, NaN) is clipped by
    // quantize; said, as an image's loss (it was silent). Within half a level of the ends nothing is lost (a blur's
    // float rounding puts 1 at 1.0000001): not counted.
    // With meta.clipped: what the colour encoding clipped before (from_working).
    ClipCounts clipped = meta.clipped;
    count_clipping(img, -1, png_clip_bounds(png_bit_depth(meta.pixel_type) == 16 ? 65535 : 255, false), clipped);
    warn_png_clipping(shown_name(meta, path), clipped);
    return Status::success();
  }
  names = meta.channel_names;
  if (names.empty()) {
    names = png_channel_names(std::min(img.channels, 4));
    for (int c = int(names.size()); c < img.channels; ++c) names.push_back(fmt::format("C{}", c));
  }
  if (int(names.size()) != img.channels)
    return Status::fail(fmt::format("cannot write '{}': {} channel names for {} channels", path, names.size(),
                                    img.channels));
  std::set<std::string> seen;
  for (const auto& n : names) {
    if (n.empty()) return Status::fail(fmt::format("cannot write '{}': empty channel name", path));
    if (!seen.insert(n).second)
      return Status::fail(fmt::format("cannot write '{}': channel name '{}' appears twice", path, n));
  }
  return Status::success();
}

int png_bit_depth(PixelType t) { return t == PixelType::UInt8 ? 8 : 16; }

bool exr_writes_float(PixelType t) { return t == PixelType::Float; }

uint32_t quantize(float v, uint32_t maxval) {
  if (!(v > 0.0f)) return 0;  // also NaN
  if (v >= 1.0f) return maxval;
  // In double the product is exact, so this is round-half-up of the true value.
  return uint32_t(double(v) * maxval + 0.5);
}

namespace {
const char* const kExrCompressions[] = {"none", "rle", "zips", "zip", "piz", "pxr24", "b44", "b44a", "dwaa", "dwab"};
}

int exr_compression_id(const std::string& name) {
  for (int i = 0; i < int(std::size(kExrCompressions)); ++i)
    if (name == kExrCompressions[i]) return i;
  return -1;
}

std::string exr_compression_name(int id) {
  return id >= 0 && id < int(std::size(kExrCompressions)) ? kExrCompressions[id] : "";
}

bool is_structural_exr_attribute(const std::string& name) {
  static const std::set<std::string> s = {
      "channels", "compression", "dataWindow", "displayWindow", "lineOrder", "pixelAspectRatio",
      "screenWindowCenter", "screenWindowWidth", "tiles", "type", "name", "version", "chunkCount",
      "maxSamplesPerPixel"};
  return s.count(name) != 0;
}

bool is_typed_standard_exr_attribute(const std::string& name) {
  // OpenEXR's standard attributes (ImfStandardAttributes.h) whose type is not a string: a string of the name makes the
  // file nonstandard, or the write fail where the writer sets the typed one (xDensity from a pHYs).
  static const std::set<std::string> s = {
      "chromaticities", "whiteLuminance", "adoptedNeutral", "xDensity", "utcOffset", "longitude", "latitude",
      "altitude", "focus", "expTime", "aperture", "isoSpeed", "envmap", "keyCode", "timeCode", "framesPerSecond",
      "multiView", "worldToCamera", "worldToNDC", "deepImageState", "originalDataWindow", "dwaCompressionLevel",
      "idManifest", "preview", "imageCounter"};
  return s.count(name) != 0;
}

bool is_oiio_bookkeeping(const std::string& name) { return name.rfind("oiio:", 0) == 0; }

bool valid_png_text_key(const std::string& key) {
  if (key.empty() || key.size() > 79 || key.front() == ' ' || key.back() == ' ') return false;
  if (key.find("  ") != std::string::npos) return false;
  for (unsigned char c : key)
    if (c < 32 || (c > 126 && c < 161)) return false;
  return true;
}

std::string chunk_types(const std::vector<std::pair<std::string, std::string>>& chunks) {
  std::string types;
  for (const auto& c : chunks) types += (types.empty() ? "" : ", ") + c.first;
  return types;
}

std::string chunks_lost_in_exr(const ImageMeta& meta) {
  const bool srgb = png_declared_not_srgb(meta.png_chunks).empty();  // what the linear EXR's values were decoded by
  Density d;
  const bool density = exr_density_of(meta, d);
  std::string types;
  for (const auto& c : meta.png_chunks)
    if (!(png_colour_chunk(c.first) && srgb) && !(c.first == "pHYs" && density))
      types += (types.empty() ? "" : ", ") + c.first;
  return types;
}

namespace {
constexpr double kMetresPerInch = 0.0254;
// An EXR float attribute's value as OpenEXR serialises it (4 bytes, little-endian); false for another type.
bool exr_float(const ExrAttribute& a, float& v) {
  if (a.type != "float" || a.value.size() != 4) return false;
  const auto* b = reinterpret_cast<const unsigned char*>(a.value.data());
  const uint32_t bits = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
  std::memcpy(&v, &bits, 4);
  return std::isfinite(v) && v > 0;
}
void put_be32(std::string& s, uint32_t x) {
  for (int k = 3; k >= 0; --k) s.push_back(char((x >> (8 * k)) & 0xff));
}
}  // namespace

bool exr_density_of(const ImageMeta& meta, Density& d) {
  for (const auto& [type, body] : meta.png_chunks) {
    if (type != "pHYs" || body.size() != 9) continue;
    const auto* b = reinterpret_cast<const unsigned char*>(body.data());
    const uint32_t x = be32(b), y = be32(b + 4);
    if (x == 0 || y == 0) return false;
    d.aspect = float(double(y) / double(x));  // a pixel's width (1 / x) over its height (1 / y)
    d.x_ppi = b[8] == 1 ? float(double(x) * kMetresPerInch) : 0.0f;
    return true;
  }
  return false;
}

bool exr_density_attribute(const ExrAttribute& a) {
  float v = 0;
  return (a.name == "pixelAspectRatio" || a.name == "xDensity") && exr_float(a, v);
}

std::string png_phys_of(const ImageMeta& meta) {
  if (std::any_of(meta.png_chunks.begin(), meta.png_chunks.end(), [](const auto& c) { return c.first == "pHYs"; }))
    return "";
  float aspect = 1, ppi = 0, v = 0;
  bool any = false;
  for (const ExrAttribute& a : meta.exr_attributes) {
    if (a.name == "pixelAspectRatio" && exr_float(a, v)) aspect = v, any = true;
    if (a.name == "xDensity" && exr_float(a, v)) ppi = v, any = true;
  }
  if (!any) return "";
  // Pixels per metre where the density is known; else the aspect ratio alone (unit 0) as counts of 100000 across.
  const double x = ppi > 0 ? std::round(double(ppi) / kMetresPerInch) : 100000.0;
  const double y = std::round(x * double(aspect));
  if (!(x >= 1 && y >= 1 && x <= 2147483647.0 && y <= 2147483647.0)) return "";
  std::string body;
  put_be32(body, uint32_t(x));
  put_be32(body, uint32_t(y));
  body.push_back(char(ppi > 0 ? 1 : 0));
  return body;
}

std::vector<std::pair<std::string, std::string>> png_chunks_to_write(const ImageMeta& meta) {
  std::vector<std::pair<std::string, std::string>> chunks = meta.png_chunks;
  if (std::string phys = png_phys_of(meta); !phys.empty()) chunks.emplace_back("pHYs", std::move(phys));
  return chunks;
}

std::vector<std::pair<std::string, std::string>> png_text_of(const ImageMeta& meta, const std::string& shown) {
  std::vector<std::pair<std::string, std::string>> text;
  for (const auto& [key, value] : meta.attributes) {
    if (is_oiio_bookkeeping(key)) continue;
    if (!valid_png_text_key(key))
      spdlog::warn("'{}': attribute '{}' is not a valid PNG text key; not written", shown, key);
    else if (value.find('\0') != std::string::npos)
      spdlog::warn("'{}': attribute '{}' holds a NUL byte, which PNG text cannot; not written", shown, key);
    else
      text.emplace_back(key, value);
  }
  const bool phys = !png_phys_of(meta).empty();  // the density goes to a pHYs chunk
  std::string names;
  bool primaries = false;
  for (const ExrAttribute& a : meta.exr_attributes)
    if (!(phys && exr_density_attribute(a))) {
      names += (names.empty() ? "" : ", ") + a.name;
      primaries |= a.name == "chromaticities";
    }
  // A PNG could hold primaries (cHRM), but its sRGB chunk names sRGB's: the file says so instead of the EXR's.
  if (!names.empty())
    spdlog::warn("'{}': EXR attributes not written to the PNG: {}{}", shown, names,
                 primaries && meta.srgb ? " (the PNG is tagged sRGB: its primaries, not the EXR's chromaticities)"
                                        : "");
  return text;
}

namespace {
// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = s[i];
    const int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;  // bytes after c
    if (n < 0 || i + size_t(n) >= s.size()) return false;
    uint32_t cp = n == 0 ? c : c & (0x3f >> n);
    for (int k = 1; k <= n; ++k) {
      const unsigned char d = s[i + k];
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    static const uint32_t kMin[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += size_t(n) + 1;
  }
  return true;
}
}  // namespace

bool png_text_needs_itxt(const std::string& key, const std::string& value) {
  // iTXt is UTF-8; a value with bytes past ASCII that is not UTF-8 came from a tEXt or zTXt chunk (Latin-1): it goes
  // back to tEXt as it is (written as iTXt it was mojibake to every reader).
  bool ascii = true;
  for (unsigned char c : value) ascii = ascii && c < 0x80;
  return (!ascii || key == "XML:com.adobe.xmp") && valid_utf8(value);
}

std::vector<bool> png_texts_compressed(const std::vector<std::pair<std::string, std::string>>& text, int level) {
  std::vector<bool> out;
  size_t total = 0;
  for (const auto& [key, value] : text) {
    const bool z = level > 0 && value.size() >= 1024 && key != "XML:com.adobe.xmp" &&
                   value.size() <= kPngTextInflatedMax - total;
    if (z) total += value.size();
    out.push_back(z);
  }
  return out;
}

std::string latin1_to_utf8(const std::string& s) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  for (unsigned char c : s) {
    if (c < 0x80) {
      out += char(c);
    } else {
      out += char(0xc0 | (c >> 6));
      out += char(0x80 | (c & 0x3f));
    }
  }
  return out;
}

void png_text_to_utf8(ImageMeta& meta) {
  for (auto& [key, value] : meta.attributes) {
    if (!valid_utf8(key)) key = latin1_to_utf8(key);
    if (!valid_utf8(value)) value = latin1_to_utf8(value);
  }
}

void exr_text_keys_to_latin1(ImageMeta& meta, const std::string& shown) {
  auto& attrs = meta.attributes;
  for (auto it = attrs.begin(); it != attrs.end();) {
    std::string& key = it->first;
    const bool ascii = std::all_of(key.begin(), key.end(), [](char c) { return (unsigned char)c < 0x80; });
    if (ascii || !valid_utf8(key)) {  // not UTF-8: left to png_text_of's key check
      ++it;
      continue;
    }
    std::string latin1;
    bool fits = true;
    for (size_t i = 0; i < key.size() && fits; ++i) {
      const unsigned char c = key[i];
      if (c < 0x80) {
        latin1 += char(c);
      } else if ((c == 0xc2 || c == 0xc3) && i + 1 < key.size()) {  // U+0080-U+00FF: two bytes, the first C2 or C3
        latin1 += char(((c & 0x03) << 6) | ((unsigned char)key[++i] & 0x3f));
      } else {
        fits = false;
      }
    }
    if (fits) {
      key = std::move(latin1);
      ++it;
    } else {
      spdlog::warn("'{}': attribute '{}' has characters past Latin-1, which a PNG text key cannot; not written", shown,
                   key);
      it = attrs.erase(it);
    }
  }
}

void remove_partial(const std::string& path) { std::remove(path.c_str()); }

Status write_whole_file(const std::string& path, const void* bytes, size_t size) {
  CheckedFile f(path);
  f.write_at(bytes, size, 0);
  return f.finish();
}

namespace {
constexpr size_t kCheckedFileBuffer = size_t(1) << 20;
}

CheckedFile::CheckedFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) error_ = errno;
}

CheckedFile::~CheckedFile() {
  if (finished_ || fd_ < 0) return;  // never remove what this did not create
  ::close(fd_);
  remove_partial(path_);
}

bool CheckedFile::fail(int err) {
  if (error_ == 0) error_ = err != 0 ? err : EIO;
  return false;
}

bool CheckedFile::write_fully(const char* p, size_t n, uint64_t offset) {
  for (size_t done = 0; done < n;) {
    const ssize_t w = ::pwrite(fd_, p + done, n - done, off_t(offset + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return fail(w < 0 ? errno : ENOSPC);
    done += size_t(w);
  }
  return true;
}

bool CheckedFile::flush() {
  const bool ok = write_fully(buffer_.data(), buffer_.size(), buffer_at_);
  buffer_at_ += buffer_.size();
  buffer_.clear();
  return ok;
}

bool CheckedFile::write_at(const void* bytes, size_t n, uint64_t offset) {
  if (error_ != 0) return false;
  const char* p = static_cast<const char*>(bytes);
  if (offset != buffer_at_ + buffer_.size() || buffer_.size() + n > kCheckedFileBuffer) {
    if (!flush()) return false;
    buffer_at_ = offset;
  }
  if (n >= kCheckedFileBuffer) {  // large: straight through (the buffer is empty here)
    if (!write_fully(p, n, offset)) return false;
    buffer_at_ = offset + n;
  } else {
    if (buffer_.capacity() < kCheckedFileBuffer) buffer_.reserve(kCheckedFileBuffer);
    buffer_.insert(buffer_.end(), p, p + n);
  }
  size_ = std::max(size_, offset + n);
  return true;
}

std::string CheckedFile::reason() const { return std::strerror(error_); }

std::string CheckedFile::error_text() const {
  return fmt::format("cannot {} '{}': {}", fd_ < 0 ? "create" : "write", path_, reason());
}

Status CheckedFile::finish() {
  if (fd_ >= 0) {
    flush();
    if (::close(fd_) != 0) fail(errno);
  }
  finished_ = true;
  if (error_ == 0) return Status::success();
  const std::string text = error_text();
  if (fd_ >= 0) remove_partial(path_);
  fd_ = -1;
  return Status::fail(text);
}

}  // namespace io
}  // namespace gpublur
