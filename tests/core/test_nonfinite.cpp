// core/nonfinite.hpp: which outputs a non-finite input reaches, against the direct square footprint read through the
// border (every mode, reaches past the image and iir's whole-image reach, 1-4 channels) and against a user kernel's
// direct convolution (zero and negative weights), and what take_nonfinite records and zeroes.
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

// A user's kernel (zero and negative weights, windows not square): the fill against the float arithmetic of the direct
// correlation itself, sum of w x over the nonzero weights (IEEE: Inf x -w = -Inf, Inf - Inf = NaN), for separable and
// 2D taps, every border, 1-3 channels. Its non-finite outputs are the fill's, its finite ones left alone.
TEST(Nonfinite, KernelTapsFollowTheDirectConvolution) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> pick(0, 29), sign(-1, 1);
  std::uniform_real_distribution<float> mag(0.25f, 2.0f);
  int cases = 0, changed = 0;
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{9, 4}, std::pair{13, 11}, std::pair{40, 30}})
      for (int c : {1, 3})
        for (const auto& [rx, ry] :
             {std::pair{0, 0}, std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 3}, std::pair{6, 5}})
          for (bool separable : {true, false}) {
            SCOPED_TRACE(std::string(border_name(b)) + " " + std::to_string(w) + "x" + std::to_string(h) + "x" +
                         std::to_string(c) + " taps " + std::to_string(2 * rx + 1) + "x" + std::to_string(2 * ry + 1) +
                         (separable ? " separable" : " 2d"));
            // Weights in correlation form: output (x, y) reads input (x + a, y + b) with wt[b + ry][a + rx].
            const int kw = 2 * rx + 1, kh = 2 * ry + 1;
            std::vector<float> wx(static_cast<size_t>(kw)), wy(static_cast<size_t>(kh));
            std::vector<float> wt(static_cast<size_t>(kw * kh));
            for (float& v : wx) v = float(sign(rng)) * mag(rng);
            for (float& v : wy) v = float(sign(rng)) * mag(rng);
            for (int j = 0; j < kh; ++j)
              for (int i = 0; i < kw; ++i)
                wt[size_t(j * kw + i)] = separable ? wx[size_t(i)] * wy[size_t(j)] : float(sign(rng)) * mag(rng);
            NonfiniteTaps taps;
            taps.rx = rx, taps.ry = ry, taps.separable = separable;
            auto sg = [](float v) { return int8_t(v > 0 ? 1 : v < 0 ? -1 : 0); };
            for (float v : wx) taps.sx.push_back(sg(v));
            for (float v : wy) taps.sy.push_back(sg(v));
            for (float v : wt) taps.s2d.push_back(sg(v));
            Image img(w, h, c);
            for (float& v : img.data) {
              const int k = pick(rng);
              v = k == 0 ? kNan : k == 1 ? kInf : k == 2 ? -kInf : 0.5f;
            }
            const Image in = img;
            NonfiniteMarks marks;
            take_nonfinite(img, marks);
            Image out(w, h, c);
            for (float& v : out.data) v = 0.25f;
            put_nonfinite(marks, taps, b, out);
            for (int y = 0; y < h; ++y)
              for (int x = 0; x < w; ++x)
                for (int ch = 0; ch < c; ++ch) {
                  float sum = 0;
                  for (int j = 0; j < kh; ++j)
                    for (int i = 0; i < kw; ++i) {
                      const float wgt = wt[size_t(j * kw + i)];
                      const int xi = remap_index(x + i - rx, w, b), yi = remap_index(y + j - ry, h, b);
                      if (wgt == 0 || xi < 0 || yi < 0) continue;  // a zero weight reads nothing
                      sum += wgt * in.at(xi, yi, ch);
                    }
                  const float got = out.at(x, y, ch);
                  if (std::isfinite(sum)) {
                    EXPECT_EQ(got, 0.25f) << x << "," << y << "," << ch;
                  } else {
                    EXPECT_EQ(footprint_of(got), footprint_of(sum)) << x << "," << y << "," << ch << ": " << sum;
                    ++changed;
                  }
                }
            ++cases;
          }
  EXPECT_EQ(cases, 4 * 4 * 2 * 5 * 2);
  EXPECT_GT(changed, 1000);  // (the cases met infinities of each sign and NaNs)
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
