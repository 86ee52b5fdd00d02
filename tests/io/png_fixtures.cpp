#include "tests/io/png_fixtures.hpp"

#include <png.h>
#include <zlib.h>

#include <csetjmp>
#include <cstdio>

#include "tests/io/io_test_util.hpp"

namespace gpublur::test {

namespace {

// rows holds packed rows; colour type and depth as given. setjmp lives here, with no C++ objects after it.
bool write_png_rows(const std::string& path, int w, int h, int depth, int color_type, png_colorp palette,
                    int num_palette, png_bytep trns, int num_trns, png_bytepp rows,
                    png_color_16p trans_color = nullptr, bool interlaced = false) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    return false;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, w, h, depth, color_type, interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (palette) png_set_PLTE(png, info, palette, num_palette);
  png_set_check_for_invalid_index(png, -1);  // indices past the palette are written as given (a reader's test)
  if (num_trns > 0) png_set_tRNS(png, info, trns, num_trns, nullptr);
  if (trans_color) png_set_tRNS(png, info, nullptr, 0, trans_color);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return std::fclose(f) == 0;
}

std::vector<uint8_t> pack(const std::vector<uint8_t>& v, int w, int h, int depth, std::vector<png_bytep>& rows) {
  const int row_bytes = (w * depth + 7) / 8;
  std::vector<uint8_t> packed(size_t(row_bytes) * h, 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int bit = x * depth;  // PNG packs the leftmost pixel in the high bits
      packed[size_t(y) * row_bytes + bit / 8] |= uint8_t(v[size_t(y) * w + x] << (8 - depth - bit % 8));
    }
  rows.resize(h);
  return packed;
}

}  // namespace

bool write_palette_png(const std::string& path, const PaletteFixture& p) {
  std::vector<png_bytep> rows;
  std::vector<uint8_t> packed = pack(p.indices, p.width, p.height, p.bit_depth, rows);
  const int row_bytes = (p.width * p.bit_depth + 7) / 8;
  for (int y = 0; y < p.height; ++y) rows[y] = packed.data() + size_t(y) * row_bytes;
  std::vector<png_color> pal;
  for (const auto& e : p.palette) pal.push_back(png_color{e[0], e[1], e[2]});
  std::vector<uint8_t> trns = p.trns;
  return write_png_rows(path, p.width, p.height, p.bit_depth, PNG_COLOR_TYPE_PALETTE, pal.data(), int(pal.size()),
                        trns.empty() ? nullptr : trns.data(), int(trns.size()), rows.data(), nullptr, p.interlaced);
}

bool write_low_depth_gray_png(const std::string& path, int w, int h, int depth, const std::vector<uint8_t>& v) {
  std::vector<png_bytep> rows;
  std::vector<uint8_t> packed = pack(v, w, h, depth, rows);
  const int row_bytes = (w * depth + 7) / 8;
  for (int y = 0; y < h; ++y) rows[y] = packed.data() + size_t(y) * row_bytes;
  return write_png_rows(path, w, h, depth, PNG_COLOR_TYPE_GRAY, nullptr, 0, nullptr, 0, rows.data());
}

bool write_color_key_png(const std::string& path, int w, int h, int channels, const std::vector<uint8_t>& v,
                         const std::vector<uint8_t>& key) {
  std::vector<uint8_t> data = v;
  std::vector<png_bytep> rows(h);
  for (int y = 0; y < h; ++y) rows[y] = data.data() + size_t(y) * w * channels;
  png_color_16 tc{};
  if (channels == 1) {
    tc.gray = key[0];
  } else {
    tc.red = key[0];
    tc.green = key[1];
    tc.blue = key[2];
  }
  return write_png_rows(path, w, h, 8, channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, nullptr, 0,
                        nullptr, 0, rows.data(), &tc);
}

void write_png_header_only(const std::string& path, uint32_t width, uint32_t height) {
  std::vector<unsigned char> b = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
  auto be32 = [&](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(v >> s));
  };
  be32(width);
  be32(height);
  b.insert(b.end(), {8, 6, 0, 0, 0});  // 8-bit RGBA, deflate, adaptive filter, no interlace
  be32(uint32_t(crc32(0, b.data() + 12, 17)));
  // One small IDAT (a few compressed rows: a real bomb holds billions) and IEND, so that the header parses.
  std::vector<unsigned char> rows(4 * (size_t(width) * 4 + 1), 0);
  uLongf zlen = compressBound(uLong(rows.size()));
  std::vector<unsigned char> z(zlen);
  compress(z.data(), &zlen, rows.data(), uLong(rows.size()));
  auto chunk = [&](const char* type, const unsigned char* data, size_t n) {
    be32(uint32_t(n));
    const size_t start = b.size();
    b.insert(b.end(), type, type + 4);
    b.insert(b.end(), data, data + n);
    be32(uint32_t(crc32(0, b.data() + start, uInt(n + 4))));
  };
  chunk("IDAT", z.data(), zlen);
  chunk("IEND", nullptr, 0);
  write_bytes(path, b);
}

}  // namespace gpublur::test
