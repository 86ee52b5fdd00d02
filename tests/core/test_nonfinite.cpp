// core/nonfinite.hpp: which outputs a non-finite input reaches, against the direct square footprint read through the
// border (every mode, reaches past the image and iir's whole-image reach, 1-4 channels), and what take_nonfinite records and zeroes.
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>

#include "core/nonfinite.hpp"
#include "core/plan.hpp"
#include "tests/core/nonfinite_footprint.hpp"

namespace gpublur {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN(), kInf = std::numeric_limits<float>::infinity();

using testing::direct_footprint;
using testing::Footprint;
using testing::footprint_of;

TEST(Nonfinite, OutputsFollowTheDirectFootprint) {
  std::mt19937 rng(11);
  int cases = 0;
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{7, 3}, std::pair{13, 9}, std::pair{3, 17}})
      for (int c : {1, 2, 3, 4})
        for (int reach : {0, 1, 2, 5, 20, Plan::kWholeImageReach}) {
          SCOPED_TRACE(std::string(border_name(b)) + " " + std::to_string(w) + "x" + std::to_string(h) + "x" +
                       std::to_string(c) + " reach " + std::to_string(reach));
          Image img(w, h, c);
          std::uniform_int_distribution<int> pick(0, 23);
          for (float& v : img.data) {
            const int k = pick(rng);  // about one in eight non-finite, of each kind
            v = k == 0 ? kNan : k == 1 ? kInf : k == 2 ? -kInf : 0.5f;
          }
          const Image in = img;
          NonfiniteMarks marks;
          ASSERT_EQ(take_nonfinite(img, marks), std::any_of(in.data.begin(), in.data.end(),
                                                            [](float v) { return !std::isfinite(v); }));
          size_t count = 0;
          for (size_t i = 0; i < in.data.size(); ++i) {
            count += std::isfinite(in.data[i]) ? 0 : 1;
            EXPECT_EQ(img.data[i], std::isfinite(in.data[i]) ? in.data[i] : 0.0f);
          }
          EXPECT_EQ(marks.count, count);
          Image out(w, h, c);
          for (float& v : out.data) v = 0.25f;
          put_nonfinite(marks, reach, b, out);
          for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
              for (int ch = 0; ch < c; ++ch) {
                const Footprint want = direct_footprint(in, x, y, ch, reach, b);
                const float got = out.at(x, y, ch);
                EXPECT_EQ(footprint_of(got), want) << x << "," << y << "," << ch;
                if (want == Footprint::Finite) EXPECT_EQ(got, 0.25f);
                // iir's reach: the whole channel, as soon as it holds one.
                if (reach == Plan::kWholeImageReach) {
                  bool any = false;
                  for (int i = 0; i < w * h; ++i) any = any || !std::isfinite(in.data[size_t(i) * c + ch]);
                  EXPECT_EQ(std::isfinite(got), !any) << x << "," << y << "," << ch;
                }
              }
          ++cases;
        }
  EXPECT_EQ(cases, 4 * 4 * 4 * 6);
}

TEST(Nonfinite, FiniteImagesAreLeftAlone) {
  Image img(5, 4, 3);
  for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = float(i) * 1e30f;  // large, finite
  const Image before = img;
  NonfiniteMarks marks;
  EXPECT_FALSE(take_nonfinite(img, marks));
  EXPECT_EQ(marks.count, 0u);
  EXPECT_EQ(img.data, before.data);
  put_nonfinite(marks, 3, Border::Clamp, img);
  EXPECT_EQ(img.data, before.data);
}

}  // namespace
}  // namespace gpublur
