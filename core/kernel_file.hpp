// User kernels from a file (the `kernel` method, core/methods/kernel.cpp): a text matrix, a single row for
// separable use, or a single-channel EXR; checks that give usage errors naming the file and line; the rank-1
// test that lets a matrix run as two 1D passes; the kernel's moments (its effective sigma).
#pragma once
#include <string>
#include <vector>

#include "core/status.hpp"

namespace gpublur {

// Largest kernel width or height a file may have (radius 2048 each way).
constexpr int kMaxKernelSize = 4097;

struct KernelMatrix {
  int width = 0, height = 0;  // odd, at most kMaxKernelSize
  std::vector<double> w;      // row-major: w[y * width + x]; the centre is (width / 2, height / 2)
  bool one_d = false;         // the file is a single row: applied along x, then the same row along y
  double at(int x, int y) const { return w[size_t(y) * size_t(width) + size_t(x)]; }
};

// Text: rows of numbers separated by whitespace and/or single commas; '#' starts a comment to the end of the
// line; blank lines are skipped. A file of one row is a 1D kernel. `name` is used in error messages.
// Errors (usage errors, "kernel file 'NAME', line N: ..."): no numbers at all, a row whose length differs from
// the first row's, a token that is not a finite number, an even width or height (no centre pixel), a width or
// height above kMaxKernelSize.
Status parse_kernel_text(const std::string& text, const std::string& name, KernelMatrix& out);
// A file: .exr (case-insensitive) is read with the project's image I/O and must have exactly one channel (a
// single-row EXR is a 1D kernel); anything else is read as text. A missing or unreadable file is an error
// naming it.
Status read_kernel_file(const std::string& path, KernelMatrix& out);

// Rank-1 test in float64: with (i, j) the entry of largest magnitude, col = M[., j], row = M[i, .] / M[i, j]
// (one step of Gaussian elimination with complete pivoting), M is taken as rank 1 when every entry of
// M - col row^T is within rel_tol * max|M|. On success, M = col (x) row (col along y, row along x).
constexpr double kRankOneTolerance = 1e-7;
bool rank_one(const KernelMatrix& m, std::vector<double>& col, std::vector<double>& row,
              double rel_tol = kRankOneTolerance);

// The kernel's centred moments per axis, weights taken as a distribution (divided by their sum): var_x, var_y
// about the weighted mean. Valid (returns true) only where every weight is >= 0 and the sum is > 0 (a blur);
// for a 1D kernel both axes are the row's.
bool kernel_variance(const KernelMatrix& m, double& var_x, double& var_y);

}  // namespace gpublur
