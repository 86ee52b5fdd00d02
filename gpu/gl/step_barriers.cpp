#include "gpu/gl/step_barriers.hpp"

#include <set>

#include "gpu/gl/gl_pass_context.hpp"

namespace gpublur {

// kStepBarrier (texture fetches see earlier stores) is all that most steps need. GL orders image stores after
// earlier reads and writes of the same texture only behind GL_SHADER_IMAGE_ACCESS_BARRIER_BIT, and storage-
// buffer accesses behind GL_SHADER_STORAGE_BARRIER_BIT; on an H100 either bit costs about 2 us a barrier where
// the fetch bit alone does not (kawase dual at sigma 200, 12 steps: 0.458 ms with both bits on every barrier,
// 0.459 with either one, 0.435 with neither; docs/performance.md, "GL dual"). The pool hands a texture whose
// images are done to later images of the program, and steps may share scratch textures, so a step that writes
// a texture read or written since the last image barrier gets the image bit; a step with storage buffers
// (which may be an earlier step's: float64 images, named scratch buffers) gets the storage bit.
std::vector<GLbitfield> step_barriers(const std::vector<StepAccess>& steps) {
  std::vector<GLbitfield> out(steps.size(), kStepBarrier);
  std::set<GLuint> touched;
  for (size_t j = 0; j < steps.size(); ++j) {
    bool hazard = false;
    for (GLuint t : steps[j].writes) hazard = hazard || touched.count(t) > 0;
    if (hazard) {
      out[j] |= GL_SHADER_IMAGE_ACCESS_BARRIER_BIT;
      touched.clear();
    }
    if (j > 0 && steps[j].storage) out[j] |= GL_SHADER_STORAGE_BARRIER_BIT;
    touched.insert(steps[j].reads.begin(), steps[j].reads.end());
    touched.insert(steps[j].writes.begin(), steps[j].writes.end());
  }
  return out;
}

}  // namespace gpublur
