// Which Down2 / Up2 / DualDown passes the CUDA pass table runs as one fused kernel (core's resample_pair and
// dual_pair, core/program.hpp; GL pairs by the same rules), on the programs the recipes build: down chains pair
// from their start (two short analysis kernels), up chains from their end, the long folded Down2 never, a middle
// image that another pass reads never. Host only (the choice looks at the program, not the device);
// tests/cuda/test_cuda_resample_fused.cpp runs the kernels.
#include <gtest/gtest.h>

#include <vector>

#include "core/resample.hpp"
#include "cuda/cuda_test_util.hpp"
#include "gpu/cuda/cuda_kernels.hpp"

namespace gpublur::testing {
namespace {

// The backend's walk: the first pass of each fused pair (the pair's second pass is skipped).
std::vector<size_t> fused_starts(const Program& prog) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < prog.passes.size();) {
    if (cuda::resample_pair(prog, i) || dual_pair(prog, i)) {
      starts.push_back(i);
      i += 2;
    } else {
      ++i;
    }
  }
  return starts;
}

TEST(CudaResampleSchedule, PairsFollowTheProgram) {
  // Quasi at sigma 12: 3 levels (Down2 4, 4, folded taps; Up2 x 3): the first two downs, the last two ups.
  const Plan p12 = make_plan("pyramid", 12, "clamp");
  ASSERT_EQ(p12.program.passes.size(), 6u);
  EXPECT_GT(p12.program.passes[2].taps.size(), 4u);
  EXPECT_EQ(fused_starts(p12.program), (std::vector<size_t>{0, 4}));
  // Sigma 48: 5 levels: downs 0-1 and 2-3 (4 is the folded one), ups 6-7 and 8-9 (5 alone).
  const Plan p48 = make_plan("pyramid", 48, "mirror");
  ASSERT_EQ(p48.program.passes.size(), 10u);
  EXPECT_EQ(fused_starts(p48.program), (std::vector<size_t>{0, 2, 6, 8}));
  // box2 (2 taps) pairs too; --levels 1: nothing to pair.
  EXPECT_EQ(fused_starts(make_plan("pyramid", 12, "wrap", {{"down", "box2"}}).program).front(), 0u);
  EXPECT_TRUE(fused_starts(make_plan("pyramid", 3, "zero", {{"levels", "1"}}).program).empty());
  // --downsample 4 around gauss-sep: its two box2 downs and its two ups.
  const Plan d4 = make_plan("gauss-sep", 12, "clamp", {{"downsample", "4"}});
  const std::vector<size_t> s4 = fused_starts(d4.program);
  ASSERT_EQ(s4.size(), 2u);
  EXPECT_EQ(d4.program.passes[s4[0]].op, Op::Down2);
  EXPECT_EQ(d4.program.passes[s4[1]].op, Op::Up2);
  EXPECT_EQ(s4[1] + 2, d4.program.passes.size());
}

TEST(CudaResampleSchedule, AMiddleImageReadElsewhereIsNotFused) {
  Program prog;
  const int a = prog.add_image({0, 2, false}), b = prog.add_image({0, 4, false}), c = prog.add_image({0, 2, false});
  const std::vector<float> taps = analysis_taps(DownFilter::Quasi);
  prog.passes = {down2_pass(taps, Border::Clamp, 0, a), down2_pass(taps, Border::Clamp, a, b),
                 up2_pass(Border::Clamp, b, c), up2_pass(Border::Clamp, c, 1)};
  EXPECT_EQ(fused_starts(prog), (std::vector<size_t>{0, 2}));
  prog.passes.push_back(up2_pass(Border::Clamp, a, 1));  // level a is read again: the downs stay apart
  EXPECT_FALSE(cuda::resample_pair(prog, 0));
  EXPECT_TRUE(cuda::resample_pair(prog, 2));  // (the last pass is no Up2 of the chain b -> c -> 1)
  prog.passes.pop_back();
  prog.passes[1] = down2_pass(std::vector<float>(8, 0.125f), Border::Clamp, a, b);  // a long second down
  EXPECT_FALSE(cuda::resample_pair(prog, 0));
}

// kawase --impl dual: L downs, the bottom Gaussian (a Conv1d pair) where there is one, L ups; each level image
// written by its down pass and again by the up pass from the level below. The first two downs pair (level 1's
// down content is dead once the second down has read it); a chain of 3 leaves its last down alone; ups never
// pair (fused ups measured slower).
TEST(CudaResampleSchedule, DualPairsTheFirstDowns) {
  for (double sigma : {3.0, 12.0, 48.0, 200.0})
    for (const char* border : {"clamp", "zero"}) {
      const Plan plan = make_plan("kawase", sigma, border, {{"impl", "dual"}});
      const Program& prog = plan.program;
      std::vector<size_t> downs, ups;
      for (size_t i = 0; i < prog.passes.size(); ++i) {
        if (prog.passes[i].op == Op::DualDown) downs.push_back(i);
        if (prog.passes[i].op == Op::DualUp) ups.push_back(i);
      }
      ASSERT_EQ(downs.size(), ups.size());
      const size_t L = downs.size();
      std::vector<size_t> want;
      for (size_t k = 0; k + 1 < L; k += 2) want.push_back(downs[k]);
      EXPECT_EQ(fused_starts(prog), want) << "sigma " << sigma << " " << border << " levels " << L;
      if (L >= 2) {
        EXPECT_TRUE(dual_pair(prog, downs[0]));
        EXPECT_FALSE(dual_pair(prog, ups[L - 2]));
      }
    }
}

TEST(CudaResampleSchedule, DualMiddleContentReadLaterIsNotFused) {
  Program prog;
  const int a = prog.add_image({0, 2, false}), b = prog.add_image({0, 4, false}), c = prog.add_image({0, 2, false});
  Pass d;
  d.op = Op::DualDown;
  d.src = 0, d.dst = a;
  Pass d2 = d;
  d2.src = a, d2.dst = b;
  Pass u;
  u.op = Op::DualUp;
  u.src = b, u.dst = c;
  Pass u2 = u;
  u2.src = c, u2.dst = 1;
  prog.passes = {d, d2, u, u2};
  EXPECT_EQ(fused_starts(prog), (std::vector<size_t>{0}));
  Pass late = u;  // level a's down content read after the pair: the downs stay apart
  late.src = a, late.dst = 1;
  prog.passes.push_back(late);
  EXPECT_FALSE(dual_pair(prog, 0));
  prog.passes.back().src = b;  // a later read of another image: no matter
  EXPECT_TRUE(dual_pair(prog, 0));
  // Level a written again (by an up pass) before the later read: its down content is dead, the downs pair.
  Pass rewrite = u;
  rewrite.src = b, rewrite.dst = a;
  prog.passes = {d, d2, rewrite, late};
  prog.passes.back().src = a;
  EXPECT_TRUE(dual_pair(prog, 0));
}

}  // namespace
}  // namespace gpublur::testing
