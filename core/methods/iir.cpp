// iir: the recursive Gaussian (Young-van Vliet 3rd order or Deriche 4th order; core/iir.hpp), one Iir1d pass
// along x then one along y. Cost per pixel independent of sigma. Both filters are set by variance: the
// impulse response's second moment is sigma^2 exactly (YvV by the 1998 pole scaling q, Deriche by its scale
// s), so the predicted effective sigma is sigma. Borders are exact (no margin): the Iir1d primitive starts each
// first-order term from the closed-form state of the infinitely border-extended line.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/iir.hpp"
#include "core/methods/recipe.hpp"

namespace gpublur {

Recipe iir_recipe() {
  Recipe r;
  r.spec.name = "iir";
  r.spec.summary = "recursive Gaussian (Young-van Vliet 3rd order or Deriche 4th order), cost independent of sigma";
  r.spec.sigma_mapping =
      "young-van-vliet: the 1998 L2 poles for sigma 2 scaled as d^(1/q), q such that the filter's variance is "
      "sigma^2; deriche: the 1993 coefficients at scale s, s such that the variance is sigma^2";
  r.spec.params = {sigma_param(), border_param()};
  r.spec.params.push_back({"impl", ParamType::Enum, "young-van-vliet", false, 0, 0, {"young-van-vliet", "deriche"},
                           "recursive filter: Young-van Vliet (3rd order, 1998 poles) or Deriche (4th order)"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.build = [](const Params& p, Plan& plan) {
    const bool yvv = p.text("impl") == "young-van-vliet";
    const std::vector<IirTerm> exact = yvv ? yvv_terms(plan.sigma) : deriche_terms(plan.sigma);
    Pass pass;
    pass.op = Op::Iir1d;
    pass.taps = iir_taps(exact);
    separable_passes(plan, pass);
    const std::vector<IirTerm> used = iir_terms_from_taps(pass.taps);
    plan.effective_sigma = std::sqrt(iir_variance(used));
    // The impulse response is infinite; the report's radius is where it falls below 1e-7 of its peak.
    plan.radius = iir_reach(used, 1e-7);
    // Non-finite inputs: as the direct convolution with a kernel of no end, so each fills its channel (NaN where the
    // channel holds a NaN or both infinities). The recursions made NaN of some outputs and Inf of others, each
    // backend its own way (one +Inf in a 9 x 5 image: NaN but the Inf pixel on cpu, a 3 x 3 of Inf on GL).
    plan.nonfinite_reach = Plan::kWholeImageReach;
    // Backends run the recursion in float64 like the reference; measured GL (llvmpipe) vs CPU: at most 6e-8
    // (one float ulp) over the matrix cases. The default bound stands.
    plan.tolerance = 1e-5;
    std::string poles;
    for (const IirTerm& t : used)
      poles += fmt::format("{}{:.9g}{:+.9g}i", poles.empty() ? "" : ", ", t.p.real(), t.p.imag());
    plan.details["poles"] = poles;
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
