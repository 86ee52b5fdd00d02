// Metadata both adapters carry: an EXR's typed attributes (chromaticities, pixel aspect, frame rate, a type
// OpenEXR does not know) from the EXR read to the EXR written; PNG text beyond ASCII as iTXt; and deep EXRs
// refused rather than flattened.
#include <ImfChannelList.h>
#include <ImfChromaticitiesAttribute.h>
#include <ImfDeepFrameBuffer.h>
#include <ImfDeepScanLineOutputFile.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#include <ImfOpaqueAttribute.h>
#include <ImfOutputFile.h>
#include <ImfPartType.h>
#include <ImfPreviewImage.h>
#include <ImfRationalAttribute.h>
#include <ImfStandardAttributes.h>
#include <ImfStdIO.h>
#include <ImfStringAttribute.h>
#include <ImfTiledInputFile.h>
#include <ImfTiledOutputFile.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/io/image_io.hpp"
#include "tests/io/io_test_util.hpp"

namespace gpublur {
namespace {

using test::read_logging;
using test::TempDir;
using test::write_logging;

class IoMetadata : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    io_ = make_image_io(GetParam());
    ASSERT_TRUE(io_);
  }
  // An 8-bit PNG of `img` written at tmp_'s `name` (no chunks but ours): its path.
  std::string plain_png(const std::string& name, const Image& img) {
    ImageMeta meta;
    meta.format = "png";
    meta.pixel_type = PixelType::UInt8;
    const std::string path = tmp_.path(name);
    EXPECT_TRUE(io_->write(path, img, meta).ok()) << path;
    return path;
  }
  std::unique_ptr<ImageIO> io_;
  TempDir tmp_;
};

const Imf::Chromaticities kAp0(Imath::V2f(0.7347f, 0.2653f), Imath::V2f(0.0f, 1.0f), Imath::V2f(0.0001f, -0.077f),
                               Imath::V2f(0.32168f, 0.33767f));

// An RGB float EXR with typed attributes: ACES AP0 chromaticities, pixel aspect 2, 24000/1001 fps, and one of a
// type OpenEXR does not know (kept as its bytes); and a preview (a thumbnail of the input's pixels: not carried).
void write_tagged_exr(const std::string& path) {
  const int w = 5, h = 3;
  Imf::Header header(w, h);
  header.pixelAspectRatio() = 2.0f;
  Imf::PreviewImage preview(2, 2);
  preview.pixel(0, 0) = Imf::PreviewRgba(255, 0, 0, 255);
  header.setPreviewImage(preview);
  Imf::addChromaticities(header, kAp0);
  Imf::addFramesPerSecond(header, Imf::Rational(24000, 1001));
  header.insert("comments", Imf::StringAttribute("tagged"));
  Imf::OpaqueAttribute opaque("studioThing");
  const std::string bytes = "\x01\x02\x03\x04\x05";
  Imf::StdISStream is;
  is.str(bytes);
  opaque.readValueFrom(is, int(bytes.size()), 2);
  header.insert("studio", opaque);
  std::vector<float> px(size_t(w) * h * 3, 0.25f);
  Imf::FrameBuffer fb;
  for (int c = 0; c < 3; ++c) {
    header.channels().insert(std::string(1, "RGB"[c]), Imf::Channel(Imf::FLOAT));
    fb.insert(std::string(1, "RGB"[c]), Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(px.data() + c),
                                                   3 * sizeof(float), size_t(w) * 3 * sizeof(float)));
  }
  Imf::OutputFile file(path.c_str(), header);
  file.setFrameBuffer(fb);
  file.writePixels(h);
}

TEST_P(IoMetadata, TypedExrAttributesSurviveExrToExr) {
  write_tagged_exr(tmp_.path("in.exr"));
  LoadedImage in;
  ASSERT_TRUE(io_->read(tmp_.path("in.exr"), {}, in).ok());
  std::vector<std::string> names;
  for (const ExrAttribute& a : in.meta.exr_attributes) names.push_back(a.name);
  for (const char* want : {"chromaticities", "pixelAspectRatio", "framesPerSecond", "studio"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want << " not read";
  EXPECT_EQ(std::find(names.begin(), names.end(), "dataWindow"), names.end());  // structure is not carried
  EXPECT_EQ(std::find(names.begin(), names.end(), "preview"), names.end());  // the unblurred image's thumbnail

  ImageMeta meta = in.meta;
  meta.pixel_type = PixelType::Half;
  ASSERT_TRUE(io_->write(tmp_.path("out.exr"), in.image, meta).ok());
  Imf::InputFile out(tmp_.path("out.exr").c_str());
  const Imf::Header& hd = out.header();
  EXPECT_FLOAT_EQ(hd.pixelAspectRatio(), 2.0f);
  ASSERT_TRUE(Imf::hasChromaticities(hd));
  EXPECT_EQ(Imf::chromaticities(hd).red, kAp0.red);
  EXPECT_EQ(Imf::chromaticities(hd).white, kAp0.white);
  ASSERT_TRUE(Imf::hasFramesPerSecond(hd));
  EXPECT_EQ(Imf::framesPerSecond(hd).n, 24000);
  EXPECT_EQ(Imf::framesPerSecond(hd).d, 1001u);
  const auto* studio = hd.findTypedAttribute<Imf::OpaqueAttribute>("studio");
  ASSERT_NE(studio, nullptr);
  EXPECT_STREQ(studio->typeName(), "studioThing");
  EXPECT_EQ(std::string(studio->data(), size_t(studio->dataSize())), "\x01\x02\x03\x04\x05");
  EXPECT_EQ(hd.findTypedAttribute<Imf::StringAttribute>("capDate"), nullptr);  // no write-time stamp added
  EXPECT_FALSE(hd.hasPreviewImage());
  const auto* comments = hd.findTypedAttribute<Imf::StringAttribute>("comments");
  ASSERT_NE(comments, nullptr);
  EXPECT_EQ(comments->value(), "tagged");

  // Not in a PNG: written all the same, a warning naming them; tagged sRGB, the file does not stand for AP0.
  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  meta.srgb = true;
  Status st;
  const std::string said = write_logging(*io_, tmp_.path("out.png"), in.image, meta, st);
  EXPECT_TRUE(st.ok()) << st.error;
  EXPECT_NE(said.find("EXR attributes not written to the PNG: "), std::string::npos) << said;
  EXPECT_NE(said.find("(the PNG is tagged sRGB: its primaries, not the EXR's chromaticities)"), std::string::npos)
      << said;
}

TEST_P(IoMetadata, PngTextBeyondAsciiIsITxt) {
  Image img = test::random_image(4, 3, 3, 2);
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  // "Latin1": a tEXt chunk's Latin-1 value (not UTF-8) goes back to tEXt as it was read; as iTXt (UTF-8 only) every
  // reader showed it garbled.
  meta.attributes = {{"Title", "caf\xc3\xa9"}, {"Author", "plain"}, {"Broken", std::string("a\0b", 3)},
                     {"Latin1", "caf\xe9"}, {"XML:com.adobe.xmp", "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>"}};
  ASSERT_TRUE(io_->write(tmp_.path("t.png"), img, meta).ok());
  const std::vector<unsigned char> bytes = test::read_bytes(tmp_.path("t.png"));
  const std::string file(bytes.begin(), bytes.end());
  EXPECT_NE(file.find("iTXtTitle"), std::string::npos);
  EXPECT_NE(file.find("tEXtAuthor"), std::string::npos);
  EXPECT_EQ(file.find("Broken"), std::string::npos);  // a NUL byte: not written
  EXPECT_NE(file.find("tEXtLatin1"), std::string::npos);
  EXPECT_NE(file.find("iTXtXML:com.adobe.xmp"), std::string::npos);  // an XMP packet in iTXt, as its spec says
  LoadedImage back;
  ASSERT_TRUE(io_->read(tmp_.path("t.png"), {}, back).ok());
  std::map<std::string, std::string> got(back.meta.attributes.begin(), back.meta.attributes.end());
  EXPECT_EQ(got["Title"], "caf\xc3\xa9");
  EXPECT_EQ(got["Author"], "plain");
  EXPECT_EQ(got["Latin1"], "caf\xe9");
}

// A PNG chunk of `type` and `body` (length, type, body, CRC) appended to `out`.
void append_chunk(std::vector<unsigned char>& out, const std::string& type, const std::vector<unsigned char>& body) {
  std::vector<unsigned char> chunk(type.begin(), type.end());
  chunk.insert(chunk.end(), body.begin(), body.end());
  const uint32_t n = uint32_t(body.size()), crc = uint32_t(crc32(0, chunk.data(), uInt(chunk.size())));
  for (int k = 3; k >= 0; --k) out.push_back((unsigned char)(n >> (8 * k)));
  out.insert(out.end(), chunk.begin(), chunk.end());
  for (int k = 3; k >= 0; --k) out.push_back((unsigned char)(crc >> (8 * k)));
}

// The PNG `path` with `chunks` (type, body) inserted before its IEND (CRCs made anew).
void add_chunks(const std::string& path, const std::vector<std::pair<std::string, std::string>>& chunks) {
  std::vector<unsigned char> in = test::read_bytes(path);
  std::vector<unsigned char> out(in.begin(), in.end() - 12);  // the IEND chunk last: 12 bytes
  for (const auto& [type, body] : chunks) append_chunk(out, type, std::vector<unsigned char>(body.begin(), body.end()));
  out.insert(out.end(), in.end() - 12, in.end());
  test::write_bytes(path, out);
}

std::string zlib_of(const std::string& text) {
  uLongf n = compressBound(uLong(text.size()));
  std::string z(n, '\0');
  compress(reinterpret_cast<Bytef*>(z.data()), &n, reinterpret_cast<const Bytef*>(text.data()), uLong(text.size()));
  z.resize(n);
  return z;
}

// The smallest profile a reader takes as ICC: a 128-byte header whose size field is its length and whose bytes 36-39
// say 'acsp', then a tag count of 0 (read_png_extras checks no more).
std::string icc_profile() {
  std::string p(132, '\0');
  p[3] = char(132);
  p.replace(36, 4, "acsp");
  return p;
}

// PNG text as the file holds it, the same through both adapters: two chunks of one keyword, zTXt, an XMP packet in
// iTXt, a compressed iTXt with a language tag. OpenImageIO had kept the second Title only and parsed the XMP packet
// into an Author field of its own (the packet lost), where libpng gave the lean adapter each chunk.
TEST_P(IoMetadata, PngTextChunksAsTheFileHoldsThem) {
  Image img = test::random_image(5, 3, 3, 6);
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  const std::string path = tmp_.path("text.png");
  ASSERT_TRUE(io_->write(path, img, meta).ok());
  const std::string xmp = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-"
                          "rdf-syntax-ns#\"><rdf:Description xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"><xmp:Rating>5"
                          "</xmp:Rating></rdf:Description></rdf:RDF></x:xmpmeta>";
  using namespace std::string_literals;
  add_chunks(path, {{"tEXt", "Title\0first"s},
                    {"tEXt", "Title\0second"s},
                    {"zTXt", "Comment\0\0"s + zlib_of("zipped words")},
                    {"iTXt", "XML:com.adobe.xmp\0\0\0\0\0"s + xmp},
                    {"iTXt", "Autor\0\x01\0de\0Author\0"s + zlib_of("Jane M\xc3\xbcller")},
                    {"tEXt", "Damaged\0x"s}});
  {  // the last chunk's CRC broken: dropped, as libpng drops a damaged ancillary chunk
    std::vector<unsigned char> bytes = test::read_bytes(path);
    const std::string file(bytes.begin(), bytes.end());
    const size_t at = file.find("tEXtDamaged");
    ASSERT_NE(at, std::string::npos);
    bytes[at + 4 + 9] ^= 0xff;  // the CRC's first byte, after "Damaged\0x"
    test::write_bytes(path, bytes);
  }
  LoadedImage back;
  const Status st = io_->read(path, {}, back);
  ASSERT_TRUE(st.ok()) << st.error;
  const std::vector<std::pair<std::string, std::string>> want = {{"Title", "first"},
                                                                 {"Title", "second"},
                                                                 {"Comment", "zipped words"},
                                                                 {"XML:com.adobe.xmp", xmp},
                                                                 {"Autor", "Jane M\xc3\xbcller"}};
  EXPECT_EQ(back.meta.attributes, want);
}

// Deep EXRs are refused as such, with or without A (without, OpenEXR's InputFile threw first: "corrupt or
// truncated EXR").
TEST_P(IoMetadata, DeepExrIsRefused) {
  for (const bool with_alpha : {true, false}) {
    SCOPED_TRACE(with_alpha ? "R, A" : "R");
    const std::string path = tmp_.path(with_alpha ? "deep.exr" : "deep_r.exr");
    {
      const int w = 4, h = 3;
      Imf::Header header(w, h);
      header.channels().insert("R", Imf::Channel(Imf::FLOAT));
      if (with_alpha) header.channels().insert("A", Imf::Channel(Imf::FLOAT));
      header.setType(Imf::DEEPSCANLINE);
      header.compression() = Imf::ZIPS_COMPRESSION;
      Imf::DeepScanLineOutputFile file(path.c_str(), header);
      std::vector<unsigned int> counts(size_t(w) * h, 2);
      std::vector<float> r(size_t(w) * h * 2, 0.5f), a(size_t(w) * h * 2, 0.5f);
      std::vector<float*> rp(size_t(w) * h), ap(size_t(w) * h);
      for (size_t i = 0; i < rp.size(); ++i) rp[i] = r.data() + 2 * i, ap[i] = a.data() + 2 * i;
      Imf::DeepFrameBuffer fb;
      fb.insertSampleCountSlice(Imf::Slice(Imf::UINT, reinterpret_cast<char*>(counts.data()), sizeof(unsigned int),
                                           sizeof(unsigned int) * w));
      fb.insert("R", Imf::DeepSlice(Imf::FLOAT, reinterpret_cast<char*>(rp.data()), sizeof(float*),
                                    sizeof(float*) * w, sizeof(float)));
      if (with_alpha)
        fb.insert("A", Imf::DeepSlice(Imf::FLOAT, reinterpret_cast<char*>(ap.data()), sizeof(float*),
                                      sizeof(float*) * w, sizeof(float)));
      file.setFrameBuffer(fb);
      file.writePixels(h);
    }
    LoadedImage img;
    const Status s = io_->read(path, {}, img);
    ASSERT_FALSE(s.ok()) << "a deep EXR was read as " << img.image.width << "x" << img.image.height;
    EXPECT_NE(s.error.find("deep"), std::string::npos) << s.error;
    EXPECT_EQ(s.error.find("corrupt"), std::string::npos) << s.error;
    EXPECT_NE(s.error.find(path), std::string::npos) << s.error;
  }
}

// The PNG `path` with its sRGB chunk replaced by `type` carrying `body` (CRC made anew).
void swap_srgb_chunk(const std::string& path, const std::string& type, const std::vector<unsigned char>& body) {
  std::vector<unsigned char> in = test::read_bytes(path), out(in.begin(), in.begin() + 8);
  for (size_t at = 8; at + 12 <= in.size();) {
    const uint32_t len = uint32_t(in[at]) << 24 | uint32_t(in[at + 1]) << 16 | uint32_t(in[at + 2]) << 8 | in[at + 3];
    if (std::string(in.begin() + long(at) + 4, in.begin() + long(at) + 8) == "sRGB") {
      append_chunk(out, type, body);
    } else {
      out.insert(out.end(), in.begin() + long(at), in.begin() + long(at + 12 + len));
    }
    at += 12 + len;
  }
  test::write_bytes(path, out);
}

// The chunks of a PNG file as (type, body), in file order, IHDR to IEND.
std::vector<std::pair<std::string, std::string>> png_chunks_of(const std::string& path) {
  const std::vector<unsigned char> in = test::read_bytes(path);
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t at = 8; at + 12 <= in.size();) {
    const uint32_t len = uint32_t(in[at]) << 24 | uint32_t(in[at + 1]) << 16 | uint32_t(in[at + 2]) << 8 | in[at + 3];
    out.emplace_back(std::string(in.begin() + long(at) + 4, in.begin() + long(at) + 8),
                     std::string(in.begin() + long(at) + 8, in.begin() + long(at + 8 + len)));
    at += 12 + len;
  }
  return out;
}

// The PNG `path` with `chunks` inserted right after its IHDR, where colour chunks stand.
void add_chunks_after_ihdr(const std::string& path, const std::vector<std::pair<std::string, std::string>>& chunks) {
  std::vector<unsigned char> in = test::read_bytes(path);
  std::vector<unsigned char> out(in.begin(), in.begin() + 33);  // signature 8, IHDR 25
  for (const auto& [type, body] : chunks) append_chunk(out, type, std::vector<unsigned char>(body.begin(), body.end()));
  out.insert(out.end(), in.begin() + 33, in.end());
  test::write_bytes(path, out);
}

// PNG text of one keyword twice (docs/cli.md: both carried PNG to PNG) into an EXR, which holds one attribute of a
// name: the first is kept and the second said (the last replaced the first in silence).
TEST_P(IoMetadata, ExrOutputSaysTheTextOfAKeywordItCannotHoldTwice) {
  const Image img = test::random_image(4, 3, 3, 8);
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Half;
  meta.attributes = {{"Title", "first"}, {"Title", "second"}, {"Comment", "one"}};
  Status st;
  const std::string said = write_logging(*io_, tmp_.path("twice.exr"), img, meta, st);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_NE(said.find("a second text 'Title' not written"), std::string::npos) << said;
  LoadedImage back;
  ASSERT_TRUE(io_->read(tmp_.path("twice.exr"), {}, back).ok());
  const auto& a = back.meta.attributes;
  EXPECT_NE(std::find(a.begin(), a.end(), std::make_pair(std::string("Title"), std::string("first"))), a.end());
  EXPECT_EQ(std::count_if(a.begin(), a.end(), [](const auto& kv) { return kv.first == "Title"; }), 1);
  EXPECT_NE(std::find(a.begin(), a.end(), std::make_pair(std::string("Comment"), std::string("one"))), a.end());
}

TEST_P(IoMetadata, NonSrgbPngsAreSaid) {
  Image img = test::random_image(8, 6, 3, 4);
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  meta.srgb = true;
  const std::string plain = tmp_.path("srgb.png"), linear = tmp_.path("linear.png"), near = tmp_.path("g22.png");
  for (const std::string& p : {plain, linear, near}) ASSERT_TRUE(io_->write(p, img, meta).ok());
  swap_srgb_chunk(linear, "gAMA", {0, 1, 0x86, 0xa0});  // 100000: gamma 1.0, linear light
  swap_srgb_chunk(near, "gAMA", {0, 0, 0xb1, 0x8f});    // 45455: 1/2.2, as sRGB
  Status s;
  EXPECT_EQ(read_logging(*io_, plain, s).find("not sRGB"), std::string::npos);
  EXPECT_TRUE(s.ok()) << s.error;
  const std::string said = read_logging(*io_, linear, s);
  EXPECT_TRUE(s.ok()) << s.error;
  EXPECT_NE(said.find("declares gamma 1, not sRGB"), std::string::npos) << said;
  EXPECT_EQ(read_logging(*io_, near, s).find("not sRGB"), std::string::npos);
  EXPECT_TRUE(s.ok()) << s.error;
  const std::string pq = tmp_.path("pq.png");  // an HDR PNG: BT.2020 primaries, the PQ transfer
  ASSERT_TRUE(io_->write(pq, img, meta).ok());
  swap_srgb_chunk(pq, "cICP", {9, 16, 0, 1});
  EXPECT_NE(read_logging(*io_, pq, s).find("declares cICP primaries 9, transfer 16, matrix 0, full range"),
            std::string::npos);
  EXPECT_TRUE(s.ok()) << s.error;
  // By the specification's precedence (cICP over iCCP over sRGB over cHRM and gAMA), and by the profile's name whole:
  // "Linear sRGB" is not sRGB (it passed as sRGB for its substring), narrow-range cICP is not, and an sRGB chunk
  // overrides a gAMA of 1.
  const auto said_for = [&](const std::vector<std::pair<std::string, std::string>>& chunks) {
    const std::string p = tmp_.path("declared.png");
    EXPECT_TRUE(io_->write(p, img, meta).ok());
    swap_srgb_chunk(p, "tEXt", {'k', 0, 'v'});
    add_chunks_after_ihdr(p, chunks);
    return read_logging(*io_, p, s);
  };
  using namespace std::string_literals;
  const std::string icc_linear = "Linear sRGB\0\0"s + zlib_of(icc_profile());
  EXPECT_NE(said_for({{"iCCP", icc_linear}}).find("ICC profile 'Linear sRGB'"), std::string::npos);
  const std::string icc_srgb = "sRGB IEC61966-2.1\0\0"s + zlib_of(icc_profile());
  EXPECT_EQ(said_for({{"iCCP", icc_srgb}}).find("not sRGB"), std::string::npos);
  EXPECT_NE(said_for({{"cICP", "\x01\x0d\0\0"s}}).find("narrow range"), std::string::npos);
  EXPECT_EQ(said_for({{"sRGB", "\0"s}, {"gAMA", "\0\x01\x86\xa0"s}}).find("not sRGB"), std::string::npos);
  EXPECT_EQ(said_for({{"cICP", "\x01\x0d\0\x01"s}, {"iCCP", icc_linear}}).find("not sRGB"), std::string::npos);
  EXPECT_NE(said_for({{"iCCP", icc_linear}, {"sRGB", "\0"s}}).find("ICC profile 'Linear sRGB'"), std::string::npos);
}

// PNG to PNG, the chunks that say what the colours mean, pHYs and eXIf travel as the file holds them, with no sRGB
// chunk of ours beside them: a Display P3 photo was written back tagged sRGB (its colours then shown as sRGB's, duller),
// its density and Exif dropped. A second chunk of a type and one of the wrong size are said and left out; an EXR
// output names the chunks it drops.
TEST_P(IoMetadata, PngColourDensityAndExifChunksCarried) {
  using namespace std::string_literals;
  Image img = test::random_image(5, 3, 3, 7);
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  const std::string path = tmp_.path("p3.png");
  ASSERT_TRUE(io_->write(path, img, meta).ok());  // srgb false: no sRGB chunk
  const std::vector<std::pair<std::string, std::string>> carried = {
      {"iCCP", "Display P3\0\0"s + zlib_of(icc_profile())},
      {"gAMA", "\0\0\xb1\x8f"s},
      {"pHYs", "\0\0\x0b\x13\0\0\x0b\x13\x01"s},  // 2835 pixels a metre (72 dpi) both ways
      {"eXIf", "MM\0*\0\0\0\x08\0\0"s}};
  std::vector<std::pair<std::string, std::string>> in = carried;
  in.insert(in.end(), {{"pHYs", "\0\0\x0e\xc4\0\0\x0e\xc4\x01"s}, {"cHRM", "short"s}});
  add_chunks_after_ihdr(path, in);
  Status st;
  const std::string read_said = read_logging(*io_, path, st);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_NE(read_said.find("a second pHYs chunk not carried"), std::string::npos) << read_said;
  EXPECT_NE(read_said.find("a malformed cHRM chunk not carried"), std::string::npos) << read_said;
  LoadedImage back;
  ASSERT_TRUE(io_->read(path, {}, back).ok());
  EXPECT_EQ(back.meta.png_chunks, carried);
  back.meta.srgb = true;  // as the pipeline writes it back (sRGB-encoded values)

  const std::string out = tmp_.path("out.png");
  ASSERT_TRUE(io_->write(out, back.image, back.meta).ok());
  std::vector<std::pair<std::string, std::string>> written;
  bool srgb = false;
  for (const auto& c : png_chunks_of(out)) {
    if (c.first == "sRGB") srgb = true;
    if (c.first != "IHDR" && c.first != "IDAT" && c.first != "IEND") written.push_back(c);
  }
  EXPECT_EQ(written, carried);
  EXPECT_FALSE(srgb) << "an sRGB chunk beside the carried colour chunks";

  ImageMeta plain = back.meta;  // with none carried, sRGB-encoded values are tagged sRGB
  plain.png_chunks.clear();
  ASSERT_TRUE(io_->write(out, back.image, plain).ok());
  const auto chunks = png_chunks_of(out);
  EXPECT_TRUE(std::any_of(chunks.begin(), chunks.end(), [](const auto& c) { return c.first == "sRGB"; }));
  ImageMeta light = plain;  // HDR light levels alone declare no colour space
  light.png_chunks = {{"cLLI", "\0\0\x27\x10\0\0\x03\xe8"s}};
  ASSERT_TRUE(io_->write(out, back.image, light).ok());
  const auto hdr = png_chunks_of(out);
  EXPECT_TRUE(std::any_of(hdr.begin(), hdr.end(), [](const auto& c) { return c.first == "sRGB"; }));
  EXPECT_TRUE(std::any_of(hdr.begin(), hdr.end(), [](const auto& c) { return c.first == "cLLI"; }));

  ImageMeta exr = back.meta;
  exr.format = "exr";
  exr.pixel_type = PixelType::Half;
  const std::string said = write_logging(*io_, tmp_.path("out.exr"), back.image, exr, st);
  ASSERT_TRUE(st.ok()) << st.error;
  // The profile is in force (not sRGB), so every colour chunk is lost with it.
  // (pHYs is the EXR's density: PngDensityIsTheExrsDensity.)
  EXPECT_NE(said.find("PNG chunks an EXR cannot hold not written: iCCP, gAMA, eXIf"), std::string::npos) << said;

  // An sRGB PNG (every PNG gpublur writes) to EXR: its sRGB chunk is what the EXR's linear values were decoded by,
  // not something lost. A gAMA after the image data is out of place (libpng ignores it): said, not carried.
  const std::string tagged = tmp_.path("srgb.png");
  ASSERT_TRUE(io_->write(tagged, back.image, plain).ok());
  add_chunks(tagged, {{"gAMA", "\0\x01\x86\xa0"s}});
  const std::string tagged_said = read_logging(*io_, tagged, st);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_NE(tagged_said.find("an out-of-place (after the image data) gAMA chunk not carried"), std::string::npos)
      << tagged_said;
  LoadedImage srgb_png;
  ASSERT_TRUE(io_->read(tagged, {}, srgb_png).ok());
  ASSERT_EQ(srgb_png.meta.png_chunks.size(), 1u);
  EXPECT_EQ(srgb_png.meta.png_chunks[0].first, "sRGB");
  srgb_png.meta.format = "exr";
  srgb_png.meta.pixel_type = PixelType::Half;
  EXPECT_EQ(write_logging(*io_, tmp_.path("srgb.exr"), srgb_png.image, srgb_png.meta, st).find("PNG chunks"),
            std::string::npos);
  ASSERT_TRUE(st.ok()) << st.error;
}

// A carried chunk whose contents a reader rejects or misreads is said and left out, not written on: an ICC profile
// that does not inflate or is no profile, an sRGB rendering intent of 7, a cICP with a YCbCr matrix (PNG holds RGB),
// an eXIf with no TIFF header, a pHYs unit of 2, a gamma of 0, a chromaticity y of 0. They were carried as their bytes.
TEST_P(IoMetadata, PngChunksWithBadContentsAreNotCarried) {
  using namespace std::string_literals;
  const Image img = test::random_image(4, 3, 3, 11);
  std::string short_size = icc_profile();
  short_size[3] = char(200);  // the header says 200 bytes
  std::string tiny_header = icc_profile();
  tiny_header[2] = 0, tiny_header[3] = char(100);  // the header says 100 bytes: under an ICC header (libpng refuses)
  std::string unsigned_icc = icc_profile();
  unsigned_icc.replace(36, 4, "xxxx");
  std::string chrm(32, '\0');
  for (int i = 0; i < 8; ++i) chrm[4 * i + 2] = char(0x7a);  // 31232: every x and y 0.31232
  std::string chrm_y0 = chrm;
  chrm_y0.replace(12, 4, 4, '\0');  // red's y
  const struct {
    std::string type, body, said;
  } cases[] = {
      {"iCCP", "Display P3\0\0"s + "not zlib at all", "its profile does not inflate"},
      {"iCCP", "Display P3\0\0"s + zlib_of("not a profile"),
       "a profile of 13 bytes, under the 132 of an ICC header and its tag count"},
      {"iCCP", "Display P3\0\0"s + zlib_of(short_size), "a profile of 132 bytes whose header says 200"},
      {"iCCP", "Display P3\0\0"s + zlib_of(tiny_header),
       "a profile whose header says 100 bytes, under the 132 of an ICC header and its tag count"},
      {"iCCP", "Display P3\0\0"s + zlib_of(unsigned_icc), "no ICC profile signature"},
      {"iCCP", "Display P3\0\x01"s + zlib_of(icc_profile()), "not compression method 0"},
      {"iCCP", "\0\0"s + zlib_of(icc_profile()), "no profile name"},
      {"sRGB", "\x07"s, "rendering intent 7, not 0-3"},
      {"cICP", "\x01\x0d\x01\x01"s, "matrix coefficients 1, not 0"},
      {"cICP", "\x01\x0d\0\x02"s, "full-range flag 2, not 0-1"},
      {"eXIf", "\x01"s, "no TIFF header"},
      {"eXIf", "MM\0\x2b\0\0\0\x08"s, "no TIFF header"},
      {"pHYs", "\0\0\x0b\x13\0\0\x0b\x13\x02"s, "unit 2, not 0-1"},
      {"gAMA", "\0\0\0\0"s, "gamma 0"},
      {"gAMA", "\x80\0\0\0"s, "a gamma beyond the PNG integer range"},
      {"cHRM", chrm_y0, "a chromaticity y of 0"},
  };
  for (const auto& c : cases) {
    const std::string path = plain_png("bad.png", img);
    add_chunks_after_ihdr(path, {{c.type, c.body}});
    Status st;
    const std::string said = read_logging(*io_, path, st);
    ASSERT_TRUE(st.ok()) << st.error;
    EXPECT_NE(said.find("a malformed " + c.type + " chunk not carried to the output ("), std::string::npos)
        << c.type << ": " << said;
    EXPECT_NE(said.find(c.said + ")"), std::string::npos) << c.type << ": " << said;
    // Readers ignore a malformed colour chunk, so it declares nothing: no "not sRGB" warning for it.
    EXPECT_EQ(said.find("not sRGB"), std::string::npos) << c.type << ": " << said;
    LoadedImage back;
    ASSERT_TRUE(io_->read(path, {}, back).ok());
    EXPECT_TRUE(back.meta.png_chunks.empty()) << c.type << ": " << c.said;
  }
  // The same types with good contents are carried (and a valid little-endian eXIf, a cHRM of real chromaticities, a
  // profile followed by bytes its header leaves out: libpng reads the header's length, says "extra compressed data"
  // and keeps it; it was left out).
  const std::string padded_icc = icc_profile() + "pad!";
  const std::vector<std::pair<std::string, std::string>> good = {
      {"iCCP", "Display P3\0\0"s + zlib_of(padded_icc)},
      {"cHRM", chrm},
      {"pHYs", "\0\0\x0b\x13\0\0\x0b\x13\x01"s},
      {"eXIf", "II*\0\x08\0\0\0"s}};
  const std::string path = plain_png("good.png", img);
  add_chunks_after_ihdr(path, good);
  Status st;
  EXPECT_EQ(read_logging(*io_, path, st).find("not carried"), std::string::npos);
  LoadedImage back;
  ASSERT_TRUE(io_->read(path, {}, back).ok());
  EXPECT_EQ(back.meta.png_chunks, good);
}

// A tRNS libpng drops (an RGB image's of 4 bytes, not 6) leaves the image opaque: said (it went to -v only), where a
// valid one makes the alpha channel.
TEST_P(IoMetadata, PngTransparencyLibpngDropsIsSaid) {
  using namespace std::string_literals;
  const Image img = test::random_image(4, 3, 3, 12);
  for (const bool valid : {false, true}) {
    const std::string path = plain_png(valid ? "trns_ok.png" : "trns_bad.png", img);
    add_chunks_after_ihdr(path, {{"tRNS", valid ? "\0\x01\0\x02\0\x03"s : "\0\x01\0\x02"s}});
    Status st;
    const std::string said = read_logging(*io_, path, st);
    ASSERT_TRUE(st.ok()) << st.error;
    EXPECT_EQ(said.find("libpng did not read its tRNS chunk (tRNS: invalid): the image is read as opaque") !=
                  std::string::npos,
              !valid)
        << said;
    LoadedImage back;
    ASSERT_TRUE(io_->read(path, {}, back).ok());
    EXPECT_EQ(back.image.channels, valid ? 4 : 3);
  }
  // libpng warns about a second tRNS but keeps the first, and an RGBA file's tRNS changes nothing: neither is said.
  const std::string twice = plain_png("trns_twice.png", img);
  add_chunks_after_ihdr(twice, {{"tRNS", "\0\x01\0\x02\0\x03"s}, {"tRNS", "\0\x04\0\x05\0\x06"s}});
  const std::string rgba = plain_png("trns_rgba.png", test::random_image(4, 3, 4, 13));
  add_chunks_after_ihdr(rgba, {{"tRNS", "\0\x01\0\x02\0\x03"s}});
  for (const std::string& path : {twice, rgba}) {
    Status st;
    const std::string said = read_logging(*io_, path, st);
    ASSERT_TRUE(st.ok()) << st.error;
    EXPECT_EQ(said.find("tRNS"), std::string::npos) << said;
    LoadedImage back;
    ASSERT_TRUE(io_->read(path, {}, back).ok());
    EXPECT_EQ(back.image.channels, 4) << path;
  }
}

// The other ancillary chunks are carried PNG to PNG where their type marks them safe to copy into a file whose pixels
// changed (oFFs, a private chunk) and they stand before the image data; those marked unsafe (tIME, bKGD) are not, as
// the PNG specification says. Every one of them was dropped.
TEST_P(IoMetadata, PngSafeToCopyChunksCarried) {
  using namespace std::string_literals;
  const Image img = test::random_image(4, 3, 3, 13);
  const std::string path = plain_png("safe.png", img);
  const std::vector<std::pair<std::string, std::string>> safe = {
      {"oFFs", "\0\0\0\x0a\0\0\0\x14\0"s}, {"prVt", "private bytes"s}, {"prVt", "a second one"s}};
  add_chunks_after_ihdr(path, {safe[0], {"tIME", "\x07\xea\x0c\x05\x0c\0\0"s}, safe[1], {"bKGD", "\0\0\0\0\0\0"s},
                               {"prVT", "unsafe private"s}, safe[2]});
  add_chunks(path, {{"afTr", "after the image data"s}});
  LoadedImage back;
  ASSERT_TRUE(io_->read(path, {}, back).ok());
  EXPECT_EQ(back.meta.png_chunks, safe);
  back.meta.srgb = true;
  const std::string out = tmp_.path("out.png");
  ASSERT_TRUE(io_->write(out, back.image, back.meta).ok());
  std::vector<std::pair<std::string, std::string>> written;
  for (const auto& c : png_chunks_of(out))
    if (c.first != "IHDR" && c.first != "IDAT" && c.first != "IEND" && c.first != "sRGB") written.push_back(c);
  EXPECT_EQ(written, safe);
  ImageMeta exr = back.meta;
  exr.format = "exr";
  exr.pixel_type = PixelType::Half;
  Status st;
  const std::string said = write_logging(*io_, tmp_.path("out.exr"), back.image, exr, st);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_NE(said.find("PNG chunks an EXR cannot hold not written: oFFs, prVt, prVt"), std::string::npos) << said;
}

// PNG text named as an EXR's structure or one of its typed standard attributes goes under "png:" and its name, said:
// xDensity beside a pHYs made the write fail (a string where OpenEXR sets a float), type and channels were dropped at
// debug level, chromaticities written as a string.
TEST_P(IoMetadata, ExrOutputRenamesTextThatNamesItsOwnAttributes) {
  using namespace std::string_literals;
  const std::string png = plain_png("named.png", test::random_image(4, 3, 3, 15));
  add_chunks_after_ihdr(png, {{"pHYs", "\0\0\x0b\x13\0\0\x0b\x13\x01"s}});
  LoadedImage back;
  ASSERT_TRUE(io_->read(png, {}, back).ok());
  ImageMeta exr = back.meta;
  exr.format = "exr";
  exr.pixel_type = PixelType::Half;
  exr.attributes = {{"xDensity", "three hundred"}, {"type", "photo"}, {"chromaticities", "sRGB"}, {"Title", "t"}};
  const std::string path = tmp_.path("named.exr");
  Status st;
  const std::string said = write_logging(*io_, path, back.image, exr, st);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_NE(said.find("text 'xDensity' written as 'png:xDensity'"), std::string::npos) << said;
  Imf::InputFile file(path.c_str());
  const Imf::Header& h = file.header();
  ASSERT_TRUE(Imf::hasXDensity(h));  // the pHYs's, a float
  for (const auto& [key, value] : exr.attributes) {
    const std::string name = key == "Title" ? key : "png:" + key;
    const auto* a = h.findTypedAttribute<Imf::StringAttribute>(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_EQ(a->value(), value);
  }
  EXPECT_EQ(h.findTypedAttribute<Imf::StringAttribute>("chromaticities"), nullptr);
}

// PNG holds [0, 1]: values outside it and NaN are clipped (NaN as 0), and the write says how many (it was silent);
// values inside say nothing.
TEST_P(IoMetadata, PngOutputSaysWhatItClips) {
  Image img(3, 1, 1);
  img.data = {1.5f, -0.25f, std::nanf("")};
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt16;
  meta.channel_names = {"Y"};
  Status st;
  std::string said = write_logging(*io_, tmp_.path("hdr.png"), img, meta, st);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_NE(said.find("1 value(s) above 1, 1 below 0 and 1 NaN clipped to PNG's [0, 1]"), std::string::npos) << said;
  LoadedImage back;
  ASSERT_TRUE(io_->read(tmp_.path("hdr.png"), {}, back).ok());
  EXPECT_EQ(back.image.data, (std::vector<float>{1.0f, 0.0f, 0.0f}));
  img.data = {1.0f, 0.0f, 0.5f};
  said = write_logging(*io_, tmp_.path("ldr.png"), img, meta, st);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_EQ(said.find("clipped"), std::string::npos) << said;
}

// Pixel density between the formats: a PNG's pHYs becomes the EXR's pixelAspectRatio and xDensity (pixels per inch),
// and an EXR's become a PNG's pHYs, both ways round; PNG to EXR to PNG gives the pHYs back. The density was dropped
// with a warning each way.
TEST_P(IoMetadata, PngDensityIsTheExrsDensity) {
  using namespace std::string_literals;
  const std::string png = plain_png("dense.png", test::random_image(4, 3, 3, 14));
  const std::string phys = "\0\0\x0b\x13\0\0\x16\x26\x01"s;  // 2835 x 5670 pixels a metre: 72 ppi, pixels 2:1 wide
  add_chunks_after_ihdr(png, {{"pHYs", phys}});
  LoadedImage back;
  ASSERT_TRUE(io_->read(png, {}, back).ok());
  ImageMeta exr = back.meta;
  exr.format = "exr";
  exr.pixel_type = PixelType::Half;
  const std::string exr_path = tmp_.path("dense.exr");
  Status st;
  const std::string said = write_logging(*io_, exr_path, back.image, exr, st);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_EQ(said.find("pHYs"), std::string::npos) << said;
  {
    Imf::InputFile file(exr_path.c_str());
    EXPECT_FLOAT_EQ(file.header().pixelAspectRatio(), 2.0f);
    ASSERT_TRUE(Imf::hasXDensity(file.header()));
    EXPECT_NEAR(Imf::xDensity(file.header()), 2835 * 0.0254, 1e-3);
  }
  LoadedImage from_exr;
  ASSERT_TRUE(io_->read(exr_path, {}, from_exr).ok());
  ImageMeta to_png = from_exr.meta;
  to_png.format = "png";
  to_png.pixel_type = PixelType::UInt8;
  const std::string again = tmp_.path("again.png");
  EXPECT_EQ(write_logging(*io_, again, from_exr.image, to_png, st).find("cannot hold"), std::string::npos);
  ASSERT_TRUE(st.ok()) << st.error;
  std::vector<std::string> found;
  for (const auto& c : png_chunks_of(again))
    if (c.first == "pHYs") found.push_back(c.second);
  EXPECT_EQ(found, std::vector<std::string>{phys});
  // An aspect ratio alone (no density) is pHYs unit 0; an EXR with neither gets no pHYs.
  ImageMeta aspect_only = to_png;
  aspect_only.exr_attributes.clear();
  aspect_only.exr_attributes.push_back({"pixelAspectRatio", "float", "\0\0\0\x3f"s});  // 0.5
  ASSERT_TRUE(io_->write(again, from_exr.image, aspect_only).ok());
  found.clear();
  for (const auto& c : png_chunks_of(again))
    if (c.first == "pHYs") found.push_back(c.second);
  EXPECT_EQ(found, std::vector<std::string>{"\0\x01\x86\xa0\0\0\xc3\x50\0"s});  // 100000 x 50000, unit 0
  aspect_only.exr_attributes.clear();
  ASSERT_TRUE(io_->write(again, from_exr.image, aspect_only).ok());
  for (const auto& c : png_chunks_of(again)) EXPECT_NE(c.first, "pHYs");
}

// An animated PNG (APNG: acTL before the image data) is read as its default image, and says so: its other frames
// went unmentioned.
TEST_P(IoMetadata, AnimatedPngSaysItsDefaultImageIsRead) {
  using namespace std::string_literals;
  const Image img = test::random_image(4, 3, 4, 12);
  const std::string path = plain_png("anim.png", img);
  add_chunks_after_ihdr(path, {{"acTL", "\0\0\0\x03\0\0\0\0"s}});  // 3 frames, looping forever
  Status st;
  const std::string said = read_logging(*io_, path, st);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_NE(said.find("an animated PNG (3 frames): its default image is read"), std::string::npos) << said;
  EXPECT_EQ(read_logging(*io_, plain_png("still.png", img), st).find("animated"), std::string::npos);
}

// A tiled EXR keeps its tiles in an EXR output, and a mip-mapped one its levels, made anew from the (blurred) image by
// 2 x 2 means, the rounding of the file's: the output was scanlines of the top level only.
TEST_P(IoMetadata, TiledAndMipMappedExrsKeepTheirLayout) {
  const auto write_tiled = [](const std::string& path, int w, int h, Imf::TileDescription td) {
    Imf::Header header(w, h);
    header.channels().insert("Y", Imf::Channel(Imf::FLOAT));
    header.setTileDescription(td);
    Imf::TiledOutputFile file(path.c_str(), header);
    const bool rip = td.mode == Imf::RIPMAP_LEVELS;  // levels along x and y apart; a mip-map's on the diagonal
    for (int ly = 0; ly < (rip ? file.numYLevels() : file.numLevels()); ++ly)
      for (int lx = rip ? 0 : ly; lx < (rip ? file.numXLevels() : ly + 1); ++lx) {
        const int lw = file.levelWidth(lx), lh = file.levelHeight(ly);
        std::vector<float> px(size_t(lw) * lh);
        for (int y = 0; y < lh; ++y)
          for (int x = 0; x < lw; ++x) px[size_t(y) * lw + x] = float(x + 10 * y) / float(lx + ly + 1);
        Imf::FrameBuffer fb;
        fb.insert("Y", Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(px.data()), sizeof(float), sizeof(float) * lw));
        file.setFrameBuffer(fb);
        file.writeTiles(0, file.numXTiles(lx) - 1, 0, file.numYTiles(ly) - 1, lx, ly);
      }
  };
  // The level l of a tiled file, as floats.
  const auto level_of = [](const std::string& path, int l, int& w, int& h) {
    Imf::TiledInputFile file(path.c_str());
    w = file.levelWidth(l), h = file.levelHeight(l);
    std::vector<float> px(size_t(w) * h);
    const Imath::Box2i dw = file.dataWindowForLevel(l);
    Imf::FrameBuffer fb;
    fb.insert("Y", Imf::Slice::Make(Imf::FLOAT, px.data(), dw, sizeof(float), sizeof(float) * size_t(w)));
    file.setFrameBuffer(fb);
    file.readTiles(0, file.numXTiles(l) - 1, 0, file.numYTiles(l) - 1, l);
    return px;
  };
  for (const Imf::TileDescription& td :
       {Imf::TileDescription(4, 2, Imf::ONE_LEVEL), Imf::TileDescription(2, 2, Imf::MIPMAP_LEVELS, Imf::ROUND_DOWN),
        Imf::TileDescription(4, 4, Imf::MIPMAP_LEVELS, Imf::ROUND_UP)}) {
    const std::string in = tmp_.path("tiled.exr"), out = tmp_.path("out.exr");
    write_tiled(in, 7, 5, td);
    Status st;
    EXPECT_EQ(read_logging(*io_, in, st).find("level"), std::string::npos) << "said its levels were dropped";
    ASSERT_TRUE(st.ok()) << st.error;
    LoadedImage back;
    ASSERT_TRUE(io_->read(in, {}, back).ok());
    EXPECT_EQ(back.meta.exr_tile_w, int(td.xSize));
    EXPECT_EQ(back.meta.exr_mipmap, td.mode == Imf::MIPMAP_LEVELS);
    ASSERT_TRUE(io_->write(out, back.image, back.meta).ok());
    Imf::TiledInputFile written(out.c_str());
    const Imf::TileDescription& wd = written.header().tileDescription();
    EXPECT_EQ(wd.xSize, td.xSize);
    EXPECT_EQ(wd.ySize, td.ySize);
    EXPECT_EQ(wd.mode, td.mode);
    EXPECT_EQ(wd.roundingMode, td.roundingMode);
    int w = 0, h = 0;
    EXPECT_EQ(level_of(out, 0, w, h), back.image.data);  // the top level as read (float channel: exact)
    if (td.mode != Imf::MIPMAP_LEVELS) continue;
    Imf::TiledInputFile src(in.c_str());
    ASSERT_EQ(written.numLevels(), src.numLevels());
    // Level 1: 2 x 2 means of the top level (x + 10 y), the last column repeated where the width is odd.
    const std::vector<float> l1 = level_of(out, 1, w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int x0 = 2 * x, x1 = std::min(2 * x + 1, 6), y0 = 2 * y, y1 = std::min(2 * y + 1, 4);
        const float want = 0.25f * float((x0 + x1) * 2 + 10 * (y0 + y1) * 2);
        EXPECT_FLOAT_EQ(l1[size_t(y) * w + x], want) << x << "," << y;
      }
  }
  // A rip-map's levels (halved along x and y apart) are not made again: said, and its output is one level of tiles.
  const std::string rip = tmp_.path("rip.exr");
  write_tiled(rip, 7, 5, Imf::TileDescription(4, 4, Imf::RIPMAP_LEVELS));
  Status st;
  EXPECT_NE(read_logging(*io_, rip, st).find("a rip-mapped EXR; its full-resolution level is read"), std::string::npos);
  ASSERT_TRUE(st.ok()) << st.error;
}

INSTANTIATE_TEST_SUITE_P(Adapters, IoMetadata, ::testing::ValuesIn(test::built_adapters()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gpublur
