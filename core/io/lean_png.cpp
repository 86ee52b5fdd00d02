// PNG through libpng directly. libpng reports errors by longjmp: every libpng call runs inside a small
// function that owns the setjmp, holds no C++ objects with destructors, and turns the error into a message.
#include <fmt/format.h>
#include <png.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/io/io_common.hpp"
#include "core/io/lean_formats.hpp"
#include "core/io/png_fast.hpp"

namespace gpublur::io {

namespace {

struct PngContext {
  std::FILE* file = nullptr;
  png_structp png = nullptr;
  png_infop info = nullptr;
  char message[512] = {};
  bool rows_read = false;  // every row decoded (what follows is png_read_end's)
  std::string trns_dropped;  // libpng's warning where it dropped a tRNS chunk (the transparency lost)
};

void on_error(png_structp png, png_const_charp msg) {
  auto* ctx = static_cast<PngContext*>(png_get_error_ptr(png));
  std::snprintf(ctx->message, sizeof ctx->message, "%s", msg ? msg : "unknown libpng error");
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp msg) { spdlog::debug("libpng: {}", msg ? msg : ""); }
// Reading: libpng's warnings are about chunks it drops, most of which read_png_extras names itself (damaged CRCs,
// colour chunks); a tRNS it drops (invalid, out of place) can leave the image opaque, which read_png_lean says.
void on_read_warning(png_structp png, png_const_charp msg) {
  const std::string m = msg ? msg : "";
  if (m.rfind("tRNS", 0) == 0) static_cast<PngContext*>(png_get_error_ptr(png))->trns_dropped = m;
  on_warning(png, msg);
}

// Our own read callback so that a short file says "truncated" instead of libpng's bare "Read Error".
void on_read(png_structp png, png_bytep data, png_size_t length) {
  auto* ctx = static_cast<PngContext*>(png_get_io_ptr(png));
  size_t got = std::fread(data, 1, length, ctx->file);
  if (got != length)
    png_error(png, std::feof(ctx->file) ? "unexpected end of file (the file is truncated)" : "read error");
}

struct PngHeader {
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, channels = 0;
  bool interlaced = false;
  // A palette image's entries, expanded here, not by libpng: its expansion read an index past the palette as black
  // and said nothing, and it checks no index where it expands (libpng 1.6.39).
  std::vector<std::array<unsigned char, 4>> palette;  // RGBA: tRNS alpha, 255 past it
  size_t bad_indices = 0;                             // indices read past the palette
};

// A row of palette indices, one byte each at its start, into RGB or RGBA in place (from its end: an output pixel
// never overwrites an index not yet read). An index past the palette is opaque black, as libpng reads it.
void expand_palette_row(PngHeader& h, unsigned char* row) {
  const int c = h.channels;
  const size_t n = h.palette.size();
  static constexpr std::array<unsigned char, 4> kBlack = {0, 0, 0, 255};
  for (size_t x = h.width; x-- > 0;) {
    const unsigned char i = row[x];
    if (i >= n) ++h.bad_indices;
    const std::array<unsigned char, 4>& e = i < n ? h.palette[i] : kBlack;
    std::memcpy(row + x * c, e.data(), size_t(c));
  }
}

bool read_header(PngContext& ctx, PngHeader& h) {
  if (setjmp(png_jmpbuf(ctx.png))) return false;
  png_set_read_fn(ctx.png, &ctx, on_read);
  // Text and the carried chunks come from read_png_extras, as on the OIIO adapter: libpng passes over them instead
  // of inflating a large zTXt, iTXt or iCCP a second time (it kept nothing of them; gpublur does not colour-manage).
  static constexpr png_byte kSkipped[] = "tEXt\0zTXt\0iTXt\0cHRM\0gAMA\0iCCP\0sRGB\0cICP\0mDCV\0cLLI\0pHYs\0eXIf";
  png_set_keep_unknown_chunks(ctx.png, PNG_HANDLE_CHUNK_NEVER, kSkipped, int(sizeof kSkipped / 5));
  // PNG's own limit a side (2^31 - 1), not libpng's default of a million: a 1000001 x 1 PNG (which gpublur writes)
  // was refused as "bad PNG header". The readers' limit of 2^28 pixels is ReadLimits', checked on the header.
  png_set_user_limits(ctx.png, 0x7fffffff, 0x7fffffff);
  png_read_info(ctx.png, ctx.info);
  int interlace = 0, compression = 0, filter = 0;
  png_get_IHDR(ctx.png, ctx.info, &h.width, &h.height, &h.bit_depth, &h.color_type, &interlace, &compression,
               &filter);
  h.interlaced = interlace != PNG_INTERLACE_NONE;
  // Expand everything to 8 or 16 bits per sample: palettes to RGB (here, from one index a byte), tRNS to a real alpha
  // channel.
  const bool trns = png_get_valid(ctx.png, ctx.info, PNG_INFO_tRNS);
  bool palette_alpha = false;
  if (h.color_type == PNG_COLOR_TYPE_PALETTE) {
    png_colorp entries = nullptr;
    int count = 0;
    png_get_PLTE(ctx.png, ctx.info, &entries, &count);  // libpng refuses a palette image without one
    png_bytep alpha = nullptr;
    int alphas = 0;
    if (trns) png_get_tRNS(ctx.png, ctx.info, &alpha, &alphas, nullptr);
    for (int i = 0; i < count; ++i)
      h.palette.push_back({entries[i].red, entries[i].green, entries[i].blue, i < alphas ? alpha[i] : png_byte(255)});
    if (h.bit_depth < 8) png_set_packing(ctx.png);
    palette_alpha = alphas > 0;  // libpng's expansion adds alpha where tRNS has an entry
  }
  if (h.color_type == PNG_COLOR_TYPE_GRAY && h.bit_depth < 8) png_set_expand_gray_1_2_4_to_8(ctx.png);
  if (trns && h.color_type != PNG_COLOR_TYPE_PALETTE) png_set_tRNS_to_alpha(ctx.png);
  png_set_interlace_handling(ctx.png);
  png_read_update_info(ctx.png, ctx.info);
  h.channels = png_get_channels(ctx.png, ctx.info);
  h.bit_depth = png_get_bit_depth(ctx.png, ctx.info);
  if (h.color_type == PNG_COLOR_TYPE_PALETTE) h.channels = palette_alpha ? 4 : 3;
  return true;
}

bool read_rows(PngContext& ctx, png_bytepp rows) {
  if (setjmp(png_jmpbuf(ctx.png))) return false;
  png_read_image(ctx.png, rows);
  ctx.rows_read = true;
  png_read_end(ctx.png, ctx.info);  // text chunks after the image data, and the file's integrity
  return true;
}

// A non-interlaced image row by row into `raw`, reserved whole but grown (zero-filled) as the rows arrive, so that a
// truncated file touches only the rows it holds: a 32 KB truncated 1-bit palette file declaring 16384^2 filled 1 GiB
// before failing (palette, tRNS and 1-bit gray expand up to 32x past the bytes the size check judges by).
bool read_rows_growing(PngContext& ctx, PngHeader& h, std::vector<unsigned char>& raw, size_t row_bytes) {
  if (setjmp(png_jmpbuf(ctx.png))) return false;
  for (png_uint_32 y = 0; y < h.height; ++y) {
    raw.resize(raw.size() + row_bytes);  // within the reserve: no copy
    png_read_row(ctx.png, raw.data() + size_t(y) * row_bytes, nullptr);
    if (!h.palette.empty()) expand_palette_row(h, raw.data() + size_t(y) * row_bytes);
  }
  ctx.rows_read = true;
  png_read_end(ctx.png, ctx.info);
  return true;
}

}  // namespace

bool probe_png(const std::string& path, int& width, int& height, int& channels) {
  // Signature (8), IHDR length and type (8), width and height (8), bit depth, colour type.
  unsigned char b[26] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  const size_t n = std::fread(b, 1, sizeof b, f);
  std::fclose(f);
  if (n < sizeof b || std::memcmp(b + 12, "IHDR", 4) != 0) return false;
  const uint32_t w = be32(b + 16), h = be32(b + 20);
  static const int by_type[7] = {1, 0, 3, 4, 2, 0, 4};  // palette counted as RGBA (tRNS may add alpha)
  if (w == 0 || h == 0 || w > 0x7fffffff || h > 0x7fffffff || b[25] > 6 || by_type[b[25]] == 0) return false;
  width = int(w), height = int(h), channels = by_type[b[25]];
  return true;
}

Status read_png_lean(const std::string& path, const ReadLimits& limits, LoadedImage& out) {
  // Decoding stays with libpng: its SIMD row unfiltering beats png_fast's libdeflate + scalar unfilter
  // (measured on 4K RGB8: 450-520 vs 630-790 ms CPU per read; docs/performance.md). GPUBLUR_PNG_FAST_READ=1
  // tries the fast path anyway.
  if (Status st; fast_read_wanted() && read_png_fast(path, limits, out, st)) return st;
  PngContext ctx;
  ctx.file = std::fopen(path.c_str(), "rb");
  if (!ctx.file) return Status::fail(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  ctx.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_read_warning);
  if (ctx.png) ctx.info = png_create_info_struct(ctx.png);
  auto cleanup = [&] {
    png_destroy_read_struct(ctx.png ? &ctx.png : nullptr, ctx.info ? &ctx.info : nullptr, nullptr);
    std::fclose(ctx.file);
  };
  if (!ctx.png || !ctx.info) {
    cleanup();
    return Status::fail(fmt::format("cannot read '{}': libpng initialisation failed", path));
  }

  PngHeader h;
  if (!read_header(ctx, h)) {
    std::string msg = ctx.message;
    cleanup();
    return Status::fail(fmt::format("cannot read '{}': bad PNG header: {}", path, msg));
  }
  if (Status st = check_limits(path, h.width, h.height, h.channels, limits); !st) {
    cleanup();
    return st;
  }

  const size_t bytes_per_sample = h.bit_depth == 16 ? 2 : 1;
  const size_t row_bytes = size_t(h.width) * h.channels * bytes_per_sample;
  std::vector<unsigned char> raw;
  // Interlaced: Adam7's passes write rows all over the image, so it is allocated whole, but not zero-filled: pages
  // are touched only as the passes reach them (a truncated 33 KB interlaced 1-bit palette file declaring 16384^2
  // filled 1 GiB). Such an image is then converted to float from here, never kept packed (which would copy it).
  std::unique_ptr<unsigned char[]> unfilled;
  std::vector<png_bytep> rows;
  if (h.interlaced) {
    unfilled.reset(new unsigned char[row_bytes * h.height]);
    rows.resize(h.height);
    for (size_t y = 0; y < h.height; ++y) rows[y] = unfilled.get() + y * row_bytes;
  } else {
    raw.reserve(row_bytes * h.height);
  }
  if (h.interlaced ? !read_rows(ctx, rows.data()) : !read_rows_growing(ctx, h, raw, row_bytes)) {
    std::string msg = ctx.message;
    // Every row there and the file ends before IEND: the image is whole (OpenImageIO reads it too), said.
    const bool whole = ctx.rows_read && std::feof(ctx.file);
    if (!whole) {
      cleanup();
      return Status::fail(fmt::format("cannot read '{}': corrupt or truncated PNG: {}", path, msg));
    }
    spdlog::warn("'{}': the file ends after its image data (no IEND chunk); read", path);
  }
  if (h.interlaced && !h.palette.empty())
    for (png_bytep row : rows) expand_palette_row(h, row);
  if (h.bad_indices > 0)
    spdlog::warn("'{}': {} pixel{} past the palette's {} entries (an invalid PNG): read as opaque black", path,
                 h.bad_indices, h.bad_indices == 1 ? "'s index is" : "s' indices are", h.palette.size());

  // Said only where the transparency is lost: no tRNS kept (a duplicate leaves the first) and no alpha of the image's
  // own (an RGBA file's tRNS is invalid but changes nothing).
  if (!ctx.trns_dropped.empty() && !png_get_valid(ctx.png, ctx.info, PNG_INFO_tRNS) &&
      (h.color_type & PNG_COLOR_MASK_ALPHA) == 0)
    spdlog::warn("'{}': libpng did not read its tRNS chunk ({}): the image is read as opaque", path, ctx.trns_dropped);
  ImageMeta meta;
  meta.format = "png";
  meta.srgb = true;
  meta.palette = h.color_type == PNG_COLOR_TYPE_PALETTE;
  meta.pixel_type = h.bit_depth == 16 ? PixelType::UInt16 : PixelType::UInt8;
  meta.channel_names = png_channel_names(h.channels);
  meta.alpha_channel = find_alpha(meta.channel_names);
  cleanup();
  PngExtras extras = read_png_extras(path);  // as the OIIO adapter takes them (libpng's own limits dropped large ones)
  meta.attributes = std::move(extras.text);
  meta.png_chunks = std::move(extras.chunks);

  if (bytes_per_sample == 1 && limits.keep_packed && !h.interlaced) {
    out.packed = PackedImage{int(h.width), int(h.height), h.channels, std::move(raw), {}};
    out.image = Image();
    out.image.width = int(h.width), out.image.height = int(h.height), out.image.channels = h.channels;
    out.meta = std::move(meta);
    return Status::success();
  }
  Image img(int(h.width), int(h.height), h.channels);
  const size_t n = img.value_count();
  const unsigned char* px = h.interlaced ? unfilled.get() : raw.data();
  if (bytes_per_sample == 2) {
    for (size_t i = 0; i < n; ++i) img.data[i] = dequantize(uint32_t(px[2 * i]) << 8 | px[2 * i + 1], 65535);
  } else {
    for (size_t i = 0; i < n; ++i) img.data[i] = dequantize(px[i], 255);
  }
  out.image = std::move(img);
  out.meta = std::move(meta);
  return Status::success();
}

namespace {

struct PngWriteJob {
  png_uint_32 width, height;
  int bit_depth, color_type;
  bool srgb;
  const std::vector<std::pair<std::string, std::string>>* chunks;  // carried, written before IDAT
  png_textp text;
  int num_text;
  png_bytepp rows;
  int level;
};

bool write_all(PngContext& ctx, const PngWriteJob& job) {
  if (setjmp(png_jmpbuf(ctx.png))) return false;
  png_init_io(ctx.png, ctx.file);
  png_set_IHDR(ctx.png, ctx.info, job.width, job.height, job.bit_depth, job.color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (job.srgb) png_set_sRGB(ctx.png, ctx.info, PNG_sRGB_INTENT_PERCEPTUAL);
  png_set_text_compression_level(ctx.png, job.level);  // before png_write_info, which compresses the text
  if (job.num_text > 0) png_set_text(ctx.png, ctx.info, job.text, job.num_text);
  png_set_compression_level(ctx.png, job.level);
  png_write_info(ctx.png, ctx.info);
  for (const auto& [type, data] : *job.chunks)
    png_write_chunk(ctx.png, reinterpret_cast<png_const_bytep>(type.c_str()),
                    reinterpret_cast<png_const_bytep>(data.data()), data.size());
  png_write_image(ctx.png, job.rows);
  png_write_end(ctx.png, ctx.info);
  return true;
}

}  // namespace

Status write_png_lean(const std::string& path, const Image& img, const ImageMeta& meta) {
  // libdeflate at the same level: about twice zlib's speed, sizes within a few percent (docs/performance.md).
  if (!libpng_forced()) return write_png_fast(path, img, meta, meta.png_compression);
  return write_png_libpng(path, img, meta);
}

Status write_png_libpng(const std::string& path, const Image& img, const ImageMeta& meta) {
  const int depth = png_bit_depth(meta.pixel_type);
  const uint32_t maxval = depth == 16 ? 65535 : 255;
  const size_t bytes = depth / 8;
  const size_t row_bytes = size_t(img.width) * img.channels * bytes;
  std::vector<unsigned char> raw(row_bytes * img.height);
  for (size_t i = 0; i < img.value_count(); ++i) {
    uint32_t q = quantize(img.data[i], maxval);
    if (bytes == 2) {
      raw[2 * i] = (unsigned char)(q >> 8);
      raw[2 * i + 1] = (unsigned char)(q & 0xff);
    } else {
      raw[i] = (unsigned char)q;
    }
  }
  std::vector<png_bytep> rows(img.height);
  for (int y = 0; y < img.height; ++y) rows[y] = raw.data() + y * row_bytes;

  // Text chunks (png_text_of: what PNG cannot hold is warned about and skipped, not a failed image): tEXt, or iTXt
  // for values beyond ASCII; compressed from 1 KiB (png_texts_compressed).
  const auto kept = png_text_of(meta, shown_name(meta, path));
  const std::vector<bool> zipped = png_texts_compressed(kept, std::clamp(meta.png_compression, 0, 9));
  std::vector<png_text> text;
  for (const auto& [key, value] : kept) {
    png_text t{};
    t.key = const_cast<char*>(key.c_str());
    t.text = const_cast<char*>(value.c_str());
    const bool z = zipped[text.size()];
    if (png_text_needs_itxt(key, value)) {
      t.compression = z ? PNG_ITXT_COMPRESSION_zTXt : PNG_ITXT_COMPRESSION_NONE;
      t.itxt_length = value.size();
    } else {
      t.compression = z ? PNG_TEXT_COMPRESSION_zTXt : PNG_TEXT_COMPRESSION_NONE;
      t.text_length = value.size();
    }
    text.push_back(t);
  }

  static const int color_types[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                    PNG_COLOR_TYPE_RGB_ALPHA};
  const auto chunks = png_chunks_to_write(meta);
  PngWriteJob job{png_uint_32(img.width), png_uint_32(img.height), depth, color_types[img.channels],
                  png_writes_srgb(meta), &chunks, text.data(), int(text.size()), rows.data(),
                  std::clamp(meta.png_compression, 0, 9)};

  PngContext ctx;
  ctx.file = std::fopen(path.c_str(), "wb");
  if (!ctx.file) return Status::fail(fmt::format("cannot create '{}': {}", path, std::strerror(errno)));
  ctx.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
  if (ctx.png) ctx.info = png_create_info_struct(ctx.png);
  bool ok = ctx.png && ctx.info && write_all(ctx, job);
  png_destroy_write_struct(ctx.png ? &ctx.png : nullptr, ctx.info ? &ctx.info : nullptr);
  bool closed = std::fclose(ctx.file) == 0;
  if (!ok || !closed) {
    remove_partial(path);
    return Status::fail(fmt::format("cannot write '{}': {}", path,
                                    !ok ? (ctx.message[0] ? ctx.message : "libpng initialisation failed")
                                        : std::strerror(errno)));
  }
  return Status::success();
}

}  // namespace gpublur::io
