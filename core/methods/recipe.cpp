// What recipes share: the parameter accessors, the common parameters, the catalogue and program builders.
#include "core/methods/recipe.hpp"

#include <stdexcept>

#include "core/gauss.hpp"

namespace gpublur {

double Params::num(const std::string& name) const {
  auto it = nums.find(name);
  if (it == nums.end()) throw std::out_of_range("parameter '" + name + "' is not resolved");
  return it->second;
}

const std::string& Params::text(const std::string& name) const {
  auto it = texts.find(name);
  if (it == texts.end()) throw std::out_of_range("parameter '" + name + "' is not resolved");
  return it->second;
}

std::vector<int> Params::ints(const std::string& name) const {
  std::vector<int> out;
  const std::string& s = text(name);
  for (size_t i = 0; i < s.size();) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    out.push_back(std::stoi(s.substr(i, j - i)));
    i = j + 1;
  }
  return out;
}

ParamSpec sigma_param() {
  return {"sigma", ParamType::Float, "2", false, 0.1, 512, {},
          "standard deviation of the Gaussian the method stands for, in pixels"};
}

ParamSpec radius_param() {
  return {"radius", ParamType::Int, "", true, 0, 4096, {}, "kernel half-width in pixels (default ceil(3*sigma))"};
}

ParamSpec border_param() {
  return {"border", ParamType::Enum, "clamp", false, 0, 0, {"clamp", "mirror", "wrap", "zero"},
          "what pixels outside the image read: clamp (edge), mirror (edge repeated), wrap, zero"};
}

const std::vector<Recipe>& recipes() {
  static const std::vector<Recipe> all = [] {
    std::vector<Recipe> r = {copy_recipe(), gauss_2d_recipe(), gauss_sep_recipe(),
                                          gauss_linear_recipe(), box_recipe(), integral_recipe(),
                                          iir_recipe(), fft_recipe(), kawase_recipe(), diffusion_recipe(),
                                          bilateral_recipe(), spread_recipe(), kernel_recipe(),
                                          reshuffle_recipe(), pyramid_recipe()};
    for (Recipe& x : r)  // the common parameters every recipe takes
      if (!x.spec.bandwidth_floor) x.spec.params.push_back(downsample_param(x));
    return r;
  }();
  return all;
}

const Recipe* find_recipe(const std::string& name) {
  for (const Recipe& r : recipes())
    if (r.spec.name == name) return &r;
  return nullptr;
}

int gaussian_radius_param(const Params& p, Plan& plan) {
  const int r = p.given("radius") ? p.integer("radius") : default_radius(plan.sigma);
  plan.params["radius"] = std::to_string(r);
  return r;
}

Pass gaussian_pass(const Params& p, Plan& plan, Op op) {
  plan.radius = gaussian_radius_param(p, plan);
  const std::vector<double> w = gaussian_weights(plan.sigma, plan.radius);
  plan.effective_sigma = kernel_sigma(w);
  Pass pass;
  pass.op = op;
  pass.border = plan.border;
  pass.taps.assign(w.begin(), w.end());
  return pass;
}

void warn_direct_2d_cost(Plan& plan, const std::string& method, int radius, const std::string& faster) {
  const long long side = 2LL * radius + 1, taps = side * side;
  if (taps <= kDirect2dWarnTaps) return;
  set_plan_warning(plan, PlanWarning::Cost,
                   method + " at radius " + std::to_string(radius) + " reads " + std::to_string(side) + "^2 = " +
                       std::to_string(taps) + " pixels for each output (the cost grows with the radius squared); " +
                       faster);
}

void warn_direct_2d_window(Plan& plan, const std::string& method, int width, int height, const std::string& faster) {
  const long long taps = (long long)width * height;
  if (taps <= kDirect2dWarnTaps) return;
  set_plan_warning(plan, PlanWarning::Cost,
                   method + " reads " + std::to_string(width) + " x " + std::to_string(height) + " = " +
                       std::to_string(taps) + " pixels for each output (the cost grows with the kernel's area); " +
                       faster);
}

void separable_passes(Plan& plan, Pass pass) {
  const int mid = plan.program.add_image({});
  pass.border = plan.border;
  pass.axis = 0, pass.src = 0, pass.dst = mid;
  plan.program.passes.push_back(pass);
  pass.axis = 1, pass.src = mid, pass.dst = 1;
  plan.program.passes.push_back(pass);
}

}  // namespace gpublur
