// The check every backend's 8-bit path passes (core/packed.hpp): upload_packed -> run -> download_packed gives
// the same bytes as the host forms around the float path (unpack_image -> upload -> run -> download ->
// pack_image) on the same backend, bit for bit, for 1..4 channels, odd sizes, transparent and opaque pixels,
// and every colour option. Also the float download after upload_packed (an 8-bit PNG written as EXR) equals
// the float path's.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "core/backend.hpp"
#include "core/packed.hpp"
#include "core/registry.hpp"

namespace gpublur::testing {

// Samples with many 0 and 255 alphas (the division's edge) and every byte value somewhere.
inline PackedImage random_packed(int w, int h, int c, uint32_t seed) {
  PackedImage p{w, h, c, std::vector<unsigned char>(size_t(w) * h * c), {}};
  std::mt19937 rng(seed);
  for (size_t i = 0; i < p.samples.size(); ++i) {
    const uint32_t r = rng();
    p.samples[i] = (r & 7) == 0 ? 0 : (r & 7) == 1 ? 255 : (unsigned char)(r >> 8);
  }
  return p;
}

inline ImageMeta png_meta(int channels) {
  ImageMeta m;
  m.format = "png";
  m.srgb = true;
  m.pixel_type = PixelType::UInt8;
  m.alpha_channel = channels == 2 ? 1 : channels == 4 ? 3 : -1;
  return m;
}

// Returns the number of cases compared.
inline int expect_packed_matches_host(Backend& be, const std::string& method,
                                      const std::map<std::string, std::string>& params) {
  Plan plan;
  const Status ps = resolve_plan(method, params, plan);
  EXPECT_TRUE(ps.ok()) << ps.error;
  struct Size {
    int w, h;
  };
  const Size sizes[] = {{1, 1}, {3, 2}, {37, 19}, {64, 33}};
  int cases = 0;
  uint32_t seed = 4242;
  for (int c = 1; c <= 4; ++c)
    for (const Size sz : sizes)
      for (int opt = 0; opt < 4; ++opt) {
        ColorOptions co;
        co.linear = opt & 1;
        co.premultiply = (opt & 2) == 0;
        SCOPED_TRACE(::testing::Message() << be.name() << " " << method << " " << sz.w << "x" << sz.h << "x" << c
                                          << " linear " << co.linear << " premultiply " << co.premultiply);
        ColorState state;
        const PackedColour colour = packed_colour(png_meta(c), c, co, state);
        const PackedImage src = random_packed(sz.w, sz.h, c, seed++);
        double ms = 0;
        RunInfo info;
        // The host forms around the float path.
        Image host;
        unpack_image(src, colour, host);
        EXPECT_TRUE(be.upload(host, ms).ok());
        EXPECT_TRUE(be.run(plan, info).ok());
        Image host_out;
        EXPECT_TRUE(be.download(host_out, ms).ok());
        PackedImage want;
        pack_image(host_out, colour, want);
        // The backend's own.
        PackedImage got;
        Status s = be.upload_packed(src, colour, ms);
        EXPECT_TRUE(s.ok()) << s.error;
        s = be.run(plan, info);
        EXPECT_TRUE(s.ok()) << s.error;
        s = be.download_packed(got, colour, ms);
        EXPECT_TRUE(s.ok()) << s.error;
        EXPECT_EQ(got.width, sz.w);
        EXPECT_EQ(got.height, sz.h);
        EXPECT_EQ(got.channels, c);
        size_t differ = 0, first = 0;
        for (size_t i = 0; i < want.samples.size() && i < got.samples.size(); ++i)
          if (want.samples[i] != got.samples[i] && differ++ == 0) first = i;
        EXPECT_EQ(differ, 0u) << "first at sample " << first << ": " << int(got.samples[first]) << " vs "
                              << int(want.samples[first]);
        EXPECT_EQ(got.samples.size(), want.samples.size());
        // The clipped values' counts (PackedImage::clipped) as the host form counts them, on values beyond [0, 1]
        // and NaN put on the device by a float upload and the registry's bandwidth-floor method (copy).
        Image wild = host_out;
        for (size_t i = 0; i < wild.data.size(); i += 3)
          wild.data[i] = i % 9 == 0 ? 1.5f : i % 9 == 3 ? -0.25f : std::nanf("");
        // Transparent pixels (alpha below its level 1, or at it): a blur's residue (colour 0 there, not counted),
        // emission (dropped and counted as hidden), and colour at alpha's level 1 itself (divided).
        const int a = colour.alpha_channel;
        for (size_t p = 1; a >= 0 && p < wild.pixel_count(); p += 3) {
          float* px = wild.data.data() + p * c;
          const float one = colour.encode_alpha[0];
          px[a] = p % 2 ? 1e-9f : p % 4 ? one : std::nextafter(one, 0.0f);
          for (int k = 0; k < c; ++k)
            if (k != a) px[k] = k == 0 && c == 4 ? 1e-12f : 0.25f * px[a] + (p % 2 ? 0.5f : 0.0f);
        }
        Plan copy;
        EXPECT_TRUE(resolve_plan(bandwidth_floor_method()->name, {}, copy).ok());
        PackedImage wild_want, wild_got;
        EXPECT_TRUE(be.upload(wild, ms).ok());
        EXPECT_TRUE(be.run(copy, info).ok());
        Image wild_stored;  // as the backend holds it (half storage rounds 1e-9 to 0 and alpha's level 1 to a level)
        EXPECT_TRUE(be.download(wild_stored, ms).ok());
        pack_image(wild_stored, colour, wild_want);
        s = be.download_packed(wild_got, colour, ms);
        EXPECT_TRUE(s.ok()) << s.error;
        EXPECT_TRUE(wild_got.samples == wild_want.samples);
        EXPECT_GT(wild_want.clipped.total(), 0u);
        EXPECT_EQ(wild_got.clipped.below, wild_want.clipped.below);
        EXPECT_EQ(wild_got.clipped.above, wild_want.clipped.above);
        EXPECT_EQ(wild_got.clipped.nan, wild_want.clipped.nan);
        EXPECT_EQ(wild_got.clipped.hidden, wild_want.clipped.hidden);
        if (a >= 0 && co.premultiply && sz.w * sz.h > 1) {
          EXPECT_GT(wild_want.clipped.hidden, 0u);
        }
        EXPECT_TRUE(got.clipped == want.clipped);
        // The float download after an 8-bit upload (e.g. written as EXR).
        Image as_float;
        EXPECT_TRUE(be.upload_packed(src, colour, ms).ok());
        EXPECT_TRUE(be.run(plan, info).ok());
        EXPECT_TRUE(be.download(as_float, ms).ok());
        EXPECT_EQ(as_float.data, host_out.data);
        ++cases;
      }
  return cases;
}

}  // namespace gpublur::testing
