// The GL FftConv1d's overlap-save segments (shaders/fft_segments.comp): the plan and the Stockham schedule the
// shader runs, on the host for the pass's setup and for tests/gl's float64 emulation. The CUDA backend's design
// (gpu/cuda/passes/fft_segments.hpp) with GL's limits: elements are vec4s (two complex numbers, every channel
// count: GL textures are RGBA), M up to 2048 (16 (M + M/8) bytes: 36 KiB, within NVIDIA's 48 KiB of shared
// memory; llvmpipe's 32 KiB stops at M = 1024).
//
// A line of n pixels is cut into segments of L = M - 2r outputs; segment s holds the border-extended positions
// x = s L - r + i, i < M; one work group transforms them in shared memory (Stockham, natural order in and out),
// multiplies by core's spectrum for length M and transforms back; positions r .. r + L - 1 are the outputs (their
// windows never wrap). A pass of radix R after sub-transforms of length Ns: butterfly j (< M / R) takes elements
// j + q M / R, twiddles them by exp(S 2 pi i q (j mod Ns) / (Ns R)) (table entry q (j mod Ns) M / (Ns R) of
// exp(-2 pi i m / M), conjugated for S = +1), runs an R-point DFT and stores output q at (j - j mod Ns) R +
// (j mod Ns) + q Ns. E elements per invocation and pass (E = 8: radix-8 passes then radix 4; E = 4: radix 4 then
// radix 2), so passes = ceil(log2 M / log2 E).
//
// Unpadded lines (SegPlan::unpadded; core/fft.hpp fft_unpadded_fits), as the CUDA segments: one segment holds the
// line from position 0 with no extension stored; clamp and zero load zeros past it (M >= n + r) and clamp's
// constants are added after by shaders/fft_clamp_tails.comp; mirror loads positions n .. 2n - 1 mirrored (M = 2n),
// wrap takes M = n. Taken where they cost less than every padded plan.
#pragma once
#include <cstddef>

#include "core/border.hpp"
#include "core/fft.hpp"

namespace gpublur::glfft {

constexpr int kSegMinLog2 = 8, kSegMaxLog2 = 11;  // M from 256 to 2048

constexpr int log2_of(int e) { return e == 8 ? 3 : e == 4 ? 2 : 1; }
constexpr int seg_passes(int log2m, int elems) { return (log2m + log2_of(elems) - 1) / log2_of(elems); }
// Passes of radix E (the first ones); the rest have radix E / 2.
constexpr int seg_big_passes(int log2m, int elems) {
  return seg_passes(log2m, elems) - (log2_of(elems) * seg_passes(log2m, elems) - log2m);
}
constexpr int seg_radix(int log2m, int elems, int p) { return p < seg_big_passes(log2m, elems) ? elems : elems / 2; }
// Length of the sub-transforms before pass p (the product of the earlier radices).
constexpr int seg_ns(int log2m, int elems, int p) {
  return p == 0 ? 1 : seg_ns(log2m, elems, p - 1) * seg_radix(log2m, elems, p - 1);
}
// Shared-memory slot of element i: one spare slot per 8 elements, so that the first pass's stores (i = 8 j + q,
// 8 vec4s apart) fall into different banks.
constexpr int seg_slot(int i) { return i + (i >> 3); }
constexpr int seg_line_slots(int m) { return m + m / 8; }

struct SegPlan {
  int log2m = 0, m = 0;  // transform length M
  int len = 0;           // outputs per segment, L = M - 2r (unpadded: n)
  int nseg = 0;          // segments per line
  int nb = 1;            // lines per work group (columns: 2, 32 bytes of a row, where it fits)
  int radius = 0;
  bool unpadded = false;  // one segment, the line from position 0, no extension stored (fft_unpadded_fits)
  int shift() const { return unpadded ? 0 : radius; }  // stored element i is line position s L - shift + i
  int elems = 8;  // elements per invocation and pass (the largest radix)
  int threads() const { return nb * m / elems; }
  long long smem() const { return 16LL * nb * seg_line_slots(m); }
};

// A segment's measured cost beyond the round-trip count below, by M (256, 512, 1024, 2048): on an H100 at radius
// 150 (gauss-sep sigma 50, RGBA) a segment of 1024 cost 3.4x one of 512 where the count says 2.4x, and one of
// 2048 7.9x where it says 4.9x (larger groups of more shared memory: fewer per SM, longer chains between
// barriers). With the factors, 512-long segments take radius 150 at 1024^2 (0.113 against 0.134 ms for 1024 x 2),
// 2048^2 (0.334 / 0.344) and 4096^2 (1.204 / 1.230); docs/performance.md, "GL fft segments".
constexpr double kSegCostScale[kSegMaxLog2 - kSegMinLog2 + 1] = {1.0, 1.0, 1.39, 1.6};

// The cheapest segments for a line of n pixels and a kernel of radius r: segments x M x (2 passes + 3) per line
// (shared-memory round trips, plus the image's loads and stores) x kSegCostScale, over M and the lines per group
// in `nbs` (ties: the earlier), within the device's invocations and shared memory. False where none fits or the
// segments would transform more than 4x the extended line (very long kernels): the line forms run those. An
// unpadded line (core/fft.hpp fft_unpadded_fits) where it costs less than every padded plan.
inline bool plan_segments(int n, int radius, const int* nbs, int n_nbs, int elems, long long smem_limit,
                          int max_invocations, SegPlan& out, Border border) {
  if (n < 1 || radius < 0) return false;
  double best = 0;
  bool found = false;
  for (int k = 0; k < n_nbs; ++k)
    for (int lg = kSegMinLog2; lg <= kSegMaxLog2; ++lg)
      for (int unpadded = 0; unpadded <= 1; ++unpadded) {
        SegPlan p;
        p.log2m = lg, p.m = 1 << lg, p.nb = nbs[k], p.radius = radius, p.elems = elems, p.unpadded = unpadded != 0;
        if (p.threads() > max_invocations || p.smem() > smem_limit) continue;
        if (!fft_segments_of(p.m, n, radius, p.unpadded, border, p.len, p.nseg)) continue;
        const double cost =
            double(p.nseg) * p.m * (2 * seg_passes(lg, elems) + 3) * kSegCostScale[lg - kSegMinLog2];
        if (!found || cost < best) best = cost, out = p, found = true;
      }
  return found;
}

}  // namespace gpublur::glfft
