#include "core/registry.hpp"

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/methods/recipe.hpp"

namespace gpublur {
const std::vector<MethodSpec>& method_registry() {
  static const std::vector<MethodSpec> registry = [] {
    std::vector<MethodSpec> r;
    for (const Recipe& recipe : recipes()) r.push_back(recipe.spec);
    return r;
  }();
  return registry;
}

const MethodSpec* bandwidth_floor_method() {
  for (const auto& m : method_registry())
    if (m.bandwidth_floor) return &m;
  return nullptr;
}

const MethodSpec* quality_reference_method() {
  for (const auto& m : method_registry())
    if (m.quality_reference) return &m;
  return nullptr;
}

const MethodSpec* default_method() {
  for (const auto& m : method_registry())
    if (m.default_method) return &m;
  return nullptr;
}

const MethodSpec* find_method(const std::string& name) {
  for (const auto& m : method_registry())
    if (m.name == name) return &m;
  return nullptr;
}

const ParamSpec* find_param(const MethodSpec& m, const std::string& name) {
  for (const auto& p : m.params)
    if (p.name == name) return &p;
  return nullptr;
}

bool method_on_backend(const MethodSpec& m, const std::string& backend) {
  return std::find(m.backends.begin(), m.backends.end(), backend) != m.backends.end();
}

const char* param_type_name(ParamType t) {
  switch (t) {
    case ParamType::Int: return "int";
    case ParamType::Float: return "float";
    case ParamType::IntList: return "int-list";
    case ParamType::Path: return "path";
    case ParamType::Flag: return "flag";
    default: return "enum";
  }
}

std::string param_values_text(const ParamSpec& p) {
  std::ostringstream o;
  o << param_type_name(p.type);
  if (p.type == ParamType::Enum || (p.type != ParamType::Path && p.type != ParamType::Flag && !p.choices.empty())) {
    o << ": ";
    for (size_t i = 0; i < p.choices.size(); ++i) o << (i ? "|" : "") << p.choices[i];
  } else if (p.type != ParamType::Path && p.type != ParamType::Flag) {
    o << " in [" << p.min << ", " << p.max << "]";
  }
  return o.str();
}

std::string param_default_text(const ParamSpec& p) {
  return p.derived ? "from sigma" : p.required() ? "none: required" : p.default_value;
}

std::string registry_text() {
  std::ostringstream o;
  for (const auto& m : method_registry()) {
    o << m.name << "  " << m.summary << "\n";
    o << "    sigma mapping: " << m.sigma_mapping << "\n";
    o << "    backends: ";
    for (size_t i = 0; i < m.backends.size(); ++i) o << (i ? ", " : "") << m.backends[i];
    o << "\n";
    for (const auto& p : m.params)
      o << "    --" << p.name << " (" << param_values_text(p) << ", default " << param_default_text(p) << ")  "
        << p.help << "\n";
  }
  return o.str();
}

// A default as JSON of its type, so that a program compares it with choices, min and max: integers and numbers as
// numbers, flags as booleans, the rest (enums, lists, files) as text. (Every default was text: "1" was not among
// downsample's choices [1, 2, 4, 8].)
static nlohmann::json typed_value(const ParamSpec& p, const std::string& v) {
  try {
    if (p.type == ParamType::Int) return std::stoll(v);
    if (p.type == ParamType::Float) return std::stod(v);
  } catch (const std::exception&) {
    return v;
  }
  if (p.type == ParamType::Flag && (v == "true" || v == "false")) return v == "true";
  return v;
}

std::string registry_json() {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& m : method_registry()) {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : m.params) {
      nlohmann::json pj{{"name", p.name}, {"type", param_type_name(p.type)}, {"help", p.help}};
      if (p.derived)
        pj["default"] = nullptr, pj["default_from"] = "sigma";
      else if (p.required())
        pj["default"] = nullptr, pj["required"] = true;
      else
        pj["default"] = typed_value(p, p.default_value);
      if (p.type == ParamType::Enum)
        pj["choices"] = p.choices;
      else if (p.type == ParamType::Int || p.type == ParamType::IntList)  // integers as integers (4096, not 4096.0)
        pj["min"] = static_cast<long long>(p.min), pj["max"] = static_cast<long long>(p.max);
      else if (p.type != ParamType::Path && p.type != ParamType::Flag)
        pj["min"] = p.min, pj["max"] = p.max;
      if (p.type == ParamType::Int && !p.choices.empty()) {  // the only values allowed, as numbers
        nlohmann::json values = nlohmann::json::array();
        for (const auto& c : p.choices) values.push_back(std::stoi(c));
        pj["choices"] = values;
      }
      params.push_back(pj);
    }
    j.push_back({{"name", m.name},
                 {"summary", m.summary},
                 {"sigma_mapping", m.sigma_mapping},
                 {"exact_gaussian", m.exact_gaussian},
                 {"bandwidth_floor", m.bandwidth_floor},
                 {"linear", m.linear},
                 {"backends", m.backends},
                 {"params", params}});
  }
  return j.dump(2);
}

}  // namespace gpublur
