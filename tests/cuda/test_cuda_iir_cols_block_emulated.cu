// Iir1d's column blocks (gpu/cuda/passes/iir_cols_block.cuh) run on the host: each block an emulated block of
// std::threads (barriers, warp shuffles), its shared memory (the aggregates, the chains' ends, the lines' edge
// values) behind pointers that check bounds and flag two threads touching one element between two barriers (one
// writing); each thread's tile in its own array, as the kernel keeps it in registers. Columns of one tile, a short
// last tile and up to 32 tiles, blocks of 8 to 32 lines with a short last block, 1-4 channels, every border, both
// filters, sigma 1.5 to 200, against the CPU reference. No device needed; the compiled kernel runs on a GPU in
// test_cuda_iir_scan.cpp and the matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/program.hpp"
#include "gpu/cuda/passes/iir_cols_block.cuh"
#include "tests/core/image_diff.hpp"
#include "tests/core/random_image.hpp"
#include "tests/cuda/emulated_block.hpp"
#include "tests/cuda/iir_emulation.hpp"
#include "tests/cuda/shadow_memory.hpp"

namespace gpublur::testing {
namespace {

using Shadow = testing::Shadow<EmuClock>;
template <typename T>
using ChkPtr = testing::ChkPtr<T, EmuClock>;

// One block's phases as iir1d_cols_block_kernel runs them.
template <bool REAL1>
void run_phases(const float* src, float* dst, ChkPtr<float2> agg, ChkPtr<cuda::Cplx> ends, ChkPtr<float> edges,
                const cuda::IirColsPlan& C, const cuda::IirBorder& bd, const cuda::IirCoeffs& co, int block) {
  const cuda::IirPowers pw = cuda::iir_powers(co);
  const cuda::IirRowsChain chain = cuda::iir_rows_chain(C.R, co);
  run_block(C.R.nth, [&] {
    const int tid = Emu::tid();
    float xs[cuda::kIirTile];
    cuda::iir_cols_sums<2, REAL1>(tid, src, xs, agg, edges, C, co, pw, block);
    Emu::sync();
    // The lane count as the kernels take it (8 or 32, iir1d.cu picks the kernel), and 16, which only tests run.
    switch (C.R.lanes) {
      case 8: cuda::iir_cols_chains<Emu, 8>(agg, ends, edges, C, bd, co, chain, block); break;
      case 16: cuda::iir_cols_chains<Emu, 16>(agg, ends, edges, C, bd, co, chain, block); break;
      default: cuda::iir_cols_chains<Emu, 32>(agg, ends, edges, C, bd, co, chain, block);
    }
    Emu::sync();
    cuda::iir_cols_final<2, REAL1>(tid, dst, xs, agg, C, co, pw, block);
  });
}

// The column pass over src (w x h x ch) into got (which may be src's own copy: in place).
void emulate_cols(const float* src, Border b, const cuda::IirCoeffs& co, const cuda::IirColsPlan& C, float* got,
                  std::vector<std::string>& errors, bool real1) {
  const cuda::IirBorder bd = cuda::iir_border(co, C.R.n, b);
  for (long long block = 0; block < C.blocks(); ++block) {
    std::vector<float2> av((C.R.ends_off - C.R.agg_off) / sizeof(float2), float2{NAN, NAN});
    std::vector<cuda::Cplx> ev((C.R.bytes - C.R.ends_off) / sizeof(cuda::Cplx), cuda::Cplx{NAN, NAN});
    std::vector<float> gv((C.bytes - C.edges_off) / sizeof(float), NAN);
    Shadow sa("aggregates", av.size()), se("ends", ev.size()), sg("edges", gv.size());
    const ChkPtr<float2> agg{av.data(), &sa, 0};
    const ChkPtr<cuda::Cplx> ends{ev.data(), &se, 0};
    const ChkPtr<float> edges{gv.data(), &sg, 0};
    if (real1) run_phases<true>(src, got, agg, ends, edges, C, bd, co, int(block));
    else run_phases<false>(src, got, agg, ends, edges, C, bd, co, int(block));
    for (Shadow* sh : {&sa, &se, &sg}) errors.insert(errors.end(), sh->errors.begin(), sh->errors.end());
  }
}

struct Size {
  int w, h;
};

std::string case_name(const char* impl, double sigma, const char* border, int ch, Size sz, const cuda::IirColsPlan& C,
                      bool real1) {
  return std::string(impl) + " sigma " + std::to_string(sigma) + " " + border + " ch " + std::to_string(ch) + " " +
         std::to_string(sz.w) + "x" + std::to_string(sz.h) + " lines a block " + std::to_string(C.group()) + ", " +
         std::to_string(C.R.lanes) + " lanes a chain" + (real1 ? ", real term 1" : "");
}

TEST(CudaIirColsBlockEmulated, ColumnsMatchTheReference) {
  double worst_all = 0;
  int cases = 0;
  for_each_iir_plan([&](const Plan& plan, const char* impl, double sigma, const char* border) {
    const bool all = sigma > 10 && sigma < 100;  // every case at sigma 12; at 1.5 and 200 one and four channels
    for (int ch : {1, 2, 3, 4})
      for (const Size sz : {Size{1, 1}, Size{3, 7}, Size{11, 32}, Size{3, 45}, Size{5, 300}, Size{1, 1017}}) {
        if (!all && (ch == 2 || ch == 3 || sz.h == 32)) continue;
        const Image src = random_image(sz.w, sz.h, ch, 31u + unsigned(ch * 7 + sz.h));
        IirPassCase ic;
        ASSERT_TRUE(iir_pass_case(plan, 1, src, ic));
        ASSERT_EQ(ic.co.k, 2);
        cuda::IirColsPlan C;
        ASSERT_TRUE(cuda::iir_cols_plan(sz.w, sz.h, ch, ic.co.k, C));
        const bool yvv = std::string(impl) == "young-van-vliet";
        for (const bool real1 : {false, true}) {  // Young-van Vliet's real pole in real arithmetic and as complex
          if ((real1 && !yvv) || (!real1 && yvv && !all)) continue;
          Image got(sz.w, sz.h, ch);
          for (float& v : got.data) v = NAN;
          std::vector<std::string> errors;
          emulate_cols(src.data.data(), ic.pass.border, ic.co, C, got.data.data(), errors, real1);
          worst_all = std::max(worst_all, expect_emulated_case(case_name(impl, sigma, border, ch, sz, C, real1),
                                                               errors, got, ic.want));
          ++cases;
        }
      }
  });
  std::printf("iir column blocks emulation vs reference: %d cases, max abs %.3g\n", cases, worst_all);
}

// Chains of 8, 16 and 32 lanes whatever the plan picks (a lane several tiles, lanes with none), and in place.
TEST(CudaIirColsBlockEmulated, LanesAndInPlace) {
  double worst_all = 0;
  for_each_iir_plan([&](const Plan& plan, const char* impl, double sigma, const char* border) {
    if (sigma < 10) return;
    for (const Size sz : {Size{2, 1000}, Size{3, 130}})
      for (const int lanes : {32, 16, 8}) {
        const Image src = random_image(sz.w, sz.h, 2, 41u + unsigned(sz.h));
        IirPassCase ic;
        ASSERT_TRUE(iir_pass_case(plan, 1, src, ic));
        cuda::IirColsPlan C;
        ASSERT_TRUE(cuda::iir_cols_plan(sz.w, sz.h, 2, ic.co.k, C));
        C.R.lanes = lanes;
        Image got = src;  // in place: the kernel reads a line's tiles before any of them is written
        std::vector<std::string> errors;
        emulate_cols(got.data.data(), ic.pass.border, ic.co, C, got.data.data(), errors,
                     cuda::iir_term1_real(ic.co));
        worst_all = std::max(worst_all, expect_emulated_case(case_name(impl, sigma, border, 2, sz, C, false) +
                                                                 " in place",
                                                             errors, got, ic.want));
      }
  });
  std::printf("iir column blocks emulation, lanes and in place: max abs %.3g\n", worst_all);
}

TEST(CudaIirColsBlockEmulated, Plans) {
  cuda::IirColsPlan C;
  ASSERT_TRUE(cuda::iir_cols_plan(1024, 1024, 4, 2, C));  // RGBA 1024^2: 8 lines of 32 tiles a block
  EXPECT_EQ(C.group(), 8);
  EXPECT_EQ(C.R.nth, 256);
  EXPECT_EQ(C.R.lanes, 8);  // 32 chains, 8 warps: four a warp, one round
  EXPECT_EQ(C.blocks(), 512);
  EXPECT_LE(C.bytes, size_t(48) << 10);  // no opt-in
  ASSERT_TRUE(cuda::iir_cols_plan(512, 512, 1, 2, C));  // 16 tiles: 16 lines
  EXPECT_EQ(C.group(), 16);
  EXPECT_EQ(C.R.nth, 256);
  ASSERT_TRUE(cuda::iir_cols_plan(100, 33, 3, 2, C));  // 2 tiles: 32 lines, 64 threads
  EXPECT_EQ(C.group(), 32);
  EXPECT_EQ(C.R.nth, 64);
  EXPECT_EQ(C.blocks(), 10);  // 300 lines, the last block 12
  EXPECT_EQ(C.lines_here(9), 12);
  EXPECT_FALSE(cuda::iir_cols_plan(16, 1025, 1, 2, C));  // 33 tiles
  EXPECT_TRUE(cuda::iir_cols_plan(16, 1024, 1, 4, C));  // four terms
  EXPECT_LE(C.bytes, size_t(48) << 10);
}

}  // namespace
}  // namespace gpublur::testing
