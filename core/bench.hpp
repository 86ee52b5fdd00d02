// `gpublur bench`: device-timed compute of methods on synthetic random images held in memory (no files).
// Per image size: upload once, time `copy` first (the floor: one read and one write of the image), then every
// (method, sigma) case: Backend::warm_up for warmup_ms, `warmup` untimed runs, then `repeat` timed runs; median
// and min of RunInfo.compute_ms.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/backend.hpp"
#include "core/status.hpp"

namespace gpublur {

struct BenchOptions {
  std::vector<std::string> methods;  // registry names (or name:param=value variants); the floor always runs
  std::vector<double> sigmas{3};
  std::vector<std::pair<int, int>> sizes{{1024, 1024}};
  std::vector<int> channels{4};  // each count its own image per size, copy first
  int repeat = 20;
  int warmup = 3;
  double warmup_ms = 200;  // per case, the device kept busy this long first (steady clocks)
  // Extra parameters (border, --param name=value): each applied to the methods that declare it.
  std::map<std::string, std::string> params;
  unsigned seed = 1;
  // --method all: a method that cannot take one of the sigmas (diffusion's steps at 400) is left out, named in
  // BenchResult::left_out, instead of failing the whole bench (a method named in the list still fails it).
  bool skip_unplannable = false;
};

struct BenchCase {
  std::string method;
  bool floor = false;  // the bandwidth-floor method (copy): what ratio_to_copy divides by
  int width = 0, height = 0, channels = 0;
  std::string storage;  // Backend::storage() for this image (GL's texture format follows its channels)
  double sigma = 0;
  std::map<std::string, std::string> params;  // resolved
  // The plan's details (Plan::details: what the recipe derived, and its warning and warning_kind where it warns), as
  // blur's report has them: a script reading the JSON sees what the table's stderr warning said.
  std::map<std::string, std::string> details;
  double effective_sigma = 0;
  int radius = 0;
  std::string path;  // RunInfo.path
  double upload_ms = 0;
  std::vector<double> times_ms;
  int retimed = 0;  // times the runs were timed again as not of one speed (kRetimeAtMost)
  // Wall time the case kept the device busy (its warm-up and timed runs) and how much of it the device spent below
  // its clocks, held by its power limit and by its temperature (Backend::throttle_ms; the two may overlap);
  // throttled_power_ms < 0: not known (the backend cannot read them).
  double busy_ms = 0, throttled_power_ms = -1, throttled_thermal_ms = -1;
  double median_ms = 0, min_ms = 0;
  double gbps = 0;           // 2 * w*h*c*4 bytes / median
  double ratio_to_copy = 0;  // median / copy median of the same size and channels
  std::string error;
};

// A case's runs are timed again, at most this many times, while one of them took under half their median or the
// slowest over kRetimeSpread times the fastest: they did not run at one speed. Seen where a GPU's clock rose during the
// runs after seconds of idle (H200, GL iir 4096^2: 2.3-2.9 ms a run, then 0.75, after NVIDIA's compiler built its
// programs; docs/performance.md, "GL's slow first timing: the clock after the builds", and Backend's
// warm_up_after_idle_ms); the spread catches a change within the first half of the runs, where the median is the fast
// runs' or near it (0.74-2.89 ms, median 0.98: "GL's slow first timing after fresh program builds").
constexpr int kRetimeAtMost = 3;
constexpr double kRetimeSpread = 3.0;

// The table notes a case whose device was held below its clocks, by power or by temperature, for at least this share
// of its busy time (BenchCase::busy_ms): on an H200, iir's cases in the power cap's troughs ran 5-8% slower.
constexpr double kThrottledShare = 0.01;
// Why the table notes case c ("power limit", "temperature", or both), or null where it does not.
const char* throttled_note(const BenchCase& c);

struct BenchResult {
  // storage: the cases' storage, or each one with its channel counts in the cases' order joined by ", " where it
  // varies with the channels (GL: "r32f (1 channel), rgba32f (3, 4 channels)"); "" where no case uploaded its image.
  std::string backend, device, timer_clock, storage;
  int bytes_per_value = 4;  // of the storage: 2 for half floats (GL --gl-storage rgba16f), the bytes GB/s counts
  std::vector<BenchCase> cases;
  std::vector<std::string> left_out;  // "method, sigma S: why" (BenchOptions::skip_unplannable)
  // The run's warnings, as logged (the CLI's WarningCapture; run_bench leaves it alone): the JSON's where any.
  std::vector<std::string> warnings;
  bool interrupted = false;  // a signal ended the bench: cases holds those finished before it
  int failed() const;
};

// "all" (every registry method the backend implements whose required parameters, a user kernel's file, are in
// `given`, --param's) or a comma list; errors are usage errors. backend "": any (auto, before it opens).
Status resolve_bench_methods(const std::string& list, const std::string& backend, std::vector<std::string>& out,
                             const std::map<std::string, std::string>& given = {});
// "3, 12,48" -> {3, 12, 48}: decimals, exponents allowed (strtod alone took "0x3" as 3), spaces around each allowed,
// empty items skipped; a sigma given twice runs once, as a method named twice does. False where an item is no such
// number or none is given.
bool parse_bench_sigmas(const std::string& list, std::vector<double>& out);
// "1024,4096x2048" -> {1024,1024},{4096,2048}.
Status parse_bench_sizes(const std::string& list, std::vector<std::pair<int, int>>& out);
// "1,4" -> {1, 4}: channel counts 1..4, spaces allowed, a count given twice runs once.
Status parse_bench_channels(const std::string& list, std::vector<int>& out);

// The options' usage errors that need no backend and no plan (counts, sigmas above 0, known methods, --param names
// that some method has): run_bench's first check, and the CLI's before it opens the backend.
Status check_bench_options(const BenchOptions& opts);

// Checks every plan first (a bad parameter is a usage error, returned before anything runs), then runs.
// Failures of single runs are recorded in their case and the rest go on. --method all where every method but copy is
// left out is a usage error (nothing would be benched).
// progress, where given, sees the result once the plans are made and after each case, its storage, bytes_per_value
// and timer_clock as the finished result's for the cases so far (the CLI keeps it for an interrupted run's JSON).
Status run_bench(Backend& backend, const BenchOptions& opts, BenchResult& result,
                 const std::function<void(const BenchResult&)>& progress = {});

double median_of(std::vector<double> v);
std::string bench_table(const BenchResult& r);
// A failed case's times and ratios are null (0 read as a time a script could take for the fastest).
nlohmann::json bench_json(const BenchResult& r, const BenchOptions& opts);

}  // namespace gpublur
