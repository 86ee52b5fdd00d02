// Work-group shapes for the shared-memory separable pass (shaders/gauss_sep.comp), derived from the
// device's limits so they hold on every driver (llvmpipe: 32 KiB shared memory; NVIDIA: 48 KiB).
#pragma once
#include <string>

namespace gpublur {

struct SepTile {
  int local_x = 0, local_y = 0;  // work-group size
  int per = 0;                   // outputs per thread along the pass axis
  int shared_vec4 = 0;           // shared array size in vec4s (16 bytes each)
  int along_threads() const;     // threads along the pass axis
  int across_threads() const;
  int tile() const { return along_threads() * per; }          // outputs per line per group
  int span() const;              // shared texels per line (odd: lines start on different banks)
  int offsets_per_round() const { return span() - tile() + 1; }  // kernel offsets per shared load
  int axis = 0;                  // 0 horizontal, 1 vertical
  std::string defines() const;   // #defines for gauss_sep.comp
};

// max_shared_bytes: GL_MAX_COMPUTE_SHARED_MEMORY_SIZE; max_invocations: GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS.
SepTile sep_tile(int axis, int max_shared_bytes, int max_invocations);

}  // namespace gpublur
