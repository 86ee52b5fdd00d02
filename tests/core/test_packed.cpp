// The 8-bit path's tables and host forms (core/packed.hpp) against the float path they replace:
// to_working / from_working (core/color.hpp) and the PNG writer's rounding, bit for bit; and the cpu backend
// through Backend's default upload_packed / download_packed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/backend.hpp"
#include "core/color.hpp"
#include "core/packed.hpp"
#include "core/reference/reference.hpp"
#include "tests/core/packed_check.hpp"

namespace gpublur::testing {
namespace {

// The PNG writer's rounding (core/io's quantize at 255).
uint32_t writer_level(float v) {
  if (!(v > 0.0f)) return 0;
  if (v >= 1.0f) return 255;
  return uint32_t(double(v) * 255 + 0.5);
}

std::vector<float> probe_values(const float* thresholds) {
  std::vector<float> v = {0.0f, -0.0f, -1.0f, 1.0f, 2.0f, 1e-30f, 1e-8f, std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()};
  for (int k = 0; k < 255; ++k) {
    const float t = thresholds[k];
    v.push_back(t);
    v.push_back(std::nextafter(t, 0.0f));
    v.push_back(std::nextafter(t, 2.0f));
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-0.05f, 1.05f);
  for (int i = 0; i < 20000; ++i) v.push_back(u(rng));
  return v;
}

TEST(Packed, LevelsEqualTheWritersAndTheSrgbEncoder) {
  ColorState state;
  ColorOptions linear, plain;
  plain.linear = false;
  const PackedColour lc = packed_colour(png_meta(3), 3, linear, state);
  const PackedColour pc = packed_colour(png_meta(3), 3, plain, state);
  for (float v : probe_values(lc.encode)) EXPECT_EQ(packed_level(v, lc.encode), srgb_encode_level(v, 255)) << v;
  for (float v : probe_values(pc.encode)) {
    EXPECT_EQ(packed_level(v, pc.encode), writer_level(v)) << v;
    EXPECT_EQ(packed_level(v, lc.encode_alpha), writer_level(v)) << v;
  }
  // Thresholds rise strictly (each level is reached somewhere) and start above 0.
  for (int k = 1; k < 255; ++k) EXPECT_LT(lc.encode[k - 1], lc.encode[k]) << k;
  EXPECT_GT(lc.encode[0], 0.0f);
  EXPECT_LE(lc.encode[254], 1.0f);
}

// unpack_image is to_working of the dequantised samples; pack_image is from_working then the writer's rounding.
TEST(Packed, HostFormsEqualTheFloatPath) {
  uint32_t seed = 11;
  for (int c = 1; c <= 4; ++c)
    for (int opt = 0; opt < 4; ++opt) {
      ColorOptions co;
      co.linear = opt & 1;
      co.premultiply = (opt & 2) == 0;
      SCOPED_TRACE(::testing::Message() << c << " channels, linear " << co.linear << ", premultiply " << co.premultiply);
      const ImageMeta meta = png_meta(c);
      ColorState packed_state;
      const PackedColour colour = packed_colour(meta, c, co, packed_state);
      const PackedImage src = random_packed(61, 7, c, seed++);

      Image float_path(src.width, src.height, c);
      for (size_t i = 0; i < src.samples.size(); ++i) float_path.data[i] = float(src.samples[i]) / float(255);
      const ColorState state = to_working(float_path, meta, co);
      EXPECT_EQ(state.alpha_channel, packed_state.alpha_channel);
      EXPECT_EQ(state.premultiplied, packed_state.premultiplied);
      EXPECT_EQ(state.srgb_encoded, packed_state.srgb_encoded);
      Image unpacked;
      unpack_image(src, colour, unpacked);
      ASSERT_EQ(unpacked.data.size(), float_path.data.size());
      EXPECT_EQ(0, std::memcmp(unpacked.data.data(), float_path.data.data(), unpacked.byte_count()));

      // A "blurred" image: values a little outside [0, 1], alphas of 0 and 1 among them, a NaN.
      Image out = unpacked;
      std::mt19937 rng(seed);
      std::uniform_real_distribution<float> u(-0.02f, 1.02f);
      for (float& v : out.data) v = (rng() & 15) == 0 ? 0.0f : (rng() & 15) == 1 ? 1.0f : u(rng);
      out.data[0] = std::numeric_limits<float>::quiet_NaN();
      // Alphas that write as 0 but are not 0 (a blur's residue under colour residue or emission).
      for (size_t p = 1; state.alpha_channel >= 0 && p < out.pixel_count(); p += 5)
        out.data[p * c + size_t(state.alpha_channel)] = p % 2 ? 1e-9f : 1.5e-3f;
      PackedImage packed;
      pack_image(out, colour, packed);
      Image written = out;
      ImageMeta out_meta = meta;
      from_working(written, state, "png", co, out_meta);
      EXPECT_EQ(out_meta.srgb, colour.out_srgb);
      ASSERT_EQ(packed.samples.size(), written.data.size());
      for (size_t i = 0; i < written.data.size(); ++i)
        ASSERT_EQ(packed.samples[i], writer_level(written.data[i])) << "sample " << i << " value " << out.data[i];
      // The values clipped by more than half a level: packing counts what from_working's encoding and the writer
      // count (from_working's in out_meta.clipped, the writer's on what it is given, prepare_write's bounds).
      ClipCounts floats = out_meta.clipped;
      count_clipping(written, -1, png_clip_bounds(255, false), floats);
      EXPECT_GT(packed.clipped.total(), 0u);
      EXPECT_EQ(packed.clipped.below, floats.below);
      EXPECT_EQ(packed.clipped.above, floats.above);
      EXPECT_EQ(packed.clipped.nan, floats.nan);
      EXPECT_EQ(packed.clipped.hidden, floats.hidden);
      if (state.alpha_channel >= 0 && co.premultiply) EXPECT_GT(packed.clipped.hidden, 0u);
    }
}

// A pixel is transparent where its alpha writes as level 0: png_alpha_one is the writer's level 1, the packed
// tables' first alpha threshold at 255.
TEST(Packed, AlphaOneIsTheWritersLevelOne) {
  ColorState state;
  const PackedColour pc = packed_colour(png_meta(4), 4, ColorOptions{}, state);
  EXPECT_EQ(png_alpha_one(255), pc.encode_alpha[0]);
  for (uint32_t maxval : {255u, 65535u}) {
    const float one = png_alpha_one(maxval);
    EXPECT_EQ(uint32_t(double(one) * maxval + 0.5), 1u) << maxval;
    EXPECT_EQ(uint32_t(double(std::nextafter(one, 0.0f)) * maxval + 0.5), 0u) << maxval;
  }
}

// The bounds are half a level beyond the ends, in the value's own domain: through sRGB's curve for a linear value.
TEST(Packed, ClipBoundsAreHalfALevelOut) {
  const ClipBounds plain = png_clip_bounds(255, false), srgb = png_clip_bounds(255, true);
  EXPECT_FLOAT_EQ(plain.below, -0.5f / 255);
  EXPECT_FLOAT_EQ(plain.above, 1 + 0.5f / 255);
  EXPECT_FLOAT_EQ(srgb.below, -0.5f / 255 / 12.92f);
  // Encoded, the sRGB bound is 1 + half a level; the writer's level there is still the top one.
  EXPECT_NEAR(1.055 * std::pow(double(srgb.above), 1 / 2.4) - 0.055, 1 + 0.5 / 255, 1e-6);
  EXPECT_EQ(srgb_encode_level(srgb.above, 255), 255u);
  ClipCounts c;
  Image img(5, 1, 1);
  img.data = {srgb.below, std::nextafter(srgb.below, -1.0f), srgb.above, std::nextafter(srgb.above, 2.0f),
              std::nanf("")};
  count_clipping(img, -1, srgb, c);
  EXPECT_EQ(c.below, 1u);
  EXPECT_EQ(c.above, 1u);
  EXPECT_EQ(c.nan, 1u);
  // Alpha is skipped where named.
  ClipCounts a;
  Image two(1, 1, 2);
  two.data = {2.0f, 2.0f};
  count_clipping(two, 1, plain, a);
  EXPECT_EQ(a.above, 1u);
}

TEST(Packed, CpuBackendThroughTheDefaultForms) {
  auto be = make_cpu_backend(BackendOptions{});
  EXPECT_EQ(expect_packed_matches_host(*be, "gauss-sep", {{"sigma", "2"}}), 64);
  expect_packed_matches_host(*be, "copy", {});
}

}  // namespace
}  // namespace gpublur::testing
