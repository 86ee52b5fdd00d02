// Colour handling: exact sRGB transfer functions, premultiplied alpha, channel groups.
#include <algorithm>
#include <cmath>
#include <random>
#include <gtest/gtest.h>

#include "core/color.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur {
namespace {

TEST(Color, SrgbKnownValues) {
  EXPECT_FLOAT_EQ(srgb_to_linear(0.0f), 0.0f);
  EXPECT_FLOAT_EQ(srgb_to_linear(1.0f), 1.0f);
  EXPECT_NEAR(srgb_to_linear(0.5f), 0.214041140, 1e-7);       // ((0.5+0.055)/1.055)^2.4
  EXPECT_NEAR(srgb_to_linear(0.04045f), 0.04045 / 12.92, 1e-9);  // linear segment
  EXPECT_NEAR(linear_to_srgb(0.0031308f), 0.0031308 * 12.92, 1e-7);
  EXPECT_NEAR(linear_to_srgb(0.18f), 0.461356129, 1e-6);
}

TEST(Color, SrgbRoundTripEvery8And16BitCode) {
  double worst = 0;
  for (int v = 0; v <= 65535; ++v) {
    const float x = float(v) / 65535.0f;
    worst = std::max(worst, double(std::fabs(linear_to_srgb(srgb_to_linear(x)) - x)));
  }
  EXPECT_LT(worst, 2e-7);
  // 8-bit codes survive the round trip exactly after quantisation.
  for (int v = 0; v <= 255; ++v)
    EXPECT_EQ(int(std::lround(linear_to_srgb(srgb_to_linear(v / 255.0f)) * 255.0f)), v);
}

// The tables behind to_working / from_working must give exactly what the pow-based functions give.
uint32_t level_by_pow(float v, uint32_t maxval) {  // quantize(linear_to_srgb(v)), as core/io quantises
  const float s = linear_to_srgb(v);
  if (!(s > 0.0f)) return 0;
  if (s >= 1.0f) return maxval;
  return uint32_t(double(s) * maxval + 0.5);
}

TEST(Color, DecodeTablesEqualTheFunctionBitForBit) {
  for (uint32_t q = 0; q <= 65535; ++q) {
    const float v16 = float(q) / 65535.0f;
    ASSERT_EQ(srgb_decode_fast(v16, PixelType::UInt16), srgb_to_linear(v16)) << q;
    if (q <= 255) {
      const float v8 = float(q) / 255.0f;
      ASSERT_EQ(srgb_decode_fast(v8, PixelType::UInt8), srgb_to_linear(v8)) << q;
    }
  }
  // Values off the grid (a float PNG never gives them, but to_working must not care) fall back exactly.
  for (float v : {0.5f + 1e-4f, -0.25f, 1.5f, 1e-9f, 0.2137f})
    EXPECT_EQ(srgb_decode_fast(v, PixelType::UInt8), srgb_to_linear(v));
  EXPECT_TRUE(std::isnan(srgb_decode_fast(NAN, PixelType::UInt8)));
}

TEST(Color, EncodeLevelsEqualQuantisedFunction) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uni(0.0f, 1.0f);
  for (uint32_t maxval : {255u, 65535u}) {
    for (float v : {0.0f, -0.0f, -1.0f, 1.0f, 1.0f - 6e-8f, 2.0f, 1e-30f, 1e-7f, 6e-7f, 0.0031308f, NAN,
                    INFINITY, -INFINITY})
      EXPECT_EQ(srgb_encode_level(v, maxval), level_by_pow(v, maxval)) << maxval << " " << v;
    for (int i = 0; i < 300000; ++i) {
      const float v = uni(rng);
      ASSERT_EQ(srgb_encode_level(v, maxval), level_by_pow(v, maxval)) << maxval << " " << v;
    }
    // Every level's boundary: the floats just around the value that encodes to the middle between levels (the
    // 16-bit table's thresholds are found from there: each one checked).
    for (uint32_t q = 1; q <= maxval; ++q) {
      const float mid = srgb_to_linear(float((q - 0.5) / maxval));
      float v = mid;
      for (int k = 0; k < 8; ++k) v = std::nextafter(v, 0.0f);
      for (int k = 0; k < 16; ++k, v = std::nextafter(v, 2.0f))
        ASSERT_EQ(srgb_encode_level(v, maxval), level_by_pow(v, maxval)) << maxval << " " << q << " " << v;
    }
  }
}

TEST(Color, FromWorkingToIntegerPngWritesTheSameLevels) {
  Image img = testing::random_image(31, 7, 4, 8);
  for (size_t i = 0; i < img.pixel_count(); ++i) img.data[i * 4 + 3] = 0.1f + 0.9f * img.data[i * 4 + 3];
  for (PixelType t : {PixelType::UInt8, PixelType::UInt16}) {
    const uint32_t maxval = t == PixelType::UInt8 ? 255 : 65535;
    Image a = img, b = img;
    ColorState st;
    st.alpha_channel = 3;
    st.premultiplied = true;
    ImageMeta ma, mb;
    ma.pixel_type = t;  // snapped to levels
    mb.pixel_type = PixelType::Float;  // the pow-based path
    from_working(a, st, "png", ColorOptions{}, ma);
    from_working(b, st, "png", ColorOptions{}, mb);
    auto quantize = [&](float v) {  // as core/io's writers do
      return !(v > 0.0f) ? 0u : v >= 1.0f ? maxval : uint32_t(double(v) * maxval + 0.5);
    };
    for (size_t i = 0; i < a.value_count(); ++i) {
      const uint32_t want = quantize(b.data[i]);
      ASSERT_EQ(quantize(a.data[i]), want) << i;
    }
  }
}

TEST(Color, SrgbIsMonotonic) {
  float prev = -1;
  for (int v = 0; v <= 4096; ++v) {
    const float y = srgb_to_linear(v / 4096.0f);
    EXPECT_GT(y, prev);
    prev = y;
  }
}

TEST(Color, PremultiplyRoundTrip) {
  Image img = testing::random_image(17, 9, 4, 11);
  for (size_t i = 0; i < img.pixel_count(); ++i) img.data[i * 4 + 3] = 0.05f + 0.95f * img.data[i * 4 + 3];
  const Image orig = img;
  premultiply_alpha(img, 3);
  for (size_t i = 0; i < img.pixel_count(); ++i)
    for (int k = 0; k < 3; ++k) EXPECT_FLOAT_EQ(img.data[i * 4 + k], orig.data[i * 4 + k] * orig.data[i * 4 + 3]);
  ClipCounts n;
  unpremultiply_alpha(img, 3, png_alpha_one(255), n);
  for (size_t i = 0; i < img.value_count(); ++i) EXPECT_NEAR(img.data[i], orig.data[i], 1e-6);
  EXPECT_EQ(n.total(), 0u);
}

// A pixel whose alpha writes as 0 is transparent: colour 0 whatever a blur's residue left (1e-21 / 1e-22 would
// un-premultiply to 10 and count as clipped), and colour more than its coverage explains (emission) counted as hidden.
TEST(Color, UnpremultiplyTransparentPixelsGiveZeroColour) {
  Image img(5, 1, 2);  // gray + alpha
  const float one = png_alpha_one(255);
  img.data = {0.3f, 0.0f, 0.2f, 0.5f, 1e-21f, 1e-22f, 0.1f * one, one, 0.9f * one, std::nextafter(one, 0.0f)};
  ClipCounts n;
  unpremultiply_alpha(img, 1, one, n);
  EXPECT_EQ(img.data[0], 0.0f);
  EXPECT_EQ(img.data[1], 0.0f);
  EXPECT_FLOAT_EQ(img.data[2], 0.4f);
  EXPECT_EQ(img.data[4], 0.0f);
  EXPECT_FLOAT_EQ(img.data[6], 0.1f);  // alpha at its level 1: divided
  EXPECT_EQ(img.data[8], 0.0f);
  EXPECT_EQ(n.hidden, 1u);  // the 0.3 at alpha 0; not the residue, not a fringe's 0.9 * one
  EXPECT_EQ(n.total(), 1u);
  ClipCounts edge;
  Image at(3, 1, 2);
  at.data = {std::nextafter(one, 0.0f), 0.0f, one, 0.0f, std::nanf(""), 0.0f};
  unpremultiply_alpha(at, 1, one, edge);
  EXPECT_EQ(edge.hidden, 2u);  // colour of alpha's level 1 or more, and NaN
  EXPECT_EQ(at.data[4], 0.0f);
}

ImageMeta png_rgba() {
  ImageMeta m;
  m.format = "png";
  m.pixel_type = PixelType::UInt8;
  m.channel_names = {"R", "G", "B", "A"};
  m.alpha_channel = 3;
  m.srgb = true;
  return m;
}

TEST(Color, PngWorkingSpaceIsLinearPremultipliedAndBack) {
  Image img = testing::random_image(8, 5, 4, 3);
  const Image orig = img;
  const ColorState st = to_working(img, png_rgba(), ColorOptions{});
  EXPECT_FALSE(st.srgb_encoded);
  EXPECT_TRUE(st.premultiplied);
  for (size_t i = 0; i < img.pixel_count(); ++i) {
    const float a = orig.data[i * 4 + 3];
    EXPECT_EQ(img.data[i * 4 + 3], a);  // alpha is never transformed
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(img.data[i * 4 + k], srgb_to_linear(orig.data[i * 4 + k]) * a, 1e-7);
  }
  ImageMeta out;
  from_working(img, st, "png", ColorOptions{}, out);
  EXPECT_TRUE(out.srgb);
  for (size_t i = 0; i < img.value_count(); ++i) EXPECT_NEAR(img.data[i], orig.data[i], 2e-5);
}

TEST(Color, PngToExrStaysLinearAndPremultiplied) {
  Image img = testing::random_image(4, 4, 4, 5);
  const Image orig = img;
  const ColorState st = to_working(img, png_rgba(), ColorOptions{});
  const Image working = img;
  ImageMeta out;
  from_working(img, st, "exr", ColorOptions{}, out);
  EXPECT_FALSE(out.srgb);
  EXPECT_EQ(img.data, working.data);
  EXPECT_NE(img.data, orig.data);
}

TEST(Color, ExrIsLeftAlone) {
  Image img = testing::random_image(6, 3, 4, 9);
  const Image orig = img;
  ImageMeta m;
  m.format = "exr";
  m.pixel_type = PixelType::Half;
  m.alpha_channel = 3;
  const ColorState st = to_working(img, m, ColorOptions{});
  EXPECT_TRUE(st.premultiplied);
  EXPECT_EQ(img.data, orig.data);
  ImageMeta out;
  from_working(img, st, "exr", ColorOptions{}, out);
  EXPECT_EQ(img.data, orig.data);
}

TEST(Color, SwitchesTurnConversionsOff) {
  Image img = testing::random_image(5, 5, 4, 21);
  const Image orig = img;
  ColorOptions off;
  off.linear = false;
  off.premultiply = false;
  const ColorState st = to_working(img, png_rgba(), off);
  EXPECT_TRUE(st.srgb_encoded);
  EXPECT_EQ(img.data, orig.data);
  ImageMeta out;
  from_working(img, st, "png", off, out);
  EXPECT_TRUE(out.srgb);
  EXPECT_EQ(img.data, orig.data);

  // Only linear off: premultiplied in the encoded values.
  ColorOptions nolin;
  nolin.linear = false;
  img = orig;
  to_working(img, png_rgba(), nolin);
  EXPECT_FLOAT_EQ(img.data[0], orig.data[0] * orig.data[3]);
}

TEST(Color, ChannelGroupsRoundTrip) {
  const Image img = testing::random_image(7, 3, 10, 4);
  Image back(7, 3, 10);
  for (int first = 0; first < 10; first += 4) {
    const int count = std::min(4, 10 - first);
    Image part = extract_channels(img, first, count);
    ASSERT_EQ(part.channels, count);
    EXPECT_EQ(part.at(2, 1, 0), img.at(2, 1, first));
    insert_channels(part, first, back);
  }
  EXPECT_EQ(back.data, img.data);
}

}  // namespace
}  // namespace gpublur
