// The kernel method's defining properties: a kernel file's matrix is applied as the true 2D convolution
// (equal to an independent float64 direct convolution with the file's matrix, every border mode); a rank-1
// matrix takes the separable path and equals the direct 2D path within float rounding; a 1D file holding
// gauss-sep's taps equals gauss-sep; --normalize divides by the sum; the effective sigma is the kernel's
// second moment. And the file checks: each bad file gives a usage error naming the file and the line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "core/gauss.hpp"
#include "core/io/image_io.hpp"
#include "core/kernel_file.hpp"
#include "core/plan.hpp"
#include "core/reference/reference.hpp"
#include "tests/core/f64_reference.hpp"
#include "tests/core/random_image.hpp"

namespace gpublur {
namespace {

namespace fs = std::filesystem;
using testing::f64_border;
using testing::random_image;

const char* kBorders[] = {"clamp", "mirror", "wrap", "zero"};

class KernelFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpublur_kernel_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  Plan plan(const std::map<std::string, std::string>& given) {
    Plan p;
    const Status s = resolve_plan("kernel", given, p);
    EXPECT_TRUE(s.ok()) << s.error;
    return p;
  }
  std::string error(const std::map<std::string, std::string>& given) {
    Plan p;
    const Status s = resolve_plan("kernel", given, p);
    EXPECT_FALSE(s.ok());
    return s.error;
  }
  fs::path dir_;
};

std::string matrix_text(const std::vector<std::vector<double>>& m) {
  std::string s;
  for (const auto& row : m) {
    for (double v : row) s += fmt::format("{:.17g} ", v);
    s += "\n";
  }
  return s;
}

// out(x, y) = sum_{a, b} K(a, b) in(x - a, y - b), (a, b) from the centre; float64, its own border rules.
std::vector<double> f64_true_convolution(const Image& src, const std::vector<std::vector<double>>& k,
                                         const std::string& mode) {
  const int kh = int(k.size()), kw = int(k[0].size()), rx = kw / 2, ry = kh / 2;
  std::vector<double> out(src.value_count(), 0.0);
  for (int y = 0; y < src.height; ++y)
    for (int x = 0; x < src.width; ++x)
      for (int b = -ry; b <= ry; ++b) {
        const int yy = f64_border(y - b, src.height, mode);
        if (yy < 0) continue;
        for (int a = -rx; a <= rx; ++a) {
          const int xx = f64_border(x - a, src.width, mode);
          if (xx < 0) continue;
          const double w = k[size_t(b + ry)][size_t(a + rx)];
          for (int c = 0; c < src.channels; ++c)
            out[(size_t(y) * src.width + x) * src.channels + c] += w * src.at(xx, yy, c);
        }
      }
  return out;
}

double max_diff(const Image& a, const Image& b) {
  double worst = 0;
  for (size_t i = 0; i < a.data.size(); ++i) worst = std::max(worst, std::abs(double(a.data[i]) - b.data[i]));
  return a.data.size() == b.data.size() ? worst : INFINITY;
}

bool all_ops(const Plan& p, Op op) {
  for (const Pass& s : p.program.passes)
    if (s.op != op) return false;
  return !p.program.passes.empty();
}

// An asymmetric, non-separable kernel with negative weights: flipping it or reading it transposed would show.
const std::vector<std::vector<double>> kMatrix = {
    {0.05, -0.1, 0.2, 0.1, 0.02}, {0.1, 0.3, -0.05, 0.15, 0.05}, {0.0, 0.08, 0.1, -0.02, 0.04}};

TEST_F(KernelFiles, TwoDPathIsTheFloat64TrueConvolutionWithTheMatrix) {
  const std::string f = file("m.txt", matrix_text(kMatrix));
  for (const char* border : kBorders)
    for (int c = 1; c <= 4; ++c) {
      const Plan p = plan({{"kernel", f}, {"border", border}});
      ASSERT_TRUE(all_ops(p, Op::Conv2dMatrix)) << p.details.at("program");
      EXPECT_NE(p.details.at("path").find("direct 2D"), std::string::npos);
      EXPECT_EQ(p.radius, 2);
      for (auto [w, h] : {std::pair{13, 9}, {3, 2}, {1, 1}}) {
        const Image src = random_image(w, h, c, 70 + c);
        Image out;
        ASSERT_TRUE(reference_run(p, src, out).ok());
        const std::vector<double> want = f64_true_convolution(src, kMatrix, border);
        double worst = 0;
        for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(out.data[i] - want[i]));
        EXPECT_LT(worst, 1e-6) << border << " c" << c << " " << w << "x" << h;
      }
    }
}

TEST_F(KernelFiles, RankOneMatrixTakesTheSeparablePathAndEqualsTheTwoDPath) {
  // Asymmetric factors of different lengths (col 5 along y, row 3 along x) and a symmetric outer product.
  const std::vector<double> col = {0.1, 0.25, 0.4, 0.2, 0.05}, row = {0.2, 0.5, 0.3};
  std::vector<std::vector<double>> m1, m2;
  for (double c : col) {
    m1.emplace_back();
    for (double r : row) m1.back().push_back(c * r);
  }
  const std::vector<double> g = {0.03, 0.11, 0.22, 0.28, 0.22, 0.11, 0.03};
  for (double a : g) {
    m2.emplace_back();
    for (double b : g) m2.back().push_back(a * b);
  }
  int which = 0;
  for (const auto& m : {m1, m2}) {
    const std::string f = file("r" + std::to_string(which) + ".txt", matrix_text(m));
    for (const char* border : kBorders) {
      const Plan sep = plan({{"kernel", f}, {"border", border}});
      const Plan full = plan({{"kernel", f}, {"border", border}, {"impl", "2d"}});
      ASSERT_TRUE(all_ops(sep, Op::Conv1d)) << sep.details.at("program");
      ASSERT_EQ(sep.program.passes.size(), 2u);
      EXPECT_NE(sep.details.at("path").find("rank 1"), std::string::npos);
      // The symmetric outer product gets equal factors: the pair backends fuse.
      EXPECT_EQ(separable_pair(sep.program, 0), which == 1);
      ASSERT_TRUE(all_ops(full, Op::Conv2dMatrix));
      const Image src = random_image(17, 11, 3, 5);
      Image a, b;
      ASSERT_TRUE(reference_run(sep, src, a).ok());
      ASSERT_TRUE(reference_run(full, src, b).ok());
      EXPECT_LT(max_diff(a, b), 1e-6) << border;
      // And both are the true convolution with the file's matrix.
      const std::vector<double> want = f64_true_convolution(src, m, border);
      double worst = 0;
      for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(a.data[i] - want[i]));
      EXPECT_LT(worst, 1e-6) << border;
    }
    ++which;
  }
  // Not rank 1: one entry off by 1e-4 of the largest weight.
  m2[1][5] += 1e-4 * 0.28 * 0.28;
  EXPECT_TRUE(all_ops(plan({{"kernel", file("off.txt", matrix_text(m2))}}), Op::Conv2dMatrix));
}

TEST_F(KernelFiles, OneDFileOfGaussSepTapsEqualsGaussSep) {
  for (double sigma : {1.5, 4.0}) {
    const std::vector<double> w = gaussian_weights(sigma, default_radius(sigma));
    std::string text = "# gauss-sep's taps\n";
    for (size_t i = 0; i < w.size(); ++i) text += fmt::format("{:.17g}{}", w[i], i + 1 < w.size() ? ", " : "\n");
    const std::string f = file("g.txt", text);
    for (const char* border : kBorders) {
      const Plan k = plan({{"kernel", f}, {"border", border}});
      Plan g;
      ASSERT_TRUE(resolve_plan("gauss-sep", {{"sigma", std::to_string(sigma)}, {"border", border}}, g).ok());
      ASSERT_TRUE(separable_pair(k.program, 0)) << k.details.at("program");
      EXPECT_EQ(k.program.passes[0].taps, g.program.passes[0].taps);  // the same float taps
      EXPECT_NEAR(k.effective_sigma, g.effective_sigma, 1e-9);
      const Image src = random_image(21, 14, 4, 9);
      Image a, b;
      ASSERT_TRUE(reference_run(k, src, a).ok());
      ASSERT_TRUE(reference_run(g, src, b).ok());
      EXPECT_EQ(max_diff(a, b), 0.0) << border;
    }
  }
}

TEST_F(KernelFiles, LargeSeparableKernelsTakeTheFftForm) {
  std::string text;
  for (int k = -20; k <= 20; ++k) text += fmt::format("{} ", std::exp(-0.5 * k * k / 36.0));
  const std::string f = file("big.txt", text);
  EXPECT_TRUE(all_ops(plan({{"kernel", f}}), Op::Conv1d));  // radius 20 < 300
  setenv("GPUBLUR_KERNEL_FFT_MIN_RADIUS", "20", 1);
  const Plan p = plan({{"kernel", f}});
  unsetenv("GPUBLUR_KERNEL_FFT_MIN_RADIUS");
  EXPECT_TRUE(all_ops(p, Op::FftConv1d)) << p.details.at("program");
  EXPECT_NE(p.details.at("path").find("fft"), std::string::npos);
}

TEST_F(KernelFiles, NormalizeDividesByTheSum) {
  const std::string f = file("n.txt", "1 2 1\n2 4 2\n1 2 1\n");  // rank 1, sum 16
  const std::string m = file("m.txt", matrix_text(kMatrix));
  const std::string r = file("r.txt", "1 2 3 2 1\n");  // 1D, row sum 9, 2D sum 81
  for (const auto& [file_, sum] : {std::pair{f, 16.0}, {m, 0.0}, {r, 81.0}}) {
    double s2d = 0;
    for (const auto& row : kMatrix)
      for (double v : row) s2d += v;
    const double written = file_ == m ? s2d : sum;
    for (const char* impl : {"auto", "2d"}) {
      const Image src(5, 5, 1);
      Image impulse = src;
      impulse.at(2, 2, 0) = 1;
      for (bool norm : {false, true}) {
        const Plan p = plan({{"kernel", file_}, {"impl", impl}, {"normalize", norm ? "true" : "false"}});
        EXPECT_EQ(p.param("normalize"), norm ? "true" : "false");
        Image out;
        ASSERT_TRUE(reference_run(p, impulse, out).ok());
        // The response to an impulse, zero border, sums to the kernel's sum (all of it lands inside 5x5).
        Plan pz;
        ASSERT_TRUE(resolve_plan("kernel", {{"kernel", file_}, {"impl", impl}, {"normalize", norm ? "1" : "0"},
                                            {"border", "zero"}},
                                 pz)
                        .ok());
        ASSERT_TRUE(reference_run(pz, impulse, out).ok());
        double total = 0;
        for (float v : out.data) total += v;
        EXPECT_NEAR(total, norm ? 1.0 : written, 1e-6) << file_ << " " << impl << " " << norm;
      }
    }
  }
  const std::string zero = file("z.txt", "1 -2 1\n");
  const std::string e = error({{"kernel", zero}, {"normalize", "true"}});
  EXPECT_NE(e.find("z.txt"), std::string::npos) << e;
  EXPECT_NE(e.find("about 0"), std::string::npos) << e;
  EXPECT_TRUE(plan({{"kernel", zero}}).effective_sigma == 0);  // as written: fine, not a blur
  EXPECT_NE(error({{"kernel", f}, {"normalize", "maybe"}}).find("not true or false"), std::string::npos);
  // Every weight 0: refused, with or without --normalize (it wrote black images, exit 0, nothing said).
  const std::string zeros = file("zeros.txt", "0 0 0\n");
  for (const char* norm : {"false", "true"})
    EXPECT_NE(error({{"kernel", zeros}, {"normalize", norm}}).find("every weight is 0"), std::string::npos) << norm;
}

TEST_F(KernelFiles, EffectiveSigmaIsTheKernelsSecondMoment) {
  // A Gaussian matrix (sigma 2 along x, 1 along y, sampled on 13 x 7): sqrt of each axis's variance.
  std::vector<std::vector<double>> m(7, std::vector<double>(13));
  for (int y = -3; y <= 3; ++y)
    for (int x = -6; x <= 6; ++x) m[size_t(y + 3)][size_t(x + 6)] = std::exp(-0.5 * (x * x / 4.0 + y * y / 1.0));
  const Plan p = plan({{"kernel", file("g.txt", matrix_text(m))}});
  const double sx = kernel_sigma(gaussian_weights(2.0, 6)), sy = kernel_sigma(gaussian_weights(1.0, 3));
  EXPECT_NEAR(p.effective_sigma, std::sqrt((sx * sx + sy * sy) / 2), 1e-9);
  EXPECT_EQ(p.details.at("effective_sigma_xy"), fmt::format("{:.6g}, {:.6g}", sx, sy));
  // An off-centre kernel: the variance is about its own mean (a shift is not a blur).
  EXPECT_NEAR(plan({{"kernel", file("s.txt", "0 0 0 0 1 1 0\n")}}).effective_sigma, 0.5, 1e-12);
  // Negative weights: no effective sigma.
  const Plan sharp = plan({{"kernel", file("sh.txt", "0 -1 0\n-1 5 -1\n0 -1 0\n")}});
  EXPECT_EQ(sharp.effective_sigma, 0);
  EXPECT_NE(sharp.details.at("effective_sigma_xy").find("not a blur"), std::string::npos);
  EXPECT_FALSE(sharp.blur);
  // Of the kernel as it runs: an all-negative file with --normalize is [1 2 1] / 4 (it was said to be no blur, and
  // quality then fitted sigma 0.1), and an all-negative 1D row runs along x and y as the positive product.
  const double tent = plan({{"kernel", file("pos.txt", "1 2 1\n")}, {"normalize", "true"}}).effective_sigma;
  EXPECT_NEAR(tent, std::sqrt(0.5), 1e-12);
  const Plan neg = plan({{"kernel", file("neg.txt", "-1 -2 -1\n")}, {"normalize", "true"}});
  EXPECT_NEAR(neg.effective_sigma, tent, 1e-12);
  EXPECT_TRUE(neg.blur);
  EXPECT_NEAR(plan({{"kernel", file("neg1d.txt", "-1 -2 -1\n")}}).effective_sigma, tent, 1e-12);
  const std::string neg2d = file("neg2d.txt", "-1 -2 -1\n-2 -4 -2\n-1 -2 -1\n");
  EXPECT_NEAR(plan({{"kernel", neg2d}, {"normalize", "true"}}).effective_sigma, tent, 1e-12);
  EXPECT_EQ(plan({{"kernel", neg2d}}).effective_sigma, 0);  // a matrix as written: negative weights
  // ... and none after --downsample's resampling either, where an identity kernel gets the resampling's sigma.
  const std::string sh = file("sh2.txt", "0 -1 0\n-1 5 -1\n0 -1 0\n");
  EXPECT_EQ(plan({{"kernel", sh}, {"downsample", "2"}}).effective_sigma, 0);
  const Plan one = plan({{"kernel", file("one.txt", "1\n")}, {"downsample", "2"}});
  EXPECT_TRUE(one.blur);
  EXPECT_NEAR(one.effective_sigma, 1.0, 1e-12);
}

// Each bad file: a usage error that names the file and, for text, the line.
TEST_F(KernelFiles, BadFilesNameTheFileAndLine) {
  struct Bad {
    std::string name, text, want;
  };
  std::string wide, tall, wide_even;
  for (int i = 0; i < 4099; ++i) wide += "1 ", tall += "1\n";
  const std::vector<Bad> bad = {
      {"empty.txt", "", "no numbers"},
      {"comments.txt", "# nothing\n\n   \n# here\n", "no numbers"},
      {"ragged.txt", "1 2 3\n\n4 5 6\n7 8\n", "line 4: ragged rows: 2 values, the first row (line 1) has 3"},
      {"nan.txt", "1 2 3\n4 abc 6\n7 8 9\n", "line 2: 'abc' is not a finite number"},
      {"inf.txt", "1 inf 3\n", "line 1: 'inf' is not a finite number"},
      {"hex.txt", "1 0x10 1\n", "line 1: '0x10' is not a finite number"},  // decimal only, as on the command line
      // A binary file's bytes shown escaped, not sent raw to the terminal.
      {"binary.txt", std::string("\x89PNG\r\n\x1a\n", 8), "line 1: '\\x89PNG' is not a finite number"},
      {"hexfloat.txt", "0x1p3 1 1\n", "line 1: '0x1p3' is not a finite number"},
      {"commas.txt", "1,,2\n", "line 1: a ',' with no number"},
      {"evenw.txt", "# c\n1 2 3 4\n5 6 7 8\n1 1 1 1\n", "line 2: 4 columns: an even width has no centre"},
      {"evenh.txt", "1 2 3\n4 5 6\n", "line 2: 2 rows: an even height has no centre"},
      {"wide.txt", "1\n" + wide + "\n", "line 2: more than 4097 values"},
      {"tall.txt", tall, "line 4098: more than 4097 rows"},
  };
  for (const Bad& b : bad) {
    const std::string f = file(b.name, b.text);
    const std::string e = error({{"kernel", f}});
    EXPECT_NE(e.find("kernel file '" + f + "'"), std::string::npos) << e;
    EXPECT_NE(e.find(b.want), std::string::npos) << b.name << ": " << e;
  }
  const std::string missing = (dir_ / "missing.txt").string();
  const std::string e = error({{"kernel", missing}});
  EXPECT_NE(e.find("'" + missing + "'"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot be opened"), std::string::npos) << e;
  // Weights beyond float's range (they would make every output infinite) are refused on both paths; the same
  // weights scaled into range by --normalize are fine.
  const std::string huge = file("huge.txt", "1e39 1 1\n"), huge2d = file("huge2d.txt", "1 1 1\n1 1e39 2\n1 1 1\n");
  // A row whose weights fit float but whose products (it runs along x, then y) do not: every output was inf, exit 0.
  const std::string square = file("square.txt", "1e20 1e20 1e20\n");
  for (const auto& given : std::vector<std::map<std::string, std::string>>{
           {{"kernel", huge}}, {{"kernel", huge}, {"impl", "2d"}}, {{"kernel", huge2d}, {"impl", "2d"}},
           {{"kernel", square}}, {{"kernel", square}, {"impl", "2d"}}}) {
    const std::string big = error(given);
    EXPECT_NE(big.find("beyond float's range"), std::string::npos) << big;
  }
  // Finite weights whose sum passes double's range normalise (they were refused as summing to inf, "about 0"); a
  // weight that underflows double (1e-320) is taken as strtod gives it (it was "not a finite number").
  const Plan vast = plan({{"kernel", file("vast.txt", "1e308 1e308 1e308\n")}, {"normalize", "true"}});
  EXPECT_NEAR(vast.effective_sigma, std::sqrt(2.0 / 3.0), 1e-12);
  const std::string said = vast.details.at("kernel"), ends = "weights sum to 1";
  EXPECT_TRUE(said.size() > ends.size() && said.compare(said.size() - ends.size(), ends.size(), ends) == 0) << said;
  EXPECT_NEAR(plan({{"kernel", file("tiny.txt", "1e-320 1 1e-320\n")}}).effective_sigma, 0, 1e-12);
  const std::string scaled = file("scaled.txt", "1e38 2e38 1e38\n");
  EXPECT_TRUE(plan({{"kernel", scaled}, {"normalize", "true"}}).program.passes.size() > 0);
  // --normalize on every path, whatever the weights' scale: subnormal weights (1 / their unit overflowed), a rank-1
  // matrix of 1e300 (the factors' balance summed to inf) and a 1D row on the direct 2D path (w w scale scale
  // overflowed) were all refused as beyond float's range. Each runs [1 2 1] / 4's taps.
  const std::vector<float> quarter{0.25f, 0.5f, 0.25f};
  for (const auto& given : std::vector<std::map<std::string, std::string>>{
           {{"kernel", file("subnormal.txt", "1e-320 2e-320 1e-320\n")}, {"normalize", "true"}},
           {{"kernel", file("vast1d.txt", "1e307 2e307 1e307\n")}, {"normalize", "true"}, {"impl", "2d"}},
           {{"kernel", file("vast2d.txt", "1e300 2e300 1e300\n2e300 4e300 2e300\n1e300 2e300 1e300\n")},
            {"normalize", "true"}}}) {
    const Plan q = plan(given);
    ASSERT_FALSE(q.program.passes.empty()) << given.at("kernel");
    const Pass& first = q.program.passes.front();
    if (first.op == Op::Conv2dMatrix) {
      ASSERT_EQ(first.taps.size(), 9u);
      EXPECT_NEAR(first.taps[4], 0.25f, 1e-7f);
      EXPECT_NEAR(first.taps[0], 0.0625f, 1e-7f);
    } else {
      for (const Pass& pass : q.program.passes)
        for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(pass.taps[i], quarter[i], 1e-7f) << given.at("kernel");
    }
    EXPECT_NEAR(q.effective_sigma, std::sqrt(0.5), 1e-9) << given.at("kernel");
  }
  const Plan flat = plan({{"kernel", file("flat2d.txt", "1e308 1e308 1e308\n1e308 1e308 1e308\n1e308 1e308 1e308\n")},
                          {"normalize", "true"}});
  for (const Pass& pass : flat.program.passes)
    for (float w : pass.taps) EXPECT_NEAR(w, 1.0f / 3, 1e-7f);
  EXPECT_NEAR(flat.effective_sigma, std::sqrt(2.0 / 3.0), 1e-9);
  // Without --normalize, a rank-1 matrix of 1e300 weights is beyond float's range as written: said, not inf taps.
  const std::string e300 = error({{"kernel", file("e300.txt", "1e300 1e300 1e300\n1e300 1e300 1e300\n1e300 1e300 1e300\n")}});
  EXPECT_NE(e300.find("beyond float's range"), std::string::npos) << e300;
  // Weights below float's smallest run as zeros: refused as a file of zeros is (it wrote black images, exit 0); on
  // every path, and with --normalize they run.
  for (const char* impl : {"auto", "2d"}) {
    const std::string tiny = error({{"kernel", file("tiny.txt", "1e-50 1e-50 1e-50\n")}, {"impl", impl}});
    EXPECT_NE(tiny.find("below float's smallest"), std::string::npos) << impl << ": " << tiny;
    EXPECT_FALSE(plan({{"kernel", file("tiny.txt", "1e-50 1e-50 1e-50\n")}, {"normalize", "true"}, {"impl", impl}})
                     .program.passes.empty());
  }
  const std::string tiny2d = error({{"kernel", file("tiny2d.txt", "1e-50 0 1e-50\n0 1e-50 0\n1e-50 0 1e-50\n")}});
  EXPECT_NE(tiny2d.find("below float's smallest"), std::string::npos) << tiny2d;
  // Separable, each factor fits float where their products do not: a rank-1 3 x 3 of 1e-50 (balanced factors
  // ~1e-25) and a 1D row of 1e-30 (applied on both axes) wrote black images with exit 0.
  const std::string rank1 = error({{"kernel", file("tiny_r1.txt", "1e-50 1e-50 1e-50\n1e-50 1e-50 1e-50\n"
                                                                  "1e-50 1e-50 1e-50\n")}});
  EXPECT_NE(rank1.find("a product of its row and column"), std::string::npos) << rank1;
  const std::string row30 = error({{"kernel", file("tiny_row.txt", "1e-30 1e-30 1e-30\n")}});
  EXPECT_NE(row30.find("a product of its row and column"), std::string::npos) << row30;
  EXPECT_FALSE(plan({{"kernel", file("small_row.txt", "1e-20 1e-20 1e-20\n")}}).program.passes.empty());  // 1e-40
  // No --kernel at all.
  Plan p;
  const Status none = resolve_plan("kernel", {}, p);
  EXPECT_NE(none.error.find("needs --kernel FILE"), std::string::npos) << none.error;
}

// The direct 2D path past kDirect2dWarnTaps reads a pixel warns as gauss-2d does (and quality then skips its impulse
// response); a rank-1 matrix on it is told of --impl auto; below the bound, and on the separable path, no warning.
TEST_F(KernelFiles, LargeDirectTwoDKernelsWarnOfTheirCost) {
  auto square = [](int n, bool rank1) {
    std::string t;
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) t += (rank1 || (i + j) % 3 ? "1 " : "2 ");
      t += "\n";
    }
    return t;
  };
  // Normalised: these weights of 1 and 2 would also warn of their gain.
  const Plan big = plan({{"kernel", file("big.txt", square(317, false))}, {"normalize", "true"}});  // 100489 a pixel
  ASSERT_TRUE(big.details.count("warning"));
  EXPECT_NE(big.details.at("warning").find("317 x 317 = 100489"), std::string::npos) << big.details.at("warning");
  EXPECT_NE(big.details.at("warning").find("not rank 1"), std::string::npos) << big.details.at("warning");
  EXPECT_TRUE(plan_warns_of_cost(big));
  EXPECT_FALSE(plan({{"kernel", file("small.txt", square(315, false))}, {"normalize", "true"}}).details.count(
      "warning"));  // 99225
  const std::string flat = file("flat.txt", square(317, true));
  EXPECT_FALSE(plan({{"kernel", flat}, {"normalize", "true"}}).details.count("warning"));  // two passes of 317
  const Plan forced = plan({{"kernel", flat}, {"impl", "2d"}, {"normalize", "true"}});
  ASSERT_TRUE(forced.details.count("warning"));
  EXPECT_NE(forced.details.at("warning").find("--impl auto"), std::string::npos) << forced.details.at("warning");
}

// A blur whose weights do not sum to 1 runs as written but says its gain (quality fitted a kernel of 1 2 1, a gain of
// 16, sigmas from 0.1 to 13 and said nothing); a sum within 1e-3 of 1, --normalize, and kernels that are no blur
// (a zero sum, negative weights) say nothing of it.
TEST_F(KernelFiles, BlurWhoseWeightsDoNotSumToOneSaysItsGain) {
  const Plan row = plan({{"kernel", file("row.txt", "1 2 1\n")}});  // 1D: 4 along each axis
  ASSERT_TRUE(row.details.count("warning"));
  EXPECT_NE(row.details.at("warning").find("the weights sum to 16, not 1, so a flat area comes out 16 times as bright"),
            std::string::npos)
      << row.details.at("warning");
  EXPECT_EQ(row.details.at("warning_kind"), "gain");
  EXPECT_FALSE(plan_warns_of_cost(row));
  // A row's 2D sum is its own squared: both said, so that --normalize's error (the row's sum) reads as the same file.
  EXPECT_NE(row.details.at("warning").find("the row's weights sum to 4, along x then y"), std::string::npos)
      << row.details.at("warning");
  EXPECT_NE(row.details.at("kernel").find("the row's weights sum to 4), weights sum to 16"), std::string::npos)
      << row.details.at("kernel");
  const std::string flat = error({{"kernel", file("flat.txt", "1 -1 1e-9\n")}, {"normalize", "true"}});
  EXPECT_NE(flat.find("the row's weights sum to 1e-09, about 0"), std::string::npos) << flat;
  // A --sigma the kernel overrides adds its warning and keeps the kind "gain" (bench, which always gives one, turned it
  // into "unused").
  Plan with_sigma = plan({{"kernel", file("row.txt", "1 2 1\n")}, {"sigma", "3"}});
  warn_sigma_overridden("kernel", {{"kernel", file("row.txt", "1 2 1\n")}, {"sigma", "3"}}, with_sigma);
  EXPECT_NE(with_sigma.details.at("warning").find("is not the blur that runs"), std::string::npos);
  EXPECT_EQ(with_sigma.details.at("warning_kind"), "gain");
  const Plan dark = plan({{"kernel", file("dark.txt", "0.1 0.2 0.1\n0.2 0.4 0.2\n0.1 0.2 0.1\n")}});
  ASSERT_TRUE(dark.details.count("warning"));
  EXPECT_NE(dark.details.at("warning").find("sum to 1.6, not 1"), std::string::npos) << dark.details.at("warning");
  EXPECT_FALSE(plan({{"kernel", file("row.txt", "1 2 1\n")}, {"normalize", "true"}}).details.count("warning"));
  EXPECT_FALSE(plan({{"kernel", file("near.txt", "0.2501 0.5 0.2501\n")}}).details.count("warning"));  // 1.0008
  EXPECT_FALSE(plan({{"kernel", file("edge.txt", "1 -2 1\n")}}).details.count("warning"));
  EXPECT_FALSE(plan({{"kernel", file("sharp.txt", "0 -1 0\n-1 5 -1\n0 -1 0\n")}}).details.count("warning"));
}

TEST_F(KernelFiles, TextFormat) {
  KernelMatrix m;
  ASSERT_TRUE(parse_kernel_text("# a comment\n\n 1, 2,3 # tail\n4\t5 , 6\n-7e-1 +8 .9\n", "t", m).ok());
  EXPECT_EQ(m.width, 3);
  EXPECT_EQ(m.height, 3);
  EXPECT_FALSE(m.one_d);
  EXPECT_EQ(m.w, (std::vector<double>{1, 2, 3, 4, 5, 6, -0.7, 8, 0.9}));
  ASSERT_TRUE(parse_kernel_text("1 2 1\n", "t", m).ok());
  EXPECT_TRUE(m.one_d);
  ASSERT_TRUE(parse_kernel_text("\xEF\xBB\xBF" "1 2 1\n", "t", m).ok());  // a UTF-8 BOM first (Notepad): skipped
  EXPECT_EQ(m.w, (std::vector<double>{1, 2, 1}));
  // Line ends of CR alone (classic Mac files) as CRLF and LF: it read as one row of 9, its sum 16 squared.
  ASSERT_TRUE(parse_kernel_text("1 2 1\r2 4 2\r1 2 1\r", "t", m).ok());
  EXPECT_EQ(m.width, 3);
  EXPECT_EQ(m.height, 3);
  ASSERT_TRUE(parse_kernel_text("1 2 1\r\n2 4 2\r\n1 2 1\r\n", "t", m).ok());
  EXPECT_EQ(m.height, 3);
  EXPECT_NE(parse_kernel_text("1 2 1\r\r2 x 2\r", "t", m).error.find("line 3: 'x'"), std::string::npos);
  ASSERT_TRUE(parse_kernel_text("1\n2\n1\n", "t", m).ok());  // a column is a 3 x 1 matrix (rank 1)
  EXPECT_FALSE(m.one_d);
  std::vector<double> col, row;
  EXPECT_TRUE(rank_one(m, col, row));
}

// A folder is named as such (it read as "no numbers in it"); a text file is read in chunks, whole.
TEST_F(KernelFiles, FolderRefusedTextReadWhole) {
  KernelMatrix m;
  const Status s = read_kernel_file(dir_.string(), m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("is a folder"), std::string::npos) << s.error;
  // A PNG is named as one (it read as "'\x89PNG' is not a finite number"): its levels cannot hold weights.
  const std::string png = (dir_ / "k.png").string();
  std::ofstream(png, std::ios::binary) << std::string("\x89PNG\r\n\x1a\n", 8);
  const Status p = read_kernel_file(png, m);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error.find("a PNG cannot hold kernel weights"), std::string::npos) << p.error;
  const std::string f = (dir_ / "long.txt").string();
  {
    std::ofstream o(f);
    for (int y = 0; y < 101; ++y)
      for (int x = 0; x < 4001; ++x)
        o << (x == 2000 && y == 50 ? "1" : "0.0000000000") << (x + 1 < 4001 ? " " : "\n");
  }
  const Status r = read_kernel_file(f, m);  // 4.8 MB: several chunks of 1 MiB
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(m.width, 4001);
  EXPECT_EQ(m.height, 101);
  EXPECT_EQ(m.at(2000, 50), 1.0);
}

TEST_F(KernelFiles, SingleChannelExr) {
  std::unique_ptr<ImageIO> io = make_image_io();
  ASSERT_TRUE(io);
  Image k(5, 3, 1);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) k.at(x, y, 0) = float(kMatrix[size_t(y)][size_t(x)]);
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Float;
  meta.channel_names = {"Y"};
  const std::string f = (dir_ / "k.exr").string();
  ASSERT_TRUE(io->write(f, k, meta).ok());
  KernelMatrix m;
  ASSERT_TRUE(read_kernel_file(f, m).ok());
  ASSERT_EQ(m.width, 5);
  ASSERT_EQ(m.height, 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) EXPECT_EQ(m.at(x, y), double(float(kMatrix[size_t(y)][size_t(x)])));
  // The EXR kernel runs as the same convolution as its text form.
  const Plan p = plan({{"kernel", f}});
  ASSERT_TRUE(all_ops(p, Op::Conv2dMatrix));
  // Two channels: refused, naming the file.
  Image two(3, 3, 2);
  meta.channel_names = {"R", "G"};
  const std::string f2 = (dir_ / "two.exr").string();
  ASSERT_TRUE(io->write(f2, two, meta).ok());
  const std::string e = error({{"kernel", f2}});
  EXPECT_NE(e.find("'" + f2 + "'"), std::string::npos) << e;
  EXPECT_NE(e.find("exactly one channel"), std::string::npos) << e;
  // Even sizes are refused for EXR too.
  Image even(4, 3, 1);
  meta.channel_names = {"Y"};
  const std::string f3 = (dir_ / "even.exr").string();
  ASSERT_TRUE(io->write(f3, even, meta).ok());
  EXPECT_NE(error({{"kernel", f3}}).find("even width"), std::string::npos);
}

}  // namespace
}  // namespace gpublur
