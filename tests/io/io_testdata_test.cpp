// The bundled testdata/ files: every good file reads with every adapter and has the documented layout;
// every file in testdata/bad/ fails with a message naming it; the folder stays small.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/io/image_io.hpp"
#include "tests/io/io_test_util.hpp"

namespace gpublur {
namespace {

struct Expected {
  const char* file;
  int width, height, channels;
  PixelType type;
  bool palette;
  int alpha;
};

const Expected kFiles[] = {
    {"landscape_rgb8.png", 256, 192, 3, PixelType::UInt8, false, -1},
    {"sprites_rgba8.png", 192, 192, 4, PixelType::UInt8, false, 3},
    {"heightfield_gray16.png", 256, 192, 1, PixelType::UInt16, false, -1},
    {"icon_palette.png", 160, 120, 4, PixelType::UInt8, true, 3},
    {"render_half_rgba.exr", 256, 192, 4, PixelType::Half, false, 3},
    {"render_float_rgbaz.exr", 160, 120, 5, PixelType::Float, false, 3},
};

class IoTestdata : public ::testing::TestWithParam<std::string> {};

TEST_P(IoTestdata, GoodFilesHaveTheDocumentedLayoutAndRealContent) {
  auto io = make_image_io(GetParam());
  ASSERT_TRUE(io);
  for (const Expected& e : kFiles) {
    SCOPED_TRACE(e.file);
    LoadedImage img;
    Status st = io->read(test::testdata_dir() + "/" + e.file, ReadLimits{}, img);
    ASSERT_TRUE(st.ok()) << st.error;
    EXPECT_EQ(img.image.width, e.width);
    EXPECT_EQ(img.image.height, e.height);
    ASSERT_EQ(img.image.channels, e.channels);
    EXPECT_EQ(img.meta.pixel_type, e.type);
    EXPECT_EQ(img.meta.palette, e.palette);
    EXPECT_EQ(img.meta.alpha_channel, e.alpha);
    // Every channel varies: the files are pictures, not constants.
    for (int c = 0; c < e.channels; ++c) {
      float lo = 1e30f, hi = -1e30f;
      for (size_t p = 0; p < img.image.pixel_count(); ++p) {
        lo = std::min(lo, img.image.data[p * e.channels + c]);
        hi = std::max(hi, img.image.data[p * e.channels + c]);
      }
      EXPECT_GT(hi - lo, 0.2f) << "channel " << c << " is nearly constant";
    }
    if (img.meta.alpha_channel >= 0) {  // alpha really varies: some transparent, some opaque
      size_t clear = 0, opaque = 0;
      for (size_t p = 0; p < img.image.pixel_count(); ++p) {
        float a = img.image.data[p * e.channels + e.alpha];
        clear += a == 0.0f;
        opaque += a == 1.0f;
      }
      EXPECT_GT(clear, 0u);
      EXPECT_GT(opaque, 0u);
    }
  }
}

TEST_P(IoTestdata, BadFilesFailNamingTheFile) {
  auto io = make_image_io(GetParam());
  ASSERT_TRUE(io);
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::testdata_dir() + "/bad")) {
    const std::string path = entry.path().string();
    SCOPED_TRACE(path);
    LoadedImage img;
    Status st = io->read(path, ReadLimits{}, img);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error.find(path), std::string::npos) << st.error;
    ++n;
  }
  EXPECT_GE(n, 4);
}

INSTANTIATE_TEST_SUITE_P(Adapters, IoTestdata, ::testing::ValuesIn(test::built_adapters()),
                         [](const auto& info) { return info.param; });

TEST(IoTestdataFolder, StaysSmall) {
  uintmax_t total = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(test::testdata_dir()))
    if (entry.is_regular_file()) total += entry.file_size();
  EXPECT_LT(total, uintmax_t(1536) * 1024) << "testdata/ is " << total << " bytes";
}

}  // namespace
}  // namespace gpublur
