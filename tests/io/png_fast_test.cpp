// The libdeflate PNG writer (core/io/png_fast): libpng reads its files back exactly (every channel count, 8 and
// 16 bit, levels 0-9, text and sRGB chunks), and at level 6 its files are within 10% of libpng's size.
#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>

#include "core/io/io_common.hpp"
#include "core/io/lean_formats.hpp"
#include "core/io/png_fast.hpp"
#include "tests/io/io_test_util.hpp"

namespace gpublur::io {
namespace {

// Photograph-like content: a smooth ramp plus grain, so filters and deflate have realistic work.
Image grainy(int w, int h, int c, unsigned seed) {
  Image img(w, h, c);
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 0.012f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) img.at(x, y, k) = std::clamp(0.2f + 0.5f * (x + y * (k + 1)) / (w + h * 4.0f) + n(rng), 0.0f, 1.0f);
  return img;
}

std::string temp_name(const char* tag) {
  return testing::TempDir() + "png_fast_" + tag + "_" + std::to_string(getpid()) + ".png";
}

TEST(PngFast, LibpngReadsItsFilesExactly) {
  for (int c = 1; c <= 4; ++c)
    for (PixelType t : {PixelType::UInt8, PixelType::UInt16})
      for (int level : {0, 1, 6, 9}) {
        const Image img = grainy(37, 19, c, unsigned(c * 10 + level));
        ImageMeta meta;
        meta.format = "png";
        meta.pixel_type = t;
        meta.srgb = true;
        meta.png_compression = level;
        meta.attributes = {{"Description", "grain"}, {"Author", "gpublur test"}};
        const std::string path = temp_name("rt");
        ASSERT_TRUE(write_png_fast(path, img, meta, level).ok());
        LoadedImage back;
        ASSERT_TRUE(read_png_lean(path, ReadLimits{}, back).ok());  // libpng (the fast read is off by default)
        std::remove(path.c_str());
        const uint32_t maxval = t == PixelType::UInt8 ? 255 : 65535;
        ASSERT_EQ(back.image.channels, c);
        ASSERT_EQ(back.meta.pixel_type, t);
        for (size_t i = 0; i < img.value_count(); ++i)
          ASSERT_EQ(back.image.data[i], dequantize(quantize(img.data[i], maxval), maxval)) << c << " " << level;
        ASSERT_EQ(back.meta.attributes.size(), 2u);
        EXPECT_EQ(back.meta.attributes[0].second, "grain");
      }
}

size_t libpng_size(const Image& img, int level) {
  const std::string path = temp_name("libpng");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_init_io(png, f);
  png_set_compression_level(png, level);
  png_set_IHDR(png, info, img.width, img.height, 8, PNG_COLOR_TYPE_RGB, 0, 0, 0);
  png_write_info(png, info);
  std::vector<unsigned char> row(size_t(img.width) * 3);
  for (int y = 0; y < img.height; ++y) {
    for (size_t i = 0; i < row.size(); ++i) row[i] = (unsigned char)quantize(img.data[y * row.size() + i], 255);
    png_write_row(png, row.data());
  }
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  std::fseek(f, 0, SEEK_END);
  const size_t n = size_t(std::ftell(f));
  std::fclose(f);
  std::remove(path.c_str());
  return n;
}

// The fast reader's parse hands a file whose IDAT chunks another chunk splits to libpng, which refuses it ("Not enough
// image data"): the fast read (GPUBLUR_PNG_FAST_READ=1) read it, so one file passed or failed by the path.
// Sides past libpng's default user limit of a million: PNG allows 2^31 - 1, gpublur writes them, and libpng's read
// refused them as "bad PNG header" (readers' limit: 2^28 pixels, ReadLimits).
TEST(PngFast, SidesOverAMillionReadBack) {
  for (const auto& [w, h] : {std::pair<int, int>{1000001, 1}, {1, 1000003}}) {
    Image img(w, h, 1);
    for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = float(i % 256) / 255;
    ImageMeta meta;
    meta.format = "png";
    meta.pixel_type = PixelType::UInt8;
    const std::string path = temp_name("long");
    ASSERT_TRUE(write_png_fast(path, img, meta, 1).ok());
    LoadedImage back;
    const Status s = read_png_lean(path, ReadLimits{}, back);
    std::remove(path.c_str());
    ASSERT_TRUE(s.ok()) << w << "x" << h << ": " << s.error;
    ASSERT_EQ(back.image.width, w);
    ASSERT_EQ(back.image.height, h);
    EXPECT_EQ(back.image.data, img.data);
  }
}

// A PNG chunk of `type` holding data[0 .. n), its CRC made anew.
std::vector<unsigned char> png_chunk(const std::string& type, const unsigned char* data, size_t n) {
  std::vector<unsigned char> c = {(unsigned char)(n >> 24), (unsigned char)(n >> 16), (unsigned char)(n >> 8),
                                  (unsigned char)n};
  for (char t : type) c.push_back((unsigned char)t);
  c.insert(c.end(), data, data + n);
  const uint32_t crc = uint32_t(crc32(0, c.data() + 4, uInt(n + 4)));
  for (int k = 3; k >= 0; --k) c.push_back((unsigned char)(crc >> (8 * k)));
  return c;
}

TEST(PngFast, SplitImageDataGoesToLibpng) {
  PngRaw raw;
  raw.width = 64, raw.height = 64, raw.channels = 3, raw.bit_depth = 8;
  raw.samples.resize(64 * 64 * 3);
  for (size_t i = 0; i < raw.samples.size(); ++i) raw.samples[i] = (unsigned char)(i * 7 + i / 97);
  std::vector<unsigned char> file;
  ASSERT_TRUE(encode_png_fast(raw, true, {}, 0, file).ok());
  std::vector<std::pair<std::string, std::string>> text;
  bool srgb = false;
  PngRaw parsed;
  ASSERT_TRUE(decode_png_fast(file.data(), file.size(), parsed, text, srgb));
  size_t at = 8;
  while (std::string(file.begin() + long(at) + 4, file.begin() + long(at) + 8) != "IDAT")
    at += 12 + (size_t(file[at]) << 24 | size_t(file[at + 1]) << 16 | size_t(file[at + 2]) << 8 | file[at + 3]);
  const size_t len = size_t(file[at]) << 24 | size_t(file[at + 1]) << 16 | size_t(file[at + 2]) << 8 | file[at + 3];
  const unsigned char* z = file.data() + at + 8;
  // The one IDAT replaced by `chunks`: the fast read declines the file and libpng refuses it.
  const auto with = [&](std::initializer_list<std::vector<unsigned char>> chunks, const char* tag) {
    std::vector<unsigned char> f(file.begin(), file.begin() + long(at));
    for (const auto& c : chunks) f.insert(f.end(), c.begin(), c.end());
    f.insert(f.end(), file.begin() + long(at + 12 + len), file.end());
    EXPECT_FALSE(decode_png_fast(f.data(), f.size(), parsed, text, srgb)) << tag;
    const std::string p = temp_name(tag);
    test::write_bytes(p, f);
    LoadedImage back;
    EXPECT_FALSE(read_png_lean(p, ReadLimits{}, back).ok()) << tag;
    std::remove(p.c_str());
  };
  const unsigned char* kv = reinterpret_cast<const unsigned char*>("k\0v");
  // Split in two around a tEXt chunk.
  with({png_chunk("IDAT", z, len / 2), png_chunk("tEXt", kv, 3), png_chunk("IDAT", z + len / 2, len - len / 2)},
       "split");
  // An empty IDAT before the split counts as one (the fast read took the file, libpng refuses "Not enough image
  // data"), as does a chunk type that is not four letters (the fast read took "a1B2" and carried it to the output,
  // which neither reader could read back): both go to libpng, which refuses them (a fuzzing run found both).
  with({png_chunk("IDAT", z, 0), png_chunk("tEXt", kv, 3), png_chunk("IDAT", z, len)}, "empty");
  with({png_chunk("a1B2", reinterpret_cast<const unsigned char*>("x"), 1), png_chunk("IDAT", z, len)}, "badtype");
}

// The text chunks' inflated text is limited in all, not only chunk by chunk: eight zTXt chunks of 63 MiB each in a
// 514 KB file inflated to 528 MB and went into the output. Two of 40 MiB: the first is read, the second is not. Plain
// text, no larger than the file, is not counted (nor limited by the fast reader): 30 MiB of it before them is read and
// leaves the first zTXt its room.
// Text of 1 KiB or more goes out compressed from both writers (zTXt, iTXt with its compression flag), an XMP packet and
// short text plain; at level 0 everything plain; read back the same. A 67 KB PNG of one zTXt was written as 34.6 MB.
TEST(PngText, LargeTextIsWrittenCompressedByBothWriters) {
  const Image img = grainy(8, 4, 3, 5);
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  std::string big, utf8, xmp = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">";
  for (int i = 0; i < 300; ++i) big += "line " + std::to_string(i) + "\n", utf8 += "caf\xc3\xa9 ";
  xmp += std::string(2000, ' ') + "</x:xmpmeta>";
  meta.attributes = {{"Big", big}, {"BigUtf8", utf8}, {"XML:com.adobe.xmp", xmp}, {"Small", "short"}};
  for (const bool libpng : {false, true})
    for (const int level : {6, 0}) {
      SCOPED_TRACE(std::string(libpng ? "libpng" : "libdeflate") + " level " + std::to_string(level));
      const std::string path = temp_name("text");
      meta.png_compression = level;
      ASSERT_TRUE((libpng ? write_png_libpng(path, img, meta) : write_png_fast(path, img, meta, level)).ok());
      const std::vector<unsigned char> f = test::read_bytes(path);
      std::map<std::string, std::string> form;  // keyword -> chunk type (iTXt: and its compression flag)
      std::map<std::string, size_t> bytes;      // keyword -> chunk length
      for (size_t at = 8; at + 12 <= f.size();) {
        const size_t n = size_t(f[at]) << 24 | size_t(f[at + 1]) << 16 | size_t(f[at + 2]) << 8 | f[at + 3];
        const std::string type(f.begin() + long(at) + 4, f.begin() + long(at) + 8);
        if (type == "tEXt" || type == "zTXt" || type == "iTXt") {
          const std::string body(f.begin() + long(at) + 8, f.begin() + long(at + 8 + n));
          const std::string key = body.substr(0, body.find('\0'));
          form[key] = type == "iTXt" ? type + char('0' + body[key.size() + 1]) : type;
          bytes[key] = n;
        }
        at += n + 12;
      }
      const bool z = level > 0;
      EXPECT_EQ(form["Big"], z ? "zTXt" : "tEXt");
      EXPECT_EQ(form["BigUtf8"], z ? "iTXt1" : "iTXt0");
      EXPECT_EQ(form["XML:com.adobe.xmp"], "iTXt0");
      EXPECT_EQ(form["Small"], "tEXt");
      EXPECT_EQ(bytes["Big"] < big.size() / 2, z) << bytes["Big"];
      LoadedImage back;
      ASSERT_TRUE(read_png_lean(path, ReadLimits{}, back).ok());
      std::remove(path.c_str());
      std::map<std::string, std::string> got(back.meta.attributes.begin(), back.meta.attributes.end());
      EXPECT_EQ(got["Big"], big);
      EXPECT_EQ(got["BigUtf8"], utf8);
      EXPECT_EQ(got["XML:com.adobe.xmp"], xmp);
      EXPECT_EQ(got["Small"], "short");
    }
}

// Compressed text stays within what a read inflates in all (plain text is not counted there), so that gpublur reads
// back every text it wrote: two texts of 40 MiB were both written as zTXt and the second was not read back.
TEST(PngText, CompressedTextStaysWithinWhatAReadInflates) {
  const std::string mib33(size_t(33) << 20, 'a');
  const std::vector<std::pair<std::string, std::string>> text = {
      {"one", mib33}, {"two", mib33}, {"small", std::string(2000, 'b')}, {"XML:com.adobe.xmp", std::string(2000, 'c')}};
  EXPECT_EQ(png_texts_compressed(text, 6), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(png_texts_compressed(text, 0), (std::vector<bool>{false, false, false, false}));
}

TEST(PngFast, TextIsLimitedInAll) {
  PngRaw raw;
  raw.width = 4, raw.height = 4, raw.channels = 1, raw.bit_depth = 8;
  raw.samples.assign(16, 7);
  std::vector<unsigned char> file;
  ASSERT_TRUE(encode_png_fast(raw, false, {}, 6, file).ok());
  const std::string zeros(size_t(40) << 20, '\0');
  std::vector<unsigned char> z(compressBound(uLong(zeros.size())));
  uLongf zn = uLongf(z.size());
  ASSERT_EQ(compress2(z.data(), &zn, reinterpret_cast<const Bytef*>(zeros.data()), uLong(zeros.size()), 9), Z_OK);
  std::vector<unsigned char> png(file.begin(), file.begin() + 33);  // the signature and IHDR
  for (const char* key : {"plain", "first", "second"}) {
    const bool plain = std::strcmp(key, "plain") == 0;
    std::vector<unsigned char> body(key, key + std::strlen(key) + 1);
    if (plain) {
      body.insert(body.end(), size_t(30) << 20, 'p');
    } else {
      body.push_back(0);  // deflate
      body.insert(body.end(), z.begin(), z.begin() + long(zn));
    }
    const std::vector<unsigned char> c = png_chunk(plain ? "tEXt" : "zTXt", body.data(), body.size());
    png.insert(png.end(), c.begin(), c.end());
  }
  png.insert(png.end(), file.begin() + 33, file.end());
  const std::string path = temp_name("texts");
  test::write_bytes(path, png);
  const PngExtras extras = read_png_extras(path);
  std::remove(path.c_str());
  ASSERT_EQ(extras.text.size(), 2u);
  EXPECT_EQ(extras.text[0].first, "plain");
  EXPECT_EQ(extras.text[0].second.size(), size_t(30) << 20);
  EXPECT_EQ(extras.text[1].first, "first");
  EXPECT_EQ(extras.text[1].second.size(), zeros.size());
}

// Peak resident memory of this process in KiB (VmHWM), after resetting it to the current use; -1 if it cannot.
long peak_rss_kib(bool reset) {
  if (reset) {
    std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    const bool ok = std::fputs("5", f) >= 0;
    if (std::fclose(f) != 0 || !ok) return -1;
  }
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
  std::fclose(f);
  return kib;
}

// A truncated PNG's rows are held as they arrive, not zero-filled whole first: a 1-bit image expands 8x (palette with
// tRNS 32x) past the bytes the size check judges it by, so a 32 KB truncated 1-bit palette file declaring 16384^2
// filled 1 GiB before failing. Here 1-bit gray 16384^2 (256 MiB as 8-bit): non-interlaced with a quarter of its file
// kept, the read fails having touched about a quarter of that; interlaced (Adam7) with a sixteenth, about its first
// three passes' rows, a quarter of them.
class PngLeanTruncated : public ::testing::TestWithParam<bool> {};

TEST_P(PngLeanTruncated, TouchesOnlyTheRowsItHolds) {
  const bool interlaced = GetParam();
  const std::string path = temp_name(interlaced ? "trunc1bit_i" : "trunc1bit");
  {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), std::fclose);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    ASSERT_TRUE(png && info);
    if (setjmp(png_jmpbuf(png))) FAIL() << "libpng write";
    png_init_io(png, f.get());
    png_set_IHDR(png, info, 16384, 16384, 1, PNG_COLOR_TYPE_GRAY, interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    const int passes = png_set_interlace_handling(png);
    png_set_compression_level(png, 1);
    std::vector<unsigned char> row(16384 / 8);
    uint32_t state = 1;  // noise: the file stays large enough for the size check with a sixteenth of it kept
    for (int pass = 0; pass < passes; ++pass)
      for (int y = 0; y < 16384; ++y) {
        for (unsigned char& b : row) b = (unsigned char)((state = state * 1664525u + 1013904223u) >> 24);
        png_write_row(png, row.data());
      }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
  }
  std::vector<unsigned char> bytes = test::read_bytes(path);
  bytes.resize(bytes.size() / (interlaced ? 16 : 4));
  test::write_bytes(path, bytes);
  std::string format;
  ASSERT_TRUE(preflight_read(path, format).ok()) << "what is kept still passes the size check";
  const long before = peak_rss_kib(true);
  if (before < 0) GTEST_SKIP() << "no /proc/self/clear_refs to reset the peak resident memory";
  LoadedImage img;
  EXPECT_FALSE(read_png_lean(path, ReadLimits{}, img).ok());
  const long grew_mib = (peak_rss_kib(false) - before) / 1024;
  std::remove(path.c_str());
  EXPECT_LT(grew_mib, 128) << grew_mib << " MiB touched reading part of a 256 MiB image";
  EXPECT_GT(grew_mib, 16) << "the rows it holds are read";
}

INSTANTIATE_TEST_SUITE_P(PngLean, PngLeanTruncated, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Interlaced" : "NotInterlaced"; });

TEST(PngFast, SizeAtLevel6WithinTenPercentOfLibpng) {
  const Image img = grainy(512, 256, 3, 7);
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  const std::string path = temp_name("size");
  ASSERT_TRUE(write_png_fast(path, img, meta, 6).ok());
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::fseek(f, 0, SEEK_END);
  const double ours = double(std::ftell(f));
  std::fclose(f);
  std::remove(path.c_str());
  const double theirs = double(libpng_size(img, 6));
  EXPECT_LT(ours, theirs * 1.10) << ours << " vs libpng " << theirs;
  EXPECT_GT(ours, theirs * 0.5) << ours << " vs libpng " << theirs;  // not suspiciously small either
}

}  // namespace
}  // namespace gpublur::io

namespace gpublur::io {
namespace {

// EXR compression: read into meta.exr_compression, written back as meta says, through either adapter.
TEST(ExrCompression, KeptFromTheInputAndOverridable) {
  Image img(16, 8, 4);
  for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = float(i % 13) / 13.0f;
  for (const char* adapter : {"lean", "oiio"}) {
    std::unique_ptr<ImageIO> io = make_image_io(adapter);
    if (!io) continue;  // not built into this binary
    for (const char* comp : {"none", "rle", "zips", "zip", "piz", "pxr24", "b44", "dwaa"}) {
      ImageMeta meta;
      meta.format = "exr";
      meta.pixel_type = PixelType::Half;
      meta.channel_names = {"R", "G", "B", "A"};
      meta.exr_compression = comp;
      const std::string path = testing::TempDir() + "exr_comp_" + std::to_string(getpid()) + ".exr";
      ASSERT_TRUE(io->write(path, img, meta).ok()) << adapter << " " << comp;
      LoadedImage back;
      ASSERT_TRUE(io->read(path, ReadLimits{}, back).ok()) << adapter << " " << comp;
      std::remove(path.c_str());
      EXPECT_EQ(back.meta.exr_compression, comp) << adapter;
    }
    ImageMeta bad;
    bad.format = "exr";
    bad.exr_compression = "lzma";
    EXPECT_FALSE(io->write(testing::TempDir() + "exr_bad.exr", img, bad).ok()) << adapter;
  }
}

TEST(PngFast, LevelsTradeSizeForSpeed) {
  const Image img = grainy(256, 128, 3, 3);
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  PngRaw raw;
  raw.width = 256, raw.height = 128, raw.channels = 3;
  raw.samples.resize(img.value_count());
  for (size_t i = 0; i < img.value_count(); ++i) raw.samples[i] = (unsigned char)quantize(img.data[i], 255);
  std::vector<unsigned char> l0, l1, l9;
  ASSERT_TRUE(encode_png_fast(raw, false, {}, 0, l0).ok());
  ASSERT_TRUE(encode_png_fast(raw, false, {}, 1, l1).ok());
  ASSERT_TRUE(encode_png_fast(raw, false, {}, 9, l9).ok());
  EXPECT_GT(l0.size(), raw.samples.size());  // stored: the samples plus filter bytes and headers
  EXPECT_LT(l1.size(), l0.size());
  EXPECT_LE(l9.size(), l1.size());
}

}  // namespace
}  // namespace gpublur::io
