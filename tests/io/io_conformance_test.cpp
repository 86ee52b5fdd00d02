// One conformance suite, run once per adapter built ("lean" always, "oiio" where built): round trips of every
// supported layout with exact, quantisation-aware value checks, names, alpha, attributes, palettes, windows.
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#include <ImfMultiPartOutputFile.h>
#include <ImfOutputPart.h>
#include <ImfPartType.h>
#include <ImfOutputFile.h>
#include <Imath/half.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>

#include "core/io/image_io.hpp"
#include "core/io/io_common.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/io/png_fixtures.hpp"

namespace gpublur {
namespace {

using test::TempDir;

using Attrs = std::vector<std::pair<std::string, std::string>>;

std::vector<std::string> exr_names(int nc) {
  switch (nc) {
    case 1: return {"Y"};
    case 2: return {"Y", "A"};
    case 3: return {"R", "G", "B"};
    case 4: return {"R", "G", "B", "A"};
    default: return {"R", "G", "B", "A", "Z", "N.x"};
  }
}

// Every (key, value) in `want` must be read back unchanged.
void expect_attributes(const Attrs& want, const Attrs& got) {
  std::map<std::string, std::string> m(got.begin(), got.end());
  for (const auto& [k, v] : want) {
    auto it = m.find(k);
    ASSERT_NE(it, m.end()) << "attribute '" << k << "' missing after the round trip";
    EXPECT_EQ(it->second, v) << "attribute '" << k << "'";
  }
}

// The value a PNG of maxval must hold for v: clamped to [0,1], rounded half up (computed in double).
uint32_t expected_level(float v, uint32_t maxval) {
  double c = std::isnan(v) ? 0.0 : std::clamp(double(v), 0.0, 1.0);
  return uint32_t(std::floor(c * maxval + 0.5));
}

class IoConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    io_ = make_image_io(GetParam());
    ASSERT_TRUE(io_) << "adapter " << GetParam() << " not built";
    ASSERT_EQ(io_->name(), GetParam());
  }
  std::unique_ptr<ImageIO> io_;
  TempDir tmp_;
};

TEST_P(IoConformance, ExrRoundTripHalfAndFloatAllChannelCounts) {
  const Attrs attrs = {{"gpublur:note", "blurred with care"}, {"comments", "a comment"}, {"owner", "someone"}};
  for (PixelType type : {PixelType::Half, PixelType::Float}) {
    for (int nc : {1, 2, 3, 4, 6}) {
      SCOPED_TRACE(std::string(pixel_type_name(type)) + " x " + std::to_string(nc) + " channels");
      // Odd size, HDR and negative values: EXR stores them all.
      Image img = test::random_image(37, 23, nc, 1000 + nc * 7 + int(type), -2.0f, 6.0f);
      ImageMeta meta;
      meta.format = "exr";
      meta.pixel_type = type;
      meta.channel_names = exr_names(nc);
      meta.attributes = attrs;
      const std::string path = tmp_.path("rt_" + std::to_string(nc) + pixel_type_name(type) + ".exr");
      ASSERT_TRUE(io_->write(path, img, meta).ok());
      LoadedImage got;
      Status st = io_->read(path, ReadLimits{}, got);
      ASSERT_TRUE(st.ok()) << st.error;
      ASSERT_EQ(got.image.width, 37);
      ASSERT_EQ(got.image.height, 23);
      ASSERT_EQ(got.image.channels, nc);
      EXPECT_EQ(got.meta.format, "exr");
      EXPECT_EQ(got.meta.pixel_type, type);
      EXPECT_EQ(got.meta.channel_names, exr_names(nc));
      const int alpha = nc == 2 ? 1 : (nc >= 4 ? 3 : -1);
      EXPECT_EQ(got.meta.alpha_channel, alpha);
      EXPECT_FALSE(got.meta.srgb);
      EXPECT_FALSE(got.meta.palette);
      expect_attributes(attrs, got.meta.attributes);
      size_t bad = 0;
      for (size_t i = 0; i < img.data.size(); ++i) {
        float want = type == PixelType::Half ? float(Imath::half(img.data[i])) : img.data[i];
        if (got.image.data[i] != want && bad++ < 5)
          ADD_FAILURE() << "value " << i << ": " << got.image.data[i] << " != " << want;
      }
      EXPECT_EQ(bad, 0u);
    }
  }
}

TEST_P(IoConformance, ExrChannelOrderIsCanonicalWhateverTheWriteOrder) {
  // Written in a scrambled order; read back as R,G,B,A, then unlayered extras by name, then layers.
  const std::vector<std::string> written = {"Z", "B", "N.x", "A", "G", "R", "depth.Z"};
  const std::vector<std::string> expected = {"R", "G", "B", "A", "Z", "N.x", "depth.Z"};
  Image img = test::random_image(9, 5, 7, 77, -1.0f, 1.0f);
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Float;
  meta.channel_names = written;
  const std::string path = tmp_.path("order.exr");
  ASSERT_TRUE(io_->write(path, img, meta).ok());
  LoadedImage got;
  Status st = io_->read(path, ReadLimits{}, got);
  ASSERT_TRUE(st.ok()) << st.error;
  ASSERT_EQ(got.meta.channel_names, expected);
  EXPECT_EQ(got.meta.alpha_channel, 3);
  for (int c = 0; c < 7; ++c) {
    int src = int(std::find(written.begin(), written.end(), expected[c]) - written.begin());
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 9; ++x) ASSERT_EQ(got.image.at(x, y, c), img.at(x, y, src)) << expected[c];
  }
}

// Names that split alike (".Z": no layer, base Z, as "Z") order by their whole names, not by the decoder's listing:
// OIIO lists them otherwise than OpenEXR, and a PNG written from W, Z, .Z had its second and third channels swapped
// by adapter.
TEST(ExrChannelOrder, NamesThatSplitAlikeOrderByTheWholeName) {
  for (const std::vector<std::string> names : {std::vector<std::string>{"W", "Z", ".Z"}, {".Z", "W", "Z"},
                                               {"Z", ".Z", "W"}, {".R", "R", "G"}}) {
    std::vector<std::string> got;
    for (int i : io::exr_channel_order(names)) got.push_back(names[size_t(i)]);
    if (names[0] == ".R" || names[2] == "G")
      EXPECT_EQ(got, (std::vector<std::string>{".R", "R", "G"}));
    else
      EXPECT_EQ(got, (std::vector<std::string>{"W", ".Z", "Z"}));
  }
}

// Lower-case colour names sort and count as their capitals (an EXR of r, g, b, a written in another order), and a
// PNG is never written with colour roles out of PNG's order (A, diffuse.R, diffuse.G, diffuse.B put alpha into red);
// names without a role, a lone channel as gray, are written as they come.
TEST_P(IoConformance, LowerCaseColourNamesAndPngChannelRoles) {
  Image img = test::random_image(5, 3, 4, 21);
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Float;
  meta.channel_names = {"a", "b", "g", "r"};
  const std::string path = tmp_.path("lower.exr");
  ASSERT_TRUE(io_->write(path, img, meta).ok());
  LoadedImage got;
  ASSERT_TRUE(io_->read(path, ReadLimits{}, got).ok());
  EXPECT_EQ(got.meta.channel_names, (std::vector<std::string>{"r", "g", "b", "a"}));
  EXPECT_EQ(got.meta.alpha_channel, 3);
  EXPECT_EQ(got.image.at(2, 1, 0), img.at(2, 1, 3));

  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  meta.channel_names = {"A", "diffuse.R", "diffuse.G", "diffuse.B"};
  const Status st = io_->write(tmp_.path("roles.png"), img, meta);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error.find("would be PNG's R"), std::string::npos) << st.error;
  meta.channel_names = {"beauty.r", "beauty.g", "beauty.b", "beauty.a"};
  EXPECT_TRUE(io_->write(tmp_.path("layer.png"), img, meta).ok());
  Image one = test::random_image(5, 3, 1, 22);
  for (const char* name : {"Z", "R", "y", "A"}) {
    meta.channel_names = {name};
    EXPECT_TRUE(io_->write(tmp_.path(std::string("one_") + name + ".png"), one, meta).ok()) << name;
  }
  Image two = test::random_image(5, 3, 2, 23);
  meta.channel_names = {"A", "Y"};
  EXPECT_FALSE(io_->write(tmp_.path("two.png"), two, meta).ok());
  meta.channel_names = {"G", "A"};
  EXPECT_TRUE(io_->write(tmp_.path("two.png"), two, meta).ok());
  // A channel of no colour role goes into a colour slot, never into PNG's alpha (depth as coverage).
  meta.channel_names = {"R", "Z"};
  Status z = io_->write(tmp_.path("rz.png"), two, meta);
  EXPECT_FALSE(z.ok());
  EXPECT_NE(z.error.find("would be PNG's A"), std::string::npos) << z.error;
  meta.channel_names = {"R", "G", "B", "Z"};
  z = io_->write(tmp_.path("rgbz.png"), img, meta);
  EXPECT_FALSE(z.ok());
  EXPECT_NE(z.error.find("('Z') would be PNG's A"), std::string::npos) << z.error;
  meta.channel_names = {"Z", "A"};
  EXPECT_TRUE(io_->write(tmp_.path("za.png"), two, meta).ok());
}

// A multi-part EXR reads as its first part (with a warning that the others are left), on both adapters.
TEST_P(IoConformance, MultiPartExrReadsItsFirstPart) {
  const std::string path = tmp_.path("parts.exr");
  {
    std::vector<Imf::Header> headers(2, Imf::Header(3, 2));
    for (int p = 0; p < 2; ++p) {
      headers[size_t(p)].setName(p == 0 ? "first" : "second");
      headers[size_t(p)].setType(Imf::SCANLINEIMAGE);
      headers[size_t(p)].channels().insert("Y", Imf::Channel(Imf::FLOAT));
    }
    Imf::MultiPartOutputFile file(path.c_str(), headers.data(), 2);
    for (int p = 0; p < 2; ++p) {
      std::vector<float> v(6, p == 0 ? 0.25f : 0.75f);
      Imf::FrameBuffer fb;
      fb.insert("Y", Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(v.data()), sizeof(float), 3 * sizeof(float)));
      Imf::OutputPart part(file, p);
      part.setFrameBuffer(fb);
      part.writePixels(2);
    }
  }
  LoadedImage got;
  const Status st = io_->read(path, ReadLimits{}, got);
  ASSERT_TRUE(st.ok()) << st.error;
  ASSERT_EQ(got.image.channels, 1);
  EXPECT_EQ(got.image.at(2, 1, 0), 0.25f);
}

TEST_P(IoConformance, PngRoundTrip8And16BitAllColourTypes) {
  const Attrs attrs = {{"Comment", "made by a test"}, {"Description", "noise"}, {"Author", "gpublur"},
                       {"gpublur note", "kept"}};
  for (PixelType type : {PixelType::UInt8, PixelType::UInt16}) {
    const uint32_t maxval = type == PixelType::UInt8 ? 255 : 65535;
    for (int nc : {1, 2, 3, 4}) {
      SCOPED_TRACE(std::string(pixel_type_name(type)) + " x " + std::to_string(nc) + " channels");
      // Some values outside [0,1] to check clamping.
      Image img = test::random_image(41, 19, nc, 2000 + nc * 3 + int(type), -0.2f, 1.2f);
      img.data[0] = std::nanf("");
      ImageMeta meta;
      meta.format = "png";
      meta.pixel_type = type;
      meta.srgb = true;
      meta.attributes = attrs;
      const std::string path = tmp_.path("rt_" + std::to_string(nc) + pixel_type_name(type) + ".png");
      Status wst = io_->write(path, img, meta);
      ASSERT_TRUE(wst.ok()) << wst.error;
      LoadedImage got;
      Status st = io_->read(path, ReadLimits{}, got);
      ASSERT_TRUE(st.ok()) << st.error;
      ASSERT_EQ(got.image.width, 41);
      ASSERT_EQ(got.image.height, 19);
      ASSERT_EQ(got.image.channels, nc);
      EXPECT_EQ(got.meta.format, "png");
      EXPECT_EQ(got.meta.pixel_type, type);
      EXPECT_TRUE(got.meta.srgb);
      EXPECT_FALSE(got.meta.palette);
      const std::vector<std::vector<std::string>> names = {{"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
      EXPECT_EQ(got.meta.channel_names, names[nc - 1]);
      EXPECT_EQ(got.meta.alpha_channel, nc == 2 ? 1 : (nc == 4 ? 3 : -1));
      expect_attributes(attrs, got.meta.attributes);
      size_t bad = 0;
      for (size_t i = 0; i < img.data.size(); ++i) {
        const uint32_t q = expected_level(img.data[i], maxval);
        const float want = float(q) / float(maxval);
        if (got.image.data[i] != want && bad++ < 5)
          ADD_FAILURE() << "value " << i << " (" << img.data[i] << "): got " << got.image.data[i] << ", want level "
                        << q << " = " << want;
      }
      EXPECT_EQ(bad, 0u);
    }
  }
}

TEST_P(IoConformance, PngFromHalfOrFloatIsWritten16Bit) {
  Image img = test::random_image(8, 8, 3, 31);
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::Float;
  const std::string path = tmp_.path("float.png");
  ASSERT_TRUE(io_->write(path, img, meta).ok());
  LoadedImage got;
  ASSERT_TRUE(io_->read(path, ReadLimits{}, got).ok());
  EXPECT_EQ(got.meta.pixel_type, PixelType::UInt16);
}

TEST_P(IoConformance, PalettePngIsExpandedWithTrnsAlpha) {
  test::PaletteFixture p;
  p.width = 13;
  p.height = 7;
  p.bit_depth = 4;
  for (int i = 0; i < 16; ++i) p.palette.push_back({uint8_t(i * 16 + 3), uint8_t(255 - i * 13), uint8_t(i * i)});
  p.trns = {0, 64, 128, 200, 255, 17};  // shorter than the palette: the rest are opaque
  for (int i = 0; i < p.width * p.height; ++i) p.indices.push_back(uint8_t((i * 7 + i / 5) % 16));
  const std::string path = tmp_.path("pal4_trns.png");
  ASSERT_TRUE(test::write_palette_png(path, p));
  LoadedImage got;
  Status st = io_->read(path, ReadLimits{}, got);
  ASSERT_TRUE(st.ok()) << st.error;
  ASSERT_EQ(got.image.channels, 4);
  EXPECT_TRUE(got.meta.palette);
  EXPECT_TRUE(got.meta.srgb);
  EXPECT_EQ(got.meta.pixel_type, PixelType::UInt8);
  EXPECT_EQ(got.meta.alpha_channel, 3);
  for (int i = 0; i < p.width * p.height; ++i) {
    const int idx = p.indices[i];
    const int x = i % p.width, y = i / p.width;
    for (int c = 0; c < 3; ++c) ASSERT_EQ(got.image.at(x, y, c), float(p.palette[idx][c]) / 255.0f) << i;
    const int a = idx < int(p.trns.size()) ? p.trns[idx] : 255;
    ASSERT_EQ(got.image.at(x, y, 3), float(a) / 255.0f) << i;
  }

  // Written back as plain 8-bit RGBA (no palette), same pixels.
  const std::string back = tmp_.path("pal4_back.png");
  ASSERT_TRUE(io_->write(back, got.image, got.meta).ok());
  LoadedImage again;
  ASSERT_TRUE(io_->read(back, ReadLimits{}, again).ok());
  EXPECT_FALSE(again.meta.palette);
  EXPECT_EQ(again.meta.pixel_type, PixelType::UInt8);
  EXPECT_EQ(again.image.data, got.image.data);
}

TEST_P(IoConformance, PalettePngWithoutTrnsIsRgb) {
  test::PaletteFixture p;
  p.width = 10;
  p.height = 6;
  p.bit_depth = 8;
  for (int i = 0; i < 200; ++i) p.palette.push_back({uint8_t(i), uint8_t(199 - i), uint8_t((i * 37) & 255)});
  for (int i = 0; i < p.width * p.height; ++i) p.indices.push_back(uint8_t((i * 53) % 200));
  const std::string path = tmp_.path("pal8.png");
  ASSERT_TRUE(test::write_palette_png(path, p));
  LoadedImage got;
  Status st = io_->read(path, ReadLimits{}, got);
  ASSERT_TRUE(st.ok()) << st.error;
  ASSERT_EQ(got.image.channels, 3);
  EXPECT_TRUE(got.meta.palette);
  EXPECT_EQ(got.meta.alpha_channel, -1);
  for (int i = 0; i < p.width * p.height; ++i)
    for (int c = 0; c < 3; ++c)
      ASSERT_EQ(got.image.data[size_t(i) * 3 + c], float(p.palette[p.indices[i]][c]) / 255.0f);
}

// An index past the palette (an invalid file) reads as opaque black, as libpng's own expansion read it, and is said
// with its count: it was read black in silence. Interlaced files too (their rows are expanded after Adam7's passes).
TEST_P(IoConformance, PaletteIndexPastThePaletteIsBlackAndSaid) {
  for (const bool interlaced : {false, true})
    for (const int depth : {1, 2, 4, 8}) {
      SCOPED_TRACE((interlaced ? "interlaced, depth " : "depth ") + std::to_string(depth));
      test::PaletteFixture p;
      p.width = 11;
      p.height = 9;
      p.bit_depth = depth;
      p.interlaced = interlaced;
      for (int i = 0; i < 3; ++i) p.palette.push_back({uint8_t(40 + i), uint8_t(90 + i), uint8_t(200 - i)});
      p.trns = {100, 150};  // entry 2 opaque; past the palette opaque too
      const int range = depth == 1 ? 2 : depth == 2 ? 4 : 7;
      if (depth == 1) p.palette.resize(1), p.trns.resize(1);  // one entry: index 1 is past it
      int bad = 0;
      for (int i = 0; i < p.width * p.height; ++i) {
        p.indices.push_back(uint8_t((i * 7 + i / 5) % range));
        bad += p.indices.back() >= int(p.palette.size());
      }
      const std::string path = tmp_.path("pal_bad" + std::to_string(depth) + (interlaced ? "i" : "") + ".png");
      ASSERT_TRUE(test::write_palette_png(path, p));
      LoadedImage got;
      Status st;
      const std::string log = test::read_logging(*io_, path, st, &got);
      ASSERT_TRUE(st.ok()) << st.error;
      ASSERT_EQ(got.image.channels, 4);
      ASSERT_GT(bad, 0);
      const int n = int(p.palette.size());
      EXPECT_NE(log.find(std::to_string(bad) + " pixels' indices are past the palette's " + std::to_string(n) +
                         " entries (an invalid PNG): read as opaque black"),
                std::string::npos)
          << log;
      for (int i = 0; i < p.width * p.height; ++i) {
        const int idx = p.indices[i];
        for (int c = 0; c < 3; ++c)
          ASSERT_EQ(got.image.data[size_t(i) * 4 + c], idx < n ? float(p.palette[idx][c]) / 255.0f : 0.0f) << i;
        ASSERT_EQ(got.image.data[size_t(i) * 4 + 3], idx < int(p.trns.size()) ? float(p.trns[idx]) / 255.0f : 1.0f)
            << i;
      }
      // Without tRNS: RGB, the same colours; and kept packed (8-bit samples, as blur reads them), the same bytes.
      p.trns.clear();
      ASSERT_TRUE(test::write_palette_png(path, p));
      LoadedImage rgb, packed;
      ASSERT_TRUE(io_->read(path, ReadLimits{}, rgb).ok());
      ReadLimits keep;
      keep.keep_packed = true;
      ASSERT_TRUE(io_->read(path, keep, packed).ok());
      ASSERT_EQ(rgb.image.channels, 3);
      for (int i = 0; i < p.width * p.height; ++i)
        for (int c = 0; c < 3; ++c) {
          const int idx = p.indices[i];
          ASSERT_EQ(rgb.image.data[size_t(i) * 3 + c], idx < n ? float(p.palette[idx][c]) / 255.0f : 0.0f) << i;
          if (!interlaced)
            ASSERT_EQ(packed.packed.samples[size_t(i) * 3 + c], idx < n ? p.palette[idx][c] : 0) << i;
        }
      if (!interlaced) EXPECT_EQ(packed.packed.value_count(), size_t(p.width) * p.height * 3);
    }
}

TEST_P(IoConformance, ColorKeyTrnsBecomesAlpha) {
  const int w = 7, h = 5;
  for (int nc : {1, 3}) {
    SCOPED_TRACE(std::to_string(nc) + " channels + tRNS colour key");
    const std::vector<uint8_t> key(nc, 77);
    std::vector<uint8_t> v;
    for (int p = 0; p < w * h; ++p)  // every third pixel is the key colour
      for (int c = 0; c < nc; ++c) v.push_back(uint8_t(p % 3 == 0 ? 77 : (p * 29 + c * 50) % 256));
    const std::string path = tmp_.path("key" + std::to_string(nc) + ".png");
    ASSERT_TRUE(test::write_color_key_png(path, w, h, nc, v, key));
    LoadedImage got;
    Status st = io_->read(path, ReadLimits{}, got);
    ASSERT_TRUE(st.ok()) << st.error;
    ASSERT_EQ(got.image.channels, nc + 1);
    EXPECT_EQ(got.meta.alpha_channel, nc);
    EXPECT_FALSE(got.meta.palette);
    size_t transparent = 0;
    for (int p = 0; p < w * h; ++p) {
      bool is_key = true;
      for (int c = 0; c < nc; ++c) {
        ASSERT_EQ(got.image.data[size_t(p) * (nc + 1) + c], float(v[size_t(p) * nc + c]) / 255.0f);
        is_key = is_key && v[size_t(p) * nc + c] == 77;
      }
      ASSERT_EQ(got.image.data[size_t(p) * (nc + 1) + nc], is_key ? 0.0f : 1.0f) << p;
      transparent += is_key;
    }
    EXPECT_GT(transparent, 0u);
  }
}

TEST_P(IoConformance, LowBitDepthGrayIsScaledToFullRange) {
  const int w = 11, h = 3;
  for (int depth : {1, 2, 4}) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    std::vector<uint8_t> v;
    for (int i = 0; i < w * h; ++i) v.push_back(uint8_t((i * 5 + 1) % (1 << depth)));
    const std::string path = tmp_.path("gray" + std::to_string(depth) + ".png");
    ASSERT_TRUE(test::write_low_depth_gray_png(path, w, h, depth, v));
    LoadedImage got;
    Status st = io_->read(path, ReadLimits{}, got);
    ASSERT_TRUE(st.ok()) << st.error;
    ASSERT_EQ(got.image.channels, 1);
    EXPECT_EQ(got.meta.pixel_type, PixelType::UInt8);
    const int maxv = (1 << depth) - 1;
    for (int i = 0; i < w * h; ++i) ASSERT_EQ(got.image.data[i], float(v[i] * (255 / maxv)) / 255.0f) << i;
  }
}

TEST_P(IoConformance, ExrDataWindowIsReadDisplayWindowDropped) {
  // Data window (3,5)-(12,11) inside a 20x20 display window: the reader returns the 10x7 data window.
  const Imath::Box2i dw({3, 5}, {12, 11});
  Imf::Header header(Imath::Box2i({0, 0}, {19, 19}), dw);
  header.channels().insert("R", Imf::Channel(Imf::FLOAT));
  header.channels().insert("G", Imf::Channel(Imf::FLOAT));
  Image src = test::random_image(10, 7, 2, 555);
  Imf::FrameBuffer fb;
  fb.insert("R", Imf::Slice::Make(Imf::FLOAT, src.data.data(), dw, 8, 80));
  fb.insert("G", Imf::Slice::Make(Imf::FLOAT, src.data.data() + 1, dw, 8, 80));
  const std::string path = tmp_.path("window.exr");
  {
    Imf::OutputFile out(path.c_str(), header);
    out.setFrameBuffer(fb);
    out.writePixels(7);
  }
  LoadedImage got;
  Status st = io_->read(path, ReadLimits{}, got);
  ASSERT_TRUE(st.ok()) << st.error;
  ASSERT_EQ(got.image.width, 10);
  ASSERT_EQ(got.image.height, 7);
  EXPECT_EQ((got.meta.channel_names), (std::vector<std::string>{"R", "G"}));
  EXPECT_EQ(got.image.data, src.data);
}

TEST_P(IoConformance, ExrMixedHalfFloatUintChannels) {
  // uint channels keep their values (not scaled to [0,1]); any non-half channel makes the image "float".
  const int w = 6, h = 4;
  Imf::Header header(w, h);
  header.channels().insert("R", Imf::Channel(Imf::HALF));
  header.channels().insert("G", Imf::Channel(Imf::FLOAT));
  header.channels().insert("id", Imf::Channel(Imf::UINT));
  std::vector<Imath::half> r(w * h);
  std::vector<float> g(w * h);
  std::vector<uint32_t> id(w * h);
  for (int i = 0; i < w * h; ++i) {
    r[i] = Imath::half(0.1f * i - 0.7f);
    g[i] = 1000.5f - 37.25f * i;
    id[i] = uint32_t(i * 4099 + (i == 5 ? 16000000 : 0));
  }
  Imf::FrameBuffer fb;
  fb.insert("R", Imf::Slice(Imf::HALF, (char*)r.data(), sizeof(Imath::half), sizeof(Imath::half) * w));
  fb.insert("G", Imf::Slice(Imf::FLOAT, (char*)g.data(), sizeof(float), sizeof(float) * w));
  fb.insert("id", Imf::Slice(Imf::UINT, (char*)id.data(), sizeof(uint32_t), sizeof(uint32_t) * w));
  const std::string path = tmp_.path("mixed.exr");
  {
    Imf::OutputFile out(path.c_str(), header);
    out.setFrameBuffer(fb);
    out.writePixels(h);
  }
  LoadedImage got;
  Status st;
  const std::string log = test::read_logging(*io_, path, st, &got);  // the read's warnings
  ASSERT_TRUE(st.ok()) << st.error;
  // float holds them exactly up to 2^24 only: said, naming the channel (ids above it were merged in silence).
  EXPECT_NE(log.find("uint channel(s) id read as float: values above"), std::string::npos) << log;
  ASSERT_EQ(got.meta.channel_names, (std::vector<std::string>{"R", "G", "id"}));
  EXPECT_EQ(got.meta.pixel_type, PixelType::Float);
  for (int i = 0; i < w * h; ++i) {
    ASSERT_EQ(got.image.data[i * 3 + 0], float(r[i])) << i;
    ASSERT_EQ(got.image.data[i * 3 + 1], g[i]) << i;
    ASSERT_EQ(got.image.data[i * 3 + 2], float(id[i])) << i;
  }
  // Each channel's type is kept and written back (every channel went out float, the half R doubling in size); a
  // float channel's values past half's range are no half overflow.
  EXPECT_EQ(got.meta.channel_types, (std::vector<PixelType>{PixelType::Half, PixelType::Float, PixelType::Float}));
  const std::string back = tmp_.path("mixed_back.exr");
  ASSERT_TRUE(io_->write(back, got.image, got.meta).ok());
  {
    Imf::InputFile in(back.c_str());
    const Imf::ChannelList& ch = in.header().channels();
    EXPECT_EQ(ch.findChannel("R")->type, Imf::HALF);
    EXPECT_EQ(ch.findChannel("G")->type, Imf::FLOAT);
    EXPECT_EQ(ch.findChannel("id")->type, Imf::FLOAT);
  }
  LoadedImage again;
  ASSERT_TRUE(io_->read(back, ReadLimits{}, again).ok());
  EXPECT_EQ(again.image.data, got.image.data);
  EXPECT_EQ(again.meta.channel_types, got.meta.channel_types);
}

// Written as half, the values that become +-Inf are counted and said; 65504.0078 (a blur of 65504s in float32) is
// written as 65504, no overflow (every value above 65504 was counted: a false warning on every half output of a
// bright image).
TEST_P(IoConformance, HalfOverflowWarningCountsTheValuesThatBecomeInfinite) {
  Image img(4, 1, 1);
  img.data = {65504.0f, 65504.0078f, 65519.0f, 70000.0f};
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Half;
  meta.channel_names = {"Y"};
  const auto write_logged = [&](const Image& im, const std::string& path) {
    Status st;
    const std::string log = test::write_logging(*io_, path, im, meta, st);
    EXPECT_TRUE(st.ok()) << st.error;
    return log;
  };
  const std::string path = tmp_.path("bright.exr");
  const std::string log = write_logged(img, path);
  EXPECT_NE(log.find("1 values beyond half's range"), std::string::npos) << log;
  LoadedImage got;
  ASSERT_TRUE(io_->read(path, ReadLimits{}, got).ok());
  EXPECT_EQ(got.image.data[0], 65504.0f);
  EXPECT_EQ(got.image.data[1], 65504.0f);
  EXPECT_EQ(got.image.data[2], 65504.0f);  // rounds to nearest: 65519 is still 65504
  EXPECT_TRUE(std::isinf(got.image.data[3]));
  img.data.resize(3), img.width = 3;
  EXPECT_EQ(write_logged(img, tmp_.path("in_range.exr")), "") << "no value became Inf";
}

TEST_P(IoConformance, WritesPngAtMostFourChannels) {
  Image img = test::random_image(4, 4, 5, 3);
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  const std::string path = tmp_.path("five.png");
  Status st = io_->write(path, img, meta);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error.find(path), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("5"), std::string::npos) << st.error;
}

TEST_P(IoConformance, WriteErrorsNameTheFile) {
  Image img = test::random_image(4, 4, 3, 4);
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Half;
  meta.channel_names = {"R", "G", "R"};
  std::string path = tmp_.path("dup.exr");
  Status st = io_->write(path, img, meta);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error.find(path), std::string::npos) << st.error;

  meta.channel_names = {"R", "G"};
  st = io_->write(path, img, meta);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error.find(path), std::string::npos) << st.error;

  meta.channel_names = {"R", "G", "B"};
  for (const char* fmt : {"exr", "png"}) {
    meta.format = fmt;
    path = tmp_.path(std::string("no/such/dir/out.") + fmt);
    st = io_->write(path, img, meta);
    ASSERT_FALSE(st.ok()) << fmt;
    EXPECT_NE(st.error.find(path), std::string::npos) << st.error;
  }
}

// A full disk fails the write, however small the file (OpenEXR's OutputFile closed its stream without a word, so a
// 4 x 4 EXR came out empty and reported written). The file is a link to /dev/full, which takes opens and fails
// writes with ENOSPC; the failed write removes the link, never the device.
TEST_P(IoConformance, WritesToAFullDiskFail) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full here";
  Image img = test::random_image(4, 4, 3, 5);
  ImageMeta meta;
  meta.channel_names = {"R", "G", "B"};
  for (const char* fmt : {"exr", "png"}) {
    meta.format = fmt;
    meta.pixel_type = std::string(fmt) == "exr" ? PixelType::Half : PixelType::UInt8;
    const std::string path = tmp_.path(std::string("full.") + fmt);
    ASSERT_EQ(::symlink("/dev/full", path.c_str()), 0) << std::strerror(errno);
    const Status st = io_->write(path, img, meta);
    EXPECT_FALSE(st.ok()) << fmt << ": a write to a full disk reported success";
    EXPECT_NE(st.error.find(path), std::string::npos) << st.error;
    ::unlink(path.c_str());
  }
  EXPECT_EQ(::access("/dev/full", F_OK), 0);
}

INSTANTIATE_TEST_SUITE_P(Adapters, IoConformance, ::testing::ValuesIn(test::built_adapters()),
                         [](const auto& info) { return info.param; });

TEST(IoFactory, DefaultAndNamedAdapters) {
  auto def = make_image_io();
  ASSERT_TRUE(def);
  EXPECT_EQ(def->name(), GPUBLUR_IO_DEFAULT_NAME);
  auto def2 = make_image_io("");
  ASSERT_TRUE(def2);
  EXPECT_EQ(def2->name(), GPUBLUR_IO_DEFAULT_NAME);
  ASSERT_TRUE(make_image_io("lean"));
  EXPECT_EQ(make_image_io("lean")->name(), "lean");
  EXPECT_EQ(make_lean_io()->name(), "lean");
  EXPECT_FALSE(make_image_io("jpeg"));
#ifdef GPUBLUR_EXPECT_OIIO
  ASSERT_TRUE(make_oiio_io());
  EXPECT_EQ(make_image_io("oiio")->name(), "oiio");
#else
  EXPECT_FALSE(make_oiio_io());
  EXPECT_FALSE(make_image_io("oiio"));
#endif
}

TEST(IoFactory, FormatFromExtension) {
  EXPECT_EQ(format_from_extension("a/b.exr"), "exr");
  EXPECT_EQ(format_from_extension("B.EXR"), "exr");
  EXPECT_EQ(format_from_extension("x.Png"), "png");
  EXPECT_EQ(format_from_extension("x.png.jpg"), "");
  EXPECT_EQ(format_from_extension("dir.png/file"), "");
  EXPECT_EQ(format_from_extension("noext"), "");
  EXPECT_EQ(format_from_extension(".exr"), "exr");
  // The one lower-casing of extensions (kernel files' .exr, quality's .json refusal use it too).
  EXPECT_EQ(lowercase_extension("a/b.JSON"), "json");
  EXPECT_EQ(lowercase_extension("k.tar.GZ"), "gz");
  EXPECT_EQ(lowercase_extension("dir.exr/kernel"), "");
  EXPECT_EQ(lowercase_extension("trailing."), "");
}

}  // namespace
}  // namespace gpublur
