#include "core/report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/output_file.hpp"

namespace gpublur {

using nlohmann::json;

int RunRecord::failed() const {
  int n = 0;
  for (const auto& i : images) n += i.ok ? 0 : 1;
  return n;
}

int RunRecord::skipped() const {
  int n = 0;
  for (const auto& i : images) n += i.skipped ? 1 : 0;
  return n;
}

const char* image_status(const ImageRecord& r) { return r.skipped ? "skipped" : r.ok ? "ok" : "error"; }

bool parse_report_format(const std::string& s, ReportFormat& out) {
  if (s == "json") return out = ReportFormat::Json, true;
  if (s == "jsonl") return out = ReportFormat::Jsonl, true;
  if (s == "csv") return out = ReportFormat::Csv, true;
  return false;
}

std::string json_text(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

json image_json(const ImageRecord& r) {
  json j{{"input", r.input},
        {"output", r.output},
        {"width", r.width},
        {"height", r.height},
        {"channels", r.channels},
        {"pixel_type", r.pixel_type},
        {"status", image_status(r)},
        {"error", r.error},
        {"path", r.path},
        {"timings_ms",
         {{"read", r.ms.read},
          {"upload", r.ms.upload},
          {"compute", r.ms.compute},
          {"download", r.ms.download},
          {"write", r.ms.write},
          {"total", r.ms.total()}}}};
  if (!r.warnings.empty()) j["warnings"] = r.warnings;
  return j;
}

std::string bottleneck_stage(const RunRecord& run) {
  // No image ran through (every one failed or was skipped): no stage limited a throughput (failed reads take time).
  if (std::none_of(run.images.begin(), run.images.end(), [](const ImageRecord& r) { return r.ok; })) return "none";
  StageTimes t;
  for (const auto& r : run.images) {
    t.read += r.ms.read, t.upload += r.ms.upload, t.compute += r.ms.compute, t.download += r.ms.download;
    t.write += r.ms.write;
  }
  if (t.total() <= 0) return "none";
  // Decode and encode each run on io_threads threads; the backend's three stages share one thread.
  const double io = std::max(1, run.io_threads);
  const double decode = t.read / io, backend = t.upload + t.compute + t.download, encode = t.write / io;
  return decode >= backend && decode >= encode ? "decode" : backend >= encode ? "backend" : "encode";
}

void copy_run_header(const RunRecord& from, RunRecord& to) {
  to.backend = from.backend, to.device = from.device, to.timer_clock = from.timer_clock, to.storage = from.storage;
  to.method = from.method, to.params = from.params, to.details = from.details;
  to.effective_sigma = from.effective_sigma, to.radius = from.radius;
  to.linear = from.linear, to.premultiply = from.premultiply, to.io = from.io;
  to.before_main_ms = from.before_main_ms, to.backend_init_ms = from.backend_init_ms;
  to.shard_k = from.shard_k, to.shard_n = from.shard_n, to.shard_jobs = from.shard_jobs;
}

json summary_json(const RunRecord& run) {
  const int n = int(run.images.size());
  StageTimes t;
  for (const auto& r : run.images) {
    t.read += r.ms.read, t.upload += r.ms.upload, t.compute += r.ms.compute, t.download += r.ms.download;
    t.write += r.ms.write;
  }
  json s = json{{"images", n},
              {"failed", run.failed()},
              {"wall_ms", run.wall_ms},
              {"images_per_second",
               run.wall_ms > 0 ? (n - run.failed() - run.skipped()) * 1000.0 / run.wall_ms : 0.0},
              {"io_threads", run.io_threads},
              {"stage_totals_ms",
               {{"read", t.read}, {"upload", t.upload}, {"compute", t.compute}, {"download", t.download},
                {"write", t.write}}},
              {"bottleneck", bottleneck_stage(run)}};
  json startup = json::object();
  if (run.before_main_ms >= 0) startup["before_main"] = run.before_main_ms;
  if (run.backend_init_ms >= 0) startup["backend_init"] = run.backend_init_ms;
  if (!startup.empty()) s["startup_ms"] = startup;
  if (run.interrupted) s["interrupted"] = true;
  if (run.skipped() > 0) s["skipped"] = run.skipped();
  return s;
}

namespace {

json header_json(const RunRecord& run) {
  json params = json::object();
  for (const auto& [k, v] : run.params) params[k] = v;
  json details = json::object();
  for (const auto& [k, v] : run.details) details[k] = v;
  json h{{"schema_version", kReportSchemaVersion},
              {"tool", {{"name", "gpublur"}, {"version", GPUBLUR_VERSION}}},
              {"backend", {{"name", run.backend}, {"device", run.device}, {"timer_clock", run.timer_clock}, {"storage", run.storage}}},
              {"method",
               {{"name", run.method},
                {"params", params},
                {"details", details},
                {"effective_sigma", run.effective_sigma},
                {"radius", run.radius}}},
              {"colour", {{"linear", run.linear}, {"premultiply", run.premultiply}}},
              {"io", run.io}};
  if (run.shard_n > 0) h["shard"] = {{"k", run.shard_k}, {"n", run.shard_n}, {"jobs", run.shard_jobs}};
  return h;
}

}  // namespace

json report_json(const RunRecord& run) {
  json j = header_json(run);
  json images = json::array();
  for (const auto& r : run.images) images.push_back(image_json(r));
  j["images"] = std::move(images);
  j["summary"] = summary_json(run);
  return j;
}

namespace {

// An images[] entry as the schema has it ("" when it is), else what is wrong: a merged report must still be one.
std::string image_entry_error(const json& im) {
  if (!im.is_object()) return "an image entry is not an object";
  for (const char* k : {"input", "output", "pixel_type", "status", "error", "path"})
    if (!im.contains(k) || !im[k].is_string()) return std::string("an image entry's ") + k + " is not a string";
  const std::string status = im["status"].get<std::string>();
  if (status != "ok" && status != "error" && status != "skipped")
    return "image " + im["input"].get<std::string>() + ": status '" + status + "' is not ok, skipped or error";
  for (const char* k : {"width", "height", "channels"})
    if (!im.contains(k) || !im[k].is_number_integer() || im[k].get<long long>() < 0)
      return "image " + im["input"].get<std::string>() + ": " + k + " is not an integer >= 0";
  const json* t = im.contains("timings_ms") && im["timings_ms"].is_object() ? &im["timings_ms"] : nullptr;
  for (const char* k : {"read", "upload", "compute", "download", "write", "total"})
    if (!t || !t->contains(k) || !(*t)[k].is_number() || (*t)[k].get<double>() < 0)
      return "image " + im["input"].get<std::string>() + ": timings_ms." + k + " is not a number >= 0";
  // warnings: present only where there are some, each a string.
  const bool warned = im.contains("warnings");
  if (warned) {
    const json& w = im["warnings"];
    if (!w.is_array() || w.empty() || !std::all_of(w.begin(), w.end(), [](const json& x) { return x.is_string(); }))
      return "image " + im["input"].get<std::string>() + ": warnings is not a list of strings";
  }
  // Nothing else: the schema allows no other fields (10 in an entry, 11 with warnings, 6 in its timings).
  if (im.size() != (warned ? 11u : 10u) || t->size() != 6)
    return "image " + im["input"].get<std::string>() + ": unknown fields";
  return "";
}

// A header field that may differ between shards (each shard's machine, GPU, timer or image I/O adapter): the
// distinct values in the order met, joined by "; ", so the merged report names every one.
void join_distinct(json& merged, const std::vector<json>& reports, const json::json_pointer& at) {
  std::vector<std::string> values;
  for (const json& r : reports)
    if (r.contains(at) && r[at].is_string() &&
        std::find(values.begin(), values.end(), r[at].get<std::string>()) == values.end())
      values.push_back(r[at].get<std::string>());
  std::string joined;
  for (const std::string& v : values) joined += (joined.empty() ? "" : "; ") + v;
  if (!values.empty()) merged[at] = joined;
}

// The shards a report holds: {k} for a shard's, its `merged` list for a merged report's; n and the job count of the
// split. False where `shard` is malformed.
bool shard_of(const json& r, std::vector<long long>& ks, long long& n, long long& jobs) {
  const json& s = r["shard"];
  if (!s.is_object() || !s.contains("n") || !s["n"].is_number_integer() || !s.contains("jobs") ||
      !s["jobs"].is_number_integer())
    return false;
  n = s["n"].get<long long>(), jobs = s["jobs"].get<long long>();
  ks.clear();
  if (s.contains("k") && s["k"].is_number_integer()) ks.push_back(s["k"].get<long long>());
  else if (s.contains("merged") && s["merged"].is_array())
    for (const json& k : s["merged"]) {
      if (!k.is_number_integer()) return false;
      ks.push_back(k.get<long long>());
    }
  for (long long k : ks)
    if (k < 1 || k > n) return false;
  return !ks.empty() && n >= 1 && jobs >= 0;
}

// Every report a shard's of one split (N and the job count alike), each K once: the merged report's `shard`.
Status merge_shards(const std::vector<json>& reports, const std::function<std::string(size_t)>& name, json& merged) {
  size_t with = 0;
  for (const json& r : reports) with += r.contains("shard");
  if (with == 0) return Status::success();
  std::map<long long, size_t> given;  // K -> the report that holds it
  long long n0 = 0, jobs0 = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    if (!reports[i].contains("shard"))
      return Status::fail(name(i) + ": not a shard's report (no --shard), where " +
                          name(reports[0].contains("shard") ? 0 : 1) + " is; merge one job's shards only");
    std::vector<long long> ks;
    long long n = 0, jobs = 0;
    if (!shard_of(reports[i], ks, n, jobs))
      return Status::fail(name(i) + ": its shard is not {k, n, jobs} with 1 <= k <= n");
    if (i == 0) n0 = n, jobs0 = jobs;
    if (n != n0 || jobs != jobs0)
      return Status::fail(name(i) + ": a shard of " + std::to_string(n) + " of " + std::to_string(jobs) + " inputs, " +
                          name(0) + " of " + std::to_string(n0) + " of " + std::to_string(jobs0) +
                          "; merge the shards of one split");
    for (long long k : ks)
      if (auto [it, fresh] = given.emplace(k, i); !fresh)
        return Status::fail(name(i) + ": shard " + std::to_string(k) + "/" + std::to_string(n) + " is also in " +
                            name(it->second) + "; give each shard's report once");
  }
  json s{{"n", n0}, {"jobs", jobs0}, {"merged", json::array()}};
  json missing = json::array();
  for (long long k = 1; k <= n0; ++k) (given.count(k) ? s["merged"] : missing).push_back(k);
  if (!missing.empty()) s["missing"] = missing;
  merged["shard"] = s;
  return Status::success();
}

}  // namespace

bool merged_shards_missing(const json& merged) {
  return merged.contains("shard") && merged["shard"].is_object() && merged["shard"].contains("missing");
}

Status merge_reports(const std::vector<json>& reports, const std::vector<std::string>& names, json& merged) {
  if (reports.empty()) return Status::fail("report merge: no reports given");
  auto name = [&](size_t i) { return i < names.size() ? names[i] : "report " + std::to_string(i + 1); };
  auto backend = [](const json& r) { return r.value("backend", json::object()).value("name", std::string()); };
  json images = json::array();
  RunRecord totals;  // for the summary: only what summary_json and bottleneck_stage read
  double wall = 0;
  int io_threads = 0;
  std::map<std::string, size_t> seen;  // input -> the report that holds it
  for (size_t i = 0; i < reports.size(); ++i) {
    const json& r = reports[i];
    if (!r.is_object() || !r.contains("images") || !r["images"].is_array() || !r.contains("summary") ||
        !r.contains("method"))
      return Status::fail(name(i) + ": not a gpublur JSON report (--report-format json)");
    // Well-formed JSON of the wrong types (a number among the images, a string for a time) is an error naming
    // the file, not an abort.
    try {
      if (r.value("schema_version", 0) != kReportSchemaVersion)
        return Status::fail(name(i) + ": schema_version " + r.value("schema_version", json(0)).dump() +
                            ", expected " + std::to_string(kReportSchemaVersion));
      const json& first = reports[0]["method"];
      if (i > 0 && (r["method"].value("name", "") != first.value("name", "") ||
                    r["method"].value("params", json::object()) != first.value("params", json::object())))
        return Status::fail(name(i) + ": a different method or parameters than " + name(0) +
                            "; merge reports of one job's shards only");
      if (i > 0 && backend(r) != backend(reports[0]))
        return Status::fail(name(i) + ": backend '" + backend(r) + "', " + name(0) + " '" + backend(reports[0]) +
                            "'; the merged report names one backend");
      // What else changes the pixels (colour handling, GL's texture precision) or may (another build) must agree too.
      // Storage names the last image's format (r32f for one channel): shards agree on its precision, 32f or 16f.
      const auto precision = [](const json& rep) {
        const std::string storage = rep.contains("backend") ? rep["backend"].value("storage", "") : "";
        return is_half_storage(storage) ? "16-bit" : "32-bit";
      };
      if (i > 0 && precision(r) != precision(reports[0]))
        return Status::fail(name(i) + ": backend storage " + precision(r) + ", " + name(0) + " " +
                            precision(reports[0]) + "; merge reports of one job's shards only");
      for (const char* at : {"/colour", "/tool/version"}) {
        const json::json_pointer p(at);
        const json mine = r.contains(p) ? r[p] : json(), theirs = reports[0].contains(p) ? reports[0][p] : json();
        if (i > 0 && mine != theirs)
          return Status::fail(name(i) + ": " + std::string(at + 1) + " " + mine.dump() + ", " + name(0) + " " +
                              theirs.dump() + "; merge reports of one job's shards only");
      }
      const json& s = r["summary"];
      // A report whose images are not those its summary counts (cut, or edited) is not one run's: it merged as whole.
      if (s.value("images", -1) != int(r["images"].size()))
        return Status::fail(name(i) + ": its summary counts " + s.value("images", json(nullptr)).dump() +
                            " image(s) and it lists " + std::to_string(r["images"].size()) + "; not a whole report");
      if (!(s.value("wall_ms", 0.0) >= 0))
        return Status::fail(name(i) + ": summary wall_ms " + s["wall_ms"].dump() + " is negative");
      wall = std::max(wall, s.value("wall_ms", 0.0));
      totals.interrupted = totals.interrupted || s.value("interrupted", false);
      io_threads = std::max(io_threads, s.value("io_threads", 0));
      for (const json& im : r["images"]) {
        if (const std::string e = image_entry_error(im); !e.empty()) return Status::fail(name(i) + ": " + e);
        const std::string input = im.at("input").get<std::string>();
        // Names that were not UTF-8 on disk reach the report with U+FFFD for their bytes: two such files may
        // read alike, so they are not taken for one image given twice. One file named two ways (in/a.png,
        // ./in//a.png) is one image: names compare lexically normalised (a report does not hold its working
        // folder, so a relative and an absolute name stay apart).
        const bool lossy = input.find("\xEF\xBF\xBD") != std::string::npos;
        if (auto [it, fresh] = seen.emplace(std::filesystem::path(input).lexically_normal().string(), i);
            !fresh && !lossy)
          return Status::fail(name(i) + ": image " + input + " is also in " + name(it->second) +
                              "; give each shard's report once");
        images.push_back(im);
        ImageRecord rec;
        rec.ok = im["status"] == "ok" || im["status"] == "skipped";
        rec.skipped = im["status"] == "skipped";
        const json t = im.value("timings_ms", json::object());
        rec.ms = {t.value("read", 0.0), t.value("upload", 0.0), t.value("compute", 0.0), t.value("download", 0.0),
                  t.value("write", 0.0)};
        totals.images.push_back(std::move(rec));
      }
    } catch (const json::exception& e) {
      return Status::fail(name(i) + ": not a well-formed gpublur report: " + e.what());
    }
  }
  merged = reports[0];
  merged.erase("shard");
  if (Status s = merge_shards(reports, name, merged); !s) return s;
  for (const char* at : {"/backend/device", "/backend/timer_clock", "/io"})
    join_distinct(merged, reports, json::json_pointer(at));
  totals.wall_ms = wall;
  totals.io_threads = io_threads;
  merged["images"] = std::move(images);
  merged["summary"] = summary_json(totals);
  return Status::success();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// csv's warnings column: an image's warnings in one field, " | " between them and line breaks as spaces, so that a
// row stays one line for line-based readers (JSON keeps them as a list).
static std::string join_warnings(const std::vector<std::string>& warnings) {
  std::string out;
  for (const auto& w : warnings) {
    if (!out.empty()) out += " | ";
    for (char c : w) out += c == '\n' || c == '\r' ? ' ' : c;
  }
  return out;
}

void write_report(std::ostream& os, const RunRecord& run, ReportFormat format) {
  switch (format) {
    case ReportFormat::Json: os << json_text(report_json(run), 2) << "\n"; break;
    case ReportFormat::Jsonl: {
      // One line per image, then one summary line carrying the run-level fields, so each line stands alone.
      for (const auto& r : run.images) {
        json j = image_json(r);
        j["type"] = "image";
        os << json_text(j) << "\n";
      }
      json s = header_json(run);
      s["type"] = "summary";
      s["summary"] = summary_json(run);
      os << json_text(s) << "\n";
      break;
    }
    case ReportFormat::Csv: {
      os << "input,output,width,height,channels,pixel_type,status,error,path,read_ms,upload_ms,compute_ms,"
            "download_ms,write_ms,total_ms,warnings\n";
      // Times as JSON writes them (shortest text that reads back the same double): the stream's 6 digits made
      // total_ms differ from the sum of its columns and wrote 1e+06 for a long write.
      const auto ms = [](double v) { return fmt::format("{}", v); };
      for (const auto& r : run.images) {
        os << csv_field(r.input) << ',' << csv_field(r.output) << ',' << r.width << ',' << r.height << ','
           << r.channels << ',' << r.pixel_type << ',' << image_status(r) << ',' << csv_field(r.error)
           << ',' << csv_field(r.path) << ',' << ms(r.ms.read) << ',' << ms(r.ms.upload) << ',' << ms(r.ms.compute)
           << ',' << ms(r.ms.download) << ',' << ms(r.ms.write) << ',' << ms(r.ms.total()) << ','
           << csv_field(join_warnings(r.warnings)) << "\n";
      }
      // csv has no summary: an interrupted run says so in a last row of its own status (JSON's summary.interrupted),
      // or its rows would pass for a whole run's.
      if (run.interrupted)
        os << ",,0,0,0,,interrupted,"
           << csv_field("the run was interrupted: images it did not reach have no row above")
           << ",,0,0,0,0,0,0,\n";
      break;
    }
  }
}

Status write_report_file(const std::string& path, const RunRecord& run, ReportFormat format) {
  if (path == "-") {
    write_report(std::cout, run, format);
    std::cout.flush();
    return std::cout ? Status::success() : Status::fail("report: cannot write to stdout");
  }
  std::ostringstream text;
  write_report(text, run, format);
  return write_text_file(path, text.str(), "report " + path);
}

}  // namespace gpublur
