// See png_fast.hpp. The format: PNG spec (ISO/IEC 15948), chunks = length, type, data, CRC-32 of type+data.
#include "core/io/png_fast.hpp"

#include <fmt/format.h>
#include <libdeflate.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/io/io_common.hpp"

namespace gpublur::io {

namespace {

const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

// A chunk type is four ASCII letters (PNG specification 5.4); libpng refuses any other.
bool png_chunk_type(const unsigned char* t) {
  for (int i = 0; i < 4; ++i)
    if (!((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z'))) return false;
  return true;
}

void put32(std::vector<unsigned char>& v, uint32_t x) {
  const unsigned char b[4] = {(unsigned char)(x >> 24), (unsigned char)(x >> 16), (unsigned char)(x >> 8),
                              (unsigned char)x};
  v.insert(v.end(), b, b + 4);
}

void put_chunk(std::vector<unsigned char>& out, const char* type, const unsigned char* data, size_t n) {
  put32(out, uint32_t(n));
  const size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  if (n) out.insert(out.end(), data, data + n);
  put32(out, libdeflate_crc32(0, out.data() + start, n + 4));
}

int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// Reverses one row's filter in place. prev is the previous unfiltered row (zeros for the first).
bool unfilter_row(int type, unsigned char* row, const unsigned char* prev, size_t n, size_t bpp) {
  switch (type) {
    case 0: return true;
    case 1:
      for (size_t i = bpp; i < n; ++i) row[i] = (unsigned char)(row[i] + row[i - bpp]);
      return true;
    case 2:
      for (size_t i = 0; i < n; ++i) row[i] = (unsigned char)(row[i] + prev[i]);
      return true;
    case 3:
      for (size_t i = 0; i < bpp; ++i) row[i] = (unsigned char)(row[i] + (prev[i] >> 1));
      for (size_t i = bpp; i < n; ++i) row[i] = (unsigned char)(row[i] + ((row[i - bpp] + prev[i]) >> 1));
      return true;
    case 4:
      for (size_t i = 0; i < bpp; ++i) row[i] = (unsigned char)(row[i] + prev[i]);
      for (size_t i = bpp; i < n; ++i) row[i] = (unsigned char)(row[i] + paeth(row[i - bpp], prev[i], prev[i - bpp]));
      return true;
    default: return false;
  }
}

// Filters one row with `type` into out (n bytes).
void filter_row(int type, const unsigned char* row, const unsigned char* prev, size_t n, size_t bpp,
                unsigned char* out) {
  switch (type) {
    case 0: std::memcpy(out, row, n); break;
    case 1:
      for (size_t i = 0; i < n; ++i) out[i] = (unsigned char)(row[i] - (i >= bpp ? row[i - bpp] : 0));
      break;
    case 2:
      for (size_t i = 0; i < n; ++i) out[i] = (unsigned char)(row[i] - prev[i]);
      break;
    case 3:
      for (size_t i = 0; i < n; ++i) out[i] = (unsigned char)(row[i] - (((i >= bpp ? row[i - bpp] : 0) + prev[i]) >> 1));
      break;
    default:
      for (size_t i = 0; i < n; ++i)
        out[i] = (unsigned char)(row[i] - (i >= bpp ? paeth(row[i - bpp], prev[i], prev[i - bpp]) : prev[i]));
      break;
  }
}

// libpng's heuristic: the sum of the filtered bytes taken as signed magnitudes.
uint64_t cost(const unsigned char* f, size_t n) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; ++i) s += f[i] < 128 ? f[i] : 256 - f[i];
  return s;
}

bool read_file(const std::string& path, std::vector<unsigned char>& data) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  bool ok = std::fseek(f, 0, SEEK_END) == 0;
  const long size = ok ? std::ftell(f) : -1;
  ok = ok && size > 0 && std::fseek(f, 0, SEEK_SET) == 0;
  if (ok) {
    data.resize(size_t(size));
    ok = std::fread(data.data(), 1, data.size(), f) == data.size();
  }
  std::fclose(f);
  return ok;
}

}  // namespace

bool libpng_forced() {
  static const bool forced = [] {
    const char* s = std::getenv("GPUBLUR_PNG_LIBPNG");
    return s && *s && std::strcmp(s, "0") != 0;
  }();
  return forced;
}

bool fast_read_wanted() {
  static const bool wanted = [] {
    const char* s = std::getenv("GPUBLUR_PNG_FAST_READ");
    return s && *s && std::strcmp(s, "0") != 0;
  }();
  return wanted && !libpng_forced();
}

namespace {
// The carried types with the data size the PNG specification fixes (0: any; iCCP, eXIf).
struct CarriedType {
  const char* type;
  uint32_t size;
};
constexpr CarriedType kCarried[] = {{"cHRM", 32}, {"gAMA", 4}, {"iCCP", 0}, {"sRGB", 1}, {"cICP", 4},
                                    {"mDCV", 24}, {"cLLI", 8}, {"pHYs", 9}, {"eXIf", 0}};
const CarriedType* carried_type(const std::string& type) {
  for (const CarriedType& c : kCarried)
    if (type == c.type) return &c;
  return nullptr;
}

// What is wrong with a carried chunk's contents by the PNG specification (and what libpng checks when it reads them),
// empty when nothing: a chunk a reader would reject or misread is not written on (its size was checked already).
// inflate(z, n, out): a zlib stream into out (false: damaged or too large).
template <typename Inflate>
std::string carried_problem(const std::string& type, const unsigned char* b, size_t len, Inflate&& inflate) {
  if (type == "sRGB") return b[0] > 3 ? fmt::format("rendering intent {}, not 0-3", b[0]) : "";
  if (type == "gAMA") {
    if (be32(b) > 0x7fffffffu) return "a gamma beyond the PNG integer range";
    return be32(b) == 0 ? "gamma 0" : "";
  }
  if (type == "pHYs") return b[8] > 1 ? fmt::format("unit {}, not 0-1", b[8]) : "";
  if (type == "cICP") {
    // PNG holds RGB: the matrix coefficients must be 0 (identity); the range flag is 0 or 1.
    if (b[2] != 0) return fmt::format("matrix coefficients {}, not 0", b[2]);
    return b[3] > 1 ? fmt::format("full-range flag {}, not 0-1", b[3]) : "";
  }
  if (type == "cHRM") {
    for (int i = 0; i < 8; ++i)
      if (be32(b + 4 * i) > 0x7fffffffu) return "a value beyond the PNG integer range";
    for (int i = 1; i < 8; i += 2)  // every y (white point, red, green, blue): a chromaticity of y 0 has no colour
      if (be32(b + 4 * i) == 0) return "a chromaticity y of 0";
    return "";
  }
  if (type == "eXIf") {
    // A TIFF header: byte order II or MM, then 42 in that order.
    const bool ii = len >= 8 && b[0] == 'I' && b[1] == 'I' && b[2] == 42 && b[3] == 0;
    const bool mm = len >= 8 && b[0] == 'M' && b[1] == 'M' && b[2] == 0 && b[3] == 42;
    return ii || mm ? "" : "no TIFF header";
  }
  if (type == "iCCP") {
    // Profile name (1-79 bytes), NUL, compression method 0, the zlib-compressed ICC profile: its header's size field
    // is its length and bytes 36-39 say 'acsp'.
    const unsigned char* nul = static_cast<const unsigned char*>(std::memchr(b, 0, std::min<size_t>(len, 80)));
    if (!nul || nul == b) return "no profile name";
    if (size_t(nul - b) + 2 > len || nul[1] != 0) return "not compression method 0";
    std::string icc;
    if (!inflate(nul + 2, len - size_t(nul - b) - 2, icc)) return "its profile does not inflate";
    const auto* u = reinterpret_cast<const unsigned char*>(icc.data());
    if (icc.size() < 132)
      return fmt::format("a profile of {} bytes, under the 132 of an ICC header and its tag count", icc.size());
    // Bytes beyond the header's length are left unread (libpng: "extra compressed data", the profile kept); fewer
    // are a truncated profile.
    if (be32(u) > icc.size()) return fmt::format("a profile of {} bytes whose header says {}", icc.size(), be32(u));
    if (be32(u) < 132)
      return fmt::format("a profile whose header says {} bytes, under the 132 of an ICC header and its tag count",
                         be32(u));
    return std::memcmp(u + 36, "acsp", 4) != 0 ? "no ICC profile signature" : "";
  }
  return "";
}
}  // namespace

bool png_writes_srgb(const ImageMeta& meta) {
  return meta.srgb && std::none_of(meta.png_chunks.begin(), meta.png_chunks.end(),
                                   [](const auto& c) { return png_colour_chunk(c.first); });
}

PngExtras read_png_extras(const std::string& path) {
  constexpr size_t kMaxText = kPngTextInflatedMax;
  PngExtras extras;
  std::vector<std::pair<std::string, std::string>>& out = extras.text;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  unsigned char head[8];
  if (!f || std::fread(head, 1, 8, f.get()) != 8 || std::memcmp(head, kSignature, 8) != 0) return extras;
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(libdeflate_alloc_decompressor(),
                                                                                  libdeflate_free_decompressor);
  // A zlib stream inflated into a buffer that grows until it holds it (or passes `limit`: false).
  const auto inflate_within = [&](const unsigned char* z, size_t n, std::string& text, size_t limit) {
    for (size_t cap = std::max<size_t>(4 * n, 4096);; cap *= 4) {
      cap = std::min(cap, limit);
      text.clear();  // the last try's buffer freed first: grown in place, the string doubled it (131 MB for 64 MiB)
      text.shrink_to_fit();
      text.resize(cap);
      size_t got = 0;
      const libdeflate_result r = libdeflate_zlib_decompress(d.get(), z, n, text.data(), cap, &got);
      if (r == LIBDEFLATE_SUCCESS) return text.resize(got), true;
      if (r != LIBDEFLATE_INSUFFICIENT_SPACE || cap == limit) return false;
    }
  };
  const auto inflate = [&](const unsigned char* z, size_t n, std::string& out) {  // an iCCP profile, checked
    return inflate_within(z, n, out, kMaxText);
  };
  // The text chunks' inflated text together stays within kMaxText: each chunk's own limit let a 514 KB file of 8 zTXt
  // chunks inflate to 528 MB (612 MB resident), carried into the output too (a fuzzing run's review). Plain text is
  // not counted: it is no larger than the file (and the fast reader keeps it all too).
  size_t text_left = kMaxText;
  std::fseek(f.get(), 0, SEEK_END);
  const long file_size = std::ftell(f.get());
  std::fseek(f.get(), 8, SEEK_SET);
  unsigned char h[8];
  bool after_idat = false;
  while (std::fread(h, 1, 8, f.get()) == 8) {
    const uint32_t len = be32(h);
    const std::string type(reinterpret_cast<const char*>(h + 4), 4);
    if (type == "IEND" || !png_chunk_type(h + 4)) break;  // (an invalid type: libpng refuses the file)
    // A chunk longer than the rest of the file is not allocated: a 63-byte file's text chunk declaring 64 MiB after
    // the image data (which libpng reads without IEND) took 69 MB.
    if (file_size >= 0 && long(len) + 4 > file_size - std::ftell(f.get())) break;
    const bool text_chunk = type == "tEXt" || type == "zTXt" || type == "iTXt";
    const CarriedType* carried = carried_type(type);
    after_idat = after_idat || type == "IDAT";
    const bool animation = type == "acTL";  // APNG: frames beyond the default image (the IDATs), which is what is read
    // Any other ancillary chunk (its first letter lower case) whose type says it is safe to copy into a file whose
    // pixels changed (its fourth letter lower case: oFFs, gIFg, private chunks; PNG specification 14.2) is carried
    // as its bytes where it stood before the image data; the others (tIME, bKGD, sBIT, ...) must not be.
    const bool other = !text_chunk && !carried && !animation && (h[4] & 0x20) != 0;
    const bool copied = other && (h[7] & 0x20) != 0 && (h[6] & 0x20) == 0 && !after_idat;  // (third: reserved)
    if (other && !copied)
      spdlog::debug("'{}': {} chunk not carried ({})", path, type,
                    !(h[7] & 0x20) ? "not safe to copy once the pixels change"
                    : (h[6] & 0x20) ? "a reserved type"
                                    : "after the image data");
    const bool wanted = text_chunk || carried || animation || copied;
    if (!wanted || len > kMaxText) {
      if (wanted) spdlog::warn("'{}': a {} chunk of {} bytes not read (more than 64 MiB)", path, type, len);
      if (std::fseek(f.get(), long(len) + 4, SEEK_CUR) != 0) break;
      continue;
    }
    std::vector<unsigned char> body(size_t(len) + 8);  // type, data, CRC
    std::memcpy(body.data(), h + 4, 4);
    if (std::fread(body.data() + 4, 1, size_t(len) + 4, f.get()) != size_t(len) + 4) break;
    if (libdeflate_crc32(0, body.data(), size_t(len) + 4) != be32(body.data() + 4 + len)) {
      spdlog::warn("'{}': a damaged {} chunk (its CRC) not read", path, type);  // as libpng drops it
      continue;
    }
    const unsigned char* b = body.data() + 4;
    const unsigned char* end = b + len;
    if (animation) {
      if (len == 8 && !after_idat)
        spdlog::warn("'{}': an animated PNG ({} frames): its default image is read, the animation is not carried", path,
                     be32(b));
      continue;
    }
    if (copied) {
      extras.chunks.emplace_back(type, std::string(reinterpret_cast<const char*>(b), len));
      continue;
    }
    if (carried) {
      const bool again = std::any_of(extras.chunks.begin(), extras.chunks.end(),
                                     [&](const auto& c) { return c.first == type; });
      // Only eXIf may follow the image data; libpng ignores the others there.
      const bool misplaced = after_idat && type != "eXIf";
      const bool sized = (!carried->size || len == carried->size) && len > 0;
      const std::string problem = again || misplaced || !sized ? "" : carried_problem(type, b, len, inflate);
      if (again || misplaced || !sized || !problem.empty())
        spdlog::warn("'{}': {} {} chunk not carried to the output{}", path,
                     again ? "a second" : misplaced ? "an out-of-place (after the image data)" : "a malformed", type,
                     !sized ? fmt::format(" ({} bytes)", len) : problem.empty() ? "" : " (" + problem + ")");
      else
        extras.chunks.emplace_back(type, std::string(reinterpret_cast<const char*>(b), len));
      continue;
    }
    const unsigned char* nul = static_cast<const unsigned char*>(std::memchr(b, 0, len));
    if (!nul) continue;
    const std::string key(reinterpret_cast<const char*>(b), nul - b);
    const unsigned char* v = nul + 1;
    std::string text;
    bool ok = true, inflated = false;
    if (type == "tEXt") {
      text.assign(reinterpret_cast<const char*>(v), end - v);
    } else if (type == "zTXt") {
      ok = v < end && *v == 0 && inflate_within(v + 1, end - v - 1, text, text_left);
      inflated = true;
    } else {  // iTXt: flag, method, language tag, translated keyword, text
      if (end - v < 2) continue;
      const bool compressed = v[0] != 0;
      const unsigned char* lang_end = static_cast<const unsigned char*>(std::memchr(v + 2, 0, end - v - 2));
      const unsigned char* tkey_end =
          lang_end ? static_cast<const unsigned char*>(std::memchr(lang_end + 1, 0, end - lang_end - 1)) : nullptr;
      if (!tkey_end) continue;
      const unsigned char* t = tkey_end + 1;
      ok = compressed ? v[1] == 0 && inflate_within(t, end - t, text, text_left)
                      : (text.assign(reinterpret_cast<const char*>(t), end - t), true);
      inflated = compressed;
    }
    if (!ok) {
      spdlog::warn("'{}': text chunk '{}' not read (damaged, or past 64 MiB of text inflated in all)", path, key);
      continue;
    }
    if (inflated) text_left -= text.size();
    if (!is_oiio_bookkeeping(key)) out.emplace_back(key, std::move(text));
  }
  return extras;
}

bool decode_png_fast(const unsigned char* data, size_t size, PngRaw& raw,
                     std::vector<std::pair<std::string, std::string>>& text, bool& srgb) {
  if (size < 8 + 25 || std::memcmp(data, kSignature, 8) != 0) return false;
  srgb = false;
  text.clear();
  size_t idat_total = 0;
  bool have_header = false, ended = false, last_idat = false, seen_idat = false;
  int color_type = 0;
  for (size_t at = 8; at + 12 <= size;) {
    const uint32_t len = be32(data + at);
    const unsigned char* type = data + at + 4;
    if (len > size - at - 12) return false;  // truncated: libpng says so
    const unsigned char* body = data + at + 8;
    if (libdeflate_crc32(0, type, len + 4) != be32(body + len)) return false;
    if (!png_chunk_type(type)) return false;  // libpng refuses it ("invalid chunk type"); it was carried on
    const std::string t(reinterpret_cast<const char*>(type), 4);
    if (!have_header) {
      if (t != "IHDR" || len != 13) return false;
      raw.width = be32(body), raw.height = be32(body + 4);
      raw.bit_depth = body[8], color_type = body[9];
      // compression 0, filter 0, no interlace; 8/16-bit gray, RGB, gray+alpha, RGBA.
      if (body[10] != 0 || body[11] != 0 || body[12] != 0) return false;
      if (raw.bit_depth != 8 && raw.bit_depth != 16) return false;
      static const int by_type[7] = {1, 0, 3, 0, 2, 0, 4};
      if (color_type > 6 || by_type[color_type] == 0) return false;
      if (raw.width == 0 || raw.height == 0 || raw.width > 0x7fffffff || raw.height > 0x7fffffff) return false;
      raw.channels = by_type[color_type];
      have_header = true;
    } else if (t == "IDAT") {
      // IDATs must be consecutive, an empty one too: libpng refuses the file ("Not enough image data").
      if (seen_idat && !last_idat) return false;
      seen_idat = true;
      idat_total += len;
    } else if (t == "IEND") {
      ended = true;
      break;
    } else if (t == "PLTE" || t == "tRNS" || t == "zTXt" || t == "iTXt") {
      return false;  // expanded or decoded by libpng
    } else if (t == "sRGB") {
      srgb = true;
    } else if (t == "tEXt") {
      const unsigned char* nul = static_cast<const unsigned char*>(std::memchr(body, 0, len));
      if (!nul) return false;
      text.emplace_back(std::string(reinterpret_cast<const char*>(body), nul - body),
                        std::string(reinterpret_cast<const char*>(nul + 1), body + len - nul - 1));
    } else if (!(type[0] & 0x20)) {
      return false;  // an unknown critical chunk: libpng refuses it with its message
    }
    last_idat = t == "IDAT";
    at += size_t(len) + 12;
  }
  if (!have_header || !ended || idat_total == 0) return false;
  raw.samples.clear();
  return true;
}

namespace {

// Inflates the IDAT stream and unfilters it into raw.samples. False on any damage (libpng reports it).
bool inflate_rows(const std::vector<unsigned char>& zdata, PngRaw& raw) {
  const size_t bpp = size_t(raw.channels) * raw.bit_depth / 8;
  const size_t row = size_t(raw.width) * bpp;
  std::vector<unsigned char> filtered((row + 1) * raw.height);
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(libdeflate_alloc_decompressor(),
                                                                                  libdeflate_free_decompressor);
  if (!d) return false;
  if (libdeflate_zlib_decompress(d.get(), zdata.data(), zdata.size(), filtered.data(), filtered.size(), nullptr) !=
      LIBDEFLATE_SUCCESS)
    return false;
  raw.samples.resize(row * raw.height);
  std::vector<unsigned char> zero(row, 0);
  for (size_t y = 0; y < raw.height; ++y) {
    unsigned char* dst = raw.samples.data() + y * row;
    std::memcpy(dst, filtered.data() + y * (row + 1) + 1, row);
    if (!unfilter_row(filtered[y * (row + 1)], dst, y ? dst - row : zero.data(), row, bpp)) return false;
  }
  return true;
}

// Walks the chunks again for the IDAT payload (decode_png_fast checked the structure).
std::vector<unsigned char> idat_stream(const unsigned char* data, size_t size) {
  std::vector<unsigned char> z;
  for (size_t at = 8; at + 12 <= size;) {
    const uint32_t len = be32(data + at);
    if (std::memcmp(data + at + 4, "IDAT", 4) == 0) z.insert(z.end(), data + at + 8, data + at + 8 + len);
    if (std::memcmp(data + at + 4, "IEND", 4) == 0) break;
    at += size_t(len) + 12;
  }
  return z;
}

}  // namespace

bool read_png_fast(const std::string& path, const ReadLimits& limits, LoadedImage& out, Status& status) {
  std::vector<unsigned char> file;
  if (!read_file(path, file)) return false;
  PngRaw raw;
  std::vector<std::pair<std::string, std::string>> text;
  bool srgb = false;
  if (!decode_png_fast(file.data(), file.size(), raw, text, srgb)) return false;
  // Limits before any pixel buffer.
  if (Status st = check_limits(path, raw.width, raw.height, raw.channels, limits); !st) {
    status = st;
    return true;
  }
  if (!inflate_rows(idat_stream(file.data(), file.size()), raw)) return false;
  file = {};

  ImageMeta meta;
  meta.format = "png";
  meta.srgb = true;  // PNG values are treated as sRGB whatever the chunks say (as the libpng path does)
  meta.pixel_type = raw.bit_depth == 16 ? PixelType::UInt16 : PixelType::UInt8;
  meta.channel_names = png_channel_names(raw.channels);
  meta.alpha_channel = find_alpha(meta.channel_names);
  for (auto& [k, t] : text)
    if (!is_oiio_bookkeeping(k)) meta.attributes.emplace_back(std::move(k), std::move(t));
  meta.png_chunks = read_png_extras(path).chunks;  // as the libpng path takes them
  if (raw.bit_depth == 8 && limits.keep_packed) {
    out.packed = PackedImage{int(raw.width), int(raw.height), raw.channels, std::move(raw.samples), {}};
    out.image = Image();
    out.image.width = out.packed.width, out.image.height = out.packed.height, out.image.channels = raw.channels;
    out.meta = std::move(meta);
    status = Status::success();
    return true;
  }
  Image img(int(raw.width), int(raw.height), raw.channels);
  const size_t n = img.value_count();
  float* v = img.data.data();
  if (raw.bit_depth == 16) {
    for (size_t i = 0; i < n; ++i) v[i] = dequantize(uint32_t(raw.samples[2 * i]) << 8 | raw.samples[2 * i + 1], 65535);
  } else {
    float table[256];
    for (int q = 0; q < 256; ++q) table[q] = dequantize(uint32_t(q), 255);
    const unsigned char* s = raw.samples.data();
    for (size_t i = 0; i < n; ++i) v[i] = table[s[i]];
  }
  out.image = std::move(img);
  out.meta = std::move(meta);
  status = Status::success();
  return true;
}

Status encode_png_fast(const PngRaw& raw, bool srgb, const std::vector<std::pair<std::string, std::string>>& text,
                       int level, std::vector<unsigned char>& file,
                       const std::vector<std::pair<std::string, std::string>>& chunks) {
  static const int color_types[] = {0, 0, 4, 2, 6};
  const size_t bpp = size_t(raw.channels) * raw.bit_depth / 8;
  const size_t row = size_t(raw.width) * bpp;
  // Filter every row (libpng's default for non-palette images: all five filters, least signed-byte sum).
  std::vector<unsigned char> filtered((row + 1) * raw.height);
  std::vector<unsigned char> zero(row, 0), trial[5];
  for (auto& t : trial) t.resize(row);
  for (size_t y = 0; y < raw.height; ++y) {
    const unsigned char* cur = raw.samples.data() + y * row;
    const unsigned char* prev = y ? cur - row : zero.data();
    unsigned char* dst = filtered.data() + y * (row + 1);
    if (level == 0) {
      dst[0] = 0;
      std::memcpy(dst + 1, cur, row);
      continue;
    }
    int best = 0;
    uint64_t best_cost = UINT64_MAX;
    for (int f = 0; f < 5; ++f) {
      filter_row(f, cur, prev, row, bpp, trial[f].data());
      const uint64_t c = cost(trial[f].data(), row);
      if (c < best_cost) best_cost = c, best = f;
    }
    dst[0] = (unsigned char)best;
    std::memcpy(dst + 1, trial[best].data(), row);
  }
  std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> c(libdeflate_alloc_compressor(level),
                                                                              libdeflate_free_compressor);
  if (!c) return Status::fail(fmt::format("cannot compress at level {}", level));
  std::vector<unsigned char> z(libdeflate_zlib_compress_bound(c.get(), filtered.size()));
  const size_t zn = libdeflate_zlib_compress(c.get(), filtered.data(), filtered.size(), z.data(), z.size());
  if (zn == 0) return Status::fail("compression failed");
  filtered = {};

  file.clear();
  file.reserve(zn + 1024);
  file.insert(file.end(), kSignature, kSignature + 8);
  unsigned char ihdr[13];
  const uint32_t wh[2] = {raw.width, raw.height};
  for (int k = 0; k < 2; ++k)
    for (int b = 0; b < 4; ++b) ihdr[k * 4 + b] = (unsigned char)(wh[k] >> (24 - 8 * b));
  ihdr[8] = (unsigned char)raw.bit_depth;
  ihdr[9] = (unsigned char)color_types[raw.channels];
  ihdr[10] = ihdr[11] = ihdr[12] = 0;
  put_chunk(file, "IHDR", ihdr, 13);
  // Before IDAT, where every carried type may stand (PLTE, which the colour chunks must precede, is never written).
  for (const auto& [type, data] : chunks)
    put_chunk(file, type.c_str(), reinterpret_cast<const unsigned char*>(data.data()), data.size());
  if (srgb) {
    const unsigned char intent = 0;  // perceptual, as write_png_lean says
    put_chunk(file, "sRGB", &intent, 1);
  }
  const std::vector<bool> zipped = png_texts_compressed(text, level);
  size_t i = 0;
  for (const auto& [k, v] : text) {
    std::vector<unsigned char> body(k.begin(), k.end());
    body.push_back(0);
    const bool itxt = png_text_needs_itxt(k, v), zip = zipped[i++];
    // iTXt: compression flag and method 0, no language tag, no translated keyword; zTXt: method 0.
    if (itxt) body.insert(body.end(), {(unsigned char)(zip ? 1 : 0), 0, 0, 0});
    if (zip && !itxt) body.push_back(0);
    if (zip) {
      std::vector<unsigned char> zt(libdeflate_zlib_compress_bound(c.get(), v.size()));
      const size_t n = libdeflate_zlib_compress(c.get(), v.data(), v.size(), zt.data(), zt.size());
      if (n == 0) return Status::fail("compression failed (text)");
      body.insert(body.end(), zt.begin(), zt.begin() + long(n));
    } else {
      body.insert(body.end(), v.begin(), v.end());
    }
    put_chunk(file, itxt ? "iTXt" : zip ? "zTXt" : "tEXt", body.data(), body.size());
  }
  // IDAT in 1 MiB chunks: any size is valid; modest ones suit streaming readers.
  const size_t chunk = size_t(1) << 20;
  for (size_t at = 0; at < zn; at += chunk) put_chunk(file, "IDAT", z.data() + at, std::min(chunk, zn - at));
  put_chunk(file, "IEND", nullptr, 0);
  return Status::success();
}

// The file from its samples: text chunks from meta's attributes, encoded, written whole or not at all.
Status write_png_raw(const std::string& path, PngRaw& raw, const ImageMeta& meta, int level);

Status write_png_fast(const std::string& path, const Image& img, const ImageMeta& meta, int level) {
  PngRaw raw;
  raw.width = uint32_t(img.width), raw.height = uint32_t(img.height), raw.channels = img.channels;
  raw.bit_depth = png_bit_depth(meta.pixel_type);
  const size_t n = img.value_count();
  raw.samples.resize(n * size_t(raw.bit_depth / 8));
  const float* v = img.data.data();
  if (raw.bit_depth == 16) {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t q = quantize(v[i], 65535);
      raw.samples[2 * i] = (unsigned char)(q >> 8);
      raw.samples[2 * i + 1] = (unsigned char)q;
    }
  } else {
    for (size_t i = 0; i < n; ++i) raw.samples[i] = (unsigned char)quantize(v[i], 255);
  }
  return write_png_raw(path, raw, meta, level);
}

Status write_png_raw(const std::string& path, PngRaw& raw, const ImageMeta& meta, int level) {
  const auto text = png_text_of(meta, shown_name(meta, path));
  std::vector<unsigned char> file;
  if (Status s = encode_png_fast(raw, png_writes_srgb(meta), text, std::clamp(level, 0, 9), file,
                                 png_chunks_to_write(meta));
      !s)
    return Status::fail(fmt::format("cannot write '{}': {}", path, s.error));
  raw = {};
  return write_whole_file(path, file.data(), file.size());
}

}  // namespace gpublur::io

namespace gpublur {

Status write_packed_png(ImageIO& io, const std::string& path, PackedImage&& px, const ImageMeta& meta) {
  if (px.channels < 1 || px.channels > 4 || px.samples.size() != px.value_count())
    return Status::fail(fmt::format("cannot write '{}': not an 8-bit image of 1..4 channels", path));
  if (io::libpng_forced()) {  // the codec comparison: through the adapter, as float levels that write back exact
    Image img(px.width, px.height, px.channels);
    for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = io::dequantize(px.samples[i], 255);
    ImageMeta m = meta;
    m.pixel_type = PixelType::UInt8;
    return io.write(path, img, m);
  }
  io::warn_png_clipping(io::shown_name(meta, path), meta.clipped);  // what packing clipped (meta.clipped)
  io::PngRaw raw;
  raw.width = uint32_t(px.width), raw.height = uint32_t(px.height), raw.channels = px.channels, raw.bit_depth = 8;
  raw.samples = std::move(px.samples);
  px = PackedImage{};
  return io::write_png_raw(path, raw, meta, meta.png_compression);
}

}  // namespace gpublur
