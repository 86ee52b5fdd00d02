// `gpublur report merge A.json B.json ... -o merged.json`: the reports of a job's shards (--shard K/N) as one.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "core/pipeline.hpp"
#include "core/report.hpp"

namespace gpublur::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output = "-";
};

int run_merge(const MergeArgs& a) {
  // The output is checked before anything is read: a folder, a missing folder, or one of the inputs (the merge
  // would replace a shard's report with itself and the others) is a usage error.
  if (Status s = check_text_file_target("report merge -o", a.output); !s) {
    spdlog::error("{}", s.error);
    return kExitUsage;
  }
  if (a.output != "-")
    for (const auto& path : a.inputs) {
      std::error_code ec;
      if (std::filesystem::equivalent(path, a.output, ec)) {
        spdlog::error("report merge -o {} is the input report {}; write the merged report elsewhere", a.output,
                      path);
        return kExitUsage;
      }
    }
  std::vector<nlohmann::json> reports;
  for (const auto& path : a.inputs) {
    std::ifstream f(path);
    if (!f) {
      spdlog::error("report merge: cannot open {}", path);
      return kExitFailed;
    }
    try {
      reports.push_back(nlohmann::json::parse(f));
    } catch (const std::exception& e) {
      spdlog::error("report merge: {}: not JSON: {}", path, e.what());
      return kExitFailed;
    }
  }
  nlohmann::json merged;
  if (Status s = merge_reports(reports, a.inputs, merged); !s) {
    spdlog::error("{}", s.error);
    return kExitFailed;
  }
  {
    // A signal now waits for the write (the merged report whole, no temporary beside it), then exits 130.
    const InterruptHold hold;
    if (!hold) return kExitFailed;  // it came first: the interrupt thread exits 130
    if (a.output == "-") {
      std::cout << json_text(merged, 2) << "\n";
      if (!std::cout) return kExitFailed;
    } else if (Status s = write_text_file(a.output, json_text(merged, 2) + "\n", "report merge -o " + a.output); !s) {
      spdlog::error("{}", s.error);
      return kExitFailed;
    }
  }
  // Written, and an error all the same: the job's images are not all in it.
  if (merged_shards_missing(merged)) {
    std::string ks;
    for (const auto& k : merged["shard"]["missing"]) ks += (ks.empty() ? "" : ", ") + k.dump();
    spdlog::error("report merge: shard(s) {} of {} missing: the merged report holds {} image(s) of a job of {} input(s)",
                  ks, merged["shard"]["n"].dump(), merged["images"].size(), merged["shard"]["jobs"].dump());
    return kExitFailed;
  }
  // Likewise where a shard's run was interrupted: its images are not all in its report.
  std::string cut;
  for (size_t i = 0; i < reports.size(); ++i)
    if (reports[i]["summary"].value("interrupted", false)) cut += (cut.empty() ? "" : ", ") + a.inputs[i];
  if (!cut.empty()) {
    const std::string of =
        merged.contains("shard") ? " of a job of " + merged["shard"]["jobs"].dump() + " input(s)" : "";
    spdlog::error("report merge: {} interrupted (summary.interrupted): the merged report holds {} image(s){}", cut,
                  merged["images"].size(), of);
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

std::function<int()> add_report_command(CLI::App& app) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand("report", "work with run reports");
  cmd->require_subcommand(1);
  CLI::App* merge = cmd->add_subcommand("merge", "merge the JSON reports of one job's shards (--shard K/N)");
  merge->add_option("reports", args->inputs, "JSON reports (--report-format json)")->required()->type_name("REPORT");
  merge->add_option("-o,--output", args->output, "merged report file ('-' = stdout)")->capture_default_str();
  return [args] { return run_merge(*args); };
}

}  // namespace gpublur::cli
