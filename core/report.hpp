// The run report: one JSON document (schema in docs/report.schema.json), or JSON Lines / CSV for streaming
// into other tools. Built from plain structs so the pipeline does not depend on the output format.
#pragma once
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.hpp"

namespace gpublur {

constexpr int kReportSchemaVersion = 1;

struct StageTimes {
  double read = 0, upload = 0, compute = 0, download = 0, write = 0;
  double total() const { return read + upload + compute + download + write; }
};

struct ImageRecord {
  std::string input;
  std::string output;  // "" when no output was planned (e.g. an input that does not exist)
  int width = 0, height = 0, channels = 0;
  std::string pixel_type;  // of the input file, "" if it could not be read
  bool ok = false;
  bool skipped = false;    // --skip-existing: its output existed, so it was not read (ok, status "skipped")
  std::string error;       // "" when ok
  std::string path;        // RunInfo.path of the backend run(s)
  StageTimes ms;
  std::vector<std::string> warnings;  // logged while it was read, blurred or written (WarningCapture)
};

struct RunRecord {
  std::string backend, device, timer_clock, storage;
  std::string method;
  std::map<std::string, std::string> params;  // resolved, as text
  std::map<std::string, std::string> details;  // what the recipe derived (Plan::details: the program, ...)
  double effective_sigma = 0;
  int radius = 0;
  bool linear = true, premultiply = true;
  std::string io;  // I/O adapter name
  int io_threads = 0;  // decode threads (as many encode) the pipeline ran
  std::vector<ImageRecord> images;
  double wall_ms = 0;
  // Start-up before the first image, where measured (else negative): the process before main() and the
  // backends' creation (driver, context, device buffers).
  double before_main_ms = -1, backend_init_ms = -1;
  bool interrupted = false;  // SIGINT/SIGTERM ended the run: images holds those finished before it
  // --shard K/N of `shard_jobs` inputs (all shards' jobs); shard_n 0: not a shard. report merge checks the shards.
  int shard_k = 0, shard_n = 0;
  size_t shard_jobs = 0;

  int failed() const;
  int skipped() const;  // images whose existing output --skip-existing kept
};
// An image's status in reports: "ok", "skipped" or "error".
const char* image_status(const ImageRecord& r);
// Every field of `from` but its images and what the pipeline measures (io_threads, wall_ms, interrupted).
void copy_run_header(const RunRecord& from, RunRecord& to);

enum class ReportFormat { Json, Jsonl, Csv };
bool parse_report_format(const std::string& s, ReportFormat& out);

// JSON as text for reports, bench and quality output: file names are bytes, not always UTF-8, so an invalid
// sequence is written as U+FFFD instead of throwing (nlohmann's default; a name with byte 0xff aborted the run).
std::string json_text(const nlohmann::json& j, int indent = -1);

nlohmann::json report_json(const RunRecord& run);     // the whole document
nlohmann::json image_json(const ImageRecord& image);  // one images[] entry
nlohmann::json summary_json(const RunRecord& run);    // the summary object
// The stage that limits throughput: "decode" (read totals / io_threads), "backend" (upload + compute +
// download, one thread) or "encode" (write totals / io_threads); "none" without timings.
std::string bottleneck_stage(const RunRecord& run);

void write_report(std::ostream& os, const RunRecord& run, ReportFormat format);
// `path` "-" writes to stdout; a file is written to a temporary name and renamed.
Status write_report_file(const std::string& path, const RunRecord& run, ReportFormat format);

// `gpublur report merge`: one report from the JSON reports of shards of one job (--shard K/N). The header (tool,
// backend, method, colour, io) is the first report's; the others must name the same method, parameters, backend,
// backend storage precision, colour handling and tool version (else an error naming the file); backend.device,
// backend.timer_clock and io list each distinct value ("; "). Every image entry must be as the schema has it. `images`
// are concatenated in the order given; the summary is recomputed: counts and stage totals summed, wall_ms the longest
// shard's (shards run side by side), images_per_second = successful images / that wall time, bottleneck from the summed
// totals. Shards' reports (`shard`) must all be shards of one split (the same N and job count), each K once; the
// merged report's `shard` lists the K merged and, where some are not, the `missing` ones (merged_shards_missing says
// whether it has them; the caller decides what an incomplete merge means).
bool merged_shards_missing(const nlohmann::json& merged);
Status merge_reports(const std::vector<nlohmann::json>& reports, const std::vector<std::string>& names,
                     nlohmann::json& merged);

std::string csv_field(const std::string& s);  // quoted when it holds a comma, quote or newline

}  // namespace gpublur
