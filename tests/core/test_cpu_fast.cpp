// The cpu backend's schedules (core/reference/cpu_fast.hpp) against the float64 reference primitives they stand
// in for: Conv1d in float32 with any taps (asymmetric too), Box1d / MovingAverage and Integral1d as float64 running
// sums with any cascade of odd or real widths, Iir1d as float64 recursions over batches of lines, Down2 / Up2 with
// column tables, kawase's and the dual filter's 4 x 4 blocks, bilateral tap by tap over planar rows; every border,
// 1-4 channels, images smaller than the kernel; and that they are what the cpu backend runs.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>

#include "core/methods/recipe.hpp"
#include "core/reference/pass_table.hpp"
#include "core/reference/reference.hpp"
#include "random_image.hpp"

namespace gpublur {
namespace {

Program pair_program(const std::vector<float>& tx, const std::vector<float>& ty, Border b, Op op = Op::Conv1d) {
  Program p;
  const int mid = p.add_image(ImageDecl{});
  Pass x;
  x.op = op, x.src = 0, x.dst = mid, x.axis = 0, x.border = b, x.taps = tx;
  Pass y = x;
  y.src = mid, y.dst = 1, y.axis = 1, y.taps = ty;
  p.passes = {x, y};
  return p;
}

std::vector<float> random_taps(int r, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-0.5f, 1.0f);
  std::vector<float> t(size_t(2 * r + 1));
  for (float& v : t) v = u(rng);
  return t;
}

double worst_difference(const Image& a, const Image& b) {
  double worst = 0;
  for (size_t i = 0; i < a.data.size(); ++i) worst = std::max(worst, double(std::abs(a.data[i] - b.data[i])));
  return worst;
}

TEST(CpuFast, SeparablePairEqualsTheReference) {
  std::mt19937 rng(7);
  const std::pair<int, int> sizes[] = {{1, 1}, {5, 3}, {67, 41}, {1100, 9}};
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (int c = 1; c <= 4; ++c)
      for (auto [w, h] : sizes)
        for (int r : {0, 1, 4, 13}) {
          // Asymmetric taps on x, symmetric ones on y (the two loops of the kernel).
          std::vector<float> ty = random_taps(r, rng);
          for (int j = 1; j <= r; ++j) ty[size_t(r + j)] = ty[size_t(r - j)];
          const Program p = pair_program(random_taps(r, rng), ty, b);
          ASSERT_TRUE(validate_program(p).ok());
          const Image src = testing::random_image(w, h, c, uint32_t(w * 31 + c * 7 + r));
          Image ref, fast;
          std::string path;
          ASSERT_TRUE(run_program_cpu(p, src, ref, 1).ok());
          ASSERT_TRUE(run_program_cpu(p, src, fast, 2, &path).ok());
          EXPECT_EQ(path, "conv1d-f32-simd+conv1d-f32-simd");
          // Float32 sums of up to 27 products of |w| <= 1 and values <= 1: a few units of 1e-6.
          EXPECT_LE(worst_difference(ref, fast), 2e-5)
              << border_name(b) << " c" << c << " " << w << "x" << h << " r" << r;
        }
}

// The float64 schedules against the reference: `program(border, i)` (i counts the cases, to vary settings) on
// random images of every border, 1-4 channels and sizes from 1x1 to lines longer than the kernels; the schedule
// `path_of(border)` ran. Both compute in float64 (the reference by prefix differences, one value at a time or a
// remap a read; these by running sums, batched recursions, column tables); the outputs round to float once.
template <class MakeProgram, class PathOf>
void expect_lines_equal_reference_by(MakeProgram program, PathOf path_of) {
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 7}, {67, 41}, {1100, 9}, {5, 700}};
  int i = 0;
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero})
    for (int c = 1; c <= 4; ++c)
      for (auto [w, h] : sizes) {
        const Program p = program(b, i++);
        ASSERT_TRUE(validate_program(p).ok());
        const Image src = testing::random_image(w, h, c, uint32_t(w * 17 + h + c + i));
        Image ref, fast;
        std::string ran;
        ASSERT_TRUE(run_program_cpu(p, src, ref, 1).ok());
        ASSERT_TRUE(run_program_cpu(p, src, fast, 2, &ran).ok());
        EXPECT_EQ(ran, path_of(b));
        EXPECT_LE(worst_difference(ref, fast), 2e-7) << border_name(b) << " c" << c << " " << w << "x" << h
                                                     << " case " << i;
      }
}
// The same with one schedule's path for every border.
template <class MakeProgram>
void expect_lines_equal_reference(MakeProgram program, const std::string& path) {
  expect_lines_equal_reference_by(program, [&](Border) { return path; });
}

// Two passes through a half-resolution image with `pad` pixels of padding: down (from the input), then up (to the
// output), both with border b.
Program through_half(Pass down, Pass up, Border b, int pad) {
  Program p;
  const int mid = p.add_image({pad, 2, false});
  down.src = 0, down.dst = mid, down.border = b;
  up.src = mid, up.dst = 1, up.border = b;
  p.passes = {down, up};
  return p;
}

TEST(CpuFast, BoxCascadesEqualTheReference) {
  const std::vector<int> cascades[] = {{1}, {3}, {5, 5, 7}, {41, 43, 43}, {9, 9, 11, 11, 13}, {301}};
  for (Op op : {Op::Box1d, Op::MovingAverage})
    expect_lines_equal_reference(
        [&](Border b, int i) {
          Program p = pair_program({}, {}, b, op);
          p.passes[0].widths = cascades[size_t(i) % std::size(cascades)];
          p.passes[1].widths = cascades[size_t(i * 5 + 2) % std::size(cascades)];
          return p;
        },
        "box1d-f64-sums+box1d-f64-sums");
}

TEST(CpuFast, IntegralCascadesEqualTheReference) {
  const std::vector<float> cascades[] = {{1.0f}, {2.5f}, {1.2f, 3.0f}, {7.3f, 7.3f, 7.3f, 7.3f, 7.3f}, {30.9f, 31.f},
                                         {250.4f}};
  expect_lines_equal_reference(
      [&](Border b, int i) {
        const size_t n = std::size(cascades);
        return pair_program(cascades[size_t(i) % n], cascades[size_t(i * 5 + 2) % n], b, Op::Integral1d);
      },
      "integral1d-f64-sums+integral1d-f64-sums");
}

TEST(CpuFast, IirEqualsTheReference) {
  for (const char* impl : {"young-van-vliet", "deriche"})
    for (const char* sigma : {"0.8", "5", "60"})
      expect_lines_equal_reference(
          [&](Border b, int) {
            Plan plan;
            EXPECT_TRUE(resolve_plan("iir", {{"sigma", sigma}, {"impl", impl}, {"border", border_name(b)}}, plan).ok());
            return plan.program;
          },
          "iir1d-f64-lanes+iir1d-f64-lanes");
}

// The cpu backend runs the schedules for the methods built on those primitives, within their bounds of the
// reference (float32 Conv1d, gauss-linear's bilinear taps as their discrete kernel: 1e-6 here; the float64
// lines: 2e-7).
TEST(CpuFast, CpuBackendRunsThem) {
  const struct {
    const char* method;
    std::map<std::string, std::string> params;
    const char* path;
    double bound;
  } cases[] = {
      {"gauss-sep", {{"sigma", "3"}}, "conv1d-f32-simd+conv1d-f32-simd", 1e-6},
      {"fft", {{"sigma", "3"}}, "conv1d-f32-simd+conv1d-f32-simd", 1e-6},
      {"gauss-linear", {{"sigma", "3"}}, "bilinear1d-conv1d-f32-simd+bilinear1d-conv1d-f32-simd", 1e-6},
      {"gauss-linear", {{"sigma", "12"}, {"border", "wrap"}}, "bilinear1d-conv1d-f32-simd+bilinear1d-conv1d-f32-simd",
       1e-6},
      {"box", {{"sigma", "12"}}, "box1d-f64-sums+box1d-f64-sums", 2e-7},
      {"box", {{"sigma", "12"}, {"impl", "moving-average"}}, "box1d-f64-sums+box1d-f64-sums", 2e-7},
      {"integral", {{"sigma", "12"}}, "integral1d-f64-sums+integral1d-f64-sums", 2e-7},
      {"iir", {{"sigma", "12"}, {"border", "mirror"}}, "iir1d-f64-lanes+iir1d-f64-lanes", 2e-7},
      {"gauss-sep", {{"sigma", "12"}, {"downsample", "2"}},
       "down2-rows+conv1d-f32-simd+conv1d-f32-simd+up2-rows", 1e-6},
      {"kawase", {{"sigma", "4"}}, "kawase-blocks+kawase-blocks+kawase-blocks+kawase-blocks", 2e-7},
      {"kawase", {{"sigma", "12"}, {"impl", "dual"}, {"border", "mirror"}},
       "dual-down-blocks+dual-down-blocks+dual-down-blocks+conv1d-f32-simd+conv1d-f32-simd+dual-up-blocks+"
       "dual-up-blocks+dual-up-blocks",
       1e-6},
  };
  for (const auto& c : cases) {
    Plan plan;
    ASSERT_TRUE(resolve_plan(c.method, c.params, plan).ok());
    auto be = make_cpu_backend(BackendOptions{});
    const Image src = testing::random_image(96, 80, 3, 5);
    double ms = 0;
    ASSERT_TRUE(be->upload(src, ms).ok());
    RunInfo info;
    ASSERT_TRUE(be->run(plan, info).ok());
    EXPECT_EQ(info.path, c.path) << c.method;
    Image out, ref;
    ASSERT_TRUE(be->download(out, ms).ok());
    ASSERT_TRUE(reference_run(plan, src, ref).ok());
    EXPECT_LE(worst_difference(ref, out), c.bound) << c.method;
  }
}

// Down2 then Up2 through a half-resolution image, unpadded (the --downsample levels) or padded by 1-2 pixels (the
// pyramid's rings: both passes write the padding and read the border mode over it), every analysis kernel length the
// recipes use (2, 4) and one longer; odd sizes, whose last coarse pixel reads past the fine image.
TEST(CpuFast, ResamplingEqualsTheReference) {
  const std::vector<float> kernels[] = {{0.5f, 0.5f}, {13 / 64.f, 19 / 64.f, 19 / 64.f, 13 / 64.f},
                                        {0.05f, 0.1f, 0.35f, 0.35f, 0.1f, 0.05f}};
  expect_lines_equal_reference(
      [&](Border b, int i) {
        const std::vector<float>& t = kernels[size_t(i) % std::size(kernels)];
        Pass down;
        down.op = Op::Down2, down.taps = t, down.widths = {-(int(t.size()) / 2 - 1)};
        Pass up;
        up.op = Op::Up2;
        return through_half(down, up, b, i % 3);
      },
      "down2-rows+up2-rows");
}

// Kawase's steps (k = 0: its middle pixel counted twice; k past the image: the border mode's far reads) and the
// dual filter's DualDown then DualUp through a half-resolution image (odd sizes: the last coarse pixel reads past the
// fine image; DualUp's two sample patterns).
TEST(CpuFast, KawaseAndDualEqualTheReference) {
  expect_lines_equal_reference(
      [](Border b, int i) {
        Program p;
        const int mid = p.add_image({0, 1, false});
        Pass a;
        a.op = Op::Kawase, a.src = 0, a.dst = mid, a.border = b, a.widths = {i % 4 == 0 ? 0 : 1 + i % 3};
        Pass c = a;
        c.src = mid, c.dst = 1, c.widths = {i % 5 == 1 ? 900 : i % 3};
        p.passes = {a, c};
        return p;
      },
      "kawase-blocks+kawase-blocks");
  expect_lines_equal_reference(
      [](Border b, int) {
        Pass down, up;
        down.op = Op::DualDown, up.op = Op::DualUp;
        return through_half(down, up, b, 0);
      },
      "dual-down-blocks+dual-up-blocks");
}

// Bilateral, brute (2D) and separable, narrow and wide range weights (sigma-range 0.02: most weights far below 1;
// 5: nearly the spatial Gaussian), with the alpha anywhere or none. Images with a NaN or an infinity run the reference.
TEST(CpuFast, BilateralEqualsTheReference) {
  const char* ranges[] = {"0.02", "0.3", "5"};
  for (const char* impl : {"brute", "separable"})
    expect_lines_equal_reference(
        [&](Border b, int i) {
          Plan plan;
          EXPECT_TRUE(resolve_plan("bilateral", {{"sigma", i % 2 ? "1.5" : "0.7"}, {"sigma-range", ranges[i % 3]},
                                                 {"impl", impl}, {"border", border_name(b)}},
                                   plan)
                          .ok());
          // Every alpha: the last of 2 and 4 (the default), none, the first, the second (Pass::alpha).
          const int alphas[] = {kAlphaLast, -1, 0, 1};
          for (Pass& q : plan.program.passes) q.alpha = alphas[(i / 3) % 4];
          return plan.program;
        },
        std::string(impl) == "brute" ? "bilateral-f64-rows" : "bilateral1d-f64-rows+bilateral1d-f64-rows");
  Plan plan;
  ASSERT_TRUE(resolve_plan("bilateral", {{"sigma", "1"}}, plan).ok());
  Image src = testing::random_image(9, 7, 4, 3);
  src.data[17] = std::nanf("");
  src.data[40] = INFINITY;
  Image ref, fast;
  std::string ran;
  ASSERT_TRUE(run_program_cpu(plan.program, src, ref, 1).ok());
  ASSERT_TRUE(run_program_cpu(plan.program, src, fast, 2, &ran).ok());
  EXPECT_EQ(ran, "bilateral");
  for (size_t i = 0; i < ref.data.size(); ++i)
    EXPECT_TRUE(ref.data[i] == fast.data[i] || (std::isnan(ref.data[i]) && std::isnan(fast.data[i]))) << i;
}

// Summed-area tables and their lookups: box --impl sat (a cascade of tables of padded intermediates) and spread (a
// table of a table), every border, 1-4 channels; both are float64 tables, so they equal the reference closely.
TEST(CpuFast, SatEqualsTheReference) {
  for (const char* passes : {"1", "3"})
    expect_lines_equal_reference(
        [&](Border b, int i) {
          Plan plan;
          EXPECT_TRUE(resolve_plan("box", {{"sigma", i % 2 ? "2" : "0.8"}, {"passes", passes}, {"impl", "sat"},
                                           {"border", border_name(b)}},
                                   plan)
                          .ok());
          return plan.program;
        },
        std::string(passes) == "1" ? "sat-rows+sat-box-rows"
                                    : "sat-rows+sat-box-rows+sat-rows+sat-box-rows+sat-rows+sat-box-rows");
  expect_lines_equal_reference(
      [](Border b, int i) {
        Plan plan;
        EXPECT_TRUE(resolve_plan("spread", {{"sigma", i % 2 ? "2" : "5"}, {"border", border_name(b)}}, plan).ok());
        return plan.program;
      },
      "spread-rows+sat-rows+sat-rows+scale-rows");
  // Radii far beyond the image, where the margin's fold reads it many times over (mirror, wrap).
  expect_lines_equal_reference(
      [](Border b, int i) {
        Plan plan;
        EXPECT_TRUE(resolve_plan("spread", {{"radius", i % 2 ? "40" : "300"}, {"border", border_name(b)}}, plan).ok());
        return plan.program;
      },
      "spread-rows+sat-rows+sat-rows+scale-rows");
}

// Diffusion's steps, 1-4 channels, widths of one pixel and more: on the image itself (mirror, wrap) and over a padded
// copy (clamp and zero: the recipe's copy in, steps, copy out, the copies the reference's).
TEST(CpuFast, DiffusionEqualsTheReference) {
  expect_lines_equal_reference_by(
      [](Border b, int i) {
        Plan plan;
        EXPECT_TRUE(resolve_plan("diffusion", {{"sigma", i % 2 ? "1" : "2.5"}, {"border", border_name(b)}}, plan).ok());
        return plan.program;
      },
      [](Border b) {
        return std::string(b == Border::Mirror || b == Border::Wrap ? "diffusion-rows" : "copy+diffusion-rows+copy");
      });
}

// Copy is a plain copy; other primitives run the reference.
TEST(CpuFast, OtherProgramsRunTheReference) {
  Plan g2;
  ASSERT_TRUE(resolve_plan("gauss-2d", {{"sigma", "1"}}, g2).ok());
  const Image src = testing::random_image(20, 10, 2, 1);
  Image out;
  std::string path;
  ASSERT_TRUE(run_program_cpu(g2.program, src, out, 1, &path).ok());
  EXPECT_EQ(path, "conv2d");

  Plan copy;
  ASSERT_TRUE(resolve_plan("copy", {}, copy).ok());
  ASSERT_TRUE(run_program_cpu(copy.program, src, out, 1, &path).ok());
  EXPECT_EQ(path, "copy-f32");
  EXPECT_EQ(out.data, src.data);
}

}  // namespace
}  // namespace gpublur
