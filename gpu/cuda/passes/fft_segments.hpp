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
// Unpadded lines (FftSegPlan::unpadded; core/fft.hpp fft_unpadded_fits): one segment holds the line from position
// 0 with no border extension stored. Clamp and zero: the line then zeros (the kernel runs with shift 0 and the zero
// border); with M >= n + r no output's window wraps onto the line, so the transform gives the zero border's result,
// and for clamp a small kernel adds the extension's two constants in closed form (core's fft_clamp_tails). Mirror:
// M = 2n, positions n .. 2n - 1 loaded mirrored (the mirror extension's period). Wrap: M = n. The plan takes them
// where they cost less than every padded plan: 1024-wide lines at radius 600 take one M of 2048 (clamp, zero,
// mirror) or of 1024 (wrap) instead of two of 2048.
#pragma once
#include <cstddef>

#include "core/border.hpp"
#include "core/fft.hpp"

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
  bool unpadded = false;  // one segment, the line from position 0, no extension stored (fft_unpadded_fits)
  int shift() const { return unpadded ? 0 : radius; }  // stored element i is line position seg L - shift + i
  int threads() const { return nb * m / 8; }  // 8 elements per thread and pass
  size_t smem(size_t elem_bytes) const { return size_t(nb) * size_t(seg_line_slots(m)) * elem_bytes; }
};

// What a segment of M costs beyond the count below, by M = 256 .. 8192, for weighing an unpadded line against the
// padded plans (H200, call 204: wrap's M = n lines against the padded plans of the same images, per unit of the
// count and against padded segments of 512): padded 2048 1.17x and 4096 1.23x; unpadded 1024 1.2-1.25x, 2048
// 1.33-1.4x, 4096 1.45-1.6x (one segment a line: half the blocks). 8192 not measured, set beyond. The padded plans
// are still chosen among themselves by the count alone, as measured on the H100 (docs/performance.md, "fft
// segments").
constexpr double kSegPaddedScale[kSegMaxLog2 - kSegMinLog2 + 1] = {1.0, 1.0, 1.0, 1.17, 1.23, 1.3};
constexpr double kSegUnpaddedScale[kSegMaxLog2 - kSegMinLog2 + 1] = {1.25, 1.25, 1.25, 1.4, 1.6, 2.0};

// The cheapest segment length for a line of n pixels and a kernel of radius r: segments x M x (2 passes + 3) per
// line (shared-memory round trips, plus device-memory loads and stores), within 1024 threads and `smem_limit`
// bytes per block. False where none fits or the segments would transform more than 4x the extended line (very
// long kernels): cuFFT's path runs those. An unpadded line (core/fft.hpp fft_unpadded_fits) where it costs less
// than the best padded plan, weighed by kSegUnpaddedScale against kSegPaddedScale.
inline bool plan_fft_segments(int n, int radius, int nb, size_t elem_bytes, size_t smem_limit, FftSegPlan& out,
                              Border border) {
  if (n < 1 || radius < 0) return false;
  double best = 0, best_unpadded = 0;
  bool found = false, found_unpadded = false;
  FftSegPlan unpadded_plan;
  for (int lg = kSegMinLog2; lg <= kSegMaxLog2; ++lg)
    for (int unpadded = 0; unpadded <= 1; ++unpadded) {
      FftSegPlan p;
      p.log2m = lg, p.m = 1 << lg, p.nb = nb, p.radius = radius, p.unpadded = unpadded != 0;
      if (p.threads() > 1024 || p.smem(elem_bytes) > smem_limit) continue;
      if (!fft_segments_of(p.m, n, radius, p.unpadded, border, p.len, p.nseg)) continue;
      const double cost = double(p.nseg) * p.m * (2 * seg_passes(lg) + 3);
      if (p.unpadded) {
        const double weighed = cost * kSegUnpaddedScale[lg - kSegMinLog2];
        if (!found_unpadded || weighed < best_unpadded)
          best_unpadded = weighed, unpadded_plan = p, found_unpadded = true;
      } else if (!found || cost < best) {
        best = cost, out = p, found = true;
      }
    }
  if (found_unpadded && (!found || best_unpadded < best * kSegPaddedScale[out.log2m - kSegMinLog2]))
    out = unpadded_plan, found = true;
  return found;
}

}  // namespace gpublur::cuda
