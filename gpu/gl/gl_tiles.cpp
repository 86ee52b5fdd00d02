#include "gpu/gl/gl_tiles.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpublur {

int SepTile::along_threads() const { return axis == 0 ? local_x : local_y; }
int SepTile::across_threads() const { return axis == 0 ? local_y : local_x; }

int SepTile::span() const {
  const int s = shared_vec4 / across_threads();
  return s % 2 ? s : s - 1;
}

std::string SepTile::defines() const {
  return fmt::format("#define AXIS {}\n#define LOCAL_X {}\n#define LOCAL_Y {}\n#define PER {}\n#define SPAN {}\n",
                     axis, local_x, local_y, per, span());
}

SepTile sep_tile(int axis, int max_shared_bytes, int max_invocations) {
  SepTile t;
  t.axis = axis;
  // 256 threads where allowed (the GL minimum is 1024); fewer only on a very small device.
  const int threads = std::min(256, std::max(64, max_invocations));
  // Horizontal: 4 rows of 64 threads, 4 outputs each -> 256-pixel row tiles, loads coalesced along x.
  // Vertical: 16 columns (256 contiguous bytes per row read) of 16 threads, 4 outputs each -> 64-row tiles.
  if (axis == 0) {
    t.local_x = 64, t.local_y = threads / 64, t.per = 4;
  } else {
    t.local_x = 16, t.local_y = threads / 16, t.per = 4;
  }
  // At most 32 KiB: horizontally 256 offsets per round (one round up to radius 127), vertically 64; leaves
  // room for several groups per SM. Never more than the device allows.
  const int bytes = std::min(max_shared_bytes, 32768);
  t.shared_vec4 = bytes / 16 / t.across_threads() * t.across_threads();
  // The shared line must hold at least one tile plus one offset; shrink the outputs per thread if not.
  while (t.per > 1 && t.span() < t.tile() + 1) --t.per;
  return t;
}

}  // namespace gpublur
