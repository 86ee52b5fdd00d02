// Iir1d's tile schedule (gpu/cuda/passes/iir_tiles.cuh) run on the host: its kernels' threads one after
// another, each kernel a "barrier" apart, the aggregates and the chains' ends behind pointers that check bounds
// and flag two threads touching one element within a kernel (one writing). Rows and columns, odd sizes (one
// tile, a short last tile, many tiles), 1, 2 and 4 channels, every border, both filters, sigma 1.5 to 200,
// against the CPU reference; the x/y pair (the columns' sums in the rows' last kernel). No device needed; the
// compiled kernels run on a GPU in test_cuda_iir_scan.cpp and the matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/program.hpp"
#include "core/reference/reference.hpp"
#include "gpu/cuda/passes/iir_tiles.cuh"
#include "tests/core/image_diff.hpp"
#include "tests/core/random_image.hpp"
#include "tests/cuda/iir_emulation.hpp"
#include "tests/cuda/shadow_memory.hpp"

namespace gpublur {
namespace {

// The emulated block (or grid): the running thread, and the phase (barriers passed).
using Emu = testing::SerialClock;
using Shadow = testing::Shadow<Emu>;

// One pass's kernels on the host, each a phase apart: 1. sums, 2. chains (and wrap/mirror's border states),
// 3. outputs.
template <int TL = cuda::kIirTile, typename AP>
void emulate_sums(const float* in, AP agg, const cuda::IirTilePlan& P, const cuda::IirCoeffs& co) {
  for (long long i = 0; i < P.items(); ++i) {
    Emu::tid = int(i);
    cuda::iir_tile_sums<2, TL>(in, agg, P, co, int(i % P.lines), int(i / P.lines));
  }
  ++Emu::phase;
}
template <typename AP, typename EP>
void emulate_chains(const float* in, AP agg, EP ends, const cuda::IirTilePlan& P, Border b, const cuda::IirCoeffs& co) {
  for (long long i = 0; i < (long long)P.lines * 2 * P.k; ++i) {
    Emu::tid = int(i);
    cuda::iir_tile_chain(in, agg, ends, P, b, co, int(i % P.lines), int(i / P.lines));
  }
  ++Emu::phase;
  if (b == Border::Wrap || b == Border::Mirror) {
    for (long long i = 0; i < (long long)P.lines * 2 * P.k; ++i) {
      Emu::tid = int(i);
      cuda::iir_tile_borders(agg, ends, P, b, co, int(i % P.lines), int(i / P.lines));
    }
    ++Emu::phase;
  }
}
template <int TL = cuda::kIirTile, typename AP>
void emulate_final(const float* in, float* out, AP agg, const cuda::IirTilePlan& P, const cuda::IirCoeffs& co) {
  for (long long i = 0; i < P.items(); ++i) {
    Emu::tid = int(i);
    cuda::iir_tile_final<2, TL>(in, out, agg, P, co, int(i % P.lines), int(i / P.lines));
  }
  ++Emu::phase;
}

// The three kernels over `src` along `axis` into `got` (which may be `src` itself: in place), in tiles of TL.
template <int TL = cuda::kIirTile>
void emulate(const Image& src, int axis, Border b, const cuda::IirCoeffs& co, Image& got,
             std::vector<std::string>& errors) {
  const cuda::IirTilePlan P = cuda::iir_tile_plan(axis == 0, src.width, src.height, src.channels, co.k, TL);
  std::vector<float2> aggv(P.agg_bytes() / sizeof(float2), float2{NAN, NAN});
  std::vector<cuda::Cplx> endv(size_t(2 * P.k * P.lines), cuda::Cplx{NAN, NAN});
  EXPECT_EQ(P.scratch_bytes(), P.ends_offset() + endv.size() * sizeof(cuda::Cplx));
  Shadow sh("aggregates", aggv.size()), se("ends", endv.size());
  const testing::ChkPtr<float2, Emu> agg{aggv.data(), &sh, 0};
  const testing::ChkPtr<cuda::Cplx, Emu> ends{endv.data(), &se, 0};
  Emu::phase = 0;
  emulate_sums<TL>(src.data.data(), agg, P, co);
  emulate_chains(src.data.data(), agg, ends, P, b, co);
  emulate_final<TL>(src.data.data(), got.data.data(), agg, P, co);
  for (Shadow* s : {&sh, &se}) errors.insert(errors.end(), s->errors.begin(), s->errors.end());
}

struct Size {
  int w, h;
};

// The x/y pair (launch_iir1d_pair): the rows' sums and chains, the fused kernel's blocks (each its rows' outputs
// into `mid` and a shadowed shared tile, a barrier, then its column sums), the columns' chains and outputs.
void emulate_pair(const Image& src, Border b, const cuda::IirCoeffs& co, Image& mid, Image& got,
                  std::vector<std::string>& errors) {
  const int ch = src.channels;
  const cuda::IirTilePlan P = cuda::iir_tile_plan(true, src.width, src.height, ch, co.k);
  const cuda::IirTilePlan Pc = cuda::iir_tile_plan(false, src.width, src.height, ch, co.k);
  std::vector<float2> aggv(P.agg_bytes() / sizeof(float2), float2{NAN, NAN});
  std::vector<float2> aggcv(Pc.agg_bytes() / sizeof(float2), float2{NAN, NAN});
  std::vector<cuda::Cplx> endv(size_t(2 * P.k * P.lines), cuda::Cplx{NAN, NAN});
  std::vector<cuda::Cplx> endcv(size_t(2 * Pc.k * Pc.lines), cuda::Cplx{NAN, NAN});
  Shadow sh("aggregates", aggv.size()), shc("column aggregates", aggcv.size()), se("ends", endv.size()),
      sec("column ends", endcv.size());
  const testing::ChkPtr<float2, Emu> agg{aggv.data(), &sh, 0}, aggc{aggcv.data(), &shc, 0};
  const testing::ChkPtr<cuda::Cplx, Emu> ends{endv.data(), &se, 0}, endsc{endcv.data(), &sec, 0};
  Emu::phase = 0;
  emulate_sums(src.data.data(), agg, P, co);
  emulate_chains(src.data.data(), agg, ends, P, b, co);
  const int nth = cuda::kIirTile * ch;
  std::vector<float> smv(cuda::iir_pair_smem_bytes(ch) / sizeof(float), NAN);
  for (int j = 0; j < P.ntiles; ++j)
    for (int rb = 0; rb < Pc.ntiles; ++rb) {
      Shadow ss("shared tile", smv.size());
      const testing::ChkPtr<float, Emu> sm{smv.data(), &ss, 0};
      for (int t = 0; t < nth; ++t) {
        Emu::tid = t;
        cuda::iir_pair_rows_final<2>(src.data.data(), mid.data.data(), agg, sm, P, co, ch, rb, j, t);
      }
      ++Emu::phase;  // the block's barrier (the aggregates' shadows see the blocks as one kernel's threads apart)
      for (int t = 0; t < nth; ++t) {
        Emu::tid = t;
        cuda::iir_pair_col_sums<2>(sm, aggc, Pc, co, ch, rb, j, t);
      }
      errors.insert(errors.end(), ss.errors.begin(), ss.errors.end());
    }
  ++Emu::phase;
  emulate_chains(mid.data.data(), aggc, endsc, Pc, b, co);
  emulate_final(mid.data.data(), got.data.data(), aggc, Pc, co);
  for (Shadow* s : {&sh, &shc, &se, &sec}) errors.insert(errors.end(), s->errors.begin(), s->errors.end());
}

// Tiles of 32 (rows, the pair) and of 64 (the product's columns): partial last tiles, a single tile, lines of
// one position.
TEST(CudaIirTilesEmulated, TilesMatchTheReference) {
  double worst_all = 0;
  int cases = 0;
  testing::for_each_iir_plan([&](const Plan& plan, const char* impl, double sigma, const char* border) {
    for (int tile : {cuda::kIirTile, cuda::kIirColTile})
      for (int ch : {1, 2, 4})
        for (int axis : {0, 1})
          for (const Size sz : {Size{1, 1}, Size{7, 3}, Size{32, 33}, Size{37, 23}, Size{128, 2}, Size{2, 128},
                                Size{1001, 3}, Size{5, 1001}}) {
            const Image src = testing::random_image(sz.w, sz.h, ch, 5u + unsigned(ch * 3 + sz.h));
            testing::IirPassCase ic;
            ASSERT_TRUE(testing::iir_pass_case(plan, axis, src, ic));
            ASSERT_EQ(ic.co.k, 2);
            Image got(sz.w, sz.h, ch);
            for (float& v : got.data) v = NAN;  // every value must be written
            std::vector<std::string> errors;
            if (tile == cuda::kIirColTile) emulate<cuda::kIirColTile>(src, axis, ic.pass.border, ic.co, got, errors);
            else emulate(src, axis, ic.pass.border, ic.co, got, errors);
            const std::string what = std::string(impl) + " sigma " + std::to_string(sigma) + " " + border +
                                     " tile " + std::to_string(tile) + " ch " + std::to_string(ch) + " axis " +
                                     std::to_string(axis) + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h);
            worst_all = std::max(worst_all, testing::expect_emulated_case(what, errors, got, ic.want));
            ++cases;
          }
  });
  std::printf("iir tiles emulation vs reference: %d cases, max abs %.3g\n", cases, worst_all);
}

// The x/y pair with the columns' sums made by the rows' last kernel (launch_iir1d_pair) against the reference of
// both passes: odd sizes (partial tiles both ways, a single tile, one row), 2, 3 and 4 channels (the pair's
// block is kIirTile * ch threads), every border, both filters.
TEST(CudaIirTilesEmulated, PairMatchesTheReference) {
  double worst_all = 0;
  int cases = 0;
  for (const char* impl : {"young-van-vliet", "deriche"})
    for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
      Plan plan;
      ASSERT_TRUE(resolve_plan("iir", {{"impl", impl}, {"sigma", "7"}, {"border", border}}, plan));
      ASSERT_TRUE(iir_pair(plan.program, 0));
      cuda::IirCoeffs co;
      ASSERT_TRUE(cuda::iir_coeffs(plan.program.passes[0].taps, co).ok());
      for (int ch : {2, 3, 4})
        for (const Size sz : {Size{1, 1}, Size{7, 3}, Size{32, 32}, Size{70, 45}, Size{33, 97}}) {
          const Image src = testing::random_image(sz.w, sz.h, ch, 9u + unsigned(ch * 5 + sz.w));
          Image want;
          ASSERT_TRUE(reference_run(plan, src, want, 1).ok());
          Image mid(sz.w, sz.h, ch), got(sz.w, sz.h, ch);
          for (float& v : mid.data) v = NAN;
          for (float& v : got.data) v = NAN;
          std::vector<std::string> errors;
          emulate_pair(src, plan.program.passes[0].border, co, mid, got, errors);
          const std::string what = std::string(impl) + " " + border + " ch " + std::to_string(ch) + " " +
                                   std::to_string(sz.w) + "x" + std::to_string(sz.h);
          worst_all = std::max(worst_all, testing::expect_emulated_case(what, errors, got, want));
          ++cases;
        }
    }
  std::printf("iir x/y pair emulation vs reference: %d cases, max abs %.3g\n", cases, worst_all);
}

// In place (the final kernel reads only its own tile's inputs before writing them; the sums and chains read
// the source before the final kernel runs): the same result as into a separate image.
TEST(CudaIirTilesEmulated, InPlace) {
  Plan plan;
  ASSERT_TRUE(resolve_plan("iir", {{"sigma", "12"}, {"border", "clamp"}}, plan));
  cuda::IirCoeffs co;
  ASSERT_TRUE(cuda::iir_coeffs(plan.program.passes[0].taps, co).ok());
  for (int axis : {0, 1}) {
    const Image src = testing::random_image(77, 91, 4, 3u);
    Image sep(77, 91, 4), inplace = src;
    std::vector<std::string> errors;
    emulate(src, axis, Border::Clamp, co, sep, errors);
    emulate(inplace, axis, Border::Clamp, co, inplace, errors);
    EXPECT_TRUE(errors.empty());
    EXPECT_EQ(sep.data, inplace.data) << "axis " << axis;
    // Tiles of 64: the lower half's outputs are written before the upper half's inputs are loaded.
    Image sep64(77, 91, 4), inplace64 = src;
    emulate<cuda::kIirColTile>(src, axis, Border::Clamp, co, sep64, errors);
    emulate<cuda::kIirColTile>(inplace64, axis, Border::Clamp, co, inplace64, errors);
    EXPECT_TRUE(errors.empty());
    EXPECT_EQ(sep64.data, inplace64.data) << "axis " << axis << ", tiles of 64";
  }
}

}  // namespace
}  // namespace gpublur
