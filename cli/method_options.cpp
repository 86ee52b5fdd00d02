#include "cli/method_options.hpp"

#include <algorithm>
#include <sstream>

#include "core/io/image_io.hpp"
#include "core/plan.hpp"
#include "core/registry.hpp"

namespace gpublur::cli {

bool split_param(const std::string& s, std::string& name, std::string& value) {
  // Spaces around the name go ("passes = 4" was a parameter named "passes "); the value is the resolver's to read,
  // which takes spaces around numbers and keeps a file name's as they are.
  const auto eq = s.find('=');
  if (eq == std::string::npos) return false;
  name = trimmed(s.substr(0, eq), " \t");
  value = s.substr(eq + 1);
  return !name.empty();
}

namespace {

std::string describe(const ParamSpec& p) {
  std::ostringstream o;
  if (p.type == ParamType::Enum) {
    for (size_t i = 0; i < p.choices.size(); ++i) o << (i ? "|" : "") << p.choices[i];
  } else if (p.type == ParamType::Path) {
    o << "file";
  } else if (p.type == ParamType::Flag) {
    o << "flag (--param " << p.name << "=true|false, also 1|0, yes|no, on|off)";
  } else if (!p.choices.empty()) {
    o << "integer, one of ";
    for (size_t i = 0; i < p.choices.size(); ++i) o << (i ? ", " : "") << p.choices[i];
  } else {
    o << (p.type == ParamType::Int       ? "integer"
          : p.type == ParamType::IntList ? "comma-separated integers, each"
                                         : "number")
      << " in [" << p.min << ", " << p.max << "]";
  }
  o << ", default " << (p.derived ? "from sigma" : p.required() ? "none (required)" : p.default_value) << ": "
    << p.help;
  return o.str();
}

}  // namespace

void MethodOptions::add_to(CLI::App& cmd) {
  // Union of the parameters over all methods, in registry order; note which methods have each.
  std::vector<std::string> order;
  std::map<std::string, std::pair<const ParamSpec*, std::vector<std::string>>> seen;
  for (const auto& m : method_registry())
    for (const auto& p : m.params) {
      auto& entry = seen[p.name];
      if (!entry.first) entry.first = &p, order.push_back(p.name);
      entry.second.push_back(m.name);
    }
  const size_t all = method_registry().size();
  for (const auto& name : order) {
    if (cmd.get_option_no_throw("--" + name)) continue;  // clashes with a CLI option: --param only
    const auto& [spec, methods] = seen[name];
    // A name that means different things to different methods (e.g. --impl, or a default from sigma for one
    // method): one line per description, naming the methods that share it.
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;
    for (const auto& mname : methods) {
      const std::string d = describe(*find_param(*find_method(mname), name));
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == d; });
      if (g == groups.end()) g = groups.insert(groups.end(), {d, {}});
      g->second.push_back(mname);
    }
    std::string help;
    if (groups.size() > 1) {
      for (const auto& [d, ms] : groups) {
        help += help.empty() ? "" : "\n";
        for (size_t i = 0; i < ms.size(); ++i) help += (i ? ", " : "") + ms[i];
        help += ": " + d;
      }
    } else {
      help = groups.front().first;
      if (methods.size() < all) {
        help += " [";
        for (size_t i = 0; i < methods.size(); ++i) help += (i ? ", " : "") + methods[i];
        help += " only]";
      }
    }
    if (spec->type == ParamType::Flag) {  // --name alone sets it; --name=false and --param name=false clear it
      options_[name] = cmd.add_flag("--" + name, flag_values_[name])
                           ->description(help)
                           ->multi_option_policy(CLI::MultiOptionPolicy::Throw)  // given twice: as --sigma's
                           ->group("Method parameters (from the registry)");
      continue;
    }
    // The placeholder by the first method's type, or NUMBER where the methods' types differ (box --width is an
    // integer, integral's a real number: INT said integral's was one).
    bool mixed = false;
    for (const auto& mname : methods) mixed = mixed || find_param(*find_method(mname), name)->type != spec->type;
    options_[name] = cmd.add_option("--" + name, values_[name], help)
                         ->type_name(mixed                                ? "NUMBER"
                                     : spec->type == ParamType::Enum      ? "CHOICE"
                                     : spec->type == ParamType::Int     ? "INT"
                                     : spec->type == ParamType::IntList ? "INT,..."
                                     : spec->type == ParamType::Path    ? "FILE"
                                                                        : "FLOAT")
                         ->group("Method parameters (from the registry)");
  }
  // One value an occurrence: as a list option it took the inputs after it (`--param passes=2 in.png -o out`: "inputs
  // is required").
  cmd.add_option("--param", param_list_, "any method parameter as name=value (repeatable)")
      ->type_name("NAME=VALUE")
      ->expected(1)
      ->take_all()
      ->allow_extra_args(false)
      ->group("Method parameters (from the registry)");
}

Status MethodOptions::given(std::map<std::string, std::string>& out) const {
  out.clear();
  for (const auto& [name, opt] : options_) {
    if (opt->count() == 0) continue;
    const auto flag = flag_values_.find(name);
    out[name] = flag == flag_values_.end() ? values_.at(name) : flag->second ? "true" : "false";
  }
  for (const auto& item : param_list_) {
    std::string name, value;
    if (!split_param(item, name, value)) return Status::fail("--param '" + item + "' is not name=value");
    if (out.count(name)) return Status::fail("parameter '" + name + "' is given twice");
    out[name] = value;
  }
  return Status::success();
}

std::string io_option_help() {
  return std::string("image I/O adapter: oiio or lean (default: the build's); built: ") +
         (make_oiio_io() ? "oiio, lean" : "lean");
}

std::string methods_footer() {
  std::ostringstream o;
  o << "Methods (details: gpublur methods):\n";
  for (const auto& m : method_registry()) {
    o << "  " << m.name << std::string(m.name.size() < 14 ? 14 - m.name.size() : 1, ' ') << m.summary << " [";
    for (size_t i = 0; i < m.backends.size(); ++i) o << (i ? ", " : "") << m.backends[i];
    o << "]\n";
  }
  return o.str();
}

}  // namespace gpublur::cli
