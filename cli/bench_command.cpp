// `gpublur bench`: device-timed methods on synthetic images; a table on stdout and optionally JSON.
#include <iostream>
#include <memory>
#include <mutex>

#include <spdlog/spdlog.h>

#include "cli/backend_options.hpp"
#include "cli/commands.hpp"
#include "cli/method_options.hpp"
#include "core/bench.hpp"
#include "core/output_file.hpp"
#include "core/pipeline.hpp"
#include "core/report.hpp"
#include "core/warning_capture.hpp"

namespace gpublur::cli {
namespace {

struct BenchArgs {
  BackendArgs backend;
  std::string methods = "all";
  std::string sigmas = "3";
  std::string sizes = "1024";
  std::string channels = "4";
  int repeat = 20;
  int warmup = 3;
  double warmup_ms = 200;
  std::string border;
  std::vector<std::string> params;
  std::string json;
  unsigned seed = 1;
};

int usage(const std::string& message) {
  spdlog::error("{}", message);
  return kExitUsage;
}

int run_bench_command(const BenchArgs& a) {
  // Every warning of the run reaches the JSON too (the ignored backend options, the plans' cost warnings, a variant
  // benched once), not only stderr: a script reading the JSON alone missed them.
  std::vector<std::string> warnings;
  const WarningCapture capture(warnings);
  BenchOptions o;
  o.repeat = a.repeat;
  o.warmup = a.warmup;
  o.warmup_ms = a.warmup_ms;
  o.seed = a.seed;
  if (!parse_bench_sigmas(a.sigmas, o.sigmas)) return usage("--sigma '" + a.sigmas + "' is not a comma list of numbers");
  if (Status s = parse_bench_sizes(a.sizes, o.sizes); !s) return usage(s.error);
  if (Status s = parse_bench_channels(a.channels, o.channels); !s) return usage(s.error);
  for (const auto& item : a.params) {
    std::string name, value;
    if (!split_param(item, name, value)) return usage("--param '" + item + "' is not name=value");
    if (name == "sigma") return usage("use --sigma for the sigma list, not --param sigma=");
    if (o.params.count(name)) return usage("parameter '" + name + "' is given twice");
    o.params[name] = value;
  }
  if (!a.border.empty()) {
    if (o.params.count("border")) return usage("parameter 'border' is given twice");
    o.params["border"] = a.border;
  }

  if (Status s = check_text_file_target("--json", a.json); !s) return usage(s.error);  // not after the whole bench
  // The methods and options before the backend opens: where it does not, a usage error read as exit 1 (the backend's
  // failure). The named backend's methods; with auto, any backend's (checked again once it has opened).
  if (Status s = resolve_bench_methods(a.methods, a.backend.backend == "auto" ? "" : a.backend.backend, o.methods,
                                       o.params);
      !s)
    return usage(s.error);
  if (Status s = check_bench_options(o); !s) return usage(s.error);

  bool usage_error = false;
  std::string why;
  std::unique_ptr<Backend> backend = open_backend(a.backend, usage_error, &why);
  if (!backend && usage_error) return kExitUsage;
  if (!backend) {
    // The JSON says why, as blur's report does: an earlier bench's results at its path would pass for this one's, and
    // on stdout a script met empty input. Its settings name the methods asked for (as resolved before it opened;
    // `all` with auto: every backend's).
    if (!a.json.empty()) {
      BenchResult none;
      none.backend = a.backend.backend;
      none.warnings = warnings;
      nlohmann::json j = bench_json(none, o);
      j["error"] = "backend '" + a.backend.backend + "' did not open: " + (why.empty() ? "see the log" : why);
      const std::string text = json_text(j, 2) + "\n";
      if (a.json == "-")
        std::cout << text << std::flush;
      else if (Status s = write_text_file(a.json, text, "--json " + a.json); !s)
        spdlog::error("{}", s.error);
    }
    return kExitFailed;
  }
  if (Status s = resolve_bench_methods(a.methods, backend->name(), o.methods, o.params); !s) return usage(s.error);
  o.skip_unplannable = a.methods == "all";

  // Interrupted, --json still says what was done: the cases finished before the signal and summary "interrupted" (an
  // earlier bench's file at the path would otherwise pass for this run's).
  std::mutex done_mutex;
  BenchResult done;  // before the first case: the backend that opened, no case, no storage
  done.backend = backend->name();
  done.device = backend->device_name();
  done.timer_clock = backend->timer_clock();
  done.warnings = warnings;
  if (!a.json.empty())
    arm_interrupt_report([&] {
      std::lock_guard<std::mutex> lock(done_mutex);
      done.interrupted = true;
      const std::string text = json_text(bench_json(done, o), 2) + "\n";
      if (a.json == "-") {
        std::cout << text << std::flush;
      } else if (Status s = write_text_file(a.json, text, "--json " + a.json); !s) {
        spdlog::error("{}", s.error);
      } else {
        spdlog::warn("the {} case(s) finished before the interrupt written to {}", done.cases.size(), a.json);
      }
    });
  const InterruptReportScope json_scope;  // the hook writes the JSON until the JSON below is written
  BenchResult r;
  if (Status s = run_bench(*backend, o, r, [&](const BenchResult& so_far) {
        std::lock_guard<std::mutex> lock(done_mutex);
        done = so_far;
        done.warnings = warnings;  // (read here, on the thread that logs them: the hook reads only `done`)
      });
      !s)
    return usage(s.error);
  // With --json - (or /dev/stdout, or the file stdout goes to) stdout carries only the JSON; the table then goes to
  // stderr, unless -q (errors only there). A JSON to /dev/stdout followed the table on stdout: no JSON to parse.
  if (!text_target_is_stdout(a.json))
    std::cout << bench_table(r) << std::flush;
  else if (spdlog::get_level() <= spdlog::level::info)
    std::cerr << bench_table(r) << std::flush;
  if (!a.json.empty()) {
    const InterruptHold hold(true);  // a signal now waits for the write, then changes the exit status only
    if (!hold) return kExitFailed;   // it came first: the interrupt thread writes the JSON and exits 130
    r.warnings = warnings;
    const std::string text = json_text(bench_json(r, o), 2) + "\n";
    if (a.json == "-") {
      std::cout << text << std::flush;
    } else {
      if (Status s = write_text_file(a.json, text, "--json " + a.json); !s) {
        spdlog::error("{}", s.error);
        return kExitFailed;
      }
    }
    InterruptReportScope::report_written();
  }
  return r.failed() ? kExitFailed : kExitOk;
}

}  // namespace

std::function<int()> add_bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "time methods on synthetic random images in memory: median/min device time, GB/s, ratio to copy");
  add_backend_options(cmd, a->backend);
  cmd->add_option("-m,--method", a->methods,
                  "comma list of methods, or all (every method of the backend; kernel where --param kernel=FILE is "
                  "given); a method may carry its own "
                  "settings as name:param=value[:param=value], e.g. box:impl=sat")
      ->capture_default_str();
  cmd->add_option("--sigma", a->sigmas, "comma list of sigmas")->capture_default_str();
  cmd->add_option("--size", a->sizes, "comma list of sizes: N (square) or WxH")->capture_default_str();
  cmd->add_option("--channels", a->channels, "comma list of channel counts 1..4 (each its own image)")
      ->capture_default_str();
  cmd->add_option("--repeat", a->repeat, "timed runs per case")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "untimed runs first")->check(CLI::Range(0, 100000))->capture_default_str();
  cmd->add_option("--warmup-ms", a->warmup_ms,
                  "per case, keep the device busy this long before the warm-up runs (steady clocks)")
      ->check(CLI::Range(0.0, 600000.0))
      ->capture_default_str();
  cmd->add_option("--border", a->border, "border mode: clamp, mirror, wrap, zero");
  // One value an occurrence (repeat --param for more): a list option would take the arguments after it too.
  cmd->add_option("--param", a->params, "method parameter name=value, applied to the methods that have it (repeatable)")
      ->type_name("NAME=VALUE")
      ->expected(1)
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--json", a->json, "also write the results as JSON to FILE ('-' = stdout)")
      ->type_name("FILE")
      ->check(kNamesAFile);
  cmd->add_option("--seed", a->seed, "random image seed")->capture_default_str();
  cmd->footer(methods_footer());
  return [a] { return run_bench_command(*a); };
}

}  // namespace gpublur::cli
