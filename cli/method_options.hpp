// Method parameters on the command line, generated from the registry: every parameter of every method is
// an option --name VALUE (so a new method's parameters appear without touching the CLI), plus
// --param name=value for any of them. Values stay text: resolve_plan validates them against the registry.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/status.hpp"

namespace gpublur::cli {

class MethodOptions {
 public:
  // Adds the generated options to `cmd` (names that clash with an existing option are left to --param).
  void add_to(CLI::App& cmd);
  // The parameters given (by --name or --param), name -> text; a name given twice is a usage error.
  Status given(std::map<std::string, std::string>& out) const;

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, CLI::Option*> options_;
  std::vector<std::string> param_list_;
  std::map<std::string, bool> flag_values_;  // Flag parameters: --name, or --name=true|false
};

// Help footer: the registry's methods, one line each.
std::string methods_footer();
// --io's help: the adapters and which are built into this binary.
std::string io_option_help();
// "name=value" -> (name, value), spaces around the name dropped; false when there is no '=' or no name.
bool split_param(const std::string& s, std::string& name, std::string& value);

}  // namespace gpublur::cli
