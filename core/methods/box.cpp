// box: n passes of a box filter (thesis 3.8; the Intel article's moving average; Kovesi's widths for a sigma).
// The function is the n-fold convolution of the boxes applied to the border-extended image (each axis's
// cascade runs on the extended line, not pass by pass on the cropped image), so that n passes equal the
// convolution with box_cascade_kernel for every border mode. The four impls compute that one function:
//   separable       Box1d along x then y: running sums, cost independent of the width
//   moving-average  the same as one sequential moving average per line (the Intel article's compute shader)
//   sat             per pass a float64 summed-area table of the (extended) image and 4 lookups per pixel
//   2d              per pass the direct w x w box (w^2 reads per pixel)
// sat and 2d carry the cascade in padded intermediates: pass i writes the area the later passes still read.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/box.hpp"
#include "core/methods/recipe.hpp"

namespace gpublur {
namespace {

std::string widths_text(const std::vector<int>& widths) {
  std::string s;
  for (int w : widths) s += (s.empty() ? "" : ",") + std::to_string(w);
  return s;
}

// One 2D box pass after another, through padded intermediates; with tables (sat) each pass is a table
// of its source then a lookup.
void cascade_2d(Plan& plan, const std::vector<int>& widths, bool tables) {
  Program& prog = plan.program;
  int reach = 0;
  for (int w : widths) reach += w / 2;
  int src = 0, pad = reach;  // pad: what the current source must cover beyond the image
  for (size_t i = 0; i < widths.size(); ++i) {
    const int h = widths[i] / 2;
    const bool last = i + 1 == widths.size();
    const int dst = last ? 1 : prog.add_image({pad - h, 1, false});
    Pass pass;
    pass.border = plan.border;
    pass.widths = {widths[i]};
    if (tables) {
      const int src_pad = prog.images[size_t(src)].pad;
      const int table = prog.add_image({pad, 1, true});
      Pass sat;
      sat.op = Op::Sat;
      sat.border = plan.border;
      sat.src = src, sat.dst = table, sat.extend = pad - src_pad;
      prog.passes.push_back(sat);
      pass.op = Op::SatBox;
      pass.src = table;
    } else {
      pass.op = Op::Box2d;
      pass.src = src;
    }
    pass.dst = dst;
    prog.passes.push_back(pass);
    src = dst;
    pad -= h;
  }
}

}  // namespace

Recipe box_recipe() {
  Recipe r;
  r.spec.name = "box";
  r.spec.summary = "n passes of a box filter (separable running sums, moving average, summed-area table or 2D)";
  r.spec.sigma_mapping =
      "Kovesi: passes of two odd widths w and w+2 (w the odd floor of sqrt(12 sigma^2/n + 1)), as many of each "
      "as bring n-pass variance sum (w_i^2-1)/12 closest to sigma^2; --width W: every pass W";
  r.spec.params = {sigma_param(), border_param()};
  r.spec.params.push_back({"passes", ParamType::Int, "3", false, 1, 8, {}, "number of box passes (iterations)"});
  r.spec.params.push_back({"width", ParamType::Int, "", true, 1, 4097, {},
                           "odd box width for every pass (default: Kovesi's widths from sigma)"});
  r.spec.params.push_back({"impl", ParamType::Enum, "separable", false, 0, 0,
                           {"separable", "moving-average", "sat", "2d"},
                           "box: separable running sums, one moving average per line (Intel), float64 "
                           "summed-area tables, or the direct 2D box; all compute the same function"});
  r.spec.backends = {"cpu", "cuda", "gl"};
  r.spec.nonfinite_footprint = true;  // positive on the whole square of its reach
  r.build = [](const Params& p, Plan& plan) {
    const int n = p.integer("passes");
    std::vector<int> widths;
    if (p.given("width")) {
      const int w = p.integer("width");
      if (w % 2 == 0)
        return Status::fail("--width " + std::to_string(w) + " is even: a box of even width has no centre pixel");
      widths.assign(size_t(n), w);
    } else {
      widths = kovesi_widths(plan.sigma, n);
    }
    plan.params["width"] = widths_text(widths);  // the report states every pass's width
    for (int w : widths) plan.radius += w / 2;
    plan.effective_sigma = std::sqrt(box_variance(widths));
    const std::string& impl = p.text("impl");
    if (impl == "separable" || impl == "moving-average") {
      Pass pass;
      pass.op = impl == "separable" ? Op::Box1d : Op::MovingAverage;
      pass.widths = widths;
      separable_passes(plan, pass);
    } else {
      cascade_2d(plan, widths, impl == "sat");
      if (impl == "2d")  // each pass reads its w^2 window
        warn_direct_2d_cost(plan, "box --impl 2d (each of its passes)",
                            *std::max_element(widths.begin(), widths.end()) / 2,
                            "--impl separable computes the same function by running sums, in time independent of "
                            "the width");
    }
    return Status::success();
  };
  return r;
}

}  // namespace gpublur
