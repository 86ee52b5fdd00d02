#include "core/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/io/io_common.hpp"
#include "core/methods/recipe.hpp"
#include "core/registry.hpp"

namespace gpublur {

const std::string& Plan::param(const std::string& name) const {
  auto it = params.find(name);
  if (it == params.end()) throw std::out_of_range("plan has no parameter '" + name + "'");
  return it->second;
}

void set_plan_warning(Plan& plan, PlanWarning kind, const std::string& text) {
  std::string& w = plan.details["warning"];
  w = w.empty() ? text : w + "; " + text;
  // The kinds rank cost, gain, unused: a later warning of a lower rank keeps the earlier kind (a kernel's gain was
  // turned into "unused" by the --sigma that bench always gives).
  static const char* const kNames[] = {"cost", "unused", "gain"};  // by PlanWarning
  static const int kRank[] = {2, 0, 1};
  std::string& k = plan.details["warning_kind"];
  int old_rank = -1;
  for (int i = 0; i < 3; ++i)
    if (k == kNames[i]) old_rank = kRank[i];
  if (kRank[int(kind)] > old_rank) k = kNames[int(kind)];
}

bool plan_warns_of_cost(const Plan& plan) {
  const auto k = plan.details.find("warning_kind");
  return k != plan.details.end() && k->second == "cost";
}

namespace {

// `text` without the spaces around it, or "" where it holds anything but a plain decimal's characters.
std::string decimal_text(const std::string& text) {
  const std::string s = trimmed(text);
  return s.find_first_not_of("0123456789.eE+-") == std::string::npos ? s : std::string();
}

bool parse_number(const std::string& text, ParamType t, double& v) {
  if (t != ParamType::Int) return parse_decimal(text, v);
  const std::string s = decimal_text(text);
  if (s.empty()) return false;
  char* end = nullptr;
  v = double(std::strtoll(s.c_str(), &end, 10));
  return *end == '\0';
}

bool parse_flag(const std::string& s, bool& v) {
  for (const char* t : {"true", "1", "yes", "on"})
    if (s == t) return v = true, true;
  for (const char* f : {"false", "0", "no", "off"})
    if (s == f) return v = false, true;
  return false;
}

std::string number_text(double v, ParamType t) {
  if (t == ParamType::Int) return std::to_string(static_cast<long long>(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

Status resolve_plan(const std::string& method, const std::map<std::string, std::string>& given, Plan& out) {
  const Recipe* recipe = find_recipe(method);
  if (!recipe) return Status::fail("unknown method '" + method + "' (see `gpublur methods`)");
  const MethodSpec& m = recipe->spec;
  for (const auto& [name, value] : given)
    if (!find_param(m, name)) return Status::fail("method '" + method + "' has no parameter '" + name + "'");

  out = Plan{};
  out.method = method;
  Params params;
  for (const ParamSpec& p : m.params) {
    auto it = given.find(p.name);
    const bool set = it != given.end();
    if (set) params.given_.insert(p.name);
    if (p.type == ParamType::Enum) {  // spaces around the word taken off, as around numbers (decimal_text)
      const std::string v = set ? trimmed(it->second) : p.default_value;
      bool known = false;
      for (const auto& c : p.choices) known = known || c == v;
      if (!known) {
        std::string all;
        for (const auto& c : p.choices) all += (all.empty() ? "" : ", ") + c;
        return Status::fail("--" + p.name + " '" + v + "' is not one of: " + all);
      }
      out.params[p.name] = params.texts[p.name] = v;
      continue;
    }
    if (!set && p.derived) continue;  // the recipe derives it (and records the value in out.params)
    if (p.type == ParamType::Path) {
      const std::string v = set ? it->second : p.default_value;
      if (v.empty() && p.required())
        return Status::fail("method '" + method + "' needs --" + p.name + " FILE: " + p.help);
      out.params[p.name] = params.texts[p.name] = v;
      continue;
    }
    if (p.type == ParamType::Flag) {
      const std::string v = set ? trimmed(it->second) : p.default_value;
      bool on = false;
      if (!parse_flag(v, on)) return Status::fail("--" + p.name + " '" + v + "' is not true or false");
      params.nums[p.name] = on ? 1 : 0;
      out.params[p.name] = params.texts[p.name] = on ? "true" : "false";
      continue;
    }
    if (p.type == ParamType::IntList) {
      const std::string text = set ? it->second : p.default_value;
      std::string canonical;
      for (size_t i = 0; i <= text.size();) {
        size_t j = text.find(',', i);
        if (j == std::string::npos) j = text.size();
        double v = 0;
        if (!parse_number(text.substr(i, j - i), ParamType::Int, v))
          return Status::fail("--" + p.name + " '" + text + "' is not a comma-separated list of integers");
        if (v < p.min || v > p.max)
          return Status::fail("--" + p.name + ": " + text.substr(i, j - i) + " is outside [" +
                              number_text(p.min, ParamType::Int) + ", " + number_text(p.max, ParamType::Int) + "]");
        canonical += (canonical.empty() ? "" : ",") + number_text(v, ParamType::Int);
        i = j + 1;
      }
      out.params[p.name] = params.texts[p.name] = canonical;
      continue;
    }
    double v = 0;
    if (set) {
      if (!parse_number(it->second, p.type, v))
        return Status::fail("--" + p.name + " '" + it->second + "' is not " +
                            (p.type == ParamType::Int ? "an integer" : "a number"));
    } else {
      parse_number(p.default_value, p.type, v);
    }
    if (v < p.min || v > p.max)  // (the value as given: 9999999999999999999 read back as an integer wraps)
      return Status::fail("--" + p.name + " " + (set ? it->second : number_text(v, p.type)) + " is outside [" +
                          number_text(p.min, p.type) + ", " + number_text(p.max, p.type) + "]");
    if (!p.choices.empty() && std::find(p.choices.begin(), p.choices.end(), number_text(v, p.type)) == p.choices.end()) {
      std::string all;  // an integer of a few values only (downsample's 1, 2, 4, 8)
      for (const auto& c : p.choices) all += (all.empty() ? "" : ", ") + c;
      return Status::fail("--" + p.name + " " + number_text(v, p.type) + " is not one of: " + all);
    }
    params.nums[p.name] = v;
    out.params[p.name] = number_text(v, p.type);
  }

  if (auto b = out.params.find("border"); b != out.params.end()) parse_border(b->second, out.border);
  if (auto s = params.nums.find("sigma"); s != params.nums.end()) out.sigma = s->second;
  if (Status s = build_recipe(*recipe, params, out); !s) return s;
  // With --downsample: the whole program's reach. A recipe whose support has no end states kWholeImageReach itself.
  if (m.nonfinite_footprint && out.nonfinite_reach < 0) out.nonfinite_reach = out.radius;
  if (Status s = validate_program(out.program); !s)
    return Status::fail("method '" + method + "' built an invalid program: " + s.error);
  out.details["program"] = program_text(out.program);
  if (auto w = out.details.find("warning"); w != out.details.end()) spdlog::warn("{}", w->second);
  for (const ParamSpec& p : m.params)
    if (!out.params.count(p.name))
      return Status::fail("method '" + method + "' left parameter '" + p.name + "' unresolved");
  return Status::success();
}

void warn_sigma_overridden(const std::string& method, const std::map<std::string, std::string>& given, Plan& plan) {
  // A kernel that is not a blur (negative weights) has no effective sigma to compare; an identity (box --width 1,
  // spread --radius 1: effective sigma 0) runs no blur at all, which is said too.
  // copy, the bandwidth floor, ignores sigma by definition.
  const MethodSpec* m = find_method(plan.method);
  if (!given.count("sigma") || !plan.blur || (m && m->bandwidth_floor) || !(plan.effective_sigma >= 0) ||
      std::fabs(plan.effective_sigma / plan.sigma - 1) <= 0.25)
    return;
  std::string others;
  for (const auto& [name, value] : given)
    if (name != "sigma" && name != "border") others += (others.empty() ? "--" : ", --") + name + " " + value;
  const std::string text = fmt::format("{}: --sigma {} is not the blur that runs: its effective sigma is {:.4g}{}",
                                       method, number_text(plan.sigma, ParamType::Float), plan.effective_sigma,
                                       others.empty() ? std::string() : " (given with " + others + ")");
  spdlog::warn("{}", text);
  // The report keeps it as it keeps the recipe's own warnings (it was only logged).
  set_plan_warning(plan, PlanWarning::Unused, text);
}

std::string trimmed(const std::string& text, const char* around) {
  const size_t a = text.find_first_not_of(around), b = text.find_last_not_of(around);
  return a == std::string::npos ? std::string() : text.substr(a, b - a + 1);
}

bool parse_decimal(const std::string& text, double& v) {
  const std::string s = decimal_text(text);
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return *end == '\0' && std::isfinite(v);
}

std::vector<int> alpha_channels(const ImageMeta& meta) {
  std::vector<int> v;
  for (size_t i = 0; i < meta.channel_names.size(); ++i)
    if (io::is_alpha_name(meta.channel_names[i])) v.push_back(int(i));
  if (v.empty() && meta.alpha_channel >= 0) v.push_back(meta.alpha_channel);
  return v;
}

const Plan& plan_for_channels(const Plan& plan, const std::vector<int>& alphas, int first, int count, Plan& scratch) {
  int in_group = -1;  // the group's first alpha (a group straddling two layers may hold two: the other is colour)
  for (int a : alphas)
    if (a >= first && a < first + count && count > 1) {
      in_group = a - first;
      break;
    }
  const auto asks = [&](const Pass& q) {
    return (q.op == Op::Bilateral || q.op == Op::Bilateral1d) && q.alpha != in_group;
  };
  if (std::none_of(plan.program.passes.begin(), plan.program.passes.end(), asks)) return plan;
  scratch = plan;
  for (Pass& q : scratch.program.passes)
    if (q.op == Op::Bilateral || q.op == Op::Bilateral1d) q.alpha = in_group;
  return scratch;
}

std::string program_text(const Program& p) {
  std::string s;
  for (const Pass& pass : p.passes) {
    if (!s.empty()) s += "; ";
    s += op_name(pass.op);
    std::string args;
    auto arg = [&](const std::string& a) { args += (args.empty() ? "" : ", ") + a; };
    if (pass.op == Op::Conv1d || pass.op == Op::FftConv1d || pass.op == Op::Bilinear1d || pass.op == Op::Box1d ||
        pass.op == Op::MovingAverage || pass.op == Op::Integral1d || pass.op == Op::Iir1d ||
        pass.op == Op::Bilateral1d)
      arg(pass.axis == 0 ? "x" : "y");
    if (pass.op == Op::Integral1d) {
      std::string w;
      for (float x : pass.taps) w += (w.empty() ? "" : ",") + fmt::format("{:.6g}", x);
      arg("w " + w);
    } else if (pass.op == Op::Iir1d) {
      arg(std::to_string(pass.taps.size() / 4) + " terms");
    } else if (!pass.taps.empty()) {
      arg(std::to_string(pass.taps.size()) + " taps");
    }
    if (!pass.widths.empty()) {
      std::string w;
      for (int x : pass.widths) w += (w.empty() ? "" : ",") + std::to_string(x);
      arg("w " + w);
    }
    if (pass.op == Op::Sat || pass.op == Op::Spread || (pass.op == Op::Scale && pass.extend > 0))
      arg("extend " + std::to_string(pass.extend));
    s += "(" + args + ") " + std::to_string(pass.src) + "->" + std::to_string(pass.dst);
  }
  return s;
}

}  // namespace gpublur
