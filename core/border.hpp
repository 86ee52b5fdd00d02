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

}  // namespace gpublur
