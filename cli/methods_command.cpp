// `gpublur methods [--json]`: the registry for people and for programs.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/registry.hpp"

namespace gpublur::cli {

std::function<int()> add_methods_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("methods", "list the blur methods, their parameters and backends");
  cmd->add_flag("--json", *json, "machine-readable JSON on stdout");
  return [json] {
    std::cout << (*json ? registry_json() + "\n" : registry_text());
    return kExitOk;
  };
}

}  // namespace gpublur::cli
