#include "core/plan.hpp"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "core/gauss.hpp"
#include "core/registry.hpp"

namespace gpublur {

const std::string& Plan::param(const std::string& name) const {
  auto it = params.find(name);
  if (it == params.end()) throw std::out_of_range("plan has no parameter '" + name + "'");
  return it->second;
}

namespace {

bool parse_number(const std::string& s, ParamType t, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  if (t == ParamType::Int) {
    const long long x = std::strtoll(s.c_str(), &end, 10);
    v = double(x);
  } else {
    v = std::strtod(s.c_str(), &end);
  }
  return end && *end == '\0' && std::isfinite(v);
}

std::string number_text(double v, ParamType t) {
  if (t == ParamType::Int) return std::to_string(static_cast<long long>(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

Status resolve_plan(const std::string& method, const std::map<std::string, std::string>& given, Plan& out) {
  const MethodSpec* m = find_method(method);
  if (!m) return Status::fail("unknown method '" + method + "' (see `gpublur methods`)");
  for (const auto& [name, value] : given)
    if (!find_param(*m, name)) return Status::fail("method '" + method + "' has no parameter '" + name + "'");

  out = Plan{};
  out.method = method;
  std::map<std::string, double> nums;
  // Validate in declaration order so derived defaults can use earlier values (radius from sigma).
  for (const ParamSpec& p : m->params) {
    auto it = given.find(p.name);
    const bool set = it != given.end();
    if (p.type == ParamType::Enum) {
      const std::string v = set ? it->second : p.default_value;
      bool known = false;
      for (const auto& c : p.choices) known = known || c == v;
      if (!known) {
        std::string all;
        for (const auto& c : p.choices) all += (all.empty() ? "" : ", ") + c;
        return Status::fail("--" + p.name + " '" + v + "' is not one of: " + all);
      }
      out.params[p.name] = v;
      continue;
    }
    double v = 0;
    if (set) {
      if (!parse_number(it->second, p.type, v))
        return Status::fail("--" + p.name + " '" + it->second + "' is not " +
                            (p.type == ParamType::Int ? "an integer" : "a number"));
    } else if (p.derived) {
      if (p.name == "radius") v = default_radius(nums.at("sigma"));
    } else {
      parse_number(p.default_value, p.type, v);
    }
    if (v < p.min || v > p.max)
      return Status::fail("--" + p.name + " " + number_text(v, p.type) + " is outside [" +
                          number_text(p.min, p.type) + ", " + number_text(p.max, p.type) + "]");
    nums[p.name] = v;
    out.params[p.name] = number_text(v, p.type);
  }

  parse_border(out.params.at("border"), out.border);
  out.sigma = nums.at("sigma");
  out.radius = int(nums.at("radius"));
  if (method == "copy") {
    out.radius = 0;
    out.effective_sigma = 0;
    return Status::success();
  }
  const std::vector<double> w = gaussian_weights(out.sigma, out.radius);
  out.weights.assign(w.begin(), w.end());
  out.effective_sigma = kernel_sigma(w);
  if (method == "gauss-linear") {
    const LinearTaps t = linear_taps(w);
    out.tap_offsets.assign(t.offsets.begin(), t.offsets.end());
    out.tap_weights.assign(t.weights.begin(), t.weights.end());
  }
  return Status::success();
}

}  // namespace gpublur
