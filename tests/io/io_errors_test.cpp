// Bad inputs, for each adapter: every failure is a Status (never an abort or a throw) naming the file.
#include <ImfBoxAttribute.h>
#include <ImfChannelList.h>
#include <ImfChannelListAttribute.h>
#include <ImfChromaticitiesAttribute.h>
#include <ImfDeepImageStateAttribute.h>
#include <ImfDoubleAttribute.h>
#include <ImfEnvmapAttribute.h>
#include <ImfFloatAttribute.h>
#include <ImfFloatVectorAttribute.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIntAttribute.h>
#include <ImfKeyCodeAttribute.h>
#include <ImfMatrixAttribute.h>
#include <ImfMultiPartOutputFile.h>
#include <ImfOutputFile.h>
#include <ImfOpaqueAttribute.h>
#include <ImfOutputPart.h>
#include <ImfPartType.h>
#include <ImfPreviewImageAttribute.h>
#include <ImfRationalAttribute.h>
#include <ImfStringAttribute.h>
#include <ImfStringVectorAttribute.h>
#include <ImfTiledOutputFile.h>
#include <ImfTimeCodeAttribute.h>
#include <ImfVecAttribute.h>
#include <Imath/half.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <vector>

#include "core/io/image_io.hpp"
#include "core/io/io_common.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/io/png_fixtures.hpp"

namespace gpublur {
namespace {

using test::TempDir;

class IoErrors : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    io_ = make_image_io(GetParam());
    ASSERT_TRUE(io_);
    // Valid files to damage: written by the lean adapter so every adapter sees the same bytes.
    auto lean = make_lean_io();
    ImageMeta png;
    png.format = "png";
    png.pixel_type = PixelType::UInt8;
    ASSERT_TRUE(lean->write(tmp_.path("good.png"), test::random_image(64, 48, 3, 9), png).ok());
    ImageMeta exr;
    exr.format = "exr";
    exr.pixel_type = PixelType::Half;
    exr.channel_names = {"R", "G", "B", "A"};
    ASSERT_TRUE(lean->write(tmp_.path("good.exr"), test::random_image(64, 48, 4, 10), exr).ok());
  }

  // Reads `path` expecting failure; the message must name the file and contain `hint` (if given).
  void expect_fail(const std::string& path, const std::string& hint = "", const ReadLimits& limits = {}) {
    LoadedImage img;
    Status st = io_->read(path, limits, img);
    ASSERT_FALSE(st.ok()) << path << " was read as " << img.image.width << "x" << img.image.height;
    EXPECT_NE(st.error.find(path), std::string::npos) << "message does not name the file: " << st.error;
    EXPECT_EQ(st.error.find('\n'), std::string::npos) << "message is not one line: " << st.error;
    if (!hint.empty()) EXPECT_NE(st.error.find(hint), std::string::npos) << "expected '" << hint << "' in: " << st.error;
  }

  std::string truncated_copy(const std::string& src, size_t keep, const std::string& name) {
    auto bytes = test::read_bytes(src);
    EXPECT_GT(bytes.size(), keep);
    bytes.resize(keep);
    test::write_bytes(tmp_.path(name), bytes);
    return tmp_.path(name);
  }

  std::unique_ptr<ImageIO> io_;
  TempDir tmp_;
};

TEST_P(IoErrors, GoodFilesRead) {
  LoadedImage img;
  ASSERT_TRUE(io_->read(tmp_.path("good.png"), {}, img).ok());
  ASSERT_TRUE(io_->read(tmp_.path("good.exr"), {}, img).ok());
}

TEST_P(IoErrors, MissingFile) {
  expect_fail(tmp_.path("nope.png"), "No such file");
  expect_fail(tmp_.path("nope.exr"), "No such file");
}

TEST_P(IoErrors, Directory) {
  std::filesystem::create_directory(tmp_.path("dir.png"));
  expect_fail(tmp_.path("dir.png"), "not a regular file");
}

TEST_P(IoErrors, ZeroByteFile) {
  test::write_bytes(tmp_.path("empty.png"), {});
  test::write_bytes(tmp_.path("empty.exr"), {});
  expect_fail(tmp_.path("empty.png"), "empty");
  expect_fail(tmp_.path("empty.exr"), "empty");
}

TEST_P(IoErrors, TruncatedPng) {
  const size_t size = test::read_bytes(tmp_.path("good.png")).size();
  expect_fail(truncated_copy(tmp_.path("good.png"), size / 2, "half.png"), "truncated");
  expect_fail(truncated_copy(tmp_.path("good.png"), size - 13, "no_iend.png"));
  expect_fail(truncated_copy(tmp_.path("good.png"), 20, "cut_header.png"));
  expect_fail(truncated_copy(tmp_.path("good.png"), 5, "cut_signature.png"));
  // Only the IEND chunk missing: every row is there, and both adapters read it (the lean one refused it where
  // OpenImageIO read it: one file, two outcomes between the Debian and the GPU machines' builds).
  LoadedImage good, cut;
  ASSERT_TRUE(io_->read(tmp_.path("good.png"), {}, good).ok());
  const Status st = io_->read(truncated_copy(tmp_.path("good.png"), size - 12, "only_iend.png"), {}, cut);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_EQ(cut.image.data, good.image.data);
}

// A chunk before IHDR: the PNG specification puts IHDR first. OpenImageIO refused such a file ("gAMA: missing IHDR")
// where the lean reader, whose libpng skips the chunks read_png_extras takes, read it: both refuse it now, alike.
TEST_P(IoErrors, PngChunkBeforeIhdr) {
  const std::vector<unsigned char> good = test::read_bytes(tmp_.path("good.png"));
  std::vector<unsigned char> bad(good.begin(), good.begin() + 8);
  const unsigned char gama[] = {0, 0, 0, 4, 'g', 'A', 'M', 'A', 0, 0, 0xb1, 0x8f, 0x0b, 0xfc, 0x61, 0x05};
  for (unsigned char b : gama) bad.push_back(b);
  bad.insert(bad.end(), good.begin() + 8, good.end());
  const std::string path = tmp_.path("gama_first.png");
  test::write_bytes(path, bad);
  expect_fail(path, "the first chunk is 'gAMA', not IHDR");
}

TEST_P(IoErrors, TruncatedExr) {
  const size_t size = test::read_bytes(tmp_.path("good.exr")).size();
  expect_fail(truncated_copy(tmp_.path("good.exr"), size / 2, "half.exr"));
  expect_fail(truncated_copy(tmp_.path("good.exr"), size - 10, "last_chunk.exr"));
  expect_fail(truncated_copy(tmp_.path("good.exr"), 40, "cut_header.exr"));
}

TEST_P(IoErrors, MislabelledFilesSayWhatTheyAre) {
  std::filesystem::copy_file(tmp_.path("good.png"), tmp_.path("png_inside.exr"));
  std::filesystem::copy_file(tmp_.path("good.exr"), tmp_.path("exr_inside.png"));
  expect_fail(tmp_.path("png_inside.exr"), "content is PNG");
  expect_fail(tmp_.path("exr_inside.png"), "content is EXR");
  test::write_bytes(tmp_.path("jpeg.exr"), {0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0});
  expect_fail(tmp_.path("jpeg.exr"), "JPEG");
  const std::string text = "<!DOCTYPE html><html>not an image</html>";
  test::write_bytes(tmp_.path("garbage.png"), std::vector<unsigned char>(text.begin(), text.end()));
  expect_fail(tmp_.path("garbage.png"), "unrecognised");
}

TEST_P(IoErrors, UnsupportedExtension) {
  std::filesystem::copy_file(tmp_.path("good.png"), tmp_.path("picture.jpg"));
  expect_fail(tmp_.path("picture.jpg"), "extension");
  std::filesystem::copy_file(tmp_.path("good.png"), tmp_.path("noext"));
  expect_fail(tmp_.path("noext"), "extension");
}

TEST_P(IoErrors, PixelAndChannelLimits) {
  ReadLimits tight;
  tight.max_pixels = 64 * 48 - 1;
  expect_fail(tmp_.path("good.png"), "exceeds the limit", tight);
  expect_fail(tmp_.path("good.exr"), "exceeds the limit", tight);
  tight.max_pixels = 64 * 48;  // exactly at the limit is fine
  LoadedImage img;
  EXPECT_TRUE(io_->read(tmp_.path("good.png"), tight, img).ok());
  EXPECT_TRUE(io_->read(tmp_.path("good.exr"), tight, img).ok());

  ReadLimits few;
  few.max_channels = 3;
  expect_fail(tmp_.path("good.exr"), "channels", few);  // 4 channels
  EXPECT_TRUE(io_->read(tmp_.path("good.png"), few, img).ok());  // 3 channels
  few.max_channels = 2;
  expect_fail(tmp_.path("good.png"), "channels", few);
}

TEST_P(IoErrors, BombHeadersAreRejectedBeforeAllocating) {
  // Headers claiming 10^10 pixels (40+ GB as float) with no data behind them: stopped before any allocation,
  // a PNG or an EXR by its file's size (deflate packs at most 1032:1).
  test::write_png_header_only(tmp_.path("bomb.png"), 100000, 100000);
  expect_fail(tmp_.path("bomb.png"), "cannot hold the 100000x100000 image its header declares");
  test::write_png_header_only(tmp_.path("small.png"), 300, 300);  // 300^2 fits in 1 KB at 1032:1: the decoder's
  expect_fail(tmp_.path("small.png"));                               // own error
  ReadLimits small;
  small.max_pixels = 1000;  // a whole file over the limit: the limit says so
  expect_fail(tmp_.path("good.png"), "exceeds the limit", small);

  const std::string exr = tmp_.path("bomb.exr");
  {
    Imf::Header header(100000, 100000);
    header.channels().insert("R", Imf::Channel(Imf::HALF));
    Imf::OutputFile out(exr.c_str(), header);  // no pixels written: header and an empty offset table
  }
  expect_fail(exr, "cannot hold the 100000x100000 image its header declares");  // (its size, before the limit)
  // Under the limit, a header with no pixels behind it: refused by its file's size before the decoder allocates the
  // image (a 197 KB file declaring 16384^2 floats cost 1.06 GB before "Scan line 1 is missing").
  for (const Imf::Compression c : {Imf::NO_COMPRESSION, Imf::ZIP_COMPRESSION, Imf::RLE_COMPRESSION}) {
    const std::string small_bomb = tmp_.path("small_bomb.exr");
    {
      Imf::Header header(8192, 8192);
      header.compression() = c;
      header.channels().insert("Y", Imf::Channel(Imf::FLOAT));
      Imf::OutputFile out(small_bomb.c_str(), header);
    }
    expect_fail(small_bomb, "cannot hold the 8192x8192 image its header declares");
  }
  // A multi-part file: its first part (the one read) judged the same way (a 10 KB file whose first part declared
  // 16384^2 x 64 channels asked both adapters for 68 GB).
  {
    const std::string multi = tmp_.path("multi_bomb.exr");
    {
      std::vector<Imf::Header> headers(2, Imf::Header(8192, 8192));  // (parts share their display window)
      headers[1].dataWindow() = Imath::Box2i(Imath::V2i(0, 0), Imath::V2i(7, 7));
      for (int i = 0; i < 2; ++i) {
        headers[i].compression() = Imf::ZIP_COMPRESSION;
        headers[i].channels().insert("Y", Imf::Channel(Imf::FLOAT));
        headers[i].setName(i == 0 ? "big" : "small");
        headers[i].setType(Imf::SCANLINEIMAGE);
      }
      Imf::MultiPartOutputFile out(multi.c_str(), headers.data(), 2);
    }
    expect_fail(multi, "cannot hold the 8192x8192 image its header declares");
  }
}

// A constant image (a codec's best case) of w x h in one channel, as OpenEXR writes it (in 64x64 tiles if `tiled`;
// `edit`, if given, adds to its header). One row of values serves every row (a y stride of 0): nothing the size of
// the image is allocated here.
void write_constant_exr(const std::string& path, Imf::Compression compression, int w, int h, const char* channel,
                        Imf::PixelType type, float value, bool tiled,
                        const std::function<void(Imf::Header&)>& edit = nullptr) {
  Imf::Header header(w, h);
  header.compression() = compression;
  header.channels().insert(channel, Imf::Channel(type));
  if (edit) edit(header);
  std::vector<float> row(size_t(w), value);
  std::vector<half> half_row(type == Imf::HALF ? size_t(w) : 0, half(value));
  char* base = type == Imf::HALF ? reinterpret_cast<char*>(half_row.data()) : reinterpret_cast<char*>(row.data());
  Imf::FrameBuffer fb;  // (of the file's type: OutputFile converts none)
  fb.insert(channel, Imf::Slice(type, base, type == Imf::HALF ? sizeof(half) : sizeof(float), 0));
  if (tiled) {
    header.setTileDescription(Imf::TileDescription(64, 64, Imf::ONE_LEVEL));
    Imf::TiledOutputFile out(path.c_str(), header);
    out.setFrameBuffer(fb);
    out.writeTiles(0, out.numXTiles() - 1, 0, out.numYTiles() - 1);
  } else {
    Imf::OutputFile out(path.c_str(), header);
    out.setFrameBuffer(fb);
    out.writePixels(h);
  }
}

// Sets the header's dataWindow to (0,0)-(w-1,h-1) in place, as the measured bomb did (pixels and offsets untouched).
void patch_data_window(const std::string& path, int w, int h) {
  std::vector<unsigned char> bytes = test::read_bytes(path);
  const std::string key("dataWindow\0box2i\0", 17);
  const auto at = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
  ASSERT_NE(at, bytes.end()) << path;
  const int32_t box[4] = {0, 0, w - 1, h - 1};  // little-endian, as EXR is, on the hosts we build for
  std::memcpy(&*at + key.size() + 4, box, sizeof box);
  test::write_bytes(path, bytes);
}

// `erase` bytes of `path` from `at` on replaced by `with` (the file's length changes by the difference).
void splice_bytes(const std::string& path, size_t at, size_t erase, const std::string& with) {
  std::vector<unsigned char> bytes = test::read_bytes(path);
  ASSERT_LE(at + erase, bytes.size()) << path;
  bytes.erase(bytes.begin() + long(at), bytes.begin() + long(at + erase));
  bytes.insert(bytes.begin() + long(at), with.begin(), with.end());
  test::write_bytes(path, bytes);
}

// Bytes of `path` from `at` on replaced by `with`, in place (the file's length kept).
void patch_bytes(const std::string& path, size_t at, const std::string& with) {
  splice_bytes(path, at, with.size(), with);
}

// A little-endian 32-bit field, as EXR writes sizes.
std::string le32_bytes(uint32_t v) {
  const char b[4] = {char(v & 255), char(v >> 8 & 255), char(v >> 16 & 255), char(v >> 24 & 255)};
  return std::string(b, 4);
}

// Sets the version field's non-image bit (0x800, deep data) in place.
void set_non_image_bit(const std::string& path) {
  std::vector<unsigned char> bytes = test::read_bytes(path);
  ASSERT_GT(bytes.size(), size_t(8)) << path;
  bytes[5] |= 0x08;
  test::write_bytes(path, bytes);
}

// Where `key` first occurs in the file `path`, or npos.
size_t find_in_file(const std::string& path, const std::string& key) {
  const std::vector<unsigned char> bytes = test::read_bytes(path);
  const auto at = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
  return at == bytes.end() ? std::string::npos : size_t(at - bytes.begin());
}

// `path` is refused by the header check with a message holding each of `says`: by preflight (asserted first, so that
// a check failing open reads nothing of 512 MB+), then by every adapter, from its header, in far less than a second.
void expect_refused(const std::string& path, const std::vector<std::string>& says) {
  std::string format;
  const Status pre = io::preflight_read(path, format);
  ASSERT_FALSE(pre.ok()) << "preflight passed " << path;
  for (const std::string& s : says) EXPECT_NE(pre.error.find(s), std::string::npos) << pre.error;
  for (const std::string& adapter : test::built_adapters()) {
    const auto io = make_image_io(adapter);
    ASSERT_TRUE(io) << adapter;
    LoadedImage img;
    const auto start = std::chrono::steady_clock::now();
    const Status bomb = io->read(path, {}, img);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(bomb.ok()) << adapter;
    for (const std::string& s : says)
      EXPECT_NE(bomb.error.find(s), std::string::npos) << adapter << ": " << bomb.error;
    EXPECT_LT(seconds, 0.5) << adapter;
  }
}

// `path` passes the header check and every adapter reads it as w x h.
void expect_passes_and_reads(const std::string& path, int w, int h) {
  std::string format;
  const Status st = io::preflight_read(path, format);
  EXPECT_TRUE(st.ok()) << st.error;
  for (const std::string& adapter : test::built_adapters()) {
    LoadedImage img;
    const Status read = make_image_io(adapter)->read(path, {}, img);
    ASSERT_TRUE(read.ok()) << adapter << ": " << read.error;
    EXPECT_EQ(img.image.width, w) << adapter;
    EXPECT_EQ(img.image.height, h) << adapter;
  }
}

// `path`, a 16384^2 bomb, is refused by the size check (`says`: the codec's best ratio).
void expect_bomb_refused(const std::string& path, const std::string& says) {
  expect_refused(path, {"cannot hold the 16384x16384 image its header declares", says});
}

// PIZ, PXR24, B44, B44A, DWAA and DWAB: each one's best case, a constant image as OpenEXR writes it, passes the size
// check at its ratio (`reaches`: a bound below it would refuse this honest file), and the same file with a 16384^2
// data window patched in (as the 4.8 KB PIZ file that cost 8.4 GB and 50 s) is refused from its header by every
// adapter, before anything the size of the image is allocated: in far less than a second.
TEST(ExrSizeCheck, EachCompressionsBestCasePassesAndItsBombIsRefused) {
  struct Case {
    Imf::Compression compression;
    const char* says;
    int w, h;
    const char* channel;
    Imf::PixelType type;
    float value;
    bool tiled;
    double reaches;  // (pixel bytes - the check's 64 KB of slack) / file bytes, at least
  };
  const Case cases[] = {
      {Imf::PIZ_COMPRESSION, "PIZ packs at most 454:1", 32768, 32, "Y", Imf::HALF, 0, false, 330},
      {Imf::PIZ_COMPRESSION, "PIZ packs at most 454:1", 2048, 512, "Y", Imf::FLOAT, 0, true, 140},
      {Imf::PXR24_COMPRESSION, "PXR24 packs at most 1376:1", 32768, 16, "Y", Imf::FLOAT, 0, false, 950},
      // (B44 writes no flat block: its best case written is far under its bound)
      {Imf::B44_COMPRESSION, "B44 packs at most 10.7:1", 65536, 32, "Y", Imf::HALF, 0, false, 2},
      {Imf::B44A_COMPRESSION, "B44A packs at most 10.7:1", 65536, 32, "Y", Imf::HALF, 0, false, 10},
      {Imf::DWAA_COMPRESSION, "DWAA packs at most 66048:1", 524288, 32, "A", Imf::FLOAT, 0.5f, false, 40000},
      {Imf::DWAB_COMPRESSION, "DWAB packs at most 66048:1", 65536, 256, "A", Imf::FLOAT, 0.5f, false, 40000},
  };
  TempDir tmp;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    const std::string path = tmp.path(c.tiled ? "tiled.exr" : "best.exr");
    write_constant_exr(path, c.compression, c.w, c.h, c.channel, c.type, c.value, c.tiled);
    const double file_bytes = double(std::filesystem::file_size(path));
    const double pixel_bytes = double(c.w) * c.h * (c.type == Imf::HALF ? 2 : 4);
    EXPECT_GE((pixel_bytes - 65536) / file_bytes, c.reaches) << file_bytes << " bytes";
    std::string format;
    const Status st = io::preflight_read(path, format);
    EXPECT_TRUE(st.ok()) << st.error;

    ASSERT_NO_FATAL_FAILURE(patch_data_window(path, 16384, 16384));
    ASSERT_NO_FATAL_FAILURE(expect_bomb_refused(path, c.says));
  }
}

// A header of any length is judged: OpenEXR writes attributes in name order, so a 70 KB string attribute named
// "AAAApadding" comes before `channels`; a check that looked at the first 64 KB passed such a PIZ bomb, which ran
// 109 s at 21 GB. The honest file with that attribute still passes and reads.
TEST(ExrSizeCheck, AHeaderLongerThan64KBIsJudgedToItsEnd) {
  TempDir tmp;
  const std::string path = tmp.path("padded.exr");
  write_constant_exr(path, Imf::PIZ_COMPRESSION, 32768, 32, "Y", Imf::HALF, 0, false, [](Imf::Header& header) {
    header.insert("AAAApadding", Imf::StringAttribute(std::string(70000, 'x')));
  });
  const size_t padding = find_in_file(path, "AAAApadding"), channels = find_in_file(path, "channels");
  ASSERT_LT(padding, channels);
  ASSERT_GT(channels, size_t(65536));
  ASSERT_NO_FATAL_FAILURE(expect_passes_and_reads(path, 32768, 32));

  ASSERT_NO_FATAL_FAILURE(patch_data_window(path, 16384, 16384));
  ASSERT_NO_FATAL_FAILURE(expect_bomb_refused(path, "PIZ packs at most 454:1"));
}

// Deep is judged by the part's `type` as OpenEXR reads it, not by the version's non-image bit (0x800) alone: a
// single-part file is an image unless that bit is set and its type is deepscanline or deeptile. A PIZ bomb with the
// bit set and type scanlineimage passed and decoded 5 GB in 15 s; one typed deepscanline without the bit is read as
// a scanline image too. A deep file (bit and type) is still the decoder's, whatever its size.
TEST(ExrSizeCheck, DeepIsJudgedByThePartsType) {
  TempDir tmp;
  const std::string flagged = tmp.path("flagged.exr");
  write_constant_exr(flagged, Imf::PIZ_COMPRESSION, 32768, 32, "Y", Imf::HALF, 0, false,
                     [](Imf::Header& header) { header.setType(Imf::SCANLINEIMAGE); });
  ASSERT_NO_FATAL_FAILURE(patch_data_window(flagged, 16384, 16384));
  ASSERT_NO_FATAL_FAILURE(set_non_image_bit(flagged));
  {
    SCOPED_TRACE("non-image bit, type scanlineimage");
    ASSERT_NO_FATAL_FAILURE(expect_bomb_refused(flagged, "PIZ packs at most 454:1"));
  }

  // A string attribute "tape" renamed "type" in place (OutputFile writes no deep type).
  const std::string typed = tmp.path("typed.exr");
  write_constant_exr(typed, Imf::PIZ_COMPRESSION, 32768, 32, "Y", Imf::HALF, 0, false, [](Imf::Header& header) {
    header.insert("tape", Imf::StringAttribute(Imf::DEEPSCANLINE));
  });
  ASSERT_NO_FATAL_FAILURE(patch_data_window(typed, 16384, 16384));
  const size_t tape = find_in_file(typed, std::string("tape\0string\0", 12));
  ASSERT_NE(tape, std::string::npos);
  ASSERT_NO_FATAL_FAILURE(patch_bytes(typed, tape, "type"));
  {
    SCOPED_TRACE("type deepscanline, no non-image bit");
    ASSERT_NO_FATAL_FAILURE(expect_bomb_refused(typed, "PIZ packs at most 454:1"));
  }

  ASSERT_NO_FATAL_FAILURE(set_non_image_bit(typed));  // now deep: the decoder's (which refuses PIZ for deep data)
  std::string format;
  const Status deep = io::preflight_read(typed, format);
  EXPECT_TRUE(deep.ok()) << deep.error;
}

// Where the size field of attribute `name` of type `type` is in `path` (asserting it is there).
size_t size_field(const std::string& path, const std::string& name, const std::string& type) {
  const size_t at = find_in_file(path, name + '\0' + type + '\0');
  EXPECT_NE(at, std::string::npos) << name << " (" << type << ") not in " << path;
  return at == std::string::npos ? 0 : at + name.size() + type.size() + 2;
}

// The header is walked as OpenEXR 3.1 reads it, and where the two could disagree on where an attribute ends the file
// is refused: a fuzzing run (differential against OpenEXR, ASan) found files that passed the walk that trusted each
// declared size and then cost the decoder 1.5-4.6 GB (16384^2 declared, 4-8 KB files; a 29-byte file whose string
// declared 2 GB). Each case is an honest constant PIZ file (which passes) edited as those were, most with a 16384^2
// data window; each passed the earlier check (checked by running these cases against it), and each but the preview
// and stringvector (which OpenEXR 3.1 refuses as the walk does) cost the decoder far more than the file.
TEST(ExrSizeCheck, AttributesAreWalkedAsOpenExrReadsThem) {
  struct Case {
    const char* what;
    std::function<void(Imf::Header&)> add;       // attributes added before writing
    std::function<void(const std::string&)> edit;  // the file's bytes edited after
    std::vector<std::string> says;
    bool window = true;  // the data window made 16384^2 (the others are bombs in their header alone)
  };
  const std::string bomb = "cannot hold the 16384x16384 image its header declares";
  const Case cases[] = {
      {"an int declaring the `channels` after it as its own bytes (OpenEXR reads an int's 4 and goes on)",
       [](Imf::Header& h) { h.insert("aaaa", Imf::IntAttribute(7)); },
       [](const std::string& path) {
         const size_t at = size_field(path, "aaaa", "int"), channels = size_field(path, "channels", "chlist");
         ASSERT_EQ(at + 8 + 16, channels) << "`channels` does not follow aaaa";
         const uint32_t chlist = test::read_bytes(path)[channels];  // (under 256 bytes)
         patch_bytes(path, at, le32_bytes(4 + 16 + 4 + chlist));
       },
       {"attribute 'aaaa' of type int declares 43 bytes, not its type's 4"}},
      {"an empty type name (opaque to OpenEXR; the earlier check stopped there)",
       [](Imf::Header& h) { h.insert("aaaa", Imf::StringAttribute("x")); },
       [](const std::string& path) {
         splice_bytes(path, find_in_file(path, std::string("aaaa\0string", 11)) + 5, 6, "");  // "string" erased
       },
       {bomb, "PIZ packs at most 454:1"}},
      {"no `compression` attribute (OpenEXR's default header: ZIP)", nullptr,
       [](const std::string& path) {
         patch_bytes(path, find_in_file(path, std::string("compression\0compression", 23)), "Compression");
       },
       {bomb, "deflate packs at most 1032:1"}},
      {"a chlist of size 0 (OpenEXR reads it to its empty name)", nullptr,
       [](const std::string& path) { patch_bytes(path, size_field(path, "channels", "chlist"), le32_bytes(0)); },
       {"attribute 'channels' of type chlist: its channel names disagree with its size (0 bytes)"}},
      {"a dataWindow of size 0 (OpenEXR reads its 16 bytes)", nullptr,
       [](const std::string& path) { patch_bytes(path, size_field(path, "dataWindow", "box2i"), le32_bytes(0)); },
       {"attribute 'dataWindow' of type box2i declares 0 bytes, not its type's 16"}},
      {"a compression of size 0", nullptr,
       [](const std::string& path) {
         patch_bytes(path, size_field(path, "compression", "compression"), le32_bytes(0));
       },
       {"attribute 'compression' of type compression declares 0 bytes, not its type's 1"}},
      {"a string declaring 2 GB (OpenEXR allocates it before reading)",
       [](Imf::Header& h) { h.insert("comment", Imf::StringAttribute("x")); },
       [](const std::string& path) {
         patch_bytes(path, size_field(path, "comment", "string"), le32_bytes(0x7ffffff0));
       },
       {"attribute 'comment' of type string declares 2147483632 bytes, past the file's end"}},
      {"a repeated `channels` (OpenEXR adds its channels to the first's)",
       [](Imf::Header& h) {
         Imf::ChannelList more;  // a last list of next to no bytes a pixel, where the earlier check took the last's
         more.insert("Z", Imf::Channel(Imf::FLOAT, 16384, 16384));
         h.insert("channelt", Imf::ChannelListAttribute(more));
       },
       [](const std::string& path) {
         patch_bytes(path, find_in_file(path, std::string("channelt\0chlist", 15)), "channels");
       },
       {"attribute 'channels' of type chlist repeated"}},
      {"a preview declaring 30000x30000 in 24 bytes (refused as OpenEXR 3.1 refuses it)",
       [](Imf::Header& h) { h.insert("preview", Imf::PreviewImageAttribute(Imf::PreviewImage(2, 2))); },
       [](const std::string& path) {
         patch_bytes(path, size_field(path, "preview", "preview") + 4, le32_bytes(30000) + le32_bytes(30000));
       },
       {"attribute 'preview' of type preview: its width and height disagree with its size (24 bytes)"}, false},
      {"a stringvector whose string declares 2 GB (refused as OpenEXR 3.1 refuses it)",
       [](Imf::Header& h) { h.insert("aaaa", Imf::StringVectorAttribute({"ab"})); },
       [](const std::string& path) {
         patch_bytes(path, size_field(path, "aaaa", "stringvector") + 4, le32_bytes(0x7ffffff0));
       },
       {"attribute 'aaaa' of type stringvector: its string lengths disagree with its size (6 bytes)"}, false},
      {"a floatvector of 6 bytes (OpenEXR reads one float and goes on)",
       [](Imf::Header& h) { h.insert("aaaa", Imf::FloatVectorAttribute({1.f, 2.f})); },
       [](const std::string& path) { patch_bytes(path, size_field(path, "aaaa", "floatvector"), le32_bytes(6)); },
       {"attribute 'aaaa' of type floatvector: 6 bytes, not whole floats"}},
  };
  TempDir tmp;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string path = tmp.path("edited.exr");
    write_constant_exr(path, Imf::PIZ_COMPRESSION, 32768, 32, "Y", Imf::HALF, 0, false, c.add);
    std::string format;
    const Status honest = io::preflight_read(path, format);
    ASSERT_TRUE(honest.ok()) << honest.error;
    if (c.window) ASSERT_NO_FATAL_FAILURE(patch_data_window(path, 16384, 16384));
    ASSERT_NO_FATAL_FAILURE(c.edit(path));
    ASSERT_NO_FATAL_FAILURE(expect_refused(path, c.says));
  }
}

// A multi-part file's every header is walked: OpenEXR reads them all on opening it, so a second part's string
// declaring 2 GB in a 1 KB file cost 2.1 GB and 1.5 s where only the first header was walked (a fuzzing run's
// reviewer found it). An attribute's name and type are shown with their non-printable bytes escaped (they went to the
// terminal raw, escape sequences and all).
TEST(ExrSizeCheck, EveryHeaderOfAMultiPartFileIsWalked) {
  TempDir tmp;
  const std::string path = tmp.path("parts.exr");
  {
    std::vector<Imf::Header> headers(2, Imf::Header(8, 8));
    for (int i = 0; i < 2; ++i) {
      headers[size_t(i)].channels().insert("Y", Imf::Channel(Imf::FLOAT));
      headers[size_t(i)].setName(i == 0 ? "first" : "second");
      headers[size_t(i)].setType(Imf::SCANLINEIMAGE);
    }
    headers[1].insert("zzcomment", Imf::StringAttribute("x"));
    headers[1].insert(std::string("zz\x1b]0;title\x07"), Imf::StringAttribute("y"));
    Imf::MultiPartOutputFile file(path.c_str(), headers.data(), 2);
    for (int part = 0; part < 2; ++part) {
      std::vector<float> v(64, 0.5f);
      Imf::FrameBuffer fb;
      fb.insert("Y", Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(v.data()), sizeof(float), 8 * sizeof(float)));
      Imf::OutputPart out(file, part);
      out.setFrameBuffer(fb);
      out.writePixels(8);
    }
  }
  ASSERT_NO_FATAL_FAILURE(expect_passes_and_reads(path, 8, 8));
  const std::vector<unsigned char> honest = test::read_bytes(path);

  ASSERT_NO_FATAL_FAILURE(patch_bytes(path, size_field(path, "zzcomment", "string"), le32_bytes(0x7ffffff0)));
  ASSERT_NO_FATAL_FAILURE(expect_refused(
      path, {"attribute 'zzcomment' of part 2 of type string declares 2147483632 bytes, past the file's end"}));

  test::write_bytes(path, honest);
  const size_t escaped = size_field(path, "zz\x1b]0;title\x07", "string");
  ASSERT_NO_FATAL_FAILURE(patch_bytes(path, escaped, le32_bytes(0x7ffffff0)));
  ASSERT_NO_FATAL_FAILURE(expect_refused(
      path, {"attribute 'zz\\x1b]0;title\\x07' of part 2 of type string declares 2147483632 bytes"}));
}

// Every attribute type OpenEXR 3.1 writes, at the size it writes it, passes the walk, in scanline and tiled files,
// and the file reads on every adapter: the walk refuses a size other than OpenEXR's, never OpenEXR's own.
TEST(ExrSizeCheck, EveryAttributeTypeOpenExrWritesPasses) {
  const auto add_all = [](Imf::Header& h) {
    h.insert("a_box2f", Imf::Box2fAttribute(Imath::Box2f(Imath::V2f(0, 0), Imath::V2f(1, 2))));
    h.insert("a_chromaticities", Imf::ChromaticitiesAttribute(Imf::Chromaticities()));
    h.insert("a_deepImageState", Imf::DeepImageStateAttribute(Imf::DIS_TIDY));
    h.insert("a_double", Imf::DoubleAttribute(0.5));
    h.insert("a_envmap", Imf::EnvmapAttribute(Imf::ENVMAP_CUBE));
    h.insert("a_float", Imf::FloatAttribute(0.25f));
    h.insert("a_floatvector", Imf::FloatVectorAttribute({1.f, 2.f, 3.f}));
    h.insert("a_int", Imf::IntAttribute(3));
    h.insert("a_keycode", Imf::KeyCodeAttribute(Imf::KeyCode(1, 2, 3, 4, 5, 4, 64)));
    h.insert("a_m33f", Imf::M33fAttribute(Imath::M33f()));
    h.insert("a_m33d", Imf::M33dAttribute(Imath::M33d()));
    h.insert("a_m44f", Imf::M44fAttribute(Imath::M44f()));
    h.insert("a_m44d", Imf::M44dAttribute(Imath::M44d()));
    h.insert("a_opaque", Imf::OpaqueAttribute("someNewType"));
    h.insert("a_rational", Imf::RationalAttribute(Imf::Rational(24000, 1001)));
    h.insert("a_string", Imf::StringAttribute("text"));
    h.insert("a_stringvector", Imf::StringVectorAttribute({"left", "", "right"}));
    h.insert("a_timecode", Imf::TimeCodeAttribute(Imf::TimeCode(1, 2, 3, 4)));
    h.insert("a_v2i", Imf::V2iAttribute(Imath::V2i(1, 2)));
    h.insert("a_v2f", Imf::V2fAttribute(Imath::V2f(1, 2)));
    h.insert("a_v2d", Imf::V2dAttribute(Imath::V2d(1, 2)));
    h.insert("a_v3i", Imf::V3iAttribute(Imath::V3i(1, 2, 3)));
    h.insert("a_v3f", Imf::V3fAttribute(Imath::V3f(1, 2, 3)));
    h.insert("a_v3d", Imf::V3dAttribute(Imath::V3d(1, 2, 3)));
    h.insert("preview", Imf::PreviewImageAttribute(Imf::PreviewImage(3, 2)));
  };
  TempDir tmp;
  for (const bool tiled : {false, true}) {
    SCOPED_TRACE(tiled ? "tiled" : "scanline");
    const std::string path = tmp.path("all_types.exr");
    write_constant_exr(path, Imf::ZIP_COMPRESSION, 96, 64, "Y", Imf::FLOAT, 0.5f, tiled, add_all);
    ASSERT_NE(find_in_file(path, std::string("a_v3d\0v3d", 9)), std::string::npos);
    ASSERT_NO_FATAL_FAILURE(expect_passes_and_reads(path, 96, 64));
  }
}

INSTANTIATE_TEST_SUITE_P(Adapters, IoErrors, ::testing::ValuesIn(test::built_adapters()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gpublur
