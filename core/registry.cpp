#include "core/registry.hpp"

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

namespace gpublur {
namespace {

std::vector<ParamSpec> common_params() {
  return {
      {"sigma", ParamType::Float, "2", false, 0.1, 512, {},
       "standard deviation of the Gaussian the method stands for, in pixels"},
      {"radius", ParamType::Int, "", true, 0, 4096, {},
       "kernel half-width in pixels (default ceil(3*sigma))"},
      {"border", ParamType::Enum, "clamp", false, 0, 0, {"clamp", "mirror", "wrap", "zero"},
       "what pixels outside the image read: clamp (edge), mirror (edge repeated), wrap, zero"},
  };
}

std::vector<MethodSpec> build() {
  std::vector<MethodSpec> r;
  {
    MethodSpec m{"copy", "no blur: upload, copy on the device, download; the bandwidth floor",
                 "sigma is ignored", false, common_params(), {"cpu", "cuda", "gl"}};
    r.push_back(m);
  }
  {
    MethodSpec m{"gauss-2d", "direct 2D convolution with the sampled Gaussian, (2r+1)^2 taps",
                 "radius = ceil(3*sigma); weights exp(-(x^2+y^2)/(2 sigma^2)), normalised", true,
                 common_params(), {"cpu", "cuda", "gl"}};
    r.push_back(m);
  }
  {
    MethodSpec m{"gauss-sep", "separable Gaussian: a horizontal then a vertical pass of 2r+1 taps",
                 "radius = ceil(3*sigma); 1D weights exp(-x^2/(2 sigma^2)), normalised", true,
                 common_params(), {"cpu", "cuda", "gl"}};
    m.params.push_back({"impl", ParamType::Enum, "compute", false, 0, 0, {"compute", "fragment"},
                        "GL only: compute shader with shared-memory tiles, or fragment-shader ping-pong "
                        "(the thesis's form); CPU and CUDA compute the same function either way"});
    r.push_back(m);
  }
  {
    MethodSpec m{"gauss-linear",
                 "separable Gaussian with bilinear taps: two texels per fetch, about half the fetches",
                 "radius = ceil(3*sigma); texel pairs merged at offset i + w(i+1)/(w(i)+w(i+1))", true,
                 common_params(), {"cpu", "cuda", "gl"}};
    m.params.push_back({"interp", ParamType::Enum, "hardware", false, 0, 0, {"hardware", "exact"},
                        "hardware: the texture unit interpolates (low-precision fixed-point weights on "
                        "GPUs); exact: full-precision interpolation in the shader/kernel. The CPU always "
                        "interpolates exactly"});
    r.push_back(m);
  }
  return r;
}

}  // namespace

const std::vector<MethodSpec>& method_registry() {
  static const std::vector<MethodSpec> registry = build();
  return registry;
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
    default: return "enum";
  }
}

std::string registry_text() {
  std::ostringstream o;
  for (const auto& m : method_registry()) {
    o << m.name << "  " << m.summary << "\n";
    o << "    sigma mapping: " << m.sigma_mapping << "\n";
    o << "    backends: ";
    for (size_t i = 0; i < m.backends.size(); ++i) o << (i ? ", " : "") << m.backends[i];
    o << "\n";
    for (const auto& p : m.params) {
      o << "    --" << p.name << " (" << param_type_name(p.type);
      if (p.type == ParamType::Enum) {
        o << ": ";
        for (size_t i = 0; i < p.choices.size(); ++i) o << (i ? "|" : "") << p.choices[i];
      } else {
        o << " in [" << p.min << ", " << p.max << "]";
      }
      o << ", default " << (p.derived ? "from sigma" : p.default_value) << ")  " << p.help << "\n";
    }
  }
  return o.str();
}

std::string registry_json() {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& m : method_registry()) {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : m.params) {
      nlohmann::json pj{{"name", p.name}, {"type", param_type_name(p.type)}, {"help", p.help}};
      if (p.derived)
        pj["default"] = nullptr, pj["default_from"] = "sigma";
      else
        pj["default"] = p.default_value;
      if (p.type == ParamType::Enum)
        pj["choices"] = p.choices;
      else
        pj["min"] = p.min, pj["max"] = p.max;
      params.push_back(pj);
    }
    j.push_back({{"name", m.name},
                 {"summary", m.summary},
                 {"sigma_mapping", m.sigma_mapping},
                 {"exact_gaussian", m.exact_gaussian},
                 {"backends", m.backends},
                 {"params", params}});
  }
  return j.dump(2);
}

}  // namespace gpublur
