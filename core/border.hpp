// Border modes, shared by the CPU reference and every backend. Index remapping is written once here and
// compiled for host and device; the definitions match the hardware samplers' address modes:
//   clamp  -> CLAMP_TO_EDGE        (aaa|abcd|ddd)
//   mirror -> MIRRORED_REPEAT      (cba|abcd|dcb, edge repeated: half-sample symmetric)
//   wrap   -> REPEAT               (bcd|abcd|abc)
//   zero   -> CLAMP_TO_BORDER, 0   (000|abcd|000)
#pragma once
#include <string>

#if defined(__CUDACC__)
#define GPUBLUR_HD __host__ __device__ __forceinline__
#else
#define GPUBLUR_HD inline
#endif

namespace gpublur {

enum class Border : int { Clamp = 0, Mirror = 1, Wrap = 2, Zero = 3 };

const char* border_name(Border b);
bool parse_border(const std::string& s, Border& out);

// Maps a possibly out-of-range index to [0, n), or -1 where the border mode reads zero.
// Works for any distance outside the image (kernels wider than the image).
GPUBLUR_HD int remap_index(int i, int n, Border b) {
  if (i >= 0 && i < n) return i;
  switch (b) {
    case Border::Clamp: return i < 0 ? 0 : n - 1;
    case Border::Wrap: {
      int m = i % n;
      return m < 0 ? m + n : m;
    }
    case Border::Mirror: {
      const int period = 2 * n;
      int m = i % period;
      if (m < 0) m += period;
      return m < n ? m : period - 1 - m;
    }
    default: return -1;  // Zero
  }
}

// Where a symmetric radius-1 stencil iterated with border reads (diffusion) can instead run on an extended
// signal that it keeps extended: clamp and mirror read the same pixel one step outside, and the even extension
// (mirror's) stays even; wrap's periodic extension stays periodic; zero is the odd extension about -1 and n,
// which stays odd (so 0 at -1 and n). Returns the index in [0, n) and sets sign (1, -1, or 0 on the zero lines).
GPUBLUR_HD int stencil_extension(int i, int n, Border b, float& sign) {
  sign = 1.f;
  if (i >= 0 && i < n) return i;
  if (b != Border::Zero) return remap_index(i, n, b == Border::Wrap ? Border::Wrap : Border::Mirror);
  const int period = 2 * (n + 1);
  int m = (i + 1) % period;
  if (m < 0) m += period;
  if (m == 0 || m == n + 1) {
    sign = 0.f;
    return 0;
  }
  if (m <= n) return m - 1;
  sign = -1.f;
  return period - m - 1;
}

}  // namespace gpublur
