// The index math of the CUDA FftConv1d's own transform (passes/fft_segments.cu), host and device (tests/cuda
// emulates it on the host in float64).
//
// Overlap-save in shared memory: a line of n pixels is cut into segments of L = M - 2r outputs; segment s holds the
// border-extended positions x = s L - r + i, i in [0, M), one block transforms them (length M, a power of two),
// multiplies by the kernel's M bins (core/fft.hpp's spectrum for length M) and transforms back; stored positions
// r .. r + L - 1 are segment s's outputs (their windows i - r .. i + r never wrap). So each pixel is read from
// device memory about once (the 2r overlap of neighbouring segments comes from L2) and written once, against five
// passes over line buffers for cuFFT's path (passes/fft_conv1d.cu), which stays for the lines no segment fits.
//
// The transform is Stockham's autosort form (natural order in and out, no bit reversal), in place in shared
// memory with a barrier between a pass's loads and its stores: passes of radix 8, then 4 (ceil(log2 M / 3)
// passes). A pass of radix R after sub-transforms of length Ns: butterfly j (of M / R) takes elements
// j + q M / R (q < R), twiddles them by exp(S 2 pi i q (j mod Ns) / (Ns R)), runs an R-point DFT and stores
// output q at (j / Ns) Ns R + (j mod Ns) + q Ns. The forward transform (S = -1) reads the first pass's inputs
// straight from the image; the last inverse pass (S = +1) stores straight to the image. Four channels travel
// as two complex numbers per position (r + i g, b + i a; the taps are real, so channels never mix), two
// channels as one, one-channel lines in pairs (line 2u + i line 2u+1).
//
// Unpadded lines (FftSegPlan::unpadded; clamp and zero): one segment holds the line itself at 0 .. n - 1 and zeros
// after it (the kernel runs with shift 0 and the zero border). With M >= n + r no output's window wraps onto the
// line (an output x reads x - r .. x + r, and the positions past the line up to M - 1 are zeros), so the
// transform gives the correlation with the line alone, which is the zero border's result. Clamp's extension is
// two constants; a small kernel after the transform adds their share in closed form (core/fft.hpp
// fft_clamp_tails): x[0] times the taps' weight left of the line and x[n - 1] times the weight right of it.
// A line needs M >= n + r this way against n + 2r padded: where that costs less (1024-wide lines at radius 600:
// one M of 2048 instead of two) the plan takes it.
#pragma once
#include <cstddef>

#include "core/border.hpp"

namespace gpublur::cuda {

constexpr int kSegMinLog2 = 8, kSegMaxLog2 = 13;  // M from 256 to 8192

GPUBLUR_HD constexpr int seg_passes(int log2m) { return (log2m + 2) / 3; }
// Radix of pass p: 8 for the first passes, 4 for the last 3 P - log2 M.
GPUBLUR_HD constexpr int seg_radix(int log2m, int p) {
  return p < seg_passes(log2m) - (3 * seg_passes(log2m) - log2m) ? 8 : 4;
}
// Length of the sub-transforms before pass p (the product of the earlier radices).
GPUBLUR_HD constexpr int seg_ns(int log2m, int p) {
  return p == 0 ? 1 : seg_ns(log2m, p - 1) * seg_radix(log2m, p - 1);
}
// Shared-memory slot of element i of a line: one spare slot per 8 elements, so that a pass's strided stores
// (i = 8 j + q for Ns = 1) fall into different banks.
GPUBLUR_HD constexpr int seg_slot(int i) { return i + (i >> 3); }
GPUBLUR_HD constexpr int seg_line_slots(int m) { return m + m / 8; }

// Butterfly u (< 8 / R) of thread t (< NB M / 8) in a pass of radix R over NB lines of M: line and index j (< M / R).
// Lines fastest where the pass touches the image (a warp then covers 32-byte pieces of neighbouring columns),
// positions fastest in shared memory.
GPUBLUR_HD void seg_butterfly(int m, int nb, int radix, bool lines_fast, int t, int u, int& line, int& j) {
  const int b = t + u * (nb * m / 8), per_line = m / radix;
  if (lines_fast) line = b % nb, j = b / nb;
  else line = b / per_line, j = b % per_line;
}

struct FftSegPlan {
  int log2m = 0, m = 0;  // transform length M
  int len = 0;           // outputs per segment, L = M - 2r (unpadded: n)
  int nseg = 0;          // segments per line
  int nb = 1;            // lines per block (columns: 32 bytes of a row at once)
  int radius = 0;
  bool unpadded = false;  // one segment, the line from position 0 (zeros past it), clamp's constants added after
  int shift() const { return unpadded ? 0 : radius; }  // stored element i is line position seg L - shift + i
  int threads() const { return nb * m / 8; }  // 8 elements per thread and pass
  size_t smem(size_t elem_bytes) const { return size_t(nb) * size_t(seg_line_slots(m)) * elem_bytes; }
};

// The cheapest segment length for a line of n pixels and a kernel of radius r: segments x M x (2 passes + 3) per
// line (shared-memory round trips, plus device-memory loads and stores), within 1024 threads and `smem_limit`
// bytes per block. False where none fits or the segments would transform more than 4x the extended line (very
// long kernels): cuFFT's path runs those. For clamp and zero an unpadded line (one segment of M >= n + r) where it
// costs less than every padded plan.
inline bool plan_fft_segments(int n, int radius, int nb, size_t elem_bytes, size_t smem_limit, FftSegPlan& out,
                              Border border = Border::Mirror) {
  if (n < 1 || radius < 0) return false;
  double best = 0;
  bool found = false;
  const bool may_unpad = border == Border::Clamp || border == Border::Zero;
  for (int lg = kSegMinLog2; lg <= kSegMaxLog2; ++lg)
    for (int unpadded = 0; unpadded <= (may_unpad ? 1 : 0); ++unpadded) {
      FftSegPlan p;
      p.log2m = lg, p.m = 1 << lg, p.nb = nb, p.radius = radius, p.unpadded = unpadded != 0;
      if (p.threads() > 1024 || p.smem(elem_bytes) > smem_limit) continue;
      if (p.unpadded) {
        if (p.m < n + radius) continue;
        p.len = n, p.nseg = 1;
      } else {
        p.len = p.m - 2 * radius;
        if (p.len < 1) continue;
        p.nseg = (n + p.len - 1) / p.len;
        if (double(p.nseg) * p.m > 4.0 * double(n + 2 * radius) + 256.0) continue;
      }
      const double cost = double(p.nseg) * p.m * (2 * seg_passes(lg) + 3);
      if (!found || cost < best) best = cost, out = p, found = true;
    }
  return found;
}

}  // namespace gpublur::cuda
