// Iir1d's CUDA schedules on the device against the CPU reference: whole rows in shared memory (the product's
// rows), whole column lines in a block (the product's Young-van Vliet columns 481-1024 tall), the tiles
// (columns; rows of 2-4 channels; the x/y pair with the columns' sums in the rows' last kernel,
// and the passes one at a time) and
// the segment scan (one-channel rows whole in shared memory) at 4096-long lines and odd sizes, every border, 1,
// 2, 3 and 4 channels, sigma 3 and 200, both filters; the line kernel (IirTuning::lines); rows longer than
// the scan holds as tiles. Outputs are poisoned with NaN before
// each run, so unwritten values fail. Skips without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/random_image.hpp"
#include "cuda/cuda_test_util.hpp"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::testing {
namespace {

struct IirGuard {
  cuda::IirTuning saved = cuda::iir_tuning();
  ~IirGuard() { cuda::iir_tuning() = saved; }
};

struct Case {
  int w, h;
};

// Whether the columns run as whole lines in blocks (IirTuning::cols_block's modes): 2 wherever a column fits (1024
// tall), 1 by the product's rule (Young-van Vliet's one real term, columns of 16-32 tiles of 32).
bool cols_block(int mode, const std::string& impl, int h) {
  if (mode == 2) return h <= 1024;
  return mode == 1 && impl == "young-van-vliet" && h > 15 * 32 && h <= 1024;
}

std::vector<double> sigmas() {
  std::vector<double> s = {3, 200};
  if (const char* e = std::getenv("GPUBLUR_CUDA_TEST_MAX_SIGMA")) {
    const double cap = std::atof(e);
    s.erase(std::remove_if(s.begin(), s.end(), [&](double v) { return v > cap; }), s.end());
  }
  return s;
}

TEST(CudaIirScan, MatchesTheReference) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  const std::vector<Case> cases = small_mode() ? std::vector<Case>{{1, 1}, {7, 3}, {61, 37}, {1024, 3}}
                                               : std::vector<Case>{{1, 1}, {7, 3}, {301, 37}, {37, 300},
                                                                   {1023, 517}, {4096, 5}, {5, 4096}, {4099, 3}};
  struct Variant {
    const char* name;
    bool lines, pair, rows;
    int col_tile;  // 0: the product's choice by size (tiles of 32 at these sizes)
    int two_d;     // RGBA pairs as 2D tiles: 1 by the product's rule (not at these sizes), 2 always, 0 never
    int cols_block;  // columns of up to 1024 positions as whole lines in a block: 0 never, 1 by the product's rule,
                     // 2 wherever they fit (iir_cols_block.cuh)
  };
  const int product_cols_block = cuda::IirTuning{}.cols_block;
  const Variant variants[] = {{"product", false, true, true, 0, 1, product_cols_block},
                              {"whole rows, columns as whole lines in blocks", false, true, true, 0, 1, 2},
                              {"2D tiles", false, true, true, 0, 2, 2},
                              {"whole rows, columns in tiles of 64", false, true, true, 64, 1, 0},
                              {"whole rows, columns in tiles of 32", false, true, true, 32, 1, 0},
                              {"the pair (rows not whole)", false, true, false, 0, 0, 2},
                              {"passes one at a time", false, false, false, 0, 0, 2},
                              {"lines", true, false, false, 0, 0, 2}};
  double worst = 0;
  int runs = 0;
  for (const Case& cs : cases)
    for (int c : {1, 2, 3, 4}) {
      const Image src = random_image(cs.w, cs.h, c, 900u + unsigned(cs.w * 3 + c));
      double ms = 0;
      ASSERT_TRUE(backend->upload(src, ms).ok());
      for (const char* impl : {"young-van-vliet", "deriche"})
        for (double sigma : sigmas())
          for (const char* border : {"clamp", "mirror", "wrap", "zero"})
            for (const Variant& v : variants) {
              if (std::string(impl) == "deriche" && v.lines) continue;  // the line kernel: once per case is enough
              IirGuard guard;
              cuda::iir_tuning().lines = v.lines;
              cuda::iir_tuning().pair = v.pair;
              cuda::iir_tuning().rows = v.rows;
              cuda::iir_tuning().col_tile = v.col_tile;
              cuda::iir_tuning().two_d = v.two_d;
              cuda::iir_tuning().cols_block = v.cols_block;
              std::string path;
              const double err =
                  run_vs_reference(*backend, make_plan("iir", sigma, border, {{"impl", impl}}), src, path);
              const std::string what = std::to_string(cs.w) + "x" + std::to_string(cs.h) + "x" + std::to_string(c) +
                                       " " + impl + " sigma " + num_text(sigma) + " " + border + " " + v.name +
                                       " path " + path;
              EXPECT_LE(err, 1e-5) << what;
              const std::string rows = v.lines  ? "iir1d-rows"
                                       : v.rows ? "iir1d-whole-rows"
                                       : c == 1 ? "iir1d-scan-rows"
                                                : "iir1d-tiles-rows";
              if (v.two_d == 2 && c >= 3)  // the x/y pair as one unit: 2D tiles (3 channels run padded to 4)
                EXPECT_EQ(path, "iir1d-2d-tiles") << what;
              else if (v.pair && !v.rows && c > 1)  // or rows and columns as tiles
                EXPECT_EQ(path, "iir1d-tiles-pair") << what;
              else
                EXPECT_EQ(path, rows + "+" +
                                    (v.lines                         ? "iir1d-cols"
                                     : cols_block(v.cols_block, impl, cs.h) ? "iir1d-cols-block"
                                                                     : "iir1d-tiles-cols"))
                    << what;
              worst = std::max(worst, err);
              ++runs;
            }
    }
  std::printf("[ measured ] iir1d tiles / scan / lines vs reference: %d runs, max abs error %.3g\n", runs, worst);
}

// Rows longer than a block holds run as tiles: one channel (40000 values: 1250 tiles, over the whole-rows
// block's 1024 threads and the scan's shared memory) and RGBA 16384 wide (the pair); RGBA 8192 wide runs whole
// rows at one block per SM (167 KB of shared memory, 1024 threads). Their columns (3 tall) run as column blocks
// (turned on here).
TEST(CudaIirScan, LongRows) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  if (small_mode()) GTEST_SKIP() << "large image";
  struct Long {
    int w, c;
    const char* rows;
  };
  IirGuard guard;
  cuda::iir_tuning().two_d = 0;  // (RGBA pairs as 2D tiles: LongColumnTiles)
  cuda::iir_tuning().cols_block = 2;
  for (const Long lg : {Long{40000, 1, "iir1d-tiles-rows+iir1d-cols-block"}, Long{16384, 4, "iir1d-tiles-pair"},
                        Long{8192, 4, "iir1d-whole-rows+iir1d-cols-block"}}) {
    const Image src = random_image(lg.w, 3, lg.c, 77);
    double ms = 0;
    ASSERT_TRUE(backend->upload(src, ms).ok());
    for (const char* border : {"clamp", "wrap"}) {
      std::string path;
      const double err = run_vs_reference(*backend, make_plan("iir", 48, border), src, path);
      EXPECT_LE(err, 1e-5) << border << " path " << path;
      EXPECT_EQ(path, lg.rows) << path;
    }
  }
}

// Columns tall and wide enough for the 64-position column tiles (iir1d.cu's tile_plan: 4096 x 4 lines of 16
// tiles), and the same image as 2D tiles (a partial tile-row of 6), every border.
TEST(CudaIirScan, LongColumnTiles) {
  GPUBLUR_CUDA_BACKEND_OR_SKIP(backend);
  if (small_mode()) GTEST_SKIP() << "large image";
  const Image src = random_image(4096, 1030, 4, 78);
  double ms = 0;
  ASSERT_TRUE(backend->upload(src, ms).ok());
  for (const int two_d : {0, 2})
    for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
      IirGuard guard;
      cuda::iir_tuning().two_d = two_d;
      std::string path;
      const double err = run_vs_reference(*backend, make_plan("iir", 12, border), src, path);
      EXPECT_LE(err, 1e-5) << border << " path " << path;
      EXPECT_EQ(path, two_d ? "iir1d-2d-tiles" : "iir1d-whole-rows+iir1d-tiles-cols") << path;
    }
}

}  // namespace
}  // namespace gpublur::testing
