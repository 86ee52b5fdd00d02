// gauss-sep's tensor-core passes with split FP16 operands (gpu/cuda/gauss_sep_tc16.cu), forced on for every
// radius: accuracy against the CPU reference, and the per-tile FP32 fallback for values FP16 cannot hold.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/random_image.hpp"
#include "core/reference/reference.hpp"
#include "cuda/cuda_test_util.hpp"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::testing {
namespace {

// Forces the tensor-core passes for the test's lifetime.
struct ForceTc16 {
  cuda::SepTuning saved = cuda::sep_tuning();
  ForceTc16() {
    cuda::sep_tuning().pass_tc16 = 1;
    cuda::sep_tuning().fused_max_radius = -1;
    cuda::sep_tuning().fft_min_radius = 0;  // no hand-over to the FFT segments (RGBA only here)
  }
  ~ForceTc16() { cuda::sep_tuning() = saved; }
};

// The reference and the CUDA run of `plan` on `src` (output poisoned with NaN first); the path must be the
// tensor-core one.
void run_both(Backend& b, const Plan& plan, const Image& src, Image& want, Image& got) {
  ASSERT_TRUE(reference_run(plan, src, want).ok());
  double ms = 0;
  RunInfo info;
  Status s = b.upload(src, ms);
  if (s) s = cuda_fill_output(b, std::numeric_limits<float>::quiet_NaN());
  if (s) s = b.run(plan, info);
  if (s) s = b.download(got, ms);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(info.path, "two-pass-tc-2xfp16");
}

TEST(CudaSepTc16, MatchesReferenceAtEveryRadius) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  ForceTc16 force;
  double worst = 0;
  uint32_t seed = 7;
  for (const auto& [w, h] : {std::pair{301, 37}, std::pair{1, 1}, std::pair{37, 300}})
    for (const char* border : {"clamp", "mirror", "wrap", "zero"})
      for (double sigma : {0.5, 1.0, 3.0, 5.4, 12.0, 48.0, 64.0, 100.0}) {
        const Image src = random_image(w, h, 4, seed++);
        const Plan plan = make_plan("gauss-sep", sigma, border);
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " " + border + " sigma " + num_text(sigma));
        Image want, got;
        ASSERT_NO_FATAL_FAILURE(run_both(*backend, plan, src, want, got));
        double err = 0;
        for (size_t i = 0; i < want.data.size(); ++i) {
          const double d = std::fabs(double(got.data[i]) - want.data[i]);
          err = std::max(err, std::isnan(d) ? 1e30 : d);
        }
        EXPECT_LE(err, 1e-5);
        worst = std::max(worst, err);
      }
  std::printf("[ measured ] gauss-sep tensor 2xFP16: max abs error %.3g\n", worst);
}

// Tiles holding values beyond FP16's range (or NaN / Inf) fall back to FP32 taps; the others stay on the
// tensor cores. Either way the result is the reference's: NaN and Inf spread exactly as far as the radius.
TEST(CudaSepTc16, ValuesBeyondHalfRangeAndNonFinite) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  ForceTc16 force;
  const int W = 700, H = 420;
  Image src = random_image(W, H, 4, 99);
  for (int y = 10; y < 40; ++y)
    for (int x = 20; x < 60; ++x) src.data[(size_t(y) * W + x) * 4 + 1] *= 3e6f;  // green: HDR beyond 65504
  src.data[(size_t(400) * W + 650) * 4 + 0] = std::numeric_limits<float>::quiet_NaN();
  src.data[(size_t(300) * W + 100) * 4 + 2] = std::numeric_limits<float>::infinity();
  for (const char* border : {"clamp", "zero"}) {
    const Plan plan = make_plan("gauss-sep", 12.0, border);  // r 36: fallback tiles and fast tiles both
    Image want, got;
    ASSERT_NO_FATAL_FAILURE(run_both(*backend, plan, src, want, got));
    size_t nan = 0, inf = 0, mismatched = 0;
    double rel = 0;
    for (size_t i = 0; i < want.data.size(); ++i) {
      const float a = got.data[i], b = want.data[i];
      if (std::isnan(b) || std::isinf(b)) {
        nan += std::isnan(b), inf += std::isinf(b);
        if (std::isnan(a) != std::isnan(b) || (std::isinf(b) && a != b)) ++mismatched;
        continue;
      }
      rel = std::max(rel, std::fabs(double(a) - b) / std::max(1.0, std::fabs(double(b))));
    }
    EXPECT_GT(nan, 0u);
    EXPECT_GT(inf, 0u);
    EXPECT_EQ(mismatched, 0u) << border;
    EXPECT_LE(rel, 1e-5) << border;
    std::printf("[ measured ] %s: %zu NaN, %zu Inf as the reference; worst relative error %.3g\n", border, nan,
                inf, rel);
  }
}

}  // namespace
}  // namespace gpublur::testing
