// Iir1d's whole-rows schedule (gpu/cuda/passes/iir_rows.cuh) run on the host: each block an emulated block of
// std::threads (barriers, warp shuffles), its shared memory (the rows, the aggregates, the chains' ends) behind
// pointers that check bounds and flag two threads touching one element between two barriers (one writing). Odd
// widths (one tile, a short last tile, many tiles), several rows per block and a short last block, 1-4 channels,
// every border, both filters, sigma 1.5 to 200, against the CPU reference. No device needed; the compiled kernel
// runs on a GPU in test_cuda_iir_scan.cpp and the matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/program.hpp"
#include "core/reference/reference.hpp"
#include "gpu/cuda/passes/iir_rows.cuh"
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

// One block's phases as iir1d_rows_kernel runs them (its load and store as plain copies around them).
template <int CH, bool REAL1>
void run_phases(ChkPtr<float> s, ChkPtr<float2> agg, ChkPtr<cuda::Cplx> ends, const cuda::IirRowsPlan& P, Border b,
                const cuda::IirCoeffs& co, int rows_here) {
  const cuda::IirPowers pw = cuda::iir_powers(co);
  const cuda::IirRowsChain chain = cuda::iir_rows_chain(P, co);
  const cuda::IirBorder bd = cuda::iir_border(co, P.n, b);
  run_block(P.nth, [&] {
    const int tid = Emu::tid();
    cuda::iir_rows_sums<2, CH, REAL1>(tid, s, agg, P, co, pw, rows_here);
    Emu::sync();
    // The lane count as the kernels take it (a constant; iir1d.cu picks the kernel), and 16, which only tests run.
    switch (P.lanes) {
      case 8: cuda::iir_rows_chains<Emu, 8>(s, agg, ends, P, bd, co, chain, rows_here); break;
      case 16: cuda::iir_rows_chains<Emu, 16>(s, agg, ends, P, bd, co, chain, rows_here); break;
      default: cuda::iir_rows_chains<Emu, 32>(s, agg, ends, P, bd, co, chain, rows_here);
    }
    Emu::sync();
    cuda::iir_rows_final<2, CH, REAL1>(tid, s, agg, P, co, pw, rows_here);
    Emu::sync();
  });
}
template <int CH>
void run_phases(ChkPtr<float> s, ChkPtr<float2> agg, ChkPtr<cuda::Cplx> ends, const cuda::IirRowsPlan& P, Border b,
                const cuda::IirCoeffs& co, int rows_here, bool real1) {
  if (real1) run_phases<CH, true>(s, agg, ends, P, b, co, rows_here);
  else run_phases<CH, false>(s, agg, ends, P, b, co, rows_here);
}

// The rows pass over src (w x h x ch) with blocks of P.rows rows.
// real1: term 1 in real arithmetic (as the kernel runs Young-van Vliet); false runs every term complex.
void emulate_rows(const Image& src, Border b, const cuda::IirCoeffs& co, const cuda::IirRowsPlan& P, Image& got,
                  std::vector<std::string>& errors, bool real1) {
  const int ch = src.channels;
  const size_t rowv = size_t(src.width) * size_t(ch);
  for (int r0 = 0; r0 < src.height; r0 += P.rows) {
    const int rows_here = std::min(P.rows, src.height - r0);
    std::vector<float> sv(P.agg_off / sizeof(float), NAN);
    std::vector<float2> av((P.ends_off - P.agg_off) / sizeof(float2), float2{NAN, NAN});
    std::vector<cuda::Cplx> ev((P.bytes - P.ends_off) / sizeof(cuda::Cplx), cuda::Cplx{NAN, NAN});
    for (int r = 0; r < rows_here; ++r)
      for (int q = 0; q < src.width; ++q)
        for (int c = 0; c < ch; ++c) sv[P.at(r, c, q)] = src.data[size_t(r0 + r) * rowv + size_t(q) * ch + size_t(c)];
    Shadow ss("values", sv.size()), sa("aggregates", av.size()), se("ends", ev.size());
    const ChkPtr<float> s{sv.data(), &ss, 0};
    const ChkPtr<float2> agg{av.data(), &sa, 0};
    const ChkPtr<cuda::Cplx> ends{ev.data(), &se, 0};
    switch (ch) {
      case 1: run_phases<1>(s, agg, ends, P, b, co, rows_here, real1); break;
      case 2: run_phases<2>(s, agg, ends, P, b, co, rows_here, real1); break;
      case 3: run_phases<3>(s, agg, ends, P, b, co, rows_here, real1); break;
      default: run_phases<4>(s, agg, ends, P, b, co, rows_here, real1); break;
    }
    for (int r = 0; r < rows_here; ++r)
      for (int q = 0; q < src.width; ++q)
        for (int c = 0; c < ch; ++c) got.data[size_t(r0 + r) * rowv + size_t(q) * ch + size_t(c)] = sv[P.at(r, c, q)];
    for (Shadow* sh : {&ss, &sa, &se}) errors.insert(errors.end(), sh->errors.begin(), sh->errors.end());
  }
}

struct Size {
  int w, h;
};

TEST(CudaIirRowsEmulated, RowsMatchTheReference) {
  double worst_all = 0;
  int cases = 0;
  for_each_iir_plan([&](const Plan& plan, const char* impl, double sigma, const char* border) {
    const bool all = sigma > 10 && sigma < 100;  // every case at sigma 12; at 1.5 and 200 one and four channels
    for (int ch : {1, 2, 3, 4})
      for (const Size sz : {Size{1, 1}, Size{7, 3}, Size{32, 2}, Size{45, 3}, Size{1017, 1}}) {
        if (sz.w == 1017 && ch % 2 == 0) continue;  // (the emulation's 128-thread blocks are slow: two of four)
        if (!all && (ch == 2 || ch == 3 || sz.w == 32)) continue;
        const Image src = random_image(sz.w, sz.h, ch, 11u + unsigned(ch * 7 + sz.w));
        IirPassCase ic;
        ASSERT_TRUE(iir_pass_case(plan, 0, src, ic));
        ASSERT_EQ(ic.co.k, 2);
        cuda::IirRowsPlan P;
        ASSERT_TRUE(cuda::iir_rows_plan(sz.w, sz.h, ch, ic.co.k, 113 * 1024, P));
        Image got(sz.w, sz.h, ch);
        for (float& v : got.data) v = NAN;
        const bool yvv = std::string(impl) == "young-van-vliet";
        EXPECT_EQ(cuda::iir_term1_real(ic.co), yvv);
        // Young-van Vliet's real pole both ways: in real arithmetic (the kernel's choice) and as a complex term.
        for (const bool real1 : {false, true}) {
          if ((real1 && !yvv) || (!real1 && yvv && !all)) continue;
          std::vector<std::string> errors;
          emulate_rows(src, ic.pass.border, ic.co, P, got, errors, real1);
          const std::string what = std::string(impl) + " sigma " + std::to_string(sigma) + " " + border + " ch " +
                                   std::to_string(ch) + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) +
                                   " rows per block " + std::to_string(P.rows) + (real1 ? " real term 1" : "");
          worst_all = std::max(worst_all, expect_emulated_case(what, errors, got, ic.want));
          ++cases;
        }
      }
  });
  std::printf("iir whole rows emulation vs reference: %d cases, max abs %.3g\n", cases, worst_all);
}

// Lines of more tiles than a chain has lanes: lanes of the chains' scan hold several tiles each (m = 2 .. 9, the
// last lane short or with nothing), the last tile shorter and longer than half a tile; chains of 32, 16 and 8 lanes
// (the plan's 8 here: four chains on two or three warps; several chains a warp, groups past the last chain).
TEST(CudaIirRowsEmulated, LongRows) {
  double worst_all = 0;
  for_each_iir_plan([&](const Plan& plan, const char* impl, double sigma, const char* border) {
    if (sigma < 10) return;
    for (const Size sz : {Size{1100, 1}, Size{2100, 1}})
      for (const int lanes : {32, 16, 8}) {
        const Image src = random_image(sz.w, sz.h, 1, 21u + unsigned(sz.w));
        IirPassCase ic;
        ASSERT_TRUE(iir_pass_case(plan, 0, src, ic));
        cuda::IirRowsPlan P;
        ASSERT_TRUE(cuda::iir_rows_plan(sz.w, sz.h, 1, ic.co.k, 113 * 1024, P));
        P.lanes = lanes;
        Image got(sz.w, sz.h, 1);
        for (float& v : got.data) v = NAN;
        std::vector<std::string> errors;
        emulate_rows(src, ic.pass.border, ic.co, P, got, errors, cuda::iir_term1_real(ic.co));
        const std::string what = std::string(impl) + " sigma " + std::to_string(sigma) + " " + border + " " +
                                 std::to_string(sz.w) + ", " + std::to_string(lanes) + " lanes a chain";
        worst_all = std::max(worst_all, expect_emulated_case(what, errors, got, ic.want));
      }
  });
  std::printf("iir whole rows emulation, long rows: max abs %.3g\n", worst_all);
}

// Blocks of several rows with a short last block, and a block held to fewer rows by its shared memory.
TEST(CudaIirRowsEmulated, RowsPerBlock) {
  Plan plan;
  ASSERT_TRUE(resolve_plan("iir", {{"sigma", "5"}, {"border", "mirror"}}, plan));
  for (const int budget_kb : {113, 4}) {
    const Image src = random_image(100, 11, 3, 4u);
    IirPassCase ic;
    ASSERT_TRUE(iir_pass_case(plan, 0, src, ic));
    cuda::IirRowsPlan P;
    ASSERT_TRUE(cuda::iir_rows_plan(100, 11, 3, ic.co.k, size_t(budget_kb) * 1024, P));
    EXPECT_EQ(P.rows, budget_kb == 113 ? 11 : 1) << budget_kb;  // 12 threads a row: all 11 rows in one block
    EXPECT_LE(P.bytes, size_t(budget_kb) * 1024);
    Image got(100, 11, 3);
    for (float& v : got.data) v = NAN;
    std::vector<std::string> errors;
    emulate_rows(src, ic.pass.border, ic.co, P, got, errors, true);
    for (const std::string& e : errors) ADD_FAILURE() << e;
    EXPECT_LE(max_abs_diff(got, ic.want), 1e-6) << budget_kb;
  }
  cuda::IirRowsPlan P;
  EXPECT_TRUE(cuda::iir_rows_plan(4096, 8, 4, 2, 113 * 1024, P));  // RGBA 4096: 512 threads, 84 KB
  EXPECT_EQ(P.rows, 1);
  EXPECT_EQ(P.nth, 512);
  EXPECT_EQ(P.lanes, 32);  // 16 chains, 16 warps: a warp a chain
  EXPECT_TRUE(cuda::iir_rows_plan(1024, 8, 4, 2, 113 * 1024, P));  // RGBA 1024: two rows, 256 threads
  EXPECT_EQ(P.rows, 2);
  EXPECT_EQ(P.lanes, 8);  // 32 chains, 8 warps: four chains a warp, one round
  EXPECT_TRUE(cuda::iir_rows_plan(4096, 8, 1, 2, 113 * 1024, P));  // one channel 4096: two rows, 8 chains, 8 warps
  EXPECT_EQ(P.lanes, 32);
  EXPECT_FALSE(cuda::iir_rows_plan(8193, 8, 4, 2, 227 * 1024, P));  // 257 tiles x 4 channels: over 1024 threads
}

}  // namespace
}  // namespace gpublur::testing
