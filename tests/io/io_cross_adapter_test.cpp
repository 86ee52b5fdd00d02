// Files written by one adapter and read by the other give identical pixels, names, alpha and attributes.
#include <gtest/gtest.h>

#include <map>

#include "core/io/image_io.hpp"
#include "tests/io/io_test_util.hpp"

namespace gpublur {
namespace {

struct Case {
  std::string format;
  PixelType type;
  std::vector<std::string> names;  // EXR only
  int channels;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  const std::vector<std::vector<std::string>> exr = {
      {"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}, {"R", "G", "B", "A", "Z", "N.x"}};
  for (PixelType t : {PixelType::Half, PixelType::Float})
    for (const auto& n : exr) out.push_back({"exr", t, n, int(n.size())});
  for (PixelType t : {PixelType::UInt8, PixelType::UInt16})
    for (int c = 1; c <= 4; ++c) out.push_back({"png", t, {}, c});
  return out;
}

TEST(IoCrossAdapter, WrittenByOneReadByTheOther) {
  auto lean = make_lean_io();
  auto oiio = make_oiio_io();
  if (!oiio) GTEST_SKIP() << "this build has no OpenImageIO adapter (GPUBLUR_IO=lean)";
  test::TempDir tmp;
  int n = 0;
  for (const Case& c : cases()) {
    for (ImageIO* writer : {lean.get(), oiio.get()}) {
      SCOPED_TRACE(c.format + " " + pixel_type_name(c.type) + " x" + std::to_string(c.channels) + " written by " +
                   writer->name());
      Image img = c.format == "exr" ? test::random_image(29, 17, c.channels, 300 + n, -1.0f, 4.0f)
                                    : test::random_image(29, 17, c.channels, 300 + n, -0.1f, 1.1f);
      ImageMeta meta;
      meta.format = c.format;
      meta.pixel_type = c.type;
      meta.channel_names = c.names;
      meta.srgb = c.format == "png";
      // Standard names that OIIO renames internally (comments/ImageDescription, Description, Author, ...) too.
      if (c.format == "exr")
        meta.attributes = {{"gpublur:case", std::to_string(n)}, {"comments", "c"}, {"owner", "o"},
                           {"capDate", "2024:01:02 03:04:05"}, {"software", "s"}};
      else
        meta.attributes = {{"gpublur:case", std::to_string(n)}, {"Description", "d"}, {"Author", "a"},
                           {"Comment", "c"}, {"Title", "t"}, {"Software", "s"}};
      const std::string path = tmp.path("x" + std::to_string(n++) + "." + c.format);
      Status st = writer->write(path, img, meta);
      ASSERT_TRUE(st.ok()) << st.error;
      LoadedImage a, b;
      st = lean->read(path, ReadLimits{}, a);
      ASSERT_TRUE(st.ok()) << st.error;
      st = oiio->read(path, ReadLimits{}, b);
      ASSERT_TRUE(st.ok()) << st.error;
      ASSERT_EQ(a.image.width, b.image.width);
      ASSERT_EQ(a.image.height, b.image.height);
      ASSERT_EQ(a.image.channels, b.image.channels);
      EXPECT_EQ(a.image.data, b.image.data) << "pixels differ between adapters";
      EXPECT_EQ(a.meta.channel_names, b.meta.channel_names);
      EXPECT_EQ(a.meta.alpha_channel, b.meta.alpha_channel);
      EXPECT_EQ(a.meta.pixel_type, b.meta.pixel_type);
      EXPECT_EQ(a.meta.srgb, b.meta.srgb);
      EXPECT_EQ(a.meta.palette, b.meta.palette);
      using M = std::map<std::string, std::string>;
      EXPECT_EQ(M(a.meta.attributes.begin(), a.meta.attributes.end()),
                M(b.meta.attributes.begin(), b.meta.attributes.end()));
      EXPECT_EQ(M(a.meta.attributes.begin(), a.meta.attributes.end()), M(meta.attributes.begin(), meta.attributes.end()))
          << "attributes written are not exactly the attributes read";
    }
  }
}

}  // namespace
}  // namespace gpublur
