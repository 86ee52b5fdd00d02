// The method registry: the one source of method names, parameters, defaults, ranges, help and sigma mapping.
// The CLI's help and validation, `gpublur methods` and the report all read from here. The entries are the
// recipes' (core/methods/): a method declares itself once, in its own file.
#pragma once
#include <string>
#include <vector>

namespace gpublur {

// IntList: "a,b,c", each in [min, max]. Path: a file name, kept as text (the recipe reads the file; "" default
// with derived = false means required). Flag: on/off, given alone on the command line (--name), "true"/"false"
// (also 1/0, yes/no, on/off) through --param name=value; resolved as 1/0.
enum class ParamType { Int, Float, Enum, IntList, Path, Flag };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Float;
  std::string default_value;         // textual default; "" with derived = true means "from sigma"
  bool derived = false;              // default computed from --sigma (described in help)
  double min = 0, max = 0;           // inclusive range for Int/Float
  std::vector<std::string> choices;  // for Enum; for Int, the only values allowed within [min, max] (if any)
  std::string help;

  // A Path parameter with no default and no derivation: the method cannot run without it.
  bool required() const { return type == ParamType::Path && default_value.empty() && !derived; }
};

struct MethodSpec {
  std::string name;
  std::string summary;
  std::string sigma_mapping;  // how --sigma sets the parameters, for people
  bool exact_gaussian = false;  // applies the sampled Gaussian exactly (effective sigma = that of its kernel)
  bool bandwidth_floor = false; // no filtering: one read and one write of the image (bench's floor)
  // The exact Gaussian `quality` compares against and fits with (sampled, truncated at ceil(3 sigma)), and the
  // method `blur` runs when none is named.
  bool quality_reference = false;
  bool default_method = false;
  // Non-finite inputs go through the blur pipeline's footprint handling (core/nonfinite.hpp): the kernel lies within
  // the square of Plan::radius, so resolve_plan sets Plan::nonfinite_reach to it.
  bool nonfinite_footprint = false;
  // A linear filter: its impulse response is its kernel, whose standard deviation `quality` reports. Bilateral's
  // weights depend on the image (an impulse comes back as itself, sd 0, whatever its sigma).
  bool linear = true;
  std::vector<ParamSpec> params;       // includes the common ones (sigma, radius, border)
  std::vector<std::string> backends;   // "cpu", "cuda", "gl"
};

const std::vector<MethodSpec>& method_registry();
const MethodSpec* find_method(const std::string& name);
// The method that measures the bandwidth floor (bench times it first and divides by it).
const MethodSpec* bandwidth_floor_method();
const MethodSpec* quality_reference_method();
const MethodSpec* default_method();
const ParamSpec* find_param(const MethodSpec& m, const std::string& name);
bool method_on_backend(const MethodSpec& m, const std::string& backend);
const char* param_type_name(ParamType t);

// Human-readable listing and JSON listing (for `gpublur methods [--json]`).
std::string registry_text();
// One parameter's type and values ("float in [0.1, 512]", "enum: clamp|mirror|wrap|zero") and its default ("2", "from
// sigma", "none: required"), as registry_text and docs/methods.md's parameter table write them.
std::string param_values_text(const ParamSpec& p);
std::string param_default_text(const ParamSpec& p);
std::string registry_json();

}  // namespace gpublur
