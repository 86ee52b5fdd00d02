// Iir1d's segment-scan block code (gpu/cuda/passes/iir_scan.cuh) run on the host: every row of an image as
// iir1d_scan_kernel places it (NL = channels; the product runs NL = 1, the block code is written for any), its
// phases run thread by thread in order with the barriers
// between them, the shared memory behind pointers that check bounds and flag races (two threads touching one
// element within a phase, one of them writing). Odd sizes, 1 segment to many, 64 threads (several rounds of
// items) and the kernel's 256, every border, both filters, sigma 1.5 to 200, against the CPU reference.
// No device needed: this checks the index math, the carry algebra and the border states; the compiled kernel is
// checked on a GPU by test_cuda_iir_scan.cpp and the method matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "core/plan.hpp"
#include "gpu/cuda/passes/iir_scan.cuh"
#include "tests/core/image_diff.hpp"
#include "tests/core/random_image.hpp"
#include "tests/cuda/iir_emulation.hpp"
#include "tests/cuda/shadow_memory.hpp"

namespace gpublur {
namespace {

// The emulated block (or grid): the running thread, and the phase (barriers passed).
using Emu = testing::SerialClock;
using Shadow = testing::Shadow<Emu>;
template <typename T>
using ChkPtr = testing::ChkPtr<T, Emu>;

// iir1d_scan_kernel<NL, KT> over every row of `src` into `got`; races and bounds into `errors`.
template <int NL, int KT, bool REAL1>
void emulate(const Image& src, Border b, const cuda::IirCoeffs& co, int nth, Image& got,
             std::vector<std::string>& errors, cuda::IirScanPlan& P) {
  const int rowv = src.width * src.channels;
  const int blocks = src.height;
  P = cuda::iir_scan_plan(src.width, NL, co.k, nth);
  const int items = P.items(), total = P.n * NL;
  const cuda::IirBorder bd = cuda::iir_border(co, P.n, b);
  for (int blk = 0; blk < blocks; ++blk) {
    std::vector<float> sv(size_t(total), NAN);
    std::vector<cuda::Cplx> cuv(size_t(co.k) * items, cuda::Cplx{NAN, NAN}), cwv = cuv;
    std::vector<cuda::Cplx> endv(size_t(2 * co.k * NL), cuda::Cplx{NAN, NAN});
    EXPECT_EQ(P.bytes, P.carry_off + (cuv.size() + cwv.size() + endv.size()) * sizeof(cuda::Cplx));
    Shadow ss("values", sv.size()), scu("cu", cuv.size()), scw("cw", cwv.size()), se("ends", endv.size());
    const ChkPtr<float> s{sv.data(), &ss, 0};
    const ChkPtr<cuda::Cplx> cu{cuv.data(), &scu, 0}, cw{cwv.data(), &scw, 0}, ends{endv.data(), &se, 0};
    const size_t base = size_t(blk) * size_t(rowv);  // the row, contiguous
    Emu::phase = 0;
    for (Emu::tid = 0; Emu::tid < nth; ++Emu::tid)  // the load (scalar path; the 16-byte one maps alike)
      for (int e = Emu::tid; e < total; e += nth) s[e] = src.data[base + size_t(e)];
    ++Emu::phase;
    for (Emu::tid = 0; Emu::tid < nth; ++Emu::tid) cuda::iir_scan_local<NL, KT, REAL1>(Emu::tid, nth, s, cu, cw, P, co);
    ++Emu::phase;
    for (Emu::tid = 0; Emu::tid < nth; ++Emu::tid) cuda::iir_scan_chunk_local<NL>(Emu::tid, cu, cw, P, co);
    ++Emu::phase;
    for (Emu::tid = 0; Emu::tid < nth; ++Emu::tid) cuda::iir_scan_chain<NL>(Emu::tid, s, cu, cw, ends, P, bd, co);
    ++Emu::phase;
    for (Emu::tid = 0; Emu::tid < nth; ++Emu::tid) cuda::iir_scan_chunk_spread<NL>(Emu::tid, cu, cw, P, co);
    ++Emu::phase;
    if (b == Border::Wrap || b == Border::Mirror) {
      for (Emu::tid = 0; Emu::tid < nth; ++Emu::tid) cuda::iir_scan_borders<NL>(Emu::tid, cu, cw, ends, P, bd, co);
      ++Emu::phase;
    }
    for (Emu::tid = 0; Emu::tid < nth; ++Emu::tid) cuda::iir_scan_final<NL, KT, REAL1>(Emu::tid, nth, s, cu, cw, P, co);
    ++Emu::phase;
    for (Emu::tid = 0; Emu::tid < nth; ++Emu::tid)
      for (int e = Emu::tid; e < total; e += nth) got.data[base + size_t(e)] = s[e];
    for (Shadow* sh : {&ss, &scu, &scw, &se}) errors.insert(errors.end(), sh->errors.begin(), sh->errors.end());
  }
}

struct Size {
  int w, h;
};
struct BlockRun {
  int nth;
  bool all_complex;
};

TEST(CudaIirScanEmulated, BlocksMatchTheReference) {
  double worst_all = 0;
  int cases = 0, max_segments = 0, max_chunks = 0, max_chunk_len = 0;
  testing::for_each_iir_plan([&](const Plan& plan, const char* impl, double sigma, const char* border) {
    for (int ch : {1, 2, 4})
      for (const Size sz : {Size{1, 1}, Size{7, 3}, Size{37, 23}, Size{1001, 3}, Size{5, 1001}, Size{4099, 2}})
          for (const BlockRun run_cfg : {BlockRun{64, false}, BlockRun{256, false}, BlockRun{256, true}}) {
            const int nth = run_cfg.nth;
            const bool all_complex = run_cfg.all_complex;
            if (all_complex && std::string(impl) == "deriche") continue;
            if (nth == 64 && sz.w * sz.h > 1000 && sigma != 200.0) continue;  // rounds: enough at sigma 200
            const Image src = testing::random_image(sz.w, sz.h, ch, 11u + unsigned(ch * 7 + sz.w));
            testing::IirPassCase ic;
            ASSERT_TRUE(testing::iir_pass_case(plan, 0, src, ic));
            const cuda::IirCoeffs& co = ic.co;
            const Pass& pass = ic.pass;
            ASSERT_LE(co.k, 2);  // both filters: two terms (the kernels also have a KT = 4 instance)
            const int nl = ch;  // the scan's value lines per row: the row's interleaved channels
            {
              Image got(sz.w, sz.h, ch);
              for (float& v : got.data) v = NAN;  // every value must be written
              std::vector<std::string> errors;
              cuda::IirScanPlan P;
              // Both as the kernels run them (Young-van Vliet: its real pole in real arithmetic) and all
              // complex (the Deriche path's code on Young-van Vliet's terms).
              const bool real1 = cuda::iir_term1_real(co) && !all_complex;
              if (std::string(impl) == "young-van-vliet") EXPECT_EQ(cuda::iir_term1_real(co), true);
              auto run = [&](auto nlc) {
                constexpr int NLC = decltype(nlc)::value;
                if (real1) emulate<NLC, 2, true>(src, pass.border, co, nth, got, errors, P);
                else emulate<NLC, 2, false>(src, pass.border, co, nth, got, errors, P);
              };
              switch (nl) {
                case 1: run(std::integral_constant<int, 1>{}); break;
                case 2: run(std::integral_constant<int, 2>{}); break;
                case 4: run(std::integral_constant<int, 4>{}); break;
                default: run(std::integral_constant<int, 8>{}); break;
              }
              const std::string what = std::string(all_complex ? "(all complex) " : "") + impl + " sigma " +
                                       std::to_string(sigma) + " " + border + " ch " + std::to_string(ch) + " " +
                                       std::to_string(sz.w) + "x" + std::to_string(sz.h) + " NL " +
                                       std::to_string(nl) + " threads " + std::to_string(nth) + " L " +
                                       std::to_string(P.L) + " segments " + std::to_string(P.nseg);
              worst_all = std::max(worst_all, testing::expect_emulated_case(what, errors, got, ic.want));
              max_segments = std::max(max_segments, P.nseg);
              max_chunks = std::max(max_chunks, P.chunks), max_chunk_len = std::max(max_chunk_len, P.chunk_len);
              ++cases;
            }
          }
  });
  std::printf("iir segment scan emulation vs reference: %d cases, up to %d segments per line (%d chunks, %d long), "
              "max abs %.3g\n", cases, max_segments, max_chunks, max_chunk_len, worst_all);
  EXPECT_GT(max_chunks, 1);
  EXPECT_GT(max_chunk_len, 1);
}

// The plan: odd segments no longer than kIirSegMax, covering the line, and the shared memory it asks for at the
// sizes the issue measures (4096^2 RGBA rows: 64 KiB of values and the carries, two blocks on an H100's SM).
TEST(CudaIirScanEmulated, Plans) {
  for (int n : {1, 2, 33, 34, 1000, 4096, 16384})
    for (int nl : {1, 2, 4, 8})
      for (int nth : {64, 256}) {
        const cuda::IirScanPlan P = cuda::iir_scan_plan(n, nl, 2, nth);
        EXPECT_EQ(P.L % 2, 1);
        EXPECT_LE(P.L, cuda::kIirSegMax);
        EXPECT_GE(P.seg_len(P.nseg - 1), 1);
        EXPECT_EQ((P.nseg - 1) * P.L + P.seg_len(P.nseg - 1), n);
        EXPECT_EQ(P.carry_off % 16, 0u);
        EXPECT_GE(P.carry_off, size_t(n) * nl * sizeof(float));
        EXPECT_LE(2 * nl * 2 * P.chunks, nth);  // phase 2's chunk threads
        EXPECT_GE(P.chunks * P.chunk_len, P.nseg);
        EXPECT_LT((P.chunks - 1) * P.chunk_len, P.nseg);
      }
  const cuda::IirScanPlan rows = cuda::iir_scan_plan(4096, 4, 2, cuda::kIirScanThreads);
  std::printf("4096 RGBA row: L %d, %d segments, %d items, chains in %d chunks of %d, %zu B shared\n", rows.L,
              rows.nseg, rows.items(), rows.chunks, rows.chunk_len, rows.bytes);
  EXPECT_LE(rows.bytes, size_t(228 * 1024 / 2 - 1024));  // two blocks per H100 SM
  const cuda::IirScanPlan gray = cuda::iir_scan_plan(4096, 1, 2, cuda::kIirScanThreads);  // what the product runs
  EXPECT_LE(gray.bytes, size_t(228 * 1024 / 2 - 1024));
}

}  // namespace
}  // namespace gpublur
