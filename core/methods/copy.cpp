// copy: no blur. One read and one write of the image: the bandwidth floor every bench divides by.
#include "core/methods/recipe.hpp"

namespace gpublur {

Recipe copy_recipe() {
  Recipe r;
  r.spec.name = "copy";
  r.spec.summary = "no blur: upload, copy on the device, download; the bandwidth floor";
  r.spec.sigma_mapping = "sigma is ignored";
  r.spec.bandwidth_floor = true;
  r.spec.params = {sigma_param(), border_param()};
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.build = [](const Params&, Plan& plan) {
    plan.program.passes.push_back(Pass{});  // Op::Copy, input -> output
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
