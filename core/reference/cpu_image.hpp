// The CPU reference's images of a program: float32 or float64 values, interleaved channels, with padding
// (core/program.hpp), as owned storage or as a view of a caller's Image (input and output: no copies).
// The line helpers let 1D primitives work on border-extended lines in float64.
#pragma once
#include <vector>

#include "core/border.hpp"
#include "core/image.hpp"
#include "core/program.hpp"

namespace gpublur {

struct CpuImage {
  int width = 0, height = 0, channels = 0, pad = 0;  // width, height without the padding
  bool f64 = false;
  float* f = nullptr;   // float32 values (f64 == false)
  double* d = nullptr;  // float64 values (f64 == true)
  std::vector<float> own_f;
  std::vector<double> own_d;

  static CpuImage view(Image& img);
  static CpuImage make(int w, int h, int c, const ImageDecl& decl);

  int stride() const { return width + 2 * pad; }  // pixels per stored row
  size_t offset(int x, int y) const { return (size_t(y + pad) * size_t(stride()) + size_t(x + pad)) * channels; }
  bool stored(int x, int y) const { return x >= -pad && y >= -pad && x < width + pad && y < height + pad; }
  double get(size_t i) const { return f64 ? d[i] : double(f[i]); }
  void set(size_t i, double v) { f64 ? void(d[i] = v) : void(f[i] = float(v)); }
  // Value at (x, y): stored pixels as they are; outside, an unpadded image applies the border mode (zero -> 0).
  double read(int x, int y, int c, Border b) const;
};

// A batch of lines along `axis` as one buffer of positions x vectors: axis 0 takes row `first` (one line,
// vectors of `channels` values); axis 1 takes columns [first, first + count) (vectors of count * channels).
// Positions run from -ext to n + ext - 1 (n: the image's length along the axis), read with `b` outside.
struct LineBatch {
  int axis = 0, first = 0, count = 1, n = 0, ext = 0, vec = 0;
  std::vector<double> buf;  // (n + 2 ext) * vec
  double* at(int pos) { return buf.data() + size_t(pos + ext) * size_t(vec); }
  const double* at(int pos) const { return buf.data() + size_t(pos + ext) * size_t(vec); }
};
void gather_lines(const CpuImage& src, int axis, int first, int count, int ext, Border b, LineBatch& out);
// Writes positions [0, n) of `values` (laid out like a LineBatch with ext 0) into dst's lines.
void scatter_lines(const std::vector<double>& values, const LineBatch& shape, CpuImage& dst);

// Runs `line_fn(LineBatch&) -> std::vector<double>` over all lines of src along `axis` (columns in batches),
// on `threads` threads, and writes the results into dst.
template <class F>
void for_line_batches(const CpuImage& src, CpuImage& dst, int axis, int ext, Border b, int threads, F&& line_fn);

// The source rows of a direct 2D pass (conv2d, conv2d-matrix, reshuffle), each extended once by `ext` with the
// border mode.
struct ExtendedRows {
  std::vector<LineBatch> rows;
  LineBatch zero;  // a row of zeros: what a zero border reads above and below the image
  Border border = Border::Clamp;
  // Source row y, remapped with the border mode; null where a zero border reads outside.
  const LineBatch* at(int y) const {
    const int yi = remap_index(y, int(rows.size()), border);
    return yi < 0 ? nullptr : &rows[size_t(yi)];
  }
  const LineBatch& at_or_zero(int y) const {
    const LineBatch* l = at(y);
    return l ? *l : zero;
  }
};
// The frame of those passes: the extended rows, then `row_fn(y, rows, acc)` fills output row y's float64
// accumulator (dst.width * channels values, zeroed) on `threads` threads, and it is stored into dst.
template <class F>
void for_rows_2d(const CpuImage& src, CpuImage& dst, int ext, Border b, int threads, F&& row_fn);

// Columns per batch on axis 1: enough contiguous values per row to use whole cache lines.
constexpr int kColumnBatch = 16;

}  // namespace gpublur

#include "core/reference/row_threads.hpp"

namespace gpublur {

template <class F>
void for_rows_2d(const CpuImage& src, CpuImage& dst, int ext, Border b, int threads, F&& row_fn) {
  const int C = src.channels;
  ExtendedRows rows;
  rows.border = b;
  rows.rows.resize(size_t(src.height));
  for_rows(src.height, threads, [&](int y) { gather_lines(src, 0, y, 1, ext, b, rows.rows[size_t(y)]); });
  rows.zero.n = src.width, rows.zero.ext = ext, rows.zero.vec = C;
  rows.zero.buf.assign(size_t(src.width + 2 * ext) * C, 0.0);
  const size_t row = size_t(dst.width) * C;
  for_rows(dst.height, threads, [&](int y) {
    std::vector<double> acc(row, 0.0);
    row_fn(y, static_cast<const ExtendedRows&>(rows), acc);
    for (int x = 0; x < dst.width; ++x)
      for (int c = 0; c < C; ++c) dst.set(dst.offset(x, y) + size_t(c), acc[size_t(x) * C + c]);
  });
}

template <class F>
void for_line_batches(const CpuImage& src, CpuImage& dst, int axis, int ext, Border b, int threads, F&& line_fn) {
  const int lines = axis == 0 ? src.height : (src.width + kColumnBatch - 1) / kColumnBatch;
  for_rows(lines, threads, [&](int i) {
    LineBatch lb;
    const int first = axis == 0 ? i : i * kColumnBatch;
    const int count = axis == 0 ? 1 : std::min(kColumnBatch, src.width - first);
    gather_lines(src, axis, first, count, ext, b, lb);
    scatter_lines(line_fn(lb), lb, dst);
  });
}

}  // namespace gpublur
