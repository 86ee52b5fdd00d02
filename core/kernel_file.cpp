#include "core/kernel_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/io/image_io.hpp"
#include "core/io/io_common.hpp"
#include "core/plan.hpp"

namespace gpublur {
namespace {

std::string where(const std::string& name, int line) {
  return "kernel file '" + name + "'" + (line > 0 ? ", line " + std::to_string(line) : std::string()) + ": ";
}

// Checks the finished matrix's shape (even sizes, size limit); `first_line`/`last_line`: where the rows were.
Status check_shape(const KernelMatrix& m, const std::string& name, int first_line, int last_line) {
  if (m.width > kMaxKernelSize)
    return Status::fail(where(name, first_line) + std::to_string(m.width) + " columns: wider than " +
                        std::to_string(kMaxKernelSize));
  if (m.height > kMaxKernelSize)
    return Status::fail(where(name, last_line) + std::to_string(m.height) + " rows: taller than " +
                        std::to_string(kMaxKernelSize));
  if (m.width % 2 == 0)
    return Status::fail(where(name, first_line) + std::to_string(m.width) +
                        " columns: an even width has no centre pixel (use an odd size, e.g. pad with a zero column)");
  if (m.height % 2 == 0)
    return Status::fail(where(name, last_line) + std::to_string(m.height) +
                        " rows: an even height has no centre pixel (use an odd size, e.g. pad with a zero row)");
  return Status::success();
}

}  // namespace

Status parse_kernel_text(const std::string& raw, const std::string& name, KernelMatrix& out) {
  out = KernelMatrix{};
  // Lines end in LF, CRLF or CR alone (classic Mac files: as whitespace, a 3 x 3 read as one row of 9).
  std::string text;
  text.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i)
    if (raw[i] != '\r')
      text += raw[i];
    else if (i + 1 == raw.size() || raw[i + 1] != '\n')
      text += '\n';
  std::istringstream in(text);
  std::string line;
  int lineno = 0, first_line = 0, last_line = 0;
  std::vector<double> row;
  while (std::getline(in, line)) {
    ++lineno;
    if (lineno == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // a UTF-8 BOM (Notepad's files)
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    row.clear();
    // Tokens: runs of characters other than whitespace and ','; a ',' separates, two with nothing between
    // (or a leading/trailing one) is an empty value.
    size_t i = 0;
    bool want_value = false;  // after a comma
    for (;;) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i == line.size()) {
        if (want_value) return Status::fail(where(name, lineno) + "a ',' with no number after it");
        break;
      }
      if (line[i] == ',') {
        if (want_value || row.empty()) return Status::fail(where(name, lineno) + "a ',' with no number before it");
        want_value = true;
        ++i;
        continue;
      }
      size_t j = i;
      while (j < line.size() && line[j] != ',' && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
      const std::string tok = line.substr(i, j - i);
      double v = 0;
      errno = 0;  // strtod's overflow (ERANGE, an infinity) refused; its underflow (1e-320: 0 or subnormal) taken
      if (!parse_decimal(tok, v) || (errno == ERANGE && std::isinf(v)))
        return Status::fail(where(name, lineno) + "'" + io::shown_bytes(tok, 40) + "' is not a finite number");
      row.push_back(v);
      want_value = false;
      i = j;
      if (row.size() > size_t(kMaxKernelSize))
        return Status::fail(where(name, lineno) + "more than " + std::to_string(kMaxKernelSize) +
                            " values: wider than " + std::to_string(kMaxKernelSize));
    }
    if (row.empty()) continue;  // blank or comment-only line
    if (out.height == 0) {
      out.width = int(row.size());
      first_line = lineno;
    } else if (int(row.size()) != out.width) {
      return Status::fail(where(name, lineno) + "ragged rows: " + std::to_string(row.size()) +
                          " values, the first row (line " + std::to_string(first_line) + ") has " +
                          std::to_string(out.width));
    }
    if (out.height == kMaxKernelSize)
      return Status::fail(where(name, lineno) + "more than " + std::to_string(kMaxKernelSize) +
                          " rows: taller than " + std::to_string(kMaxKernelSize));
    out.w.insert(out.w.end(), row.begin(), row.end());
    ++out.height;
    last_line = lineno;
  }
  if (out.height == 0) return Status::fail(where(name, 0) + "no numbers in it (an empty kernel)");
  if (Status s = check_shape(out, name, first_line, last_line); !s) return s;
  out.one_d = out.height == 1;
  return Status::success();
}

Status read_kernel_file(const std::string& path, KernelMatrix& out) {
  out = KernelMatrix{};
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::fail(where(path, 0) + "is a folder, not a file");
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::fail(where(path, 0) + "cannot be opened (" + std::strerror(errno) + ")");
  if (format_from_extension(path) == "png")
    return Status::fail(where(path, 0) + "a PNG cannot hold kernel weights (its levels are 0-1, no signs, 8 or 16 "
                        "bits); give an EXR of one float channel or a text file");
  if (format_from_extension(path) == "exr") {
    f.close();
    std::unique_ptr<ImageIO> io = make_image_io();
    if (!io) return Status::fail(where(path, 0) + "no image I/O in this build to read an EXR");
    ReadLimits limits;
    limits.max_pixels = uint64_t(kMaxKernelSize) * uint64_t(kMaxKernelSize);
    LoadedImage img;
    if (Status s = io->read(path, limits, img); !s) return Status::fail(where(path, 0) + s.error);
    if (img.image.channels != 1)
      return Status::fail(where(path, 0) + "an EXR kernel needs exactly one channel, this one has " +
                          std::to_string(img.image.channels));
    out.width = img.image.width, out.height = img.image.height;
    if (out.width == 0 || out.height == 0) return Status::fail(where(path, 0) + "no pixels in it (an empty kernel)");
    out.w.assign(img.image.data.begin(), img.image.data.end());
    for (double v : out.w)
      if (!std::isfinite(v)) return Status::fail(where(path, 0) + "a pixel is not a finite number");
    if (Status s = check_shape(out, path, 0, 0); !s) return s;
    out.one_d = out.height == 1;
    return Status::success();
  }
  // At most kMaxTextBytes (4097^2 numbers of 25 characters fit): a device or a huge file is refused, not read
  // until memory runs out (--kernel /dev/zero was killed by the kernel's OOM killer).
  constexpr size_t kMaxTextBytes = size_t(512) << 20;
  std::string text;
  std::vector<char> chunk(size_t(1) << 20);
  while (f.read(chunk.data(), std::streamsize(chunk.size())) || f.gcount() > 0) {
    text.append(chunk.data(), size_t(f.gcount()));
    if (text.size() > kMaxTextBytes)
      return Status::fail(where(path, 0) + "more than 512 MiB: too large for a kernel of at most " +
                          std::to_string(kMaxKernelSize) + " x " + std::to_string(kMaxKernelSize));
  }
  if (f.bad()) return Status::fail(where(path, 0) + "could not be read");
  return parse_kernel_text(text, path, out);
}

bool rank_one(const KernelMatrix& m, std::vector<double>& col, std::vector<double>& row, double rel_tol) {
  col.clear(), row.clear();
  size_t best = 0;
  for (size_t i = 0; i < m.w.size(); ++i)
    if (std::abs(m.w[i]) > std::abs(m.w[best])) best = i;
  const double peak = std::abs(m.w[best]);
  if (peak == 0) return false;  // the zero matrix: nothing to separate
  const int pi = int(best / size_t(m.width)), pj = int(best % size_t(m.width));
  const double pivot = m.at(pj, pi);
  col.resize(size_t(m.height)), row.resize(size_t(m.width));
  for (int y = 0; y < m.height; ++y) col[size_t(y)] = m.at(pj, y);
  for (int x = 0; x < m.width; ++x) row[size_t(x)] = m.at(x, pi) / pivot;
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x)
      if (std::abs(m.at(x, y) - col[size_t(y)] * row[size_t(x)]) > rel_tol * peak) {
        col.clear(), row.clear();
        return false;
      }
  return true;
}

bool kernel_variance(const KernelMatrix& m, double& var_x, double& var_y) {
  var_x = var_y = 0;
  double sum = 0, sx = 0, sy = 0;
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x) {
      const double v = m.at(x, y);
      if (v < 0) return false;
      sum += v, sx += v * x, sy += v * y;
    }
  if (!(sum > 0)) return false;
  const double mx = sx / sum, my = sy / sum;
  double vx = 0, vy = 0;
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x) {
      const double v = m.at(x, y) / sum;
      vx += v * (x - mx) * (x - mx), vy += v * (y - my) * (y - my);
    }
  var_x = vx;
  var_y = m.one_d ? vx : vy;
  return true;
}

}  // namespace gpublur
