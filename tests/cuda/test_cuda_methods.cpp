// CUDA-specific schedule coverage against the CPU reference (reference_run). The registry-driven test in tests/
// runs every method x backend x border x channels with the default schedules; these force the others: every
// conv1d pair variant through SepTuning, lone conv1d and bilinear passes, every Box1d schedule through BoxTuning
// (separate passes, fused x/y tiles, whole lines at one block per SM, short segments with halos, the global
// moving-average fallback) with 1 to 8 boxes, widths up to 4097 that no tile holds, reach far beyond the image;
// the table and 2D box paths, padded copies. Random images, every border mode, 1-4 channels, sizes off the tile
// grids; outputs poisoned with NaN before each run, so unwritten pixels fail.
// GPUBLUR_CUDA_TEST_SMALL=1 swaps the large sizes for small ones (compute-sanitizer runs);
// GPUBLUR_CUDA_TEST_MAX_SIGMA=12 also drops the larger sigmas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <vector>

#include "core/gauss.hpp"
#include "core/random_image.hpp"
#include "core/reference/reference.hpp"
#include "cuda/cuda_test_util.hpp"
#include "cuda/schedule_variants.hpp"

namespace gpublur::testing {
namespace {

const char* kBorders[] = {"clamp", "mirror", "wrap", "zero"};

struct Size {
  int w, h;
};

std::vector<Size> sizes() {
  if (small_mode()) return {{1, 1}, {7, 3}, {61, 37}};
  return {{1, 1}, {7, 3}, {301, 37}, {37, 300}, {1023, 517}};
}

std::vector<double> capped(std::vector<double> sigmas) {
  if (const char* e = std::getenv("GPUBLUR_CUDA_TEST_MAX_SIGMA")) {
    const double cap = std::atof(e);
    sigmas.erase(std::remove_if(sigmas.begin(), sigmas.end(), [&](double v) { return v > cap; }), sigmas.end());
  }
  return sigmas;
}

std::string where(const Size& sz, int c, const std::string& border) {
  return std::to_string(sz.w) + "x" + std::to_string(sz.h) + "x" + std::to_string(c) + " border=" + border;
}

const std::vector<int> kAllChannels = {1, 2, 3, 4};

// One test's bookkeeping: runs a plan on the uploaded image against the reference, expects the bound, keeps the
// worst error and the schedule the backend reported (`path`).
struct Checker {
  Backend& b;
  double worst = 0;
  std::string path;

  void check(const Plan& plan, const Image& src, double tol, const std::string& what) {
    const double err = run_vs_reference(b, plan, src, path);
    EXPECT_LE(err, tol) << what << " path " << path;
    worst = std::max(worst, err);
  }
  void report(const char* what) const { std::printf("[ measured ] %s: max abs error %.3g\n", what, worst); }
};

// Calls fn(src, size, channels) for every size x channel count with a fresh random image uploaded.
template <typename Fn>
void for_each_upload(Backend& b, const std::vector<Size>& szs, const std::vector<int>& channels, uint32_t seed,
                     Fn fn) {
  for (const Size& sz : szs)
    for (int c : channels) {
      const Image src = random_image(sz.w, sz.h, c, seed++);
      double ms = 0;
      ASSERT_TRUE(b.upload(src, ms).ok());
      fn(src, sz, c);
    }
}

TEST(CudaSchedules, Conv1dPairVariants) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  Checker chk{*backend};
  for_each_upload(*backend, sizes(), kAllChannels, 100, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders)
      for (double sigma : capped({0.5, 3, 5.4, 12, 24, 64})) {
        const Plan plan = make_plan("gauss-sep", sigma, border);
        for (const SepVariant& v : sep_variants()) {
          if (plan.radius > v.max_radius) continue;
          TuningGuard guard;
          v.set(cuda::sep_tuning());
          cuda::sep_tuning().fft_min_radius = cuda::sep_tuning().fft_min_radius_1ch = 0;  // the direct forms
          chk.check(plan, src, 1e-5, where(sz, c, border) + " sigma=" + num_text(sigma) + " variant " + v.name);
        }
        // The default schedule: the FFT segments from radius 42 (2-4 channels) or 24 (one), the direct passes below.
        chk.check(plan, src, 1e-5, where(sz, c, border) + " sigma=" + num_text(sigma) + " default");
        const cuda::SepTuning& t = cuda::sep_tuning();
        const bool fft = plan.radius >= (c == 1 ? t.fft_min_radius_1ch : t.fft_min_radius);
        EXPECT_EQ(chk.path.rfind("fft-segments-", 0) == 0, fft) << chk.path << " sigma " << sigma << " c " << c;
      }
  });
  chk.report("conv1d pair variants");
}

// A program of one Conv1d pass along one axis (no pair to fuse).
Plan lone_pass_plan(Op op, int axis, double sigma, const std::string& border) {
  Plan base = make_plan(op == Op::Conv1d ? "gauss-sep" : "gauss-linear", sigma, border);
  Plan plan = base;
  plan.program = Program();
  Pass pass = base.program.passes[0];
  pass.axis = axis, pass.src = 0, pass.dst = 1;
  plan.program.passes.push_back(pass);
  return plan;
}

TEST(CudaSchedules, LoneConv1dPasses) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  Checker chk{*backend};
  for_each_upload(*backend, sizes(), {1, 4}, 200, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders)
      for (double sigma : capped({1, 3, 12, 24}))
        for (int axis : {0, 1})
          for (int tc16 : {0, 1}) {
            TuningGuard guard;
            cuda::sep_tuning().pass_tc16 = tc16;
            cuda::sep_tuning().fft_min_radius = cuda::sep_tuning().fft_min_radius_1ch = 0;
            chk.check(lone_pass_plan(Op::Conv1d, axis, sigma, border), src, 1e-5,
                      where(sz, c, border) + " sigma " + num_text(sigma) + " axis " + std::to_string(axis));
            EXPECT_NE(chk.path.find(axis == 0 ? "-x" : "-y"), std::string::npos) << chk.path;
          }
  });
  chk.report("lone conv1d passes");
}

// Bilinear1d on the texture unit: the x/y pair (surface intermediate) and lone passes, from the input and from
// an intermediate (copied into the texture array on every run). 8-bit interpolation weights: 1/256 per pass.
TEST(CudaSchedules, BilinearTexturePasses) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  Checker chk{*backend};
  for_each_upload(*backend, sizes(), kAllChannels, 300, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders)
      for (double sigma : capped({1, 3, 12})) {
        const std::string at = where(sz, c, border) + " sigma " + num_text(sigma);
        const Plan pair = make_plan("gauss-linear", sigma, border, {{"interp", "hardware"}});
        chk.check(pair, src, 2.0 / 256, at + " pair");
        EXPECT_EQ(chk.path, "texture-hw");
        for (int axis : {0, 1}) {
          chk.check(lone_pass_plan(Op::Bilinear1d, axis, sigma, border), src, 1.0 / 256,
                    at + " axis " + std::to_string(axis));
          EXPECT_EQ(chk.path, axis == 0 ? "texture-hw-x" : "texture-hw-y");
        }
        // x through a conv1d into an intermediate, then a lone bilinear y pass reading it.
        Plan chain = pair;
        chain.program.passes[0] = make_plan("gauss-sep", sigma, border).program.passes[0];
        chk.check(chain, src, 1.0 / 256, at + " conv1d x, bilinear y");
      }
  });
  chk.report("bilinear texture passes (bound 2/256)");
}

// Every Box1d schedule, 1 to 8 boxes, reach up to far beyond the small images.
TEST(CudaSchedules, Box1dSchedules) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  struct Cfg {
    double sigma;
    int passes;
  };
  Checker chk{*backend};
  for_each_upload(*backend, sizes(), kAllChannels, 400, [&](const Image& src, const Size& sz, int c) {
    std::vector<Cfg> cfgs = {{0.5, 3}, {3, 3}, {3, 8}, {12, 1}, {12, 3}, {48, 3}};
    if (size_t(sz.w) * sz.h <= 64 * 64) cfgs.push_back({200, 3}), cfgs.push_back({200, 8});
    for (const char* border : kBorders)
      for (const Cfg& cfg : cfgs) {
        if (capped({cfg.sigma}).empty()) continue;
        const Plan plan =
            make_plan("box", cfg.sigma, border, {{"impl", "separable"}, {"passes", std::to_string(cfg.passes)}});
        for (const BoxVariant& v : box_variants()) {
          TuningGuard guard;
          v.set(cuda::box_tuning());
          chk.check(plan, src, 1e-5,
                    where(sz, c, border) + " sigma " + num_text(cfg.sigma) + " passes " +
                        std::to_string(cfg.passes) + " variant " + v.name);
          const bool fused_fits = plan.radius <= 16;  // the tile fits for these reaches, every channel count
          if (std::string(v.path) != "box1d-fused-2d" || fused_fits)
            EXPECT_EQ(chk.path.rfind(v.path, 0), 0u) << v.name << ": " << chk.path;
        }
      }
  });
  chk.report("box1d schedules");
}

// Widths up to 4097: lines whose halo no tile holds take the global kernel; the others fit in segments.
TEST(CudaSchedules, Box1dWidthsBeyondTiles) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  const std::vector<Size> szs = small_mode() ? std::vector<Size>{{1, 1}, {7, 3}, {61, 37}}
                                             : std::vector<Size>{{1, 1}, {7, 3}, {300, 40}, {40, 300}};
  Checker chk{*backend};
  for_each_upload(*backend, szs, {1, 3, 4}, 500, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders)
      for (int passes : {1, 2, 8}) {
        chk.check(make_plan("box", 2, border, {{"width", "4097"}, {"passes", std::to_string(passes)}}), src, 1e-5,
                  where(sz, c, border) + " passes " + std::to_string(passes));
        if (passes == 8) EXPECT_NE(chk.path.find("box1d-global"), std::string::npos) << chk.path;
      }
  });
  chk.report("box1d widths 4097");
}

// Integral1d (the integral method) through box1d's line kernels with fractional window ends: whole rows,
// column strips, segments (a 16384-wide row: 256 KiB of RGBA), and the global kernel (real widths ~4097.5).
TEST(CudaSchedules, Integral1dSchedules) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  const std::vector<Size> szs = small_mode() ? std::vector<Size>{{1, 1}, {7, 3}, {61, 37}}
                                             : std::vector<Size>{{1, 1}, {7, 3}, {301, 37}, {37, 301}, {16384, 3}};
  const std::vector<std::map<std::string, std::string>> settings = {
      {{"passes", "5"}}, {{"passes", "3"}, {"rule", "kovesi"}}, {{"passes", "8"}, {"width", "1.0001"}},
      {{"passes", "2"}, {"width", "4097.5"}}};
  Checker chk{*backend};
  for_each_upload(*backend, szs, {1, 2, 4}, 550, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders)
      for (const auto& params : settings)
        for (double sigma : {3.0, 48.0}) {
          if (params.count("width") && sigma > 3) continue;
          const Plan plan = make_plan("integral", sigma, border, params);
          chk.check(plan, src, 1e-5,
                    where(sz, c, border) + " sigma " + num_text(sigma) + " width " + plan.params.at("width"));
          EXPECT_NE(chk.path.find("integral1d-"), std::string::npos) << chk.path;
          if (sz.w == 16384 && c == 4 && sigma == 3.0 && !params.count("width"))  // 256 KiB rows: segments
            EXPECT_NE(chk.path.substr(0, chk.path.find('+')).find("-seg"), std::string::npos) << chk.path;
        }
  });
  chk.report("integral1d schedules");
}

// Reach beyond what a 32-byte column strip and its halo fit in two-per-SM shared memory (integral sigma 400:
// reach 1550; sigma 512: 1984): 16-byte strips at two blocks per SM, or the opt-in maximum at one per SM, not
// the global kernel (issue 9 point 5); RGBA columns of 1024 rows take 32-byte strips at one block per SM (real widths
// weigh it 1.25, box_cascade.cuh's whole_sm_weight; 16-byte strips at two per SM before).
TEST(CudaSchedules, Integral1dLargeReach) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  const std::vector<Size> szs = small_mode() ? std::vector<Size>{{5, 1024}} : std::vector<Size>{{61, 1024}, {1024, 9}};
  Checker chk{*backend};
  for_each_upload(*backend, szs, {1, 2, 4}, 560, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders)
      // 512: the registry's largest sigma (reach 1984).
      for (double sigma : {400.0, 512.0}) {
        chk.check(make_plan("integral", sigma, border, {}), src, 1e-5,
                  where(sz, c, border) + " sigma " + num_text(sigma));
        EXPECT_EQ(chk.path.find("global"), std::string::npos) << chk.path;
        if (sz.h == 1024 && c == 4) EXPECT_NE(chk.path.find("integral1d-cols-1sm"), std::string::npos) << chk.path;
      }
  });
  chk.report("integral1d large reach");
}

// Rows and columns as long as the bench's (4096) at sigma 3-200, box and integral: the EXACT chunks their plans
// pick there (17, 19 and 21 for rows) against the CPU reference.
TEST(CudaSchedules, Box1dLongLines) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  Checker chk{*backend};
  for_each_upload(*backend, {{4096, 2}, {3, 4096}}, {4}, 570, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders)
      for (double sigma : capped({3, 48, 100, 200}))
        for (const char* method : {"box", "integral"})
          chk.check(make_plan(method, sigma, border, {}), src, 1e-5,
                    where(sz, c, border) + " " + method + " sigma " + num_text(sigma));
  });
  chk.report("box1d / integral1d 4096-long lines");
}

// Rows of one and two channels packed four or two to a float4 line (box1d.cu box_rows_packed_kernel): heights that
// leave 1-3 rows of the last group past the image, rows whole and in segments (16384 wide), box and integral, every
// border, against the CPU reference; packed forced (GPUBLUR_CUDA_BOX_PACKED=1) and never (0) on the same images.
TEST(CudaSchedules, Box1dPackedRows) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  const std::vector<Size> szs = small_mode() ? std::vector<Size>{{7, 1}, {61, 6}}
                                             : std::vector<Size>{{7, 1}, {61, 6}, {301, 5}, {1000, 7}, {16384, 3}};
  Checker chk{*backend};
  for_each_upload(*backend, szs, {1, 2}, 590, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders)
      for (const char* method : {"box", "integral"})
        for (double sigma : capped({3, 48, 200}))
          for (bool packed : {true, false}) {
            TuningGuard guard;
            cuda::box_tuning().packed_rows = packed ? 1 : 0;
            chk.check(make_plan(method, sigma, border, {}), src, 1e-5,
                      where(sz, c, border) + " " + method + " sigma " + num_text(sigma) + (packed ? "" : " unpacked"));
            const std::string rows = chk.path.substr(0, chk.path.find('+'));
            if (rows.find("global") == std::string::npos && rows.find("fused") == std::string::npos)
              EXPECT_EQ(rows.find("-rows-packed") != std::string::npos, packed) << chk.path;
            if (sz.w == 16384 && packed && sigma == 3) EXPECT_NE(rows.find("-seg"), std::string::npos) << chk.path;
          }
  });
  chk.report("box1d / integral1d packed rows");
}

// The column walk (box_walk.cuh) forced, at two blocks an SM (sigma 100, 200) and at one where its ring outgrows two
// (sigma 300, 500): every border, one and four channels, columns longer and shorter than the ring, against the CPU
// reference.
TEST(CudaSchedules, Box1dColumnWalk) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  Checker chk{*backend};
  const std::vector<Size> szs = small_mode() ? std::vector<Size>{{8, 700}} : std::vector<Size>{{64, 2500}, {32, 700}};
  for_each_upload(*backend, szs, {1, 4}, 580, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders)
      for (double sigma : capped({100, 200, 300, 500})) {
        TuningGuard guard;
        cuda::box_tuning().walk = 1;
        chk.check(make_plan("box", sigma, border, {}), src, 1e-5, where(sz, c, border) + " sigma " + num_text(sigma));
        const std::string want = sigma > 200 ? "box1d-cols-walk-1sm" : "box1d-cols-walk";
        EXPECT_NE(chk.path.find(want), std::string::npos) << chk.path;
        if (sigma <= 200) EXPECT_EQ(chk.path.find("walk-1sm"), std::string::npos) << chk.path;
      }
  });
  chk.report("box1d column walk");
}

// The other box impls: moving average (one thread per line), float64 tables, the direct 2D box (shared-memory
// tiles and, for a width no tile holds, the global path).
TEST(CudaSchedules, BoxImpls) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  const std::vector<Size> szs = small_mode() ? std::vector<Size>{{1, 1}, {7, 3}, {61, 37}}
                                             : std::vector<Size>{{1, 1}, {7, 3}, {61, 37}, {301, 37}, {200, 150}};
  Checker chk{*backend};
  for_each_upload(*backend, szs, kAllChannels, 600, [&](const Image& src, const Size& sz, int c) {
    const bool tiny = size_t(sz.w) * sz.h <= 64;
    for (const char* border : kBorders)
      for (const char* impl : {"moving-average", "sat", "2d"})
        for (double sigma : capped(tiny ? std::vector<double>{0.5, 3, 12, 48} : std::vector<double>{0.5, 3, 12}))
          for (int passes : {1, 3})
            chk.check(make_plan("box", sigma, border, {{"impl", impl}, {"passes", std::to_string(passes)}}), src,
                      1e-5,
                      where(sz, c, border) + " impl " + impl + " sigma " + num_text(sigma) + " passes " +
                          std::to_string(passes));
    if (sz.w * sz.h <= 61 * 37) {  // w 101: (32 + 100)^2 RGBA pixels exceed shared memory
      chk.check(make_plan("box", 2, "mirror", {{"impl", "2d"}, {"width", "101"}, {"passes", "1"}}), src, 1e-5,
                where(sz, c, "mirror") + " 2d width 101");
      if (c == 4) EXPECT_EQ(chk.path, "box2d-global");
    }
  });
  chk.report("box impls moving-average / sat / 2d");
}

// Diffusion's walk with 1 to 8 steps per launch: strips and rows loaded from the border's extension, step counts
// that are and are not multiples of the launch size (a shorter last launch), images smaller than the steps' cone.
TEST(CudaSchedules, DiffusionStepsPerLaunch) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  Checker chk{*backend};
  for_each_upload(*backend, sizes(), kAllChannels, 800, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders)
      for (const char* steps : {"1", "8", "37"})
        for (int per : {1, 3, 5, 8}) {
          TuningGuard guard;
          cuda::diffusion_steps_per_launch() = per;
          chk.check(make_plan("diffusion", 2, border, {{"iterations", steps}, {"rate", "0.2"}}), src, 1e-5,
                    where(sz, c, border) + " steps " + steps + " per launch " + std::to_string(per));
          // clamp and zero run inside a padded copy: copy-remap + diffusion + copy
          EXPECT_NE(chk.path.find("diffusion-walk-" + std::to_string(per) + "-per-launch"), std::string::npos)
              << chk.path;
        }
  });
  chk.report("diffusion steps per launch");
}

// Hand-built programs over padded images: a border-extended copy into a padded image, then the direct 2D box and
// a table read inside it (no border mode applies to a padded source).
TEST(CudaSchedules, PaddedImages) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  Checker chk{*backend};
  for_each_upload(*backend, sizes(), kAllChannels, 700, [&](const Image& src, const Size& sz, int c) {
    for (const char* border : kBorders) {
      Plan plan = make_plan("copy", 1, border);
      Border b = Border::Clamp;
      ASSERT_TRUE(parse_border(border, b));
      Program& p = plan.program;
      p = Program();
      const int padded = p.add_image({6, 1, false});
      const int mid = p.add_image({});
      const int table = p.add_image({6, 1, true});
      Pass copy;
      copy.op = Op::Copy, copy.src = 0, copy.dst = padded, copy.border = b;
      Pass box;
      box.op = Op::Box2d, box.src = padded, box.dst = mid, box.widths = {13}, box.border = b;
      Pass sat;
      sat.op = Op::Sat, sat.src = padded, sat.dst = table, sat.border = b;
      Pass look;
      look.op = Op::SatBox, look.src = table, look.dst = 1, look.widths = {9}, look.border = b;
      p.passes = {copy, box, sat, look};
      // The table reads the padded copy; the 2D box's result feeds nothing: read it through a second plan.
      ASSERT_TRUE(validate_program(p).ok()) << validate_program(p).error;
      chk.check(plan, src, 1e-5, where(sz, c, border) + " copy-remap + sat over a padded image");
      p.passes = {copy, box};
      p.passes[1].dst = 1;
      ASSERT_TRUE(validate_program(p).ok()) << validate_program(p).error;
      chk.check(plan, src, 1e-5, where(sz, c, border) + " copy-remap + box2d from a padded image");
      EXPECT_EQ(chk.path.rfind("copy-remap+box2d", 0), 0u) << chk.path;
    }
  });
  chk.report("padded-image programs");
}

}  // namespace
}  // namespace gpublur::testing
