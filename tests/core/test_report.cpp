// The report: fields, formats, and the JSON document against docs/report.schema.json.
#include "tests/test_paths.hpp"
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include <fmt/format.h>

#include "core/report.hpp"
#include "tests/e2e/schema_check.hpp"

namespace gpublur {
namespace {

nlohmann::json load_schema() {
  std::ifstream f(gpublur::testing::source_dir() + "/docs/report.schema.json");
  EXPECT_TRUE(f.good());
  return nlohmann::json::parse(f);
}

RunRecord sample_run() {
  RunRecord run;
  run.backend = "cpu";
  run.device = "test cpu";
  run.timer_clock = "host-clock";
  run.storage = "float32";
  run.method = "gauss-sep";
  run.params = {{"sigma", "2.5"}, {"radius", "8"}, {"border", "mirror"}, {"impl", "compute"}};
  run.effective_sigma = 2.49;
  run.radius = 8;
  run.io = "lean";
  ImageRecord ok;
  ok.input = "in/a,b.png";
  ok.output = "out/a,b.png";
  ok.width = 7, ok.height = 3, ok.channels = 4;
  ok.pixel_type = "uint8";
  ok.ok = true;
  ok.path = "reference";
  ok.ms = {1.5, 0.25, 3.0, 0.25, 2.0};
  ImageRecord bad;
  bad.input = "in/bad.exr";
  bad.output = "out/bad.exr";
  bad.error = "in/bad.exr: truncated file, \"quoted\"";
  run.images = {ok, bad};
  run.wall_ms = 10;
  return run;
}

TEST(Report, JsonHasEveryFieldAndMatchesSchema) {
  const RunRecord run = sample_run();
  const nlohmann::json j = report_json(run);
  EXPECT_EQ(j["schema_version"], kReportSchemaVersion);
  EXPECT_EQ(j["tool"]["name"], "gpublur");
  EXPECT_EQ(j["tool"]["version"], GPUBLUR_VERSION);
  EXPECT_EQ(j["backend"]["timer_clock"], "host-clock");
  EXPECT_EQ(j["backend"]["storage"], "float32");
  EXPECT_EQ(j["method"]["params"]["border"], "mirror");
  EXPECT_EQ(j["method"]["radius"], 8);
  ASSERT_EQ(j["images"].size(), 2u);
  EXPECT_EQ(j["images"][0]["status"], "ok");
  EXPECT_DOUBLE_EQ(j["images"][0]["timings_ms"]["total"].get<double>(), 7.0);
  EXPECT_EQ(j["images"][1]["status"], "error");
  EXPECT_EQ(j["summary"]["images"], 2);
  EXPECT_EQ(j["summary"]["failed"], 1);
  EXPECT_DOUBLE_EQ(j["summary"]["images_per_second"].get<double>(), 100.0);  // 1 ok image in 10 ms
  EXPECT_DOUBLE_EQ(j["summary"]["stage_totals_ms"]["compute"].get<double>(), 3.0);
  EXPECT_EQ(j["summary"]["bottleneck"], "backend");  // 3.5 ms on the backend thread vs read 1.5, write 2
  const auto errors = testing::schema_errors(load_schema(), j);
  EXPECT_TRUE(errors.empty()) << errors.front();
}

// Every image failed (their reads took time): no stage limited a throughput, as cli.md says ("decode" before).
TEST(Report, BottleneckIsNoneWhereNoImageRan) {
  RunRecord run = sample_run();
  run.images[0].ok = false;
  run.images[0].error = "in/a.exr: truncated";
  run.images[1].ms.read = 4.0;
  EXPECT_EQ(report_json(run)["summary"]["bottleneck"], "none");
}

TEST(Report, BottleneckWeighsStagesByTheirThreads) {
  RunRecord run = sample_run();
  run.images[0].ms = {8.0, 0.5, 1.0, 0.5, 6.0};
  run.io_threads = 1;
  EXPECT_EQ(bottleneck_stage(run), "decode");  // 8 > 2 (backend) and 6
  run.io_threads = 8;
  EXPECT_EQ(bottleneck_stage(run), "backend");  // 8/8 and 6/8 on eight threads each vs 2 on one
  run.images[0].ms = {0.5, 0.5, 1.0, 0.5, 60.0};
  EXPECT_EQ(bottleneck_stage(run), "encode");
  run.images[0].ms = {};
  run.images[1].ms = {};
  EXPECT_EQ(bottleneck_stage(run), "none");
}

TEST(Report, SchemaCheckerCatchesViolations) {
  nlohmann::json j = report_json(sample_run());
  j["images"][0].erase("timings_ms");
  j["summary"]["failed"] = "one";
  j["extra"] = 1;
  const auto errors = testing::schema_errors(load_schema(), j);
  EXPECT_EQ(errors.size(), 3u);
}

TEST(Report, JsonLinesOneLinePerImagePlusSummary) {
  std::ostringstream o;
  write_report(o, sample_run(), ReportFormat::Jsonl);
  std::istringstream in(o.str());
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["type"], "image");
  EXPECT_EQ(lines[1]["error"], "in/bad.exr: truncated file, \"quoted\"");
  EXPECT_EQ(lines[2]["type"], "summary");
  EXPECT_EQ(lines[2]["summary"]["failed"], 1);
  EXPECT_EQ(lines[2]["method"]["name"], "gauss-sep");
}

// File names are bytes: one that is not UTF-8 (here 0xff 0xfe) is written as U+FFFD in every JSON form instead of
// aborting the run (nlohmann's dump throws type_error.316 by default).
TEST(Report, NamesThatAreNotUtf8AreReplacedNotFatal) {
  RunRecord run = sample_run();
  run.images[0].input = "in/bad\xff\xfe.png";
  for (ReportFormat f : {ReportFormat::Json, ReportFormat::Jsonl}) {
    std::ostringstream o;
    ASSERT_NO_THROW(write_report(o, run, f));
    std::istringstream in(o.str());
    std::string first;
    std::getline(in, first);
    const nlohmann::json j = nlohmann::json::parse(f == ReportFormat::Json ? o.str() : first);
    const nlohmann::json& image = f == ReportFormat::Json ? j["images"][0] : j;
    EXPECT_EQ(image["input"], "in/bad\ufffd\ufffd.png");
  }
  EXPECT_EQ(json_text(nlohmann::json("a\xff")), "\"a\ufffd\"");
}

TEST(Report, CsvHeaderAndQuotedRows) {
  std::ostringstream o;
  write_report(o, sample_run(), ReportFormat::Csv);
  std::istringstream in(o.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("input,output,width,height,channels,pixel_type,status,error,path,read_ms", 0), 0u);
  EXPECT_EQ(lines[1].rfind("\"in/a,b.png\",\"out/a,b.png\",7,3,4,uint8,ok,,reference,1.5,", 0), 0u);
  EXPECT_NE(lines[2].find("\"in/bad.exr: truncated file, \"\"quoted\"\"\""), std::string::npos);
  EXPECT_EQ(csv_field("plain"), "plain");
}

// csv times as JSON gives them (the stream's 6 digits wrote 1.23457e+06 and a total unequal to its columns' sum); an
// interrupted run ends with a row of its own status, csv having no summary line.
TEST(Report, CsvTimesInFullAndAnInterruptedRunSaysSo) {
  RunRecord run = sample_run();
  run.images[0].ms = {1234567.891, 0.1, 0.2, 0.3, 10.05816};
  run.interrupted = true;
  std::ostringstream o;
  write_report(o, run, ReportFormat::Csv);
  std::istringstream in(o.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u) << o.str();
  EXPECT_NE(lines[1].find(",1234567.891,0.1,0.2,0.3,10.05816,"), std::string::npos) << lines[1];
  const std::string no_warnings = lines[1].substr(0, lines[1].size() - 1);  // the last field (warnings) empty
  EXPECT_EQ(lines[1].back(), ',');
  EXPECT_EQ(no_warnings.substr(no_warnings.rfind(',') + 1), fmt::format("{}", run.images[0].ms.total()));
  EXPECT_EQ(lines[3].rfind(",,0,0,0,,interrupted,the run was interrupted", 0), 0u) << lines[3];
  run.interrupted = false;
  std::ostringstream whole;
  write_report(whole, run, ReportFormat::Csv);
  EXPECT_EQ(whole.str().find("interrupted"), std::string::npos);
}

// csv carries an image's warnings in a last column, one field a row whatever they hold (it had none: "ok" and "ok with
// losses" read the same there).
TEST(Report, CsvCarriesWarnings) {
  RunRecord run = sample_run();
  run.images[0].warnings = {"an EXR's other parts dropped", "a, \"quoted\"\nsecond line"};
  std::ostringstream o;
  write_report(o, run, ReportFormat::Csv);
  std::istringstream in(o.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << o.str();
  EXPECT_EQ(lines[0].substr(lines[0].rfind(',') + 1), "warnings");
  const std::string want = ",\"an EXR's other parts dropped | a, \"\"quoted\"\" second line\"";
  ASSERT_GE(lines[1].size(), want.size());
  EXPECT_EQ(lines[1].substr(lines[1].size() - want.size()), want) << lines[1];
  EXPECT_EQ(lines[2].back(), ',') << lines[2];  // no warnings: an empty last field
}

TEST(Report, FormatNames) {
  ReportFormat f;
  EXPECT_TRUE(parse_report_format("csv", f));
  EXPECT_EQ(f, ReportFormat::Csv);
  EXPECT_FALSE(parse_report_format("xml", f));
}

// Shards state their split (k, n, the whole job's inputs): the merge refuses other splits and a shard twice, and lists
// the shards it merged and those missing (merging 1/2 and 2/4 of 16 inputs, or 2 of 3 shards, passed as complete).
TEST(Report, MergeChecksTheShardsOfOneSplit) {
  const auto shard = [](int k, int n, size_t jobs) {
    RunRecord r = sample_run();
    r.shard_k = k, r.shard_n = n, r.shard_jobs = jobs;
    for (auto& im : r.images) im.input += "-" + std::to_string(k) + "of" + std::to_string(n);
    return report_json(r);
  };
  const nlohmann::json s1 = shard(1, 3, 6), s2 = shard(2, 3, 6), s3 = shard(3, 3, 6);
  EXPECT_EQ(s1["shard"], (nlohmann::json{{"k", 1}, {"n", 3}, {"jobs", 6}}));
  EXPECT_TRUE(testing::schema_errors(load_schema(), s1).empty());
  nlohmann::json m;
  ASSERT_TRUE(merge_reports({s3, s1, s2}, {"c", "a", "b"}, m).ok());
  EXPECT_EQ(m["shard"], (nlohmann::json{{"n", 3}, {"jobs", 6}, {"merged", {1, 2, 3}}}));
  EXPECT_FALSE(merged_shards_missing(m));
  EXPECT_TRUE(testing::schema_errors(load_schema(), m).empty());

  ASSERT_TRUE(merge_reports({s1, s3}, {"a", "c"}, m).ok());
  EXPECT_EQ(m["shard"]["missing"], nlohmann::json({2}));
  EXPECT_TRUE(merged_shards_missing(m));
  EXPECT_TRUE(testing::schema_errors(load_schema(), m).empty());
  nlohmann::json all;  // a merged report merges again with the rest
  ASSERT_TRUE(merge_reports({m, s2}, {"m", "b"}, all).ok());
  EXPECT_FALSE(merged_shards_missing(all));
  EXPECT_EQ(all["images"].size(), 6u);

  Status s = merge_reports({s1, shard(2, 4, 6)}, {"a", "b"}, m);
  EXPECT_NE(s.error.find("merge the shards of one split"), std::string::npos) << s.error;
  s = merge_reports({s1, shard(2, 3, 7)}, {"a", "b"}, m);
  EXPECT_NE(s.error.find("merge the shards of one split"), std::string::npos) << s.error;
  nlohmann::json again = shard(1, 3, 6);  // shard 1 run twice (other names: not caught as duplicate images)
  for (auto& im : again["images"]) im["input"] = im["input"].get<std::string>() + "x";
  s = merge_reports({s1, again}, {"a", "a2"}, m);
  EXPECT_NE(s.error.find("shard 1/3 is also in a"), std::string::npos) << s.error;
  s = merge_reports({s1, report_json(sample_run())}, {"a", "whole"}, m);
  EXPECT_NE(s.error.find("whole: not a shard's report"), std::string::npos) << s.error;
  nlohmann::json bad = s2;
  bad["shard"]["k"] = 4;
  EXPECT_FALSE(merge_reports({s1, bad}, {"a", "b"}, m).ok());
}

TEST(Report, MergeOfShardsConcatenatesAndRecomputesTheSummary) {
  RunRecord a = sample_run(), b = sample_run();
  a.io_threads = b.io_threads = 2;
  b.images.pop_back();   // b: one ok image
  b.images[0].input = "in/c.png", b.images[0].output = "out/c.png";
  b.wall_ms = 25;        // the slower shard
  const nlohmann::json ja = report_json(a), jb = report_json(b);
  nlohmann::json m;
  ASSERT_TRUE(merge_reports({ja, jb}, {"a.json", "b.json"}, m).ok());
  EXPECT_EQ(m["images"].size(), 3u);
  EXPECT_EQ(m["summary"]["images"], 3);
  EXPECT_EQ(m["summary"]["failed"], 1);
  EXPECT_DOUBLE_EQ(m["summary"]["wall_ms"].get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(m["summary"]["images_per_second"].get<double>(), 80.0);  // 2 ok in 25 ms
  EXPECT_DOUBLE_EQ(m["summary"]["stage_totals_ms"]["compute"].get<double>(), 6.0);
  const auto errors = testing::schema_errors(load_schema(), m);
  EXPECT_TRUE(errors.empty()) << errors.front();

  nlohmann::json other = jb;
  other["method"]["params"]["sigma"] = "9";
  Status s = merge_reports({ja, other}, {"a.json", "b.json"}, m);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("b.json"), std::string::npos);
  EXPECT_FALSE(merge_reports({nlohmann::json::object()}, {"x.json"}, m).ok());

  // One shard's report twice, another backend's, and well-formed JSON of the wrong types: errors naming the file.
  s = merge_reports({ja, jb, jb}, {"a.json", "b.json", "b2.json"}, m);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("in/c.png is also in b.json"), std::string::npos) << s.error;
  // The same image named another way is still given twice.
  other = jb;
  for (auto& im : other["images"]) im["input"] = "./" + im["input"].get<std::string>();
  s = merge_reports({ja, jb, other}, {"a.json", "b.json", "b2.json"}, m);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("is also in b.json"), std::string::npos) << s.error;
  other = jb;
  other["backend"]["name"] = "gl";
  s = merge_reports({ja, other}, {"a.json", "b.json"}, m);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("backend 'gl'"), std::string::npos) << s.error;
  for (int k = 0; k < 3; ++k) {
    other = jb;
    if (k == 0) other["images"].push_back(7);
    if (k == 1) other["summary"]["wall_ms"] = "fast";
    if (k == 2) other["method"] = 3;
    s = merge_reports({ja, other}, {"a.json", "b.json"}, m);
    EXPECT_FALSE(s.ok()) << k;
    EXPECT_NE(s.error.find("b.json"), std::string::npos) << s.error;
  }
}

// A merged report is still one the schema allows: image entries it would not are errors naming the file (they
// were passed through, a status 'bogus' counted as failed, missing timings as 0).
TEST(Report, MergeRefusesImageEntriesTheSchemaDoesNotAllow) {
  RunRecord a = sample_run(), b = sample_run();
  for (auto& im : b.images) im.input = "in/b-" + im.input.substr(3);
  const nlohmann::json ja = report_json(a), jb = report_json(b);
  nlohmann::json m;
  ASSERT_TRUE(merge_reports({ja, jb}, {"a.json", "b.json"}, m).ok());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/images/0/status", "is not ok, skipped or error"}, {"/images/0/width", "width is not an integer"},
      {"/images/1/timings_ms", "timings_ms.read"}, {"/images/0/output", "output is not a string"},
      {"/images/0/colour", "unknown fields"}};
  for (const auto& [at, expect] : cases) {
    nlohmann::json bad = jb;
    const nlohmann::json::json_pointer p(at);
    if (at.find("status") != std::string::npos) bad[p] = "bogus";
    else if (at.find("width") != std::string::npos) bad[p] = -5;
    else if (at.find("colour") != std::string::npos) bad[p] = "red";
    else bad[p.parent_pointer()].erase(p.back());
    const Status s = merge_reports({ja, bad}, {"a.json", "b.json"}, m);
    EXPECT_FALSE(s.ok()) << at;
    EXPECT_NE(s.error.find("b.json: "), std::string::npos) << s.error;
    EXPECT_NE(s.error.find(expect), std::string::npos) << s.error;
  }
  // An image's warnings go through a merge as they are; warnings that are no list of strings are refused.
  nlohmann::json warned = jb;
  warned["images"][0]["warnings"] = nlohmann::json::array({"'x.exr': a loss"});
  ASSERT_TRUE(merge_reports({ja, warned}, {"a.json", "b.json"}, m).ok());
  int kept = 0;
  for (const auto& im : m["images"]) kept += im.contains("warnings") && im["warnings"][0] == "'x.exr': a loss";
  EXPECT_EQ(kept, 1) << m.dump();
  for (const nlohmann::json& bad : {nlohmann::json::array({1}), nlohmann::json::array(), nlohmann::json("a loss")}) {
    warned["images"][0]["warnings"] = bad;
    const Status s = merge_reports({ja, warned}, {"a.json", "b.json"}, m);
    EXPECT_FALSE(s.ok()) << bad.dump();
    EXPECT_NE(s.error.find("warnings is not a list of strings"), std::string::npos) << s.error;
  }
  // A report whose images are not those its summary counts (cut, edited: it merged as whole) or whose wall time is
  // negative is refused, naming it.
  nlohmann::json cut = jb;
  cut["images"] = nlohmann::json::array();
  Status s = merge_reports({ja, cut}, {"a.json", "b.json"}, m);
  EXPECT_NE(s.error.find("b.json: its summary counts 2 image(s) and it lists 0"), std::string::npos) << s.error;
  nlohmann::json negative = jb;
  negative["summary"]["wall_ms"] = -5;
  s = merge_reports({ja, negative}, {"a.json", "b.json"}, m);
  EXPECT_NE(s.error.find("b.json: summary wall_ms -5"), std::string::npos) << s.error;
}

// Shards must agree on what changes the pixels (colour handling, GL storage) and on the build; where they ran
// (device, timer, I/O adapter) may differ, and the merged report lists every value instead of the first's.
TEST(Report, MergeComparesColourStorageVersionAndListsDevices) {
  RunRecord a = sample_run(), b = sample_run();
  for (auto& im : b.images) im.input = "in/b-" + im.input.substr(3);
  const nlohmann::json ja = report_json(a), jb = report_json(b);
  nlohmann::json m;
  for (const char* at : {"/colour/linear", "/backend/storage", "/tool/version"}) {
    nlohmann::json other = jb;
    const nlohmann::json::json_pointer p(at);
    other[p] = other[p].is_boolean() ? nlohmann::json(!other[p].get<bool>()) : nlohmann::json("rgba16f");
    const Status s = merge_reports({ja, other}, {"a.json", "b.json"}, m);
    EXPECT_FALSE(s.ok()) << at;
    EXPECT_NE(s.error.find("b.json"), std::string::npos) << s.error;
  }
  nlohmann::json other = jb, third = jb;
  other["backend"]["device"] = "GPU two";
  other["io"] = "oiio";
  for (auto& im : third["images"]) im["input"] = "in/c-" + im["input"].get<std::string>().substr(3);
  ASSERT_TRUE(merge_reports({ja, other, third}, {"a.json", "b.json", "c.json"}, m).ok());
  EXPECT_EQ(m["backend"]["device"], ja["backend"]["device"].get<std::string>() + "; GPU two");
  EXPECT_EQ(m["io"], ja["io"].get<std::string>() + "; oiio");
  EXPECT_EQ(m["backend"]["timer_clock"], ja["backend"]["timer_clock"]);
  // GL's storage names the last image's format: shards whose last images had other channel counts merge (one
  // precision); 32-bit and 16-bit do not.
  nlohmann::json g1 = ja, g2 = jb;
  g1["backend"]["storage"] = "rgba32f", g2["backend"]["storage"] = "r32f";
  EXPECT_TRUE(merge_reports({g1, g2}, {"a.json", "b.json"}, m).ok());
  g2["backend"]["storage"] = "rg16f";
  const Status s = merge_reports({g1, g2}, {"a.json", "b.json"}, m);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("16-bit"), std::string::npos) << s.error;
}

// Names that were not UTF-8 on disk read alike in JSON (U+FFFD): two shards' such files are not one image twice.
TEST(Report, MergeKeepsLossyNamesOfDifferentFiles) {
  RunRecord a = sample_run(), b = sample_run();
  a.images.resize(1), b.images.resize(1);
  a.images[0].input = "in/\xff.png", b.images[0].input = "in/\xfe.png";
  const nlohmann::json ja = report_json(a), jb = report_json(b);
  nlohmann::json m;
  ASSERT_TRUE(merge_reports(
      {nlohmann::json::parse(json_text(ja)), nlohmann::json::parse(json_text(jb))}, {"a.json", "b.json"}, m).ok());
  EXPECT_EQ(m["images"].size(), 2u);
}

}  // namespace
}  // namespace gpublur
