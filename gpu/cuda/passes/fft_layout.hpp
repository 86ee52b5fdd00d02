// The index math of the CUDA FftConv1d (passes/fft_conv1d.cu), host and device (tests/cuda emulates it on the
// host). One chunk of `batch_lines` lines from `line0` of an unpadded interleaved image is gathered into a real
// line buffer of n_fft x B values (B = batch_lines x channels transforms, one per line and channel), each line
// extended by `ext` with the border mode and zero beyond (core/fft.hpp), transformed by cuFFT (R2C), multiplied
// by the kernel's bins, transformed back (C2R) into the same buffer, and its stored positions ext..ext+n-1
// scattered into the destination. The buffers are transform-major on both axes: value (pos, b) at b * n_fft +
// pos, bin k of transform b at b * bins + k (cuFFT stride 1, distance n_fft / bins), b = line_in_chunk *
// channels + channel. Columns used to be position-major (cuFFT stride B, distance 1: the image side of gather
// and scatter coalesced without a transpose), but cuFFT's strided column transforms took 4.35 ms against the
// rows' 1.54 at 4096^2 RGBA (H100); the column kernels now transpose through shared-memory tiles instead. Lines
// past the image in the last chunk are gathered as zeros and never scattered.
#pragma once
#include <cstddef>

#include "core/border.hpp"
#include "core/fft.hpp"

namespace gpublur::cuda {

// core's line layout for cuFFT's sizes (7-smooth), never shorter than 8: a 1-pixel wrapped line would otherwise
// ask cuFFT for a transform of length 1; extended by the radius instead, wrap is exact all the same.
inline FftLine cufft_line(int n, int radius, Border b) {
  FftLine l = fft_line(n, radius, b, FftSizes::Smooth7);
  if (l.n_fft < 8) l = {fft_size_at_least(n + 2 * radius < 8 ? 8 : n + 2 * radius, FftSizes::Smooth7), radius};
  return l;
}

struct FftLayout {
  int axis = 0;
  int width = 0, height = 0, channels = 1;  // the image (unpadded), device channels 1, 2 or 4
  int n_fft = 1, ext = 0;
  Border border = Border::Clamp;
  int line0 = 0, batch_lines = 1;

  GPUBLUR_HD int n() const { return axis == 0 ? width : height; }      // line length
  GPUBLUR_HD int lines() const { return axis == 0 ? height : width; }  // lines in the image
  GPUBLUR_HD int transforms() const { return batch_lines * channels; }  // B
  GPUBLUR_HD int bins() const { return n_fft / 2 + 1; }
  // cuFFT's advanced layout (same for the real and the complex buffer, element counts differ).
  GPUBLUR_HD int stride() const { return 1; }
  GPUBLUR_HD int real_dist() const { return n_fft; }
  GPUBLUR_HD int complex_dist() const { return bins(); }
  GPUBLUR_HD size_t real_count() const { return size_t(n_fft) * size_t(transforms()); }
  GPUBLUR_HD size_t complex_count() const { return size_t(bins()) * size_t(transforms()); }
  GPUBLUR_HD size_t scatter_count() const { return size_t(n()) * size_t(transforms()); }

  GPUBLUR_HD size_t real_index(int pos, int b) const { return size_t(b) * size_t(n_fft) + size_t(pos); }
  // The bin of complex buffer element i.
  GPUBLUR_HD int bin_of(size_t i) const { return int(i % size_t(bins())); }

  // Real buffer element i (buffer order): the border-extended line's value it holds.
  GPUBLUR_HD float gather(const float* src, size_t i) const {
    const int pos = int(i % size_t(n_fft)), b = int(i / size_t(n_fft));
    const int line = line0 + b / channels, c = b % channels;
    const size_t px = source_pixel(line, pos);
    return px == kNoPixel ? 0.0f : src[px * size_t(channels) + size_t(c)];
  }
  // The image pixel (flat index) that position pos of line `line` holds; kNoPixel: a zero (past the image's
  // lines, the zero border, or beyond the extension).
  static constexpr size_t kNoPixel = ~size_t(0);
  GPUBLUR_HD size_t source_pixel(int line, int pos) const {
    const int q = pos - ext;
    if (line >= lines() || q >= n() + ext) return kNoPixel;
    const int idx = remap_index(q, n(), border);
    return idx < 0 ? kNoPixel : image_pixel(line, idx);
  }
  // The flat pixel index of position x of line `line`.
  GPUBLUR_HD size_t image_pixel(int line, int x) const {
    return axis == 0 ? size_t(line) * size_t(width) + size_t(x) : size_t(x) * size_t(width) + size_t(line);
  }

  // Chunk output element k (image order): its flat index in the destination and the real buffer element it
  // takes; false for lines past the image.
  GPUBLUR_HD bool scatter(size_t k, size_t& img, size_t& buf) const {
    const int c = int(k % size_t(channels));
    const size_t rest = k / size_t(channels);
    const int x = axis == 0 ? int(rest % size_t(n())) : int(rest / size_t(batch_lines));
    const int ll = axis == 0 ? int(rest / size_t(n())) : int(rest % size_t(batch_lines));
    const int line = line0 + ll;
    if (line >= lines()) return false;
    img = image_pixel(line, x) * size_t(channels) + size_t(c);
    buf = real_index(x + ext, ll * channels + c);
    return true;
  }
};

}  // namespace gpublur::cuda
