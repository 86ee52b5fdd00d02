// The cpu backend's float32 schedule for Conv1d passes (core/reference/cpu_fast.hpp) against the
// float64 reference primitives it stands in for: any taps (asymmetric too), every border, 1-4 channels, images
// smaller than the kernel; and that it is what the cpu backend runs.
#include <gtest/gtest.h>

#include <random>

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

TEST(CpuFast, CpuBackendRunsItForGaussSepAndFft) {
  for (const char* method : {"gauss-sep", "fft"}) {
    Plan plan;
    ASSERT_TRUE(resolve_plan(method, {{"sigma", "3"}}, plan).ok());
    auto be = make_cpu_backend(BackendOptions{});
    const Image src = testing::random_image(64, 48, 3, 3);
    double ms = 0;
    ASSERT_TRUE(be->upload(src, ms).ok());
    RunInfo info;
    ASSERT_TRUE(be->run(plan, info).ok());
    EXPECT_EQ(info.path, "conv1d-f32-simd+conv1d-f32-simd") << method;
    Image out, ref;
    ASSERT_TRUE(be->download(out, ms).ok());
    ASSERT_TRUE(reference_run(plan, src, ref).ok());
    EXPECT_LE(worst_difference(ref, out), 1e-6) << method;
  }
}

// Copy is a plain copy; other primitives run the reference.
TEST(CpuFast, OtherProgramsRunTheReference) {
  Program p = pair_program({0.25f, 0.5f, 0.25f}, {0.25f, 0.5f, 0.25f}, Border::Clamp, Op::Box1d);
  p.passes[0].taps.clear(), p.passes[1].taps.clear();
  p.passes[0].widths = p.passes[1].widths = {3};
  ASSERT_TRUE(validate_program(p).ok());
  const Image src = testing::random_image(20, 10, 2, 1);
  Image out;
  std::string path;
  ASSERT_TRUE(run_program_cpu(p, src, out, 1, &path).ok());
  EXPECT_EQ(path, "box1d+box1d");

  Plan copy;
  ASSERT_TRUE(resolve_plan("copy", {}, copy).ok());
  ASSERT_TRUE(run_program_cpu(copy.program, src, out, 1, &path).ok());
  EXPECT_EQ(path, "copy-f32");
  EXPECT_EQ(out.data, src.data);
}

}  // namespace
}  // namespace gpublur
