// The subcommands of `gpublur`: each adds itself to the CLI11 app and runs after parsing.
// Exit status everywhere: 0 success, 1 some work failed, 2 usage error.
#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace gpublur::cli {

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;

// For options that name a file to write (`--report`, `--json`): an empty name would quietly write nothing.
inline const CLI::Validator kNamesAFile(
    [](std::string& s) {
      return s.empty() ? std::string("an empty name: give a FILE, or - for stdout") : std::string();
    },
    "");

// Each returns the function to call when its subcommand was chosen.
std::function<int()> add_methods_command(CLI::App& app);
std::function<int()> add_blur_command(CLI::App& app);
std::function<int()> add_bench_command(CLI::App& app);
std::function<int()> add_quality_command(CLI::App& app);
std::function<int()> add_report_command(CLI::App& app);

}  // namespace gpublur::cli
