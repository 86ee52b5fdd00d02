// FFT convolution's numbers, decided once in core for every backend (Op::FftConv1d): how long a line's
// transform is and how far the line is extended with the border mode, and the kernel's spectrum.
//
// A line of n pixels is extended by `ext` pixels on each side with the border mode (positions -ext..n+ext-1
// stored at 0..n+2ext-1), zero beyond, and circularly correlated with the taps through a transform of length
// N >= n + 2 ext: with ext = r every output x in [0, n) reads stored positions x..x+2r, none wrapped, so the
// result is Conv1d's on the border-extended line (core/reference/passes/conv1d.cpp). Wrap runs natively
// (ext = 0, N = n) where n itself is a transform size the backend runs: circular correlation with the taps
// folded mod n is exactly the wrap border, also for kernels longer than the line.
#pragma once
#include <climits>
#include <complex>
#include <vector>

#include "core/border.hpp"

namespace gpublur {

// The transform lengths a backend runs: powers of two (the GL backend's own radix-2 FFT), or 7-smooth
// numbers 2^a 3^b 5^c 7^d (cuFFT's fast sizes).
enum class FftSizes { PowerOfTwo, Smooth7 };

bool fft_good_size(long long n, FftSizes sizes);
int fft_size_at_least(int n, FftSizes sizes);  // the smallest good size >= n (n >= 1)

struct FftLine {
  int n_fft = 0;  // transform length N
  int ext = 0;    // border extension on each side (0: wrap natively)
};
FftLine fft_line(int n, int radius, Border b, FftSizes sizes);

// The spectrum G of the correlation with `taps` (offsets -r..r) for transform length N, scaled by 1/N:
// G[j] = (1/N) sum_k taps[k + r] exp(+2 pi i j k / N), so that the unnormalised inverse DFT of DFT(line) * G
// (forward exp(-2 pi i ...), inverse exp(+2 pi i ...): cuFFT's and the GL shader's conventions) is
// out(x) = sum_k taps[k + r] line((x + k) mod N). Computed in float64 from tables of exact angles, in about
// N log(2r + 1) steps (a transform of the kernel's length for each residue; the direct sum took N (2r + 1): hours on
// a line of 2^28 with radius 3072).
std::vector<std::complex<double>> fft_kernel_spectrum(const std::vector<float>& taps, int n_fft);

// Whether a transform of length m holds a line of n pixels unpadded: the line alone from position 0, no border
// extension stored (a backend's segments take this where it costs less; docs/performance.md, fft, "Unpadded
// lines"). Clamp and zero: m >= n + radius, zeros past the line (no output's window wraps onto it), clamp's
// constants added after the transform (fft_clamp_tails). Mirror: m == 2n, positions n .. 2n - 1 loaded mirrored:
// the line and its reverse are the mirror extension's period. Wrap: m == n, the line is its period. Mirror and
// wrap are then exact for any radius (the spectrum folds the taps mod m).
inline bool fft_unpadded_fits(int m, int n, int radius, Border b) {
  if (b == Border::Mirror) return m == 2 * n;
  if (b == Border::Wrap) return m == n;
  return m >= n + radius;
}
// The border an unpadded line loads its positions 0 .. m - 1 with: zeros past the line for clamp and zero.
inline Border fft_unpadded_load(Border b) { return b == Border::Clamp ? Border::Zero : b; }
// The positions of a line of n that clamp's constants reach (fft_clamp_tails): x < min(r, n) and the rest of
// x > n - 1 - r; the backends' constants passes run one invocation per such position and line.
inline int fft_clamp_tail_positions(int n, int radius) {
  const int a = radius < n ? radius : n, b = n - radius > a ? n - radius : a;
  return a + (n - b);
}

// A line of n pixels in segments of length m for a kernel of radius r, as the backends' segment plans cut it:
// unpadded (fft_unpadded_fits; one segment of n outputs) or padded (overlap-save, m - 2r outputs a segment). len:
// outputs a segment, nseg: segments a line. False where m holds no output, or where the padded segments would
// transform more than 4x the extended line (very long kernels: the backends' other forms run those).
inline bool fft_segments_of(int m, int n, int radius, bool unpadded, Border b, int& len, int& nseg) {
  if (unpadded) {
    if (!fft_unpadded_fits(m, n, radius, b)) return false;
    len = n, nseg = 1;
    return true;
  }
  len = m - 2 * radius;
  if (len < 1) return false;
  nseg = (n + len - 1) / len;
  return double(nseg) * m <= 4.0 * double(n + 2 * radius) + 256.0;
}

// Clamp's constants on an unpadded line (a backend's segments may transform the line alone, zero past it, where
// that takes fewer transforms than the border-extended line: docs/performance.md, fft, "Unpadded lines"): the
// correlation with the clamp-extended line is that with the zero-extended one plus x[0] tails[x] (x < r, the taps'
// weight left of the line) plus x[n - 1] tails[r + n - 1 - x] (n - 1 - x < r, the weight right of it). With
// output x = sum_k taps[k + r] line(x + k): tails[x] = sum of taps[0 .. r - 1 - x], tails[r + d] = sum of
// taps[r + 1 + d .. 2r]; 2r values, summed in float64.
std::vector<double> fft_clamp_tails(const std::vector<float>& taps);

// gauss-sep's hand-over (issue 9 point 4): from this radius on, gauss-sep runs its passes as FftConv1d (the same
// function within float rounding) where that is measured faster: radius 301 by default, the crossover measured
// on CUDA (GL's is not measured yet); GPUBLUR_SEP_FFT_MIN_RADIUS=R overrides it, for measuring.
int sep_fft_min_radius();

}  // namespace gpublur
