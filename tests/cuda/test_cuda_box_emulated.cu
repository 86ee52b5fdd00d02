// Box1d's block-level code (gpu/cuda/passes/box_cascade.cuh: the cascade on lines in shared memory, chunk and
// segment planning) run on the host: a block of 256 std::threads with barriers and emulated warp shuffles, the
// shared-memory arrays behind pointers that check bounds and flag races (two threads touching one element
// between the same two barriers, one of them writing). The loads and stores around it mirror the kernels of
// gpu/cuda/passes/box1d.cu. Results are compared with the CPU reference. No device needed: these run everywhere
// and check the index math, the in-place rounds and the barrier placement; the compiled kernels are checked on
// a GPU by the other tests.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <initializer_list>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/box.hpp"
#include "core/integral.hpp"
#include "core/plan.hpp"
#include "core/random_image.hpp"
#include "core/reference/reference.hpp"
#include "gpu/cuda/passes/box_cascade.cuh"
#include "gpu/cuda/passes/box_walk.cuh"
#include "tests/cuda/emulated_block.hpp"
#include "tests/cuda/shadow_memory.hpp"

namespace gpublur::testing {
namespace {

using cuda::BoxWidths;

using Shadow = testing::Shadow<EmuClock>;
template <typename T>
using ChkPtr = testing::ChkPtr<T, EmuClock>;

// A block's shared memory as the kernels lay it out: values, float64 prefixes, float32 totals.
template <typename V>
struct Smem {
  std::vector<V> values;
  std::vector<double> base;
  std::vector<float> tot;
  Shadow sv, sb, st;
  // Arrays for cascades over (len, S, nl) each, as the kernels size them (prefixes: false for the DIRECT form,
  // which has none: a read or write there fails the shadow's bounds check).
  Smem(size_t nvalues, std::initializer_list<std::array<int, 3>> cascades, bool prefixes = true)
      : sv("values", nvalues), sb("base", 0), st("tot", 0) {
    size_t nb = 0, nt = 0;
    for (const auto& [len, S, nl] : cascades) {
      const cuda::SmemLayout L = cuda::smem_layout(0, len, S, nl, cuda::VecInfo<V>::K, prefixes);
      nb = std::max(nb, (L.tot_off - L.base_off) / sizeof(double));
      nt = std::max(nt, (L.bytes - L.tot_off) / sizeof(float));
    }
    values.assign(nvalues, V{});
    base.assign(nb, std::nan(""));
    tot.assign(nt, std::nanf(""));
    sb.cells.resize(nb);
    st.cells.resize(nt);
  }
  ChkPtr<V> v() { return {values.data(), &sv, 0}; }
  ChkPtr<double> b() { return {base.data(), &sb, 0}; }
  ChkPtr<float> t() { return {tot.data(), &st, 0}; }
  void expect_clean() {
    for (Shadow* s : {&sv, &sb, &st})
      for (const std::string& e : s->errors) ADD_FAILURE() << e;
  }
};

// Threads per emulated block: the kernels' 256 in some cases, 64 elsewhere (the same code with more rounds;
// OS threads are slow to synchronise).
constexpr int kThreads = 256;

BoxWidths widths_of(const std::vector<int>& w) {
  BoxWidths bw;
  EXPECT_TRUE(cuda::box_widths(w, "test", bw).ok());
  return bw;
}
// Real widths: Integral1d's cascade (fractional window ends).
BoxWidths widths_of(const std::vector<float>& w) {
  BoxWidths bw;
  EXPECT_TRUE(cuda::frac_box_widths(w, "test", bw).ok());
  return bw;
}
void set_widths(Pass& p, const std::vector<int>& w) { p.op = Op::Box1d, p.widths = w; }
void set_widths(Pass& p, const std::vector<float>& w) { p.op = Op::Integral1d, p.taps = w; }

float comp_of(const float& v, int) { return v; }
float comp_of(const float2& v, int c) { return c == 0 ? v.x : v.y; }
float comp_of(const float4& v, int c) { return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w; }

// The CPU reference of a Box1d pass (or the x/y pair) on a random image.
template <typename WL>
Image reference(const Image& src, const WL& widths, Border b, int axis, bool pair) {
  Plan plan;
  plan.border = b;
  Pass pass;
  set_widths(pass, widths);
  pass.border = b;
  pass.axis = axis;
  if (pair) {
    const int mid = plan.program.add_image({});
    pass.axis = 0, pass.src = 0, pass.dst = mid;
    plan.program.passes.push_back(pass);
    pass.axis = 1, pass.src = mid, pass.dst = 1;
  }
  plan.program.passes.push_back(pass);
  Image out;
  EXPECT_TRUE(reference_run(plan, src, out, 1).ok());
  return out;
}

// cascade_lines' EXACT form with chunk E, DIRECT or not.
template <typename V, bool TO_SMEM, int E, typename... A>
void exact_form(bool direct, A&... a) {
  if (direct)
    cuda::cascade_lines<Emu, V, E, TO_SMEM, true, true>(a...);
  else
    cuda::cascade_lines<Emu, V, E, TO_SMEM, true, false>(a...);
}

// Blocks emulated in the [general, EXACT] form's [prefix, DIRECT] variants (the tests check that all ran).
std::array<std::array<long, 2>, 2> g_forms{};

// cascade_lines' general form, DIRECT or not.
template <typename V, bool TO_SMEM, typename... A>
void general_cascade(bool direct, A... a) {
  if (Emu::tid() == 0) ++g_forms[0][direct ? 1 : 0];
  if (direct)
    cuda::cascade_lines<Emu, V, cuda::box_smax<V>(), TO_SMEM, false, true>(a...);
  else
    cuda::cascade_lines<Emu, V, cuda::box_smax<V>(), TO_SMEM>(a...);
}

// cascade_lines' EXACT form with chunk e (one of kExactChunks), DIRECT where direct_starts holds, dispatched as
// box1d.cu does.
template <typename V, bool TO_SMEM, typename... A>
void exact_cascade(int e, bool direct, A... a) {
  if (Emu::tid() == 0) ++g_forms[1][direct ? 1 : 0];
  switch (e) {
    case 5: exact_form<V, TO_SMEM, 5>(direct, a...); break;
    case 9: exact_form<V, TO_SMEM, 9>(direct, a...); break;
    case 13: exact_form<V, TO_SMEM, 13>(direct, a...); break;
    case 17: exact_form<V, TO_SMEM, 17>(direct, a...); break;
    case 19: exact_form<V, TO_SMEM, 19>(direct, a...); break;
    case 21: exact_form<V, TO_SMEM, 21>(direct, a...); break;
    default: ADD_FAILURE() << "no EXACT form for chunk " << e;
  }
}

// box_rows_kernel on every (row, segment) of a W x H image of V pixels; returns the max abs error. exact: the
// EXACT form where the row has one (float4 lines; its padding zeroed as the kernel's load does).
template <typename V, typename WL>
double emulate_rows(int W, int H, const WL& widths, Border b, int nseg, int nth, bool exact = false) {
  constexpr int K = cuda::VecInfo<V>::K;
  const BoxWidths bw = widths_of(widths);
  const Image src = random_image(W, H, K, 7u + unsigned(W * 31 + H));
  const Image want = reference(src, widths, b, 0, false);
  const int R = bw.reach, seg_len = (W + nseg - 1) / nseg, len = seg_len + 2 * R;
  const int S =
      cuda::choose_chunk(cuda::box_smax<V>(), nth, [&](int s) { return cuda::first_box_items(len, bw, 1, s); });
  const int e = exact ? cuda::exact_chunk(len, bw, 1, nth, S) : 0;
  const bool direct = cuda::direct_starts(bw, e > 0 ? e : S);
  double err = 0;
  for (int row = 0; row < H; ++row)
    for (int a0 = 0; a0 < W; a0 += seg_len) {
      Smem<V> sm(size_t(len + e), {{len, e > 0 ? e : S, 1}}, !direct);
      for (int q = 0; q < len; ++q) {
        const int x = remap_index(a0 - R + q, W, b);
        V v{};
        if (x >= 0) std::memcpy(&v, &src.data[(size_t(row) * W + x) * K], sizeof(V));
        sm.values[size_t(q)] = v;
      }
      run_block(nth, [&] {
        if (e > 0)
          exact_cascade<V, true>(e, direct, sm.v(), 1, 0, 1, len, bw, e, sm.b(), sm.t(), cuda::NoStore{});
        else
          general_cascade<V, true>(direct, sm.v(), 1, 0, 1, len, bw, S, sm.b(), sm.t(), cuda::NoStore{});
      });
      sm.expect_clean();
      for (int j = 0; j < seg_len && a0 + j < W; ++j)
        for (int c = 0; c < K; ++c)
          err = std::max(err, std::fabs(double(comp_of(sm.values[size_t(j)], c)) -
                                        want.data[(size_t(row) * W + a0 + j) * K + c]));
    }
  return err;
}

// box_cols_kernel on every (strip, segment) of an image of W x H with C channels (rowv = W * C floats; V =
// float4 when that is a whole number of them, the kernels' choice); strips of NL value columns (0: 32 bytes);
// exact as for emulate_rows.
template <typename V, typename WL>
double emulate_cols(int W, int H, int C, const WL& widths, Border b, int nseg, int nth, int nl = 0,
                    bool exact = false) {
  constexpr int K = cuda::VecInfo<V>::K;
  const int NL = nl > 0 ? nl : int(32 / sizeof(V));
  const BoxWidths bw = widths_of(widths);
  const Image src = random_image(W, H, C, 11u + unsigned(W * 17 + H));
  const Image want = reference(src, widths, b, 1, false);
  const int rowv = W * C / K;
  const int R = bw.reach, seg_len = (H + nseg - 1) / nseg, len = seg_len + 2 * R;
  const int S =
      cuda::choose_chunk(cuda::box_smax<V>(), nth, [&](int s) { return cuda::first_box_items(len, bw, NL, s); });
  const int e = exact ? cuda::exact_chunk(len, bw, NL, nth, S) : 0;
  const bool direct = cuda::direct_starts(bw, e > 0 ? e : S);
  std::vector<int> stored(size_t(W) * H * C / K, 0);
  std::vector<V> got(stored.size());
  std::mutex m;
  for (int col0 = 0; col0 < rowv; col0 += NL)
    for (int a0 = 0; a0 < H; a0 += seg_len) {
      Smem<V> sm(size_t(len + e) * NL, {{len, e > 0 ? e : S, NL}}, !direct);
      for (int q = 0; q < len; ++q)
        for (int l = 0; l < NL; ++l) {
          const int y = remap_index(a0 - R + q, H, b), col = col0 + l;
          V v{};
          if (y >= 0 && col < rowv) std::memcpy(&v, &src.data[(size_t(y) * rowv + col) * K], sizeof(V));
          sm.values[size_t(q) * NL + l] = v;
        }
      const auto store = [&](int l, int j, const V& v) {
        const int col = col0 + l, y = a0 + j;
        if (col < rowv && y < H) {
          std::lock_guard<std::mutex> lk(m);
          ++stored[size_t(y) * rowv + col];
          got[size_t(y) * rowv + col] = v;
        }
      };
      run_block(nth, [&] {
        if (e > 0)
          exact_cascade<V, false>(e, direct, sm.v(), NL, 1, NL, len, bw, e, sm.b(), sm.t(), store);
        else
          general_cascade<V, false>(direct, sm.v(), NL, 1, NL, len, bw, S, sm.b(), sm.t(), store);
      });
      sm.expect_clean();
    }
  double err = 0;
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i], 1) << "value " << i << " stored " << stored[i] << " times";
    for (int c = 0; c < K; ++c) err = std::max(err, std::fabs(double(comp_of(got[i], c)) - want.data[i * K + c]));
  }
  return err;
}

// box_fused_kernel on every 64 x 32 tile of a W x H image of V pixels.
template <typename V>
double emulate_fused(int W, int H, const std::vector<int>& widths, Border b, int nth) {
  constexpr int K = cuda::VecInfo<V>::K, TW = 64, TH = 32;
  const BoxWidths bw = widths_of(widths);
  const Image src = random_image(W, H, K, 13u + unsigned(W * 7 + H));
  const Image want = reference(src, widths, b, 0, true);
  const int R = bw.reach, rows = TH + 2 * R, cols = TW + 2 * R, pitch = cols | 1, h1 = bw.w[0] - 1;
  const int S_rows = cuda::choose_chunk(cuda::box_smax<V>(), nth,
                                        [&](int s) { return (long long)rows * ((cols - h1 + s - 1) / s); });
  const int S_cols = cuda::choose_chunk(cuda::box_smax<V>(), nth,
                                        [&](int s) { return (long long)TW * ((rows - h1 + s - 1) / s); });
  std::vector<int> stored(size_t(W) * H, 0);
  std::vector<V> got(stored.size());
  std::mutex m;
  for (int y0 = 0; y0 < H; y0 += TH)
    for (int x0 = 0; x0 < W; x0 += TW) {
      Smem<V> sm(size_t(rows) * pitch, {{cols, S_rows, rows}, {rows, S_cols, TW}});
      for (int ry = 0; ry < rows; ++ry)
        for (int rx = 0; rx < cols; ++rx) {
          const int gy = remap_index(y0 - R + ry, H, b), gx = remap_index(x0 - R + rx, W, b);
          V v{};
          if (gx >= 0 && gy >= 0) std::memcpy(&v, &src.data[(size_t(gy) * W + gx) * K], sizeof(V));
          sm.values[size_t(ry) * pitch + rx] = v;
        }
      run_block(nth, [&] {
        cuda::cascade_lines<Emu, V, cuda::box_smax<V>(), true>(sm.v(), rows, pitch, 1, cols, bw, S_rows, sm.b(),
                                                               sm.t(), cuda::NoStore{});
        cuda::cascade_lines<Emu, V, cuda::box_smax<V>(), false>(
            sm.v(), TW, 1, pitch, rows, bw, S_cols, sm.b(), sm.t(), [&](int l, int j, const V& v) {
              const int x = x0 + l, y = y0 + j;
              if (x < W && y < H) {
                std::lock_guard<std::mutex> lk(m);
                ++stored[size_t(y) * W + x];
                got[size_t(y) * W + x] = v;
              }
            });
      });
      sm.expect_clean();
    }
  double err = 0;
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i], 1) << "pixel " << i << " stored " << stored[i] << " times";
    for (int c = 0; c < K; ++c) err = std::max(err, std::fabs(double(comp_of(got[i], c)) - want.data[i * K + c]));
  }
  return err;
}

const Border kBorders[] = {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero};

struct Case {
  int n;                    // line length
  std::vector<int> widths;  // the cascade
  int nseg;                 // segments per line
  int nth = 64;             // threads per block
};

// Short and long lines, one box and eight, widths beyond the line, segments with halos.
std::vector<Case> cases_all() {
  return {{1, {1}, 1},          {1, {5, 5, 7}, 1},         {7, {3, 3, 3, 3, 3, 3, 3, 3}, 1},
          {37, {23, 25, 25}, 1}, {300, {5, 5, 7}, 1},       {300, {5, 5, 7}, 3},
          {300, {95, 97, 97}, 2}, {61, {1, 3, 5, 7, 9, 11, 13, 15}, 2}, {9, {4097}, 1},
          {700, {3, 3, 5}, 1},   {4114, {5, 5, 7}, 1, kThreads}};  // rounds of chunks; a 4096 row at sigma 3
}

// GPUBLUR_CUDA_TEST_SMALL=1 (sanitizer runs) leaves out the 4096-pixel row.
std::vector<Case> cases() {
  const char* small = std::getenv("GPUBLUR_CUDA_TEST_SMALL");
  if (small && std::string(small) == "1") {
    std::vector<Case> c = cases_all();
    c.pop_back();
    return c;
  }
  return cases_all();
}

TEST(CudaBoxEmulated, RowsMatchReference) {
  double worst = 0;
  g_forms = {};
  for (const Case& c : cases())
    for (Border b : kBorders) {
      SCOPED_TRACE("n " + std::to_string(c.n) + " nseg " + std::to_string(c.nseg) + " border " + border_name(b) +
                   " widths[0] " + std::to_string(c.widths[0]) + " x" + std::to_string(c.widths.size()));
      const double e4 = emulate_rows<float4>(c.n, 1, c.widths, b, c.nseg, c.nth);
      const double e2 = emulate_rows<float2>(c.n, 1, c.widths, b, c.nseg, c.nth);
      const double e1 = emulate_rows<float>(c.n, 1, c.widths, b, c.nseg, c.nth);
      const double x4 = emulate_rows<float4>(c.n, 1, c.widths, b, c.nseg, c.nth, true);  // EXACT where it applies
      EXPECT_LE(e4, 1e-5);
      EXPECT_LE(e2, 1e-5);
      EXPECT_LE(e1, 1e-5);
      EXPECT_LE(x4, 1e-5);
      worst = std::max({worst, e1, e2, e4, x4});
    }
  for (int f = 0; f < 4; ++f)
    EXPECT_GT(g_forms[f / 2][f % 2], 0) << "no row block ran the " << (f / 2 ? "EXACT" : "general") << " form "
                                        << (f % 2 ? "with DIRECT starts" : "with prefixes");
  std::printf("[ measured ] emulated box1d rows: max abs error %.3g\n", worst);
}

TEST(CudaBoxEmulated, ColumnsMatchReference) {
  double worst = 0;
  g_forms = {};
  for (const Case& c : cases())
    for (Border b : kBorders) {
      SCOPED_TRACE("n " + std::to_string(c.n) + " nseg " + std::to_string(c.nseg) + " border " + border_name(b) +
                   " widths[0] " + std::to_string(c.widths[0]) + " x" + std::to_string(c.widths.size()));
      const double e4 = emulate_cols<float4>(3, c.n, 4, c.widths, b, c.nseg, c.nth);  // 3 RGBA columns: a partial strip
      const double e1 = emulate_cols<float>(5, c.n, 2, c.widths, b, c.nseg, c.nth);   // 10 floats: 2 strips, one partial
      // 16-byte strips: one float4 column per block, or 4 floats (10: 3 strips, one partial).
      const double n4 = emulate_cols<float4>(2, c.n, 4, c.widths, b, c.nseg, c.nth, 1);
      const double n1 = emulate_cols<float>(5, c.n, 2, c.widths, b, c.nseg, c.nth, 4);
      // 128-byte strips: 8 float4 columns (9 RGBA columns: 2 strips, one partial), or 32 floats (37 one-channel
      // columns).
      const double w4 = emulate_cols<float4>(9, c.n, 4, c.widths, b, c.nseg, c.nth, 8);
      const double w1 = emulate_cols<float>(37, c.n, 1, c.widths, b, c.nseg, c.nth, 32);
      // The EXACT form where it applies (float4 strips of 2, 1 and 8 columns).
      const double x4 = emulate_cols<float4>(3, c.n, 4, c.widths, b, c.nseg, c.nth, 0, true);
      const double y4 = emulate_cols<float4>(2, c.n, 4, c.widths, b, c.nseg, c.nth, 1, true);
      const double z4 = emulate_cols<float4>(9, c.n, 4, c.widths, b, c.nseg, c.nth, 8, true);
      for (double e : {e4, e1, n4, n1, w4, w1, x4, y4, z4}) EXPECT_LE(e, 1e-5);
      worst = std::max({worst, e1, e4, n4, n1, w4, w1, x4, y4, z4});
    }
  for (int f = 0; f < 4; ++f)
    EXPECT_GT(g_forms[f / 2][f % 2], 0) << "no column block ran the " << (f / 2 ? "EXACT" : "general") << " form "
                                        << (f % 2 ? "with DIRECT starts" : "with prefixes");
  std::printf("[ measured ] emulated box1d columns: max abs error %.3g\n", worst);
}

TEST(CudaBoxEmulated, FusedTilesMatchReference) {
  double worst = 0;
  for (const auto& widths : std::vector<std::vector<int>>{{5, 5, 7}, {1}, {3, 3, 3, 3, 3, 3, 3, 3}, {9, 11}})
    for (Border b : kBorders)
      for (const auto& [w, h] : {std::pair{70, 40}, std::pair{7, 3}, std::pair{1, 1}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " border " + border_name(b) + " widths[0] " +
                     std::to_string(widths[0]) + " x" + std::to_string(widths.size()));
        const double e4 = emulate_fused<float4>(w, h, widths, b, w > 64 ? kThreads : 64);
        const double e1 = emulate_fused<float>(w, h, widths, b, 64);
        EXPECT_LE(e4, 1e-5);
        EXPECT_LE(e1, 1e-5);
        worst = std::max({worst, e1, e4});
      }
  std::printf("[ measured ] emulated box1d fused x/y tiles: max abs error %.3g\n", worst);
}

// moving_average_line (the moving-average kernel's per-thread walk, also Box1d's global fallback) on the host.
template <typename V, typename WL>
double moving_average_error(int n, const WL& widths, Border b) {
  constexpr int K = cuda::VecInfo<V>::K;
  const BoxWidths bw = widths_of(widths);
  const Image src = random_image(n, 1, K, 17u + unsigned(n));
  const Image want = reference(src, widths, b, 0, false);
  std::vector<V> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  std::vector<V> buf(static_cast<size_t>(n + 2 * bw.reach));
  std::memcpy(in.data(), src.data.data(), in.size() * sizeof(V));
  std::vector<int> written(size_t(n), 0);
  cuda::moving_average_line<V>(
      n, b, bw, [&](int a) -> V { return in.at(size_t(a)); }, [&](int q) -> V& { return buf.at(size_t(q)); },
      [&](int j) -> V& {
        ++written.at(size_t(j));
        return out.at(size_t(j));
      });
  double err = 0;
  for (int j = 0; j < n; ++j) {
    EXPECT_EQ(written[size_t(j)], 1) << j;
    for (int c = 0; c < K; ++c) err = std::max(err, std::fabs(double(comp_of(out[size_t(j)], c)) - want.data[size_t(j) * K + c]));
  }
  return err;
}

TEST(CudaBoxEmulated, MovingAverageLinesMatchReference) {
  double worst = 0;
  for (const Case& c : cases_all())
    for (Border b : kBorders) {
      SCOPED_TRACE("n " + std::to_string(c.n) + " border " + border_name(b) + " widths[0] " +
                   std::to_string(c.widths[0]) + " x" + std::to_string(c.widths.size()));
      const double e4 = moving_average_error<float4>(c.n, c.widths, b);
      const double e1 = moving_average_error<float>(c.n, c.widths, b);
      EXPECT_LE(e4, 1e-5);
      EXPECT_LE(e1, 1e-5);
      worst = std::max({worst, e1, e4});
    }
  std::printf("[ measured ] moving-average lines: max abs error %.3g\n", worst);
}

// An H100's (and H200's) budgets (233472 bytes per SM, 232448 opt-in per block, 132 SMs): two blocks per SM, or
// one, or four.
cuda::LineBudgets h100_budgets() {
  cuda::LineBudgets lim;
  lim.shared = 233472 / 2 - 1024;
  lim.whole = 232448;
  lim.quarter = 233472 / 4 - 1024;
  lim.eighth = 233472 / 8 - 1024;
  lim.min_segment = 64;
  lim.sms = 132;
  return lim;
}

// The kernels' plans for an n x n image of RGBA float32 (float4 rows; columns in strips of 8, 4, 2 or 1 float4; both
// also in quarter blocks); `channels` 1 or 2: the columns of such an image (float4 values, n * channels / 4 across).
cuda::AxisPlan plan_rgba(int n, const BoxWidths& bw, bool cols, bool* found, int channels = 4) {
  cuda::AxisPlan p;
  *found = cols ? cuda::plan_lines_quarter(n, (long long)n * channels / 4, bw, cuda::column_strips<4>(), 16, 4,
                                           cuda::box_smax<float4>(), kThreads, h100_budgets(), true, p)
                : cuda::plan_rows_lines(n, n, bw, 16, 4, cuda::box_smax<float4>(), kThreads, h100_budgets(), true, p);
  return p;
}

// The plans the kernels get on an H100 (half an SM per block: 115712 bytes; 232448 at one block per SM),
// 4096^2 RGBA, Kovesi's 3 widths at sigma 3, 12, 48, 200: whole rows, columns in segments whose halo stays a
// fraction of the segment, in the strip width measured fastest there (H100, each forced: 128 bytes at sigma 3
// and 12, 64 at 48; 32 at 200, where a wider strip's segments would be mostly halo).
TEST(CudaBoxEmulated, PlansFor4096Rgba) {
  const size_t budget = 233472 / 2 - 1024;
  const std::map<double, int> strip_bytes = {{3.0, 128}, {12.0, 128}, {48.0, 64}, {200.0, 32}};
  for (double sigma : {3.0, 12.0, 48.0, 200.0}) {
    const BoxWidths bw = widths_of(kovesi_widths(sigma, 3));
    bool rows_ok = false, cols_ok = false;
    const cuda::AxisPlan rp = plan_rgba(4096, bw, false, &rows_ok), cp = plan_rgba(4096, bw, true, &cols_ok);
    ASSERT_TRUE(rows_ok);
    ASSERT_TRUE(cols_ok);
    const cuda::LinePlan &rows = rp.lines, &cols = cp.lines;
    // Rows in quarter blocks (two segments) where their halo is small, whole rows at two blocks an SM at sigma 200.
    EXPECT_EQ(rp.nth, sigma < 100 ? cuda::kQuarterThreads : kThreads) << sigma;
    EXPECT_EQ(rows.nseg, sigma < 100 ? 2 : 1) << sigma;
    // Columns in quarter blocks at sigma 3 only (13 segments; their halo is 2% there).
    EXPECT_EQ(cp.nth, sigma == 3.0 ? cuda::kQuarterThreads : kThreads) << sigma;
    EXPECT_EQ(cp.nl * 16, strip_bytes.at(sigma)) << sigma;
    EXPECT_FALSE(rp.whole_sm || cp.whole_sm) << sigma;
    EXPECT_EQ(rows.S % 2, 1);
    EXPECT_EQ(cols.S % 2, 1);
    // Every one of these runs the EXACT form (one round per box, a listed chunk).
    EXPECT_TRUE(rows.exact && cols.exact) << sigma;
    EXPECT_LE(rows.smem.bytes, rp.nth == kThreads ? budget : h100_budgets().quarter);
    EXPECT_LE(cols.smem.bytes, cp.nth == kThreads ? budget : h100_budgets().quarter);
    // Window starts without prefixes (DIRECT) where every box spans at most kDirectChunks chunks.
    EXPECT_EQ(rows.direct, cuda::direct_starts(bw, rows.S)) << sigma;
    EXPECT_EQ(cols.direct, cuda::direct_starts(bw, cols.S)) << sigma;
    std::printf("[ measured ] sigma %g (R %d): rows %d threads, S %d%s, %d segment(s), %zu bytes; columns %d threads, "
                "%d B strips, S %d%s, %d segment(s) of %d (+%d halo rows), %zu bytes\n",
                sigma, bw.reach, rp.nth, rows.S, rows.direct ? " direct" : "", rows.nseg, rows.smem.bytes, cp.nth,
                cp.nl * 16, cols.S, cols.direct ? " direct" : "", cols.nseg, cols.seg_len, 2 * bw.reach,
                cols.smem.bytes);
  }
}

// Rows of one and two channels packed into float4 lines where that measured faster on an H200 (box, each forced,
// docs/performance.md "Rows of one and two channels packed"), plain where the packed plan needs more segments or
// leaves its last wave of blocks under 3/4 full; forced either way by `force`.
TEST(CudaBoxEmulated, PackedRowsWherePlanned) {
  struct Case {
    int K, w, h;
    double sigma;
    bool packed;
  };
  const Case cases[] = {
      {1, 4096, 4096, 3, false},   {1, 4096, 4096, 48, true},   {1, 4096, 4096, 200, true},
      {1, 1920, 1080, 3, false},   {1, 1920, 1080, 200, false}, {1, 1024, 1024, 12, false},
      {1, 2048, 2048, 48, true},   {1, 8192, 2048, 12, false},  {1, 8192, 2048, 200, true},
      {2, 2048, 2048, 3, true},    {2, 2048, 2048, 200, true},  {2, 4096, 4096, 100, true},
      {2, 8192, 2048, 12, false},  {2, 8192, 2048, 200, true},  {2, 1920, 1080, 12, true},
      {2, 1920, 1080, 200, false}, {2, 1024, 1024, 200, true}};
  for (const Case& c : cases) {
    const BoxWidths bw = widths_of(kovesi_widths(c.sigma, 3));
    const size_t vb = c.K == 1 ? sizeof(float) : sizeof(float2);
    const int smax = c.K == 1 ? cuda::box_smax<float>() : cuda::box_smax<float2>();
    for (int force : {-1, 0, 1}) {
      cuda::AxisPlan p;
      ASSERT_TRUE(cuda::plan_rows_packed(c.w, c.h, bw, vb, c.K, smax, kThreads, h100_budgets(), false, force, p));
      EXPECT_EQ(p.packed, force < 0 ? c.packed : force == 1)
          << c.K << " channels " << c.w << "x" << c.h << " sigma " << c.sigma << " force " << force;
    }
  }
}

// Rows in quarter blocks (plan_rows_lines): chosen where measured faster on an H200 (4096-wide rows at sigma 3-48 in
// two segments, 2048- and 1024-wide whole at sigma 3-100), not where the segments' halo grows (4096 at sigma 100 and
// 200); 1024-wide rows at sigma 3-48 in eighth blocks (kEighthThreads: the same whole rows in one round); and the
// quarter and eighth plans' cascades (128 threads, two segments, EXACT; 64 threads, whole rows) against the reference.
TEST(CudaBoxEmulated, RowsInQuarterBlocks) {
  for (int n : {1024, 2048, 4096})
    for (double sigma : {3.0, 12.0, 48.0, 100.0, 200.0}) {
      if (n < 4096 && sigma > 100) continue;  // (not measured: the planner's weights decide)
      const BoxWidths bw = widths_of(kovesi_widths(sigma, 3));
      bool ok = false;
      const cuda::AxisPlan p = plan_rgba(n, bw, false, &ok);
      ASSERT_TRUE(ok);
      const bool quarter = n < 4096 || sigma < 100;
      // Eighth blocks where the quarter plan's one segment fits an eighth of the SM in one round: 1024-wide rows at
      // sigma 3-48 (at 100, 1422 first-box outputs are more than 64 chunks of 21).
      const bool eighth = n == 1024 && sigma < 100;
      EXPECT_EQ(p.nth, eighth ? cuda::kEighthThreads : quarter ? cuda::kQuarterThreads : kThreads)
          << n << " sigma " << sigma;
      if (n < 4096) EXPECT_EQ(p.lines.nseg, 1) << n << " sigma " << sigma;
      EXPECT_TRUE(p.lines.exact) << n << " sigma " << sigma;
      if (!eighth) continue;
      const std::vector<int> widths = kovesi_widths(sigma, 3);
      for (Border b : {Border::Clamp, Border::Zero}) {
        const double err = emulate_rows<float4>(n, 2, widths, b, p.lines.nseg, p.nth, p.lines.exact);
        std::printf("[ measured ] box1d %d-wide RGBA rows in eighth blocks, sigma %g, %s: %d threads, S %d: max abs "
                    "error %.3g\n", n, sigma, border_name(b), p.nth, p.lines.S, err);
        EXPECT_LE(err, 1e-6);
      }
    }
  for (double sigma : {12.0, 48.0}) {
    const std::vector<int> widths = kovesi_widths(sigma, 3);
    bool ok = false;
    const cuda::AxisPlan p = plan_rgba(4096, widths_of(widths), false, &ok);
    ASSERT_TRUE(ok);
    const double err = emulate_rows<float4>(4096, 1, widths, Border::Mirror, p.lines.nseg, p.nth, p.lines.exact);
    std::printf("[ measured ] box1d 4096-wide RGBA row in quarter blocks, sigma %g: %d threads, %d segments, S %d: "
                "max abs error %.3g\n", sigma, p.nth, p.lines.nseg, p.lines.S, err);
    EXPECT_LE(err, 1e-6);
  }
  // One-channel rows (float, the general form): quarter blocks at sigma 3-48 (whole rows at 3-12, two segments at 48;
  // measured 8-20% faster at 4096^2), the two-per-SM plan at sigma 200; the quarter plan's cascade on a 4096-wide row.
  for (double sigma : {3.0, 12.0, 48.0, 200.0}) {
    const std::vector<int> widths = kovesi_widths(sigma, 3);
    cuda::AxisPlan p;
    ASSERT_TRUE(cuda::plan_rows_lines(4096, 4096, widths_of(widths), 4, 1, cuda::box_smax<float>(), kThreads,
                                      h100_budgets(), false, p));
    EXPECT_EQ(p.nth, sigma < 100 ? cuda::kQuarterThreads : kThreads) << sigma;  // an eighth: not in one round
    if (sigma != 12.0) continue;
    const double err = emulate_rows<float>(4096, 1, widths, Border::Wrap, p.lines.nseg, p.nth, false);
    std::printf("[ measured ] box1d 4096-wide one-channel row in quarter blocks, sigma %g: %d threads, %d segment(s), "
                "S %d: max abs error %.3g\n", sigma, p.nth, p.lines.nseg, p.lines.S, err);
    EXPECT_LE(err, 1e-6);
  }
}

// Columns in quarter blocks (plan_lines_quarter): chosen where measured faster on an H200 (sigma 3: 128-byte strips in
// 13 segments at 4096 rows), not at sigma 12 and up (the quarter plans' narrower strips or more segments cost 6% or
// more there: no faster or slower measured), nor for one channel at 2048^2 (wave_factor: 448 blocks on 132 SMs, 6%
// slower measured); one channel at 1024^2 (a grid of one wave, 128 blocks against 64) at sigma 3-48 (1-7% faster
// measured); and the quarter plan's cascade (128 threads, EXACT) on 4096-row columns against the reference, every
// border mode.
TEST(CudaBoxEmulated, ColumnsInQuarterBlocks) {
  for (int n : {1024, 2048, 4096})
    for (int channels : {1, 2})
      for (double sigma : {3.0, 12.0, 48.0}) {
        bool ok = false;
        const cuda::AxisPlan p = plan_rgba(n, widths_of(kovesi_widths(sigma, 3)), true, &ok, channels);
        ASSERT_TRUE(ok);
        const bool quarter = sigma == 3.0 ? !(n == 2048 && channels == 1) : n == 1024 && channels == 1;
        EXPECT_EQ(p.nth, quarter ? cuda::kQuarterThreads : kThreads) << n << " x" << channels << " sigma " << sigma;
      }
  for (int n : {1024, 2048, 4096})
    for (double sigma : {3.0, 12.0, 48.0, 200.0}) {
      const BoxWidths bw = widths_of(kovesi_widths(sigma, 3));
      bool ok = false;
      const cuda::AxisPlan p = plan_rgba(n, bw, true, &ok);
      ASSERT_TRUE(ok);
      EXPECT_EQ(p.nth, sigma == 3.0 ? cuda::kQuarterThreads : kThreads) << n << " sigma " << sigma;
      if (p.nth == cuda::kQuarterThreads) {
        EXPECT_EQ(p.nl * 16, 128) << n;
        EXPECT_TRUE(p.lines.exact) << n;
        EXPECT_LE(p.lines.smem.bytes, h100_budgets().quarter) << n;
      }
    }
  const std::vector<int> widths = kovesi_widths(3.0, 3);
  bool ok = false;
  const cuda::AxisPlan p = plan_rgba(4096, widths_of(widths), true, &ok);
  ASSERT_TRUE(ok);
  ASSERT_EQ(p.nth, cuda::kQuarterThreads);
  for (Border b : kBorders) {
    const double err =
        emulate_cols<float4>(2 * p.nl, 4096, 4, widths, b, p.lines.nseg, p.nth, p.nl, p.lines.exact);
    std::printf("[ measured ] box1d 4096-row RGBA columns in quarter blocks, sigma 3, %s: %d threads, %d segments, "
                "S %d: max abs error %.3g\n", border_name(b), p.nth, p.lines.nseg, p.lines.S, err);
    EXPECT_LE(err, 1e-6);
  }
}

// ---- Integral1d (the integral method): the same block code with fractional window ends ----------------------

struct FracCase {
  int n;
  std::vector<float> widths;
  int nseg;
  int nth = 64;
};

// Fractions tiny and near 1, integer widths among real ones, widths beyond the line, segments, 8 boxes, rounds
// of chunks (700 positions, 64 threads); the kernels' 256 threads in the long-row test below.
std::vector<FracCase> frac_cases() {
  return {{1, {1.5f}, 1},
          {7, {2.25f, 4.0f, 1.0001f}, 1},
          {37, {23.9f, 3.5f}, 1},
          {300, {4.545f, 4.545f, 4.545f}, 3},
          {300, {95.3f, 96.999f}, 2},
          {61, {1.1f, 2.2f, 3.3f, 4.4f, 5.5f, 6.6f, 7.7f, 8.8f}, 2},
          {9, {4097.5f}, 1},
          {700, {3.75f, 5.0f, 3.75f}, 1}};
}

TEST(CudaIntegralEmulated, RowsColumnsAndWalkersMatchReference) {
  double worst_rows = 0, worst_cols = 0, worst_ma = 0;
  for (const FracCase& c : frac_cases())
    for (Border b : kBorders) {
      SCOPED_TRACE("n " + std::to_string(c.n) + " nseg " + std::to_string(c.nseg) + " border " + border_name(b) +
                   " widths[0] " + std::to_string(c.widths[0]) + " x" + std::to_string(c.widths.size()));
      const double r4 = emulate_rows<float4>(c.n, 1, c.widths, b, c.nseg, c.nth);
      const double r1 = b == Border::Clamp ? emulate_rows<float>(c.n, 1, c.widths, b, c.nseg, c.nth) : 0.0;
      const double c4 = emulate_cols<float4>(3, c.n, 4, c.widths, b, c.nseg, c.nth);
      const double c1 = b == Border::Wrap ? emulate_cols<float>(5, c.n, 2, c.widths, b, c.nseg, c.nth) : 0.0;
      const double n4 = emulate_cols<float4>(1, c.n, 4, c.widths, b, c.nseg, c.nth, 1);  // a 16-byte strip
      const double m4 = moving_average_error<float4>(c.n, c.widths, b);
      // The EXACT form where it applies.
      const double x4 = emulate_rows<float4>(c.n, 1, c.widths, b, c.nseg, c.nth, true);
      const double y4 = emulate_cols<float4>(3, c.n, 4, c.widths, b, c.nseg, c.nth, 0, true);
      for (double e : {r4, r1, c4, c1, n4, m4, x4, y4}) EXPECT_LE(e, 1e-5);
      worst_rows = std::max({worst_rows, r4, r1, x4});
      worst_cols = std::max({worst_cols, c4, c1, n4, y4});
      worst_ma = std::max(worst_ma, m4);
    }
  std::printf("[ measured ] emulated integral1d: rows %.3g, columns %.3g, moving-average lines %.3g max abs error\n",
              worst_rows, worst_cols, worst_ma);
}

// The float32 error as the CUDA kernels compute it (emulated), against the float64 reference, on 4096- and
// 16384-wide RGBA rows of uniform [0, 1] values, cut as an H100 runs them (half an SM per block: a 4096 row
// whole, a 16384 row in segments with their halo), the exact rule's 5 widths at sigma 3, 48, 200 (window starts
// summed directly: DIRECT), 400 (DIRECT where the chunks are 21 long: 29 of them) and 500 (float64 prefixes). The
// seed's float32 line prefix is off by 7.6e-5 .. 2.1e-4 on the same rows (tests/core/test_integral.cpp).
TEST(CudaIntegralEmulated, LongRowsStayWithinFloatRounding) {
  const char* small = std::getenv("GPUBLUR_CUDA_TEST_SMALL");
  const size_t budget = 233472 / 2 - 1024;
  for (int n : {4096, 16384})
    for (double sigma : {3.0, 48.0, 200.0, 400.0, 500.0}) {
      if (small && std::string(small) == "1" && n > 4096) continue;
      const std::vector<float> widths(5, float(frac_width_for_variance(sigma * sigma / 5)));
      const BoxWidths bw = widths_of(widths);
      cuda::LinePlan plan;
      ASSERT_TRUE(cuda::plan_lines(n, bw, 1, 16, 4, cuda::box_smax<float4>(), kThreads, budget, 64, true, plan));
      const double err = emulate_rows<float4>(n, 1, widths, Border::Mirror, plan.nseg, kThreads, plan.exact);
      std::printf("[ measured ] integral1d %d-wide RGBA row, sigma %g (5 boxes of %.6g), %d segment(s), S %d%s: "
                  "max abs error %.3g\n", n, sigma, double(widths[0]), plan.nseg, plan.S,
                  plan.direct ? " direct" : "", err);
      // DIRECT up to kDirectChunks chunks (sigma 200: 14 of 21; 16384 in segments too; sigma 400: 29 of 21 there, 32
      // of 19 for the whole 4096 row), the float64 prefixes past it.
      EXPECT_EQ(plan.direct, sigma <= 200 || (sigma == 400 && n == 16384)) << sigma;
      EXPECT_LE(err, 2e-6);
      // One-channel rows (float lines, chunks of up to 33) start directly from up to kDirectChunks chunks too: every
      // case here (at most 28 chunks, 16384-wide at sigma 500), within 7.2e-7 of float64.
      cuda::LinePlan p1;
      ASSERT_TRUE(cuda::plan_lines(n, bw, 1, 4, 1, cuda::box_smax<float>(), kThreads, budget, 64, false, p1));
      const double e1 = emulate_rows<float>(n, 1, widths, Border::Mirror, p1.nseg, kThreads);
      std::printf("[ measured ] integral1d %d-wide one-channel row, sigma %g, %d segment(s), S %d%s: max abs error "
                  "%.3g\n", n, sigma, p1.nseg, p1.S, p1.direct ? " direct" : "", e1);
      EXPECT_TRUE(p1.direct) << sigma;
      EXPECT_LE(e1, 2e-6);
    }
}

// The same for box (Kovesi's 3 widths) on a 4096-wide RGBA row: window starts from up to kDirectChunks chunk
// totals (sigma 3 .. 320: 1 .. 30 chunks) stay as close as the float64 prefixes (sigma 400).
TEST(CudaBoxEmulated, LongRowsStayWithinFloatRounding) {
  const size_t budget = 233472 / 2 - 1024;
  for (double sigma : {3.0, 48.0, 100.0, 200.0, 320.0, 400.0}) {
    const std::vector<int> widths = kovesi_widths(sigma, 3);
    const BoxWidths bw = widths_of(widths);
    cuda::LinePlan plan;
    ASSERT_TRUE(cuda::plan_lines(4096, bw, 1, 16, 4, cuda::box_smax<float4>(), kThreads, budget, 64, true, plan));
    const double err = emulate_rows<float4>(4096, 1, widths, Border::Mirror, plan.nseg, kThreads, plan.exact);
    std::printf("[ measured ] box1d 4096-wide RGBA row, sigma %g (widths %d, %d, %d), S %d%s: max abs error %.3g\n",
                sigma, widths[0], widths[1], widths[2], plan.S, plan.direct ? " direct" : "", err);
    EXPECT_EQ(plan.direct, sigma <= 320) << sigma;
    if (sigma == 100) EXPECT_EQ(plan.S, 19);  // 4496 first-box outputs: 17 x 256 too few, 21 longer per thread
    EXPECT_LE(err, 1e-6);
  }
}

// ---- Large reach (sigma 400+): the plan stays in shared memory ---------------------------------------------

struct LargeCase {
  const char* method;
  double sigma;
  BoxWidths bw;
};

std::vector<LargeCase> large_cases(double sigma) {
  return {{"integral", sigma, widths_of(std::vector<float>(5, float(frac_width_for_variance(sigma * sigma / 5))))},
          {"integral:passes=4", sigma,
           widths_of(std::vector<float>(4, float(frac_width_for_variance(sigma * sigma / 4))))},
          {"box", sigma, widths_of(kovesi_widths(sigma, 3))}};
}

// The cliff (issue 9 point 5): at integral sigma 400 (reach 1550) a column of 32-byte strips plus its halo fits
// two-per-SM shared memory in no segment length (64 rows + 3100 halo rows x 32 B = 101 KB, with the chunk
// prefixes 125 KB > 113 KB), so the columns went to the global kernel (18x slower). The plan now stays in shared
// memory at 1024^2 and 4096^2 for sigma 400 and 800 (narrower strips, or one block per SM), and at sigma 400
// its weighted cost is at most 2.6x the sigma-200 plan's (the halo 2R grows with sigma: at 1024 rows it is 3x
// the line; 16-byte strips weigh 1.75 per position). Measured on an H100 with the first weights: integral
// 4096^2 sigma 400 2.60 ms (the global kernel: 28.85 ms), 1024^2 0.348 ms (9.21 ms).
TEST(CudaBoxEmulated, LargeReachPlansStayInSharedMemory) {
  const cuda::LineBudgets lim = h100_budgets();
  for (int n : {1024, 4096}) {
    std::vector<LargeCase> at200 = large_cases(200);
    for (double sigma : {400.0, 800.0}) {
      std::vector<LargeCase> cs = large_cases(sigma);
      for (size_t i = 0; i < cs.size(); ++i) {
        const LargeCase& c = cs[i];
        SCOPED_TRACE(std::string(c.method) + " sigma " + std::to_string(int(sigma)) + " n " + std::to_string(n));
        for (bool cols : {false, true}) {
          bool ok = false, ok200 = false;
          const cuda::AxisPlan p = plan_rgba(n, c.bw, cols, &ok), p200 = plan_rgba(n, at200[i].bw, cols, &ok200);
          ASSERT_TRUE(ok) << (cols ? "columns" : "rows") << " would run the global kernel";
          ASSERT_TRUE(ok200);
          EXPECT_LE(p.lines.smem.bytes, p.whole_sm ? lim.whole : lim.shared);
          EXPECT_EQ(p.lines.S % 2, 1);
          if (sigma == 400) EXPECT_LE(p.cost, 2.6 * p200.cost) << (cols ? "columns" : "rows");
          std::printf("[ measured ] %s sigma %g (R %d) %d^2 RGBA %s: %d line(s)/block, %d segment(s) of %d + %d "
                      "halo, S %d, %zu bytes, %s, cost %.3g (%.2fx sigma 200)\n",
                      c.method, sigma, c.bw.reach, n, cols ? "columns" : "rows", p.nl, p.lines.nseg, p.lines.seg_len,
                      2 * c.bw.reach, p.lines.S, p.lines.smem.bytes, p.whole_sm ? "1 block/SM" : "2 blocks/SM",
                      p.cost, p.cost / p200.cost);
        }
        // The old rule (32-byte strips, two blocks per SM only) found nothing for integral's (5 passes) columns
        // with their window starts scanned (the float64 prefixes); it now fits where the starts are direct (up to
        // kDirectChunks chunks, sigma 400), which need no prefixes, and still nothing at sigma 800.
        if (std::string(c.method) == "integral") {
          cuda::LinePlan old;
          const bool found = cuda::plan_lines(n, c.bw, 2, 16, 4, cuda::box_smax<float4>(), kThreads, lim.shared,
                                              lim.min_segment, false, old);
          EXPECT_EQ(found, sigma == 400);
          if (found) EXPECT_TRUE(old.direct);
        }
      }
    }
  }
}

// One block an SM weighs 1.25 for real widths (integral) and 2 for integer ones (box_cascade.cuh's whole_sm_weight):
// integral's RGBA columns at 4096^2 take it from sigma 300 (measured on an H200 1.6-17% faster at 300-500, 16% slower
// at 250), at 2048^2 from 300 too; box columns stay at two blocks an SM (the walk takes them at these sigmas).
TEST(CudaBoxEmulated, OneBlockColumnsForRealWidths) {
  const auto integral = [](double sigma) {
    return widths_of(std::vector<float>(5, float(frac_width_for_variance(sigma * sigma / 5))));
  };
  EXPECT_EQ(cuda::whole_sm_weight(integral(300)), 1.25);
  EXPECT_EQ(cuda::whole_sm_weight(widths_of(kovesi_widths(300, 3))), 2.0);
  for (int n : {4096, 2048})
    for (double sigma : {200.0, 250.0, 300.0, 400.0, 500.0}) {
      bool ok = false;
      const cuda::AxisPlan p = plan_rgba(n, integral(sigma), true, &ok);
      ASSERT_TRUE(ok);
      EXPECT_EQ(p.whole_sm, sigma >= 300) << n << " sigma " << sigma;
      if (sigma >= 300) EXPECT_EQ(p.nl, 2) << n << " sigma " << sigma;  // 32-byte strips
      const cuda::AxisPlan b = plan_rgba(n, widths_of(kovesi_widths(sigma, 3)), true, &ok);
      ASSERT_TRUE(ok);
      EXPECT_FALSE(b.whole_sm) << "box " << n << " sigma " << sigma;
    }
}

// The block logic of the plans above that the old ones never ran: integral sigma 400 columns at 1024 and 4096
// rows (RGBA, 16-byte strips, the plans' segments), emulated with the kernels' 256 threads, against the CPU
// reference.
TEST(CudaBoxEmulated, LargeReachColumnPlansMatchReference) {
  const char* small = std::getenv("GPUBLUR_CUDA_TEST_SMALL");
  for (int n : {1024, 4096}) {
    if (small && std::string(small) == "1" && n > 1024) continue;
    const std::vector<float> widths(5, float(frac_width_for_variance(400.0 * 400.0 / 5)));
    bool ok = false;
    const cuda::AxisPlan p = plan_rgba(n, widths_of(widths), true, &ok);
    ASSERT_TRUE(ok);
    for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap}) {
      SCOPED_TRACE("n " + std::to_string(n) + " border " + border_name(b));
      const double e = emulate_cols<float4>(p.nl, n, 4, widths, b, p.lines.nseg, kThreads, p.nl, p.lines.exact);
      std::printf("[ measured ] integral sigma 400, %d rows, %d column(s) per block, %d segment(s), border %s: max "
                  "abs error %.3g\n", n, p.nl, p.lines.nseg, border_name(b), e);
      EXPECT_LE(e, 1e-5);
    }
  }
}

// ---- The column walk (box_walk.cuh): three boxes as sparse taps and float64 running sums -------------------

// walk_columns on every strip of a W x H image of C channels (W * C a whole number of float4), each strip an
// emulated block with race-checked shared memory, against the reference; every output stored once.
double emulate_walk(int W, int H, int C, const std::vector<int>& widths, Border b) {
  const BoxWidths bw = widths_of(widths);
  cuda::WalkWidths ww;
  EXPECT_TRUE(cuda::walk_widths(bw, ww));
  const Image src = random_image(W, H, C, 29u + unsigned(W * 13 + H));
  const Image want = reference(src, widths, b, 1, false);
  const int rowf = W * C, R = bw.reach, RL = cuda::walk_ring_rows(ww);
  std::vector<int> stored(size_t(rowf) * H, 0);
  std::vector<float> got(stored.size());
  std::mutex m;
  for (int x0 = 0; x0 < rowf; x0 += cuda::kWalkFloats) {
    std::vector<float> ring(size_t(RL + cuda::kWalkRep) * cuda::kWalkFloats, std::nanf(""));
    std::vector<double> st(size_t(cuda::kWalkGroups) * cuda::kWalkFloats * 3, std::nan(""));
    Shadow sr("ring", ring.size()), ss("states", st.size());
    const ChkPtr<float> rp{ring.data(), &sr, 0};
    const ChkPtr<double> sp{st.data(), &ss, 0};
    // Loads land when issued (a cp.async lands by the wait: the race check sees the write at the issue).
    const int lead = cuda::walk_lead(b, R);
    const auto issue = [&](int off, int p, int q) {
      EXPECT_TRUE((p >= -R || (lead == 0 && p == -1)) && p < H + R) << "position " << p;
      const int y = remap_index(p, H, b);
      for (int k = 0; k < 4; ++k) {
        const int x = x0 + 4 * q + k;
        rp[off + k] = y >= 0 && x < rowf ? src.data[size_t(y) * rowf + x] : 0.0f;
      }
    };
    const auto store = [&](int row, int c, float v) {
      const int x = x0 + c;
      if (x >= rowf) return;
      std::lock_guard<std::mutex> lk(m);
      ++stored[size_t(row) * rowf + x];
      got[size_t(row) * rowf + x] = v;
    };
    run_block(cuda::kWalkThreads, [&] {
      cuda::with_walk_m1(ww, [&](auto m1) {
        constexpr int M1 = decltype(m1)::value;
        const cuda::BoxWalkTaps<M1, 3 - M1> taps{ww.wl, ww.wu};
        cuda::walk_columns<Emu>(rp, sp, RL, H, R, lead, taps, cuda::walk_scale(ww), issue, [] {}, store);
      });
    });
    for (Shadow* sh : {&sr, &ss})
      for (const std::string& e : sh->errors) ADD_FAILURE() << e;
  }
  double err = 0;
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i], 1) << "value " << i << " stored " << stored[i] << " times";
    err = std::max(err, std::fabs(double(got[i]) - want.data[i]));
  }
  return err;
}

// Every border, each (m1, m2) of three boxes, lines shorter than the reach (1 and 7 rows), several steps (517 rows
// at reach 62: 641 walked rows, steps of 240), a partial strip (20 floats: 16 + 4) and a whole one.
TEST(CudaBoxEmulated, ColumnWalkMatchesReference) {
  double worst = 0;
  for (const auto& widths : std::vector<std::vector<int>>{{5, 7, 7}, {9, 9, 11}, {7, 7, 7}, {41, 43, 43}})
    for (Border b : kBorders)
      for (const auto& [w, h, c] : {std::array{5, 7, 4}, std::array{5, 1, 4}, std::array{8, 517, 2}}) {
        if (widths[0] == 41 && h != 517) continue;  // (the long walk: slow to emulate, one shape)
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c) + " border " +
                     border_name(b) + " widths " + std::to_string(widths[0]) + "," + std::to_string(widths[2]));
        const double e = emulate_walk(w, h, c, widths, b);
        EXPECT_LE(e, 1e-6);
        worst = std::max(worst, e);
      }
  std::printf("[ measured ] emulated box1d column walk: max abs error %.3g\n", worst);
}

// Where the walk runs (box1d.cu's plan_col_walk: its cost against the segments' plan), on an H100's budgets (as an
// H200's): the choices measured on an H200, each path forced (calls 349-350, after the column strips' loads at fixed
// strides; box_walk.cuh's kWalkWeight and plan_walk): at 4096^2 the segments up to sigma 64 and the walk from 80-100
// on, for every channel count and border; with clamp (the walk from row 0) at 2048^2 and 1024^2 RGBA the walk from
// sigma 100, the segments for two channels at 1024^2 (to sigma 200) and for one at 2048^2 to sigma 150; at one block
// an SM beyond sigma 200 (plan_walk_fit); never for four boxes, three widths, widths apart by more than two, or real
// widths.
TEST(CudaBoxEmulated, ColumnWalkPlans) {
  const cuda::LineBudgets lim = h100_budgets();
  const auto walks = [&](int n, int channels, const BoxWidths& bw, Border b = Border::Clamp) {
    bool ok = false;
    const cuda::AxisPlan p = plan_rgba(n, bw, true, &ok, channels);
    cuda::WalkPlan w;
    const bool can = cuda::plan_walk_fit(n, (long long)n * channels, bw, cuda::walk_lead(b, bw.reach), lim.shared,
                                         lim.whole, lim.sms, w);
    std::printf("[ plan ] %d^2 x%d reach %d %s: segments cost %.0f, walk %s %.0f%s\n", n, channels, bw.reach,
                border_name(b), p.cost, can ? "cost" : "not possible", w.cost, w.whole_sm ? " (one block an SM)" : "");
    // Two blocks an SM up to sigma 200 (its ring 114880 bytes), one beyond.
    if (can) EXPECT_EQ(w.whole_sm, bw.reach > 599) << bw.reach;
    return can && cuda::walk_cheaper(w, ok, p.cost);
  };
  const auto kw = [](double sigma) { return widths_of(kovesi_widths(sigma, 3)); };
  for (double sigma : {3.0, 12.0, 24.0, 48.0, 100.0, 200.0})
    for (int channels : {1, 2, 4})
      for (Border b : {Border::Clamp, Border::Mirror})
        EXPECT_EQ(walks(4096, channels, kw(sigma), b), sigma >= 100.0)
            << "sigma " << sigma << ", " << channels << " channel(s), " << border_name(b);
  for (double sigma : {12.0, 24.0, 48.0, 100.0, 200.0}) {
    EXPECT_EQ(walks(2048, 4, kw(sigma)), sigma >= 100.0) << "2048^2 RGBA clamp, sigma " << sigma;
    EXPECT_EQ(walks(1024, 4, kw(sigma)), sigma >= 100.0) << "1024^2 RGBA clamp, sigma " << sigma;
    EXPECT_FALSE(walks(1024, 2, kw(sigma))) << "1024^2 two channels, sigma " << sigma;
  }
  for (double sigma : {24.0, 48.0, 100.0, 150.0})
    EXPECT_FALSE(walks(2048, 1, kw(sigma))) << "2048^2 one channel " << sigma;
  EXPECT_TRUE(walks(2048, 1, kw(200.0))) << "2048^2 one channel 200";
  for (int channels : {1, 2, 4}) EXPECT_FALSE(walks(4096, channels, kw(64.0))) << "4096^2, sigma 64, " << channels;
  // Beyond sigma 200 the ring outgrows two blocks an SM: the walk at one, wherever it fits (to sigma 500: 230080 bytes
  // of 232448), for every size, channel count and border measured (H200: faster than the segments but for RGBA at
  // sigma 250 on images of 3000-4096 rows, 1.6-8.1% slower there); none at sigma 600.
  for (double sigma : {250.0, 300.0, 400.0, 500.0}) {
    for (int channels : {1, 2, 4})
      for (Border b : {Border::Clamp, Border::Mirror})
        EXPECT_TRUE(walks(4096, channels, kw(sigma), b)) << "sigma " << sigma << ", " << channels << " channel(s)";
    EXPECT_TRUE(walks(2048, 1, kw(sigma))) << "2048^2 one channel, sigma " << sigma;
    EXPECT_TRUE(walks(1024, 4, kw(sigma))) << "1024^2 RGBA, sigma " << sigma;
  }
  cuda::WalkPlan w600;
  EXPECT_FALSE(cuda::plan_walk_fit(4096, 4096 * 4, kw(600.0), 0, lim.shared, lim.whole, lim.sms, w600));
  // Mirror and wrap walk their R leading rows: the segments at 2048^2 sigma 100 (3.7% faster than the walk) and at
  // 1024^2, as before the walk from row 0.
  EXPECT_FALSE(walks(2048, 4, kw(100.0), Border::Mirror));
  EXPECT_TRUE(walks(2048, 4, kw(200.0), Border::Wrap));
  EXPECT_FALSE(walks(1024, 4, kw(200.0), Border::Mirror));
  cuda::WalkWidths ww;
  EXPECT_FALSE(cuda::walk_widths(widths_of(kovesi_widths(200.0, 4)), ww));
  EXPECT_FALSE(cuda::walk_widths(widths_of(std::vector<float>{300.5f, 300.5f, 300.5f}), ww));
  EXPECT_FALSE(cuda::walk_widths(widths_of(std::vector<int>{3, 5, 7}), ww));
  EXPECT_FALSE(cuda::walk_widths(widths_of(std::vector<int>{3, 7, 7}), ww));  // not Kovesi's w, w + 2
  ASSERT_TRUE(cuda::walk_widths(widths_of(std::vector<int>{401, 399, 401}), ww));
  EXPECT_EQ(ww.m1, 1);
  EXPECT_EQ(ww.wl, 399);
  EXPECT_EQ(ww.wu, 401);
  // The ring at sigma 200 fits two blocks an SM: sum of widths + two steps.
  EXPECT_EQ(cuda::walk_ring_rows(ww), 1201 + 2 * cuda::kWalkStep + 1);
  EXPECT_LE(cuda::walk_smem_bytes(cuda::walk_ring_rows(ww)), lim.shared);
}

}  // namespace
}  // namespace gpublur::testing
