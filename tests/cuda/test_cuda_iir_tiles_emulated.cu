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
#include "gpu/cuda/passes/iir_2d.cuh"
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
// chain(l, s): one chain (default: iir_tile_chain's).
template <typename AP, typename EP, typename CH>
void emulate_chains_with(AP agg, EP ends, const cuda::IirTilePlan& P, Border b, const cuda::IirCoeffs& co, CH chain) {
  for (long long i = 0; i < (long long)P.lines * 2 * P.k; ++i) {
    Emu::tid = int(i);
    chain(int(i % P.lines), int(i / P.lines));
  }
  ++Emu::phase;
  if (b == Border::Wrap || b == Border::Mirror) {
    const cuda::IirBorder bd = cuda::iir_border(co, P.n, b);
    for (long long i = 0; i < (long long)P.lines * 2 * P.k; ++i) {
      Emu::tid = int(i);
      cuda::iir_tile_borders(agg, ends, P, bd, co, int(i % P.lines), int(i / P.lines));
    }
    ++Emu::phase;
  }
}
template <typename AP, typename EP>
void emulate_chains(const float* in, AP agg, EP ends, const cuda::IirTilePlan& P, Border b, const cuda::IirCoeffs& co) {
  const cuda::IirBorder bd = cuda::iir_border(co, P.n, b);
  emulate_chains_with(agg, ends, P, b, co, [&](int l, int s) { cuda::iir_tile_chain(in, agg, ends, P, bd, co, l, s); });
}
template <int TL = cuda::kIirTile, typename AP>
void emulate_final(const float* in, float* out, AP agg, const cuda::IirTilePlan& P, const cuda::IirCoeffs& co) {
  for (long long i = 0; i < P.items(); ++i) {
    Emu::tid = int(i);
    // (the kernels' two forms, as launch_iir1d picks them: term 1 real or not)
    if (cuda::iir_term1_real(co))
      cuda::iir_tile_final<2, true, TL>(in, out, agg, P, co, int(i % P.lines), int(i / P.lines));
    else
      cuda::iir_tile_final<2, false, TL>(in, out, agg, P, co, int(i % P.lines), int(i / P.lines));
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
        if (cuda::iir_term1_real(co))
          cuda::iir_pair_rows_final<2, true>(src.data.data(), mid.data.data(), agg, sm, P, co, ch, rb, j, t);
        else
          cuda::iir_pair_rows_final<2, false>(src.data.data(), mid.data.data(), agg, sm, P, co, ch, rb, j, t);
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

// The pair as 2D tiles (iir_2d.cuh, RGBA): each kernel's threads one after another, a block's barriers and each
// kernel a phase apart; shared memory and the aggregates behind race-checking pointers.
// The column chains read the weighted rows' states straight from the row aggregates (iir2d_col_chain's
// Iir2dDirect); the kernel's copy of them staged in shared memory is checked on the device (CudaIirScan's 2D
// variants, the matrix with GPUBLUR_CUDA_IIR_2D=2, racecheck).
template <bool R1>
void emulate_2d(const Image& src, Border b, const cuda::IirCoeffs& co, Image& got, std::vector<std::string>& errors) {
  ASSERT_EQ(src.channels, 4);
  const cuda::Iir2dPlan P = cuda::iir2d_plan(src.width, src.height, co.k);
  const cuda::IirTilePlan &Pr = P.Pr, &Pc = P.Pc;
  std::vector<float2> arv(Pr.agg_bytes() / sizeof(float2), float2{NAN, NAN}),
      acv(Pc.agg_bytes() / sizeof(float2), float2{NAN, NAN});
  std::vector<cuda::Cplx> erv(size_t(2 * Pr.k * Pr.lines), cuda::Cplx{NAN, NAN}),
      ecv(size_t(2 * Pc.k * Pc.lines), cuda::Cplx{NAN, NAN});
  // (clamp's border values: sized as the plan's scratch, written only where used)
  std::vector<float> ev(size_t(2) * size_t(src.width) * 4, NAN), vev(size_t(2) * size_t(P.ty) * size_t(P.nvt()), NAN);
  Shadow shr("row aggregates", arv.size()), shc("column aggregates", acv.size()), ser("row ends", erv.size()),
      sec("column ends", ecv.size()), she("edge rows", ev.size()), shv("weighted rows' edges", vev.size());
  const testing::ChkPtr<float2, Emu> aggr{arv.data(), &shr, 0}, aggc{acv.data(), &shc, 0};
  const testing::ChkPtr<cuda::Cplx, Emu> endsr{erv.data(), &ser, 0}, endsc{ecv.data(), &sec, 0};
  const testing::ChkPtr<float, Emu> edge{ev.data(), &she, 0}, vedge{vev.data(), &shv, 0};
  const cuda::Iir2dPowers pw = cuda::iir2d_powers(co);
  const float2* tab = &pw.p[0][0];
  const int T = cuda::kIir2dThreads;
  Emu::phase = 0;
  const auto each_tile = [&](auto body) {
    for (int y = 0; y < P.ty; ++y)
      for (int x = 0; x < P.tx; ++x) body(x, y);
  };
  const auto tile_smem = [&](std::vector<float>& sv, int x, int y) {  // the kernels' load (valid pixels only)
    sv.assign(size_t(cuda::kIir2dTile) * cuda::kIir2dPitch, NAN);
    for (int r = 0; r < P.ny(y); ++r)
      for (int q = 0; q < P.nx(x); ++q)
        for (int c = 0; c < 4; ++c)
          sv[size_t(r * cuda::kIir2dPitch + q * 4 + c)] =
              src.data[(size_t(y * cuda::kIir2dTile + r) * size_t(src.width) + size_t(x * cuda::kIir2dTile + q)) * 4 +
                       size_t(c)];
  };
  // 1. sums
  each_tile([&](int x, int y) {
    std::vector<float> sv;
    tile_smem(sv, x, y);
    Shadow ss("tile", sv.size());
    const testing::ChkPtr<float, Emu> sm{sv.data(), &ss, 0};
    std::vector<float> rv(size_t(T) * 16, NAN);  // each thread's row and column sums, as its registers hold them
    for (int t = 0; t < T; ++t) {
      Emu::tid = t;
      float ru[2][2], rw[2][2], zu[2][2], zw[2][2];
      cuda::iir2d_s1_sums<2, R1>(t, sm, aggr, tab, P, co, x, y, ru, rw, zu, zw);
      if (b == Border::Clamp) cuda::iir2d_s1_edges<2, R1>(t, sm, edge, vedge, tab, P, co, x, y);
      for (int e = 0; e < 4; ++e) {
        float* o = &rv[size_t(t) * 16];
        o[e] = ru[e / 2][e % 2], o[4 + e] = rw[e / 2][e % 2], o[8 + e] = zu[e / 2][e % 2], o[12 + e] = zw[e / 2][e % 2];
      }
    }
    ++Emu::phase;
    for (int t = 0; t < T; ++t) {
      Emu::tid = t;
      float ru[2][2], rw[2][2], zu[2][2], zw[2][2];
      for (int e = 0; e < 4; ++e) {
        const float* o = &rv[size_t(t) * 16];
        ru[e / 2][e % 2] = o[e], rw[e / 2][e % 2] = o[4 + e], zu[e / 2][e % 2] = o[8 + e], zw[e / 2][e % 2] = o[12 + e];
      }
      cuda::iir2d_s1_zstore<2>(t, sm, P, co, x, y, ru, rw, zu, zw);
    }
    ++Emu::phase;
    for (int t = 0; t < T; ++t) {
      Emu::tid = t;
      cuda::iir2d_s1_zfilter<2>(t, sm, P, co, x);
      cuda::iir2d_s1_vsums(t, sm, aggr, tab, P, co, x, y);
    }
    ++Emu::phase;
    for (int t = 0; t < T; ++t) Emu::tid = t, cuda::iir2d_s1_colagg<2>(t, sm, aggc, P, co, x, y);
    ++Emu::phase;
    errors.insert(errors.end(), ss.errors.begin(), ss.errors.end());
  });
  // 2. row chains (the weighted rows' too)
  const cuda::IirBorder br = cuda::iir_border(co, Pr.n, b), bc = cuda::iir_border(co, Pc.n, b);
  emulate_chains_with(aggr, endsr, Pr, b, co, [&](int l, int s) {
    cuda::iir2d_row_chain(src.data.data(), vev.data(), aggr, endsr, P, br, co, l, s);
  });
  // 3. column chains, corrected for the rows' states
  emulate_chains_with(aggc, endsc, Pc, b, co, [&](int l, int s) {
    cuda::iir2d_col_chain<2>(ev.data(), aggr, aggc, endsc, tab, P, bc, co, l, s);
  });
  // 4. outputs
  each_tile([&](int x, int y) {
    std::vector<float> sv;
    tile_smem(sv, x, y);
    Shadow ss("tile", sv.size());
    const testing::ChkPtr<float, Emu> sm{sv.data(), &ss, 0};
    std::vector<float2> raw(size_t(T) * 4);  // (each thread's states, as its registers hold them)
    for (int t = 0; t < T; ++t) {
      Emu::tid = t;
      float2 ru[2]{}, rw[2]{}, cu[2]{}, cw[2]{};
      cuda::iir2d_s4_raw<2>(t, aggr, aggc, P, co, x, y, ru, rw, cu, cw);
      cuda::iir2d_s4_rows<2, R1>(t, sm, ru, rw, P, co, x, y);
      for (int e = 0; e < 2; ++e) raw[size_t(t) * 4 + size_t(e)] = cu[e], raw[size_t(t) * 4 + 2 + size_t(e)] = cw[e];
    }
    ++Emu::phase;
    for (int t = 0; t < T; ++t) {
      Emu::tid = t;
      const float2 cu[2] = {raw[size_t(t) * 4], raw[size_t(t) * 4 + 1]};
      const float2 cw[2] = {raw[size_t(t) * 4 + 2], raw[size_t(t) * 4 + 3]};
      cuda::iir2d_s4_cols<2, R1>(t, sm, got.data.data(), cu, cw, P, co, x, y);
    }
    ++Emu::phase;
    errors.insert(errors.end(), ss.errors.begin(), ss.errors.end());
  });
  for (Shadow* sh : {&shr, &shc, &ser, &sec, &she, &shv})
    errors.insert(errors.end(), sh->errors.begin(), sh->errors.end());
}

// The 2D tiles against the reference of both passes: one tile, partial tiles both ways, a row or a column of
// one pixel, every border, both filters at sigma 1.5 to 200.
TEST(CudaIirTilesEmulated, TwoDMatchesTheReference) {
  double worst_all = 0;
  int cases = 0;
  testing::for_each_iir_plan([&](const Plan& plan, const char* impl, double sigma, const char* border) {
    ASSERT_TRUE(iir_pair(plan.program, 0));
    cuda::IirCoeffs co;
    ASSERT_TRUE(cuda::iir_coeffs(plan.program.passes[0].taps, co).ok());
    for (const Size sz : {Size{1, 1}, Size{7, 3}, Size{64, 64}, Size{65, 130}, Size{130, 65}, Size{1, 100},
                          Size{100, 1}, Size{200, 77}}) {
      const Image src = testing::random_image(sz.w, sz.h, 4, 21u + unsigned(sz.w * 3 + sz.h));
      Image want;
      ASSERT_TRUE(reference_run(plan, src, want, 1).ok());
      Image got(sz.w, sz.h, 4);
      for (float& v : got.data) v = NAN;
      std::vector<std::string> errors;
      // (As the kernels run it: Young-van Vliet's real term in real arithmetic.)
      if (cuda::iir_term1_real(co)) emulate_2d<true>(src, plan.program.passes[0].border, co, got, errors);
      else emulate_2d<false>(src, plan.program.passes[0].border, co, got, errors);
      const std::string what = std::string(impl) + " sigma " + std::to_string(sigma) + " " + border + " " +
                               std::to_string(sz.w) + "x" + std::to_string(sz.h);
      worst_all = std::max(worst_all, testing::expect_emulated_case(what, errors, got, want));
      ++cases;
    }
  });
  std::printf("iir x/y pair as 2D tiles, emulation vs reference: %d cases, max abs %.3g\n", cases, worst_all);
}

// The product takes the 2D tiles where they measured faster: Young-van Vliet from 2048^2, Deriche from 4096^2, not
// smaller.
TEST(CudaIirTilesEmulated, TwoDWhereMeasuredFaster) {
  for (const char* impl : {"young-van-vliet", "deriche"}) {
    Plan plan;
    ASSERT_TRUE(resolve_plan("iir", {{"impl", impl}, {"sigma", "12"}}, plan));
    cuda::IirCoeffs co;
    ASSERT_TRUE(cuda::iir_coeffs(plan.program.passes[0].taps, co).ok());
    const bool yvv = std::string(impl) == "young-van-vliet";
    EXPECT_TRUE(cuda::iir2d_measured_faster(4096, 4096, co)) << impl;
    EXPECT_TRUE(cuda::iir2d_measured_faster(8192, 2048, co)) << impl;
    EXPECT_EQ(cuda::iir2d_measured_faster(2048, 2048, co), yvv) << impl;
    EXPECT_EQ(cuda::iir2d_measured_faster(4096, 4095, co), yvv) << impl;
    EXPECT_FALSE(cuda::iir2d_measured_faster(2048, 2047, co)) << impl;
    EXPECT_FALSE(cuda::iir2d_measured_faster(1024, 1024, co)) << impl;
  }
}

}  // namespace
}  // namespace gpublur
