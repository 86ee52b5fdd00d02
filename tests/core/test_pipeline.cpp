// The batch pipeline's pieces: input expansion and output mapping, pixel types, temp names, the bounded
// queue, a run of wide (more than 4 channel) images through the CPU backend, and bench helpers.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <filesystem>
#include <map>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "core/bench.hpp"
#include "core/io/image_io.hpp"
#include "core/parallel.hpp"
#include "core/pipeline.hpp"
#include "core/reference/reference.hpp"
#include "core/report.hpp"
#include "core/warning_capture.hpp"
#include "tests/core/nonfinite_footprint.hpp"
#include "tests/core/random_image.hpp"

namespace fs = std::filesystem;

namespace gpublur {
namespace {

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("gpublur-pipeline-" + std::to_string(getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  fs::path operator/(const std::string& s) const { return path_ / s; }
  std::string str() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "x";
}

std::map<std::string, std::string> outputs_by_input(const std::vector<Job>& jobs) {
  std::map<std::string, std::string> m;
  for (const auto& j : jobs) m[fs::path(j.input).lexically_normal().string()] = j.output;
  return m;
}

// A download's host image keeps its buffer where it holds as many values (the pipeline downloads into the image it
// uploaded), else a new one of the shape.
TEST(Pipeline, DownloadShapeKeepsABufferOfTheSameCount) {
  Image img(6, 4, 3);
  img.data[5] = 7.0f;
  const float* buffer = img.data.data();
  shape_for_download(img, 8, 3, 3);
  EXPECT_EQ(img.data.data(), buffer);
  EXPECT_EQ(img.width, 8);
  EXPECT_EQ(img.height, 3);
  EXPECT_EQ(img.channels, 3);
  shape_for_download(img, 8, 3, 4);
  EXPECT_EQ(img.width, 8);
  EXPECT_EQ(img.channels, 4);
  ASSERT_EQ(img.data.size(), 96u);
  EXPECT_EQ(img.data[5], 0.0f);
}

TEST(Pipeline, ImageNamesAreExrOrPngAnyCase) {
  EXPECT_TRUE(is_image_name("a/b.PNG"));
  EXPECT_TRUE(is_image_name("x.Exr"));
  EXPECT_FALSE(is_image_name("x.jpg"));
  EXPECT_FALSE(is_image_name("png"));
}

TEST(Pipeline, PathListFromStdin) {
  std::istringstream in("a.png\r\n\n  \nsub/b.exr  \n");
  const auto v = read_path_list(in);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], "a.png");
  EXPECT_EQ(v[1], "sub/b.exr");
  // find -print0: NUL-separated, names kept whole (a newline, trailing spaces); read by lines, "big.png\0b.png"
  // was one name whose NUL cut it to big.png, written under b.png's output name.
  const char list[] = "big.png\0in/b c.png \0odd\nname.exr\0\0";
  std::istringstream nul(std::string(list, sizeof list - 1));
  const auto w = read_path_list(nul);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0], "big.png");
  EXPECT_EQ(w[1], "in/b c.png ");
  EXPECT_EQ(w[2], "odd\nname.exr");
}

TEST(Pipeline, FolderIsFlatUnlessRecursive) {
  TempDir d;
  touch(d / "in/a.png");
  touch(d / "in/B.EXR");
  touch(d / "in/notes.txt");
  touch(d / "in/.hidden.png");
  touch(d / "in/sub/c.png");
  std::vector<Job> jobs;
  CollectOptions o{(d / "out").string(), false, ""};
  ASSERT_TRUE(collect_jobs({(d / "in").string()}, o, jobs).ok());
  ASSERT_EQ(jobs.size(), 2u);
  auto m = outputs_by_input(jobs);
  EXPECT_EQ(m[(d / "in/a.png").string()], (d / "out/a.png").string());
  EXPECT_EQ(m[(d / "in/B.EXR").string()], (d / "out/B.EXR").string());

  o.recursive = true;
  ASSERT_TRUE(collect_jobs({(d / "in").string()}, o, jobs).ok());
  ASSERT_EQ(jobs.size(), 3u);
  m = outputs_by_input(jobs);
  EXPECT_EQ(m[(d / "in/sub/c.png").string()], (d / "out/sub/c.png").string());
  for (const auto& j : jobs) EXPECT_EQ(j.error, "");
}

// --format sets the extension for every input, in lower case: an input already in that format kept its spelling, so
// x.EXR and x.png under --format exr wrote x.EXR and x.exr (apart only by case: one file on case-insensitive disks).
TEST(Pipeline, FormatGivesEveryOutputItsLowerCaseExtension) {
  TempDir d;
  touch(d / "in/x.EXR");
  touch(d / "in/y.png");
  touch(d / "in/z.exr");
  std::vector<Job> jobs;
  CollectOptions o{(d / "out").string(), false, "exr"};
  ASSERT_TRUE(collect_jobs({(d / "in").string()}, o, jobs).ok());
  auto m = outputs_by_input(jobs);
  EXPECT_EQ(m[(d / "in/x.EXR").string()], (d / "out/x.exr").string());
  EXPECT_EQ(m[(d / "in/y.png").string()], (d / "out/y.exr").string());
  EXPECT_EQ(m[(d / "in/z.exr").string()], (d / "out/z.exr").string());
  o.format = "";  // without --format every output keeps its input's name
  ASSERT_TRUE(collect_jobs({(d / "in").string()}, o, jobs).ok());
  m = outputs_by_input(jobs);
  EXPECT_EQ(m[(d / "in/x.EXR").string()], (d / "out/x.EXR").string());
  touch(d / "in/x.png");  // x.EXR and x.png: one output x.exr under --format exr (it made x.EXR and x.exr)
  o.format = "exr";
  const Status both = collect_jobs({(d / "in").string()}, o, jobs);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error.find("both map to output"), std::string::npos) << both.error;
}

// On a case-insensitive disk x.exr is x.EXR: `blur in/x.EXR -o in --format exr` would replace the input. Names that
// differ only by case in one folder, one file already there, are one entry; the test makes that file a hard link
// under the lower-case name (a case-sensitive disk's stand-in), which the check cannot tell from the same entry.
TEST(Pipeline, FormatsLowerCaseNameOfTheInputItselfIsRefused) {
  TempDir d;
  touch(d / "in/x.EXR");
  std::vector<Job> jobs;
  CollectOptions o{(d / "in").string(), false, "exr"};
  ASSERT_TRUE(collect_jobs({(d / "in/x.EXR").string()}, o, jobs).ok());  // no x.exr yet: a new file beside it
  fs::create_hard_link(d / "in/x.EXR", d / "in/x.exr");
  const Status s = collect_jobs({(d / "in/x.EXR").string()}, o, jobs);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("would overwrite an input"), std::string::npos) << s.error;
  fs::remove(d / "in/x.exr");
  touch(d / "in/x.exr");  // another file of that name (a case-sensitive disk): replaced, as any output is
  EXPECT_TRUE(collect_jobs({(d / "in/x.EXR").string()}, o, jobs).ok());
}

TEST(Pipeline, RecursiveScanSkipsTheOutputFolderInsideTheInput) {
  TempDir d;
  touch(d / "in/a.png");
  touch(d / "in/out/a.png");  // a previous run's output
  std::vector<Job> jobs;
  CollectOptions o{(d / "in/out").string(), true, ""};
  ASSERT_TRUE(collect_jobs({(d / "in").string()}, o, jobs).ok());
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].output, (d / "in/out/a.png").string());
}

// The output folder mounted inside the input folder under another name (a bind mount) is the output folder too: the
// scan compared real paths as text, so a rerun blurred the previous outputs again, into out/view/, and so on. The
// check runs in a child's own mount namespace (skipped where none can be made).
TEST(Pipeline, RecursiveScanSkipsTheOutputFolderMountedInsideTheInput) {
  TempDir d;
  touch(d / "in/a.png");
  touch(d / "out/a.png");  // a previous run's output
  fs::create_directories(d / "in/view");
  // A mount namespace of its own, private, so that the bind mount stays in the child.
  auto own_namespace = [] {
    if (::unshare(CLONE_NEWNS) != 0 && ::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
    return ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
  };
  const pid_t probe = ::fork();
  if (probe == 0) ::_exit(own_namespace() ? 0 : 1);
  int status = 0;
  ASSERT_EQ(::waitpid(probe, &status, 0), probe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) GTEST_SKIP() << "no mount namespace can be made here";
  auto check = [&] {
    if (!own_namespace() ||
        ::mount((d / "out").c_str(), (d / "in/view").c_str(), nullptr, MS_BIND, nullptr) != 0)
      std::_Exit(3);
    std::vector<Job> jobs;
    CollectOptions o{(d / "out").string(), true, ""};
    if (!collect_jobs({(d / "in").string()}, o, jobs).ok()) std::_Exit(4);
    for (const Job& j : jobs) std::fprintf(stderr, "job %s -> %s\n", j.input.c_str(), j.output.c_str());
    std::_Exit(jobs.size() == 1 && jobs[0].input == (d / "in/a.png").string() ? 0 : 5);
  };
  EXPECT_EXIT(check(), ::testing::ExitedWithCode(0), "");
}

// A folder that cannot be listed (here: no read permission; root reads everything, so the check runs as
// nobody in a child process) is a failed job naming it, and the other inputs go on: a recursive scan dropped
// such a sub-folder's images in silence, and a folder named on the command line ended the batch as a usage error.
TEST(Pipeline, UnlistableFoldersAreFailedJobsNamingThem) {
  TempDir d;
  touch(d / "in/a.png");
  touch(d / "in/locked/b.png");
  touch(d / "locked2/c.png");
  touch(d / "x.png");
  fs::permissions(d / "in/locked", fs::perms::none);
  fs::permissions(d / "locked2", fs::perms::none);
  for (const fs::path& p : {d / "", d / "in", d / "x.png", d / "in/a.png"})
    fs::permissions(p, fs::perms::others_read | fs::perms::others_exec, fs::perm_options::add);
  auto check = [&] {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) std::_Exit(3);
    std::vector<Job> jobs;
    CollectOptions o{(d / "out").string(), true, ""};
    if (!collect_jobs({(d / "in").string(), (d / "locked2").string(), (d / "x.png").string()}, o, jobs).ok())
      std::_Exit(4);
    int ok = 0, failed = 0;
    for (const Job& j : jobs) {
      std::fprintf(stderr, "job %s: %s\n", j.input.c_str(), j.error.c_str());
      if (j.error.empty()) ++ok;
      else if (j.error.find("cannot list folder") != std::string::npos &&
               j.error.find(j.input) != std::string::npos && j.input.find("locked") != std::string::npos)
        ++failed;
    }
    std::_Exit(ok == 2 && failed == 2 && jobs.size() == 4 ? 0 : 5);
  };
  EXPECT_EXIT(check(), ::testing::ExitedWithCode(0), "");
  fs::permissions(d / "in/locked", fs::perms::owner_all);
  fs::permissions(d / "locked2", fs::perms::owner_all);
}

// A broken symbolic link with an image's name in a scanned folder (a missing frame) is a failed job naming it, as
// the same name given explicitly is; it was skipped in silence and the run passed as complete.
TEST(Pipeline, BrokenLinkInFolderIsAFailedJob) {
  TempDir d;
  touch(d / "in/a.png");
  fs::create_symlink("missing_frame.exr", d / "in/frame_0002.exr");
  fs::create_symlink("missing.txt", d / "in/notes.txt");  // not an image's name: not listed
  std::vector<Job> jobs;
  CollectOptions o{(d / "out").string(), false, ""};
  ASSERT_TRUE(collect_jobs({(d / "in").string()}, o, jobs).ok());
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_TRUE(jobs[0].error.empty()) << jobs[0].error;
  EXPECT_NE(jobs[1].error.find("frame_0002.exr: broken symbolic link"), std::string::npos) << jobs[1].error;
  // A link to itself is no missing target: the error says why it cannot be followed (ELOOP).
  fs::create_symlink("loop.png", d / "in/loop.png");
  jobs.clear();
  ASSERT_TRUE(collect_jobs({(d / "in").string()}, o, jobs).ok());
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_NE(jobs[2].error.find("loop.png: symbolic link that cannot be followed: Too many levels of symbolic links"),
            std::string::npos)
      << jobs[2].error;
}

// The failed names sort among the files: broken links came after every file, in the folder's raw listing order
// (z.png then a, g, c, h, d, e, f, b on ext4).
TEST(Pipeline, BrokenLinksSortAmongTheFolderFiles) {
  TempDir d;
  touch(d / "in/c.png");
  touch(d / "in/z.png");
  for (const char* name : {"h.png", "a.png", "e.png", "b.exr"}) fs::create_symlink("gone", d / "in" / name);
  std::vector<Job> jobs;
  CollectOptions o{(d / "out").string(), false, ""};
  ASSERT_TRUE(collect_jobs({(d / "in").string()}, o, jobs).ok());
  std::vector<std::string> names;
  for (const Job& j : jobs) names.push_back(fs::path(j.input).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"a.png", "b.exr", "c.png", "e.png", "h.png", "z.png"}));
  EXPECT_TRUE(jobs[2].error.empty() && jobs[5].error.empty());
  EXPECT_FALSE(jobs[0].error.empty());
}

TEST(Pipeline, FormatChangesExtension) {
  TempDir d;
  touch(d / "a.png");
  touch(d / "b.exr");
  std::vector<Job> jobs;
  CollectOptions o{(d / "out").string(), false, "exr"};
  ASSERT_TRUE(collect_jobs({(d / "a.png").string(), (d / "b.exr").string()}, o, jobs).ok());
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].output, (d / "out/a.exr").string());
  EXPECT_EQ(jobs[0].format, "exr");
  EXPECT_EQ(jobs[1].output, (d / "out/b.exr").string());
}

// --report is checked like an output: never an input's or an output's file (through any spelling), never in a
// missing folder; "-" and any other file pass.
TEST(Pipeline, ReportPathIsNeitherAnInputNorAnOutput) {
  TempDir d;
  touch(d / "in/a.png");
  std::vector<Job> jobs;
  auto with_report = [&](const std::string& report) {
    CollectOptions o{(d / "out").string(), false, "", report};
    return collect_jobs({(d / "in").string()}, o, jobs);
  };
  Status s = with_report((d / "in/./a.png").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("would overwrite the input"), std::string::npos) << s.error;
  s = with_report((d / "out/a.png").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("would overwrite the output"), std::string::npos) << s.error;
  s = check_text_file_target("--report", (d / "nodir/r.json").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("does not exist"), std::string::npos) << s.error;
  EXPECT_FALSE(check_text_file_target("--report", (d / "in").string()).ok());
  for (const std::string& ok : {(d / "r.json").string(), (d / "in/r.json").string(), std::string("-")}) {
    EXPECT_TRUE(with_report(ok).ok()) << ok;
    EXPECT_TRUE(check_text_file_target("--report", ok).ok()) << ok;
  }
  ASSERT_EQ(jobs.size(), 1u);
}

TEST(Pipeline, OutputEqualToAnInputIsRefused) {
  TempDir d;
  touch(d / "a.png");
  std::vector<Job> jobs;
  // -o is the input's own folder, reached through a different spelling.
  CollectOptions o{(d / "." / "").string(), false, ""};
  Status s = collect_jobs({(d / "a.png").string()}, o, jobs);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("would overwrite an input"), std::string::npos) << s.error;

  // Another input's output landing on this input is refused too: x/a.png -> d/a.png where d/a.png is an input.
  touch(d / "x/a.png");
  o.output_dir = d.str();
  o.format = "";
  s = collect_jobs({(d / "x/a.png").string(), (d / "x").string() + "/../a.png"}, o, jobs);
  EXPECT_FALSE(s.ok());
}

TEST(Pipeline, TwoInputsOneOutputIsRefused) {
  TempDir d;
  touch(d / "x/a.png");
  touch(d / "y/a.png");
  std::vector<Job> jobs;
  CollectOptions o{(d / "out").string(), false, ""};
  const Status s = collect_jobs({(d / "x").string(), (d / "y/a.png").string()}, o, jobs);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("both map to output"), std::string::npos) << s.error;
}

// An output is the folder entry the rename replaces: links in the output folder, to another output or to an input,
// are no collision (the first was "inputs a and b both map to output out/b.png", exit 2, under --skip-existing too).
TEST(Pipeline, LinksInTheOutputFolderAreTheirOwnOutputs) {
  TempDir d;
  touch(d / "in/a.png");
  touch(d / "in/b.png");
  touch(d / "in/c.png");
  touch(d / "out/a.png");
  fs::create_symlink("a.png", d / "out/b.png");
  fs::create_symlink(d / "in/c.png", d / "out/c.png");
  std::vector<Job> jobs;
  CollectOptions o{(d / "out").string(), false, ""};
  const Status s = collect_jobs({(d / "in").string()}, o, jobs);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(jobs.size(), 3u);
  // A link as an input, and its output at the link's own entry: still refused (that would replace what was named).
  fs::create_symlink(d / "in/a.png", d / "out/d.png");
  jobs.clear();
  CollectOptions here{(d / "out").string(), false, ""};
  EXPECT_FALSE(collect_jobs({(d / "out/d.png").string()}, here, jobs).ok());
}

// Every link a path passes through counts: an output replacing a link in the middle of an input's chain (in/e.png ->
// out/e.png -> data.png: the next run would read the blurred image), or of the report's (out/a.png -> r.json with
// --report out/a.png, or r.json -> out/a.png -> old.png: the report was written over the image), or a link to a file
// not written yet (r.json -> out/a.png), or an output folder's link to a folder not made yet (out/y -> x: out/x/a.png
// and out/y/a.png are one file), or through a link to "//", or a folder link in the middle of a path (out/b.png ->
// ../rdir with --report out/b.png/r.json: the image replaced the link, then the report failed).
TEST(Pipeline, EveryLinkOfAChainIsThePathsToo) {
  TempDir d;
  touch(d / "in/a.png");
  touch(d / "data.png");
  touch(d / "old.png");
  fs::create_directories(d / "out");
  fs::create_symlink("../out/e.png", d / "in/e.png");
  fs::create_symlink("../data.png", d / "out/e.png");
  std::vector<Job> jobs;
  auto collect = [&](const std::vector<std::string>& inputs, const std::string& report, bool recursive = false) {
    jobs.clear();
    CollectOptions o{(d / "out").string(), recursive, "", report};
    return collect_jobs(inputs, o, jobs);
  };
  Status s = collect({(d / "in/e.png").string()}, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("would overwrite an input"), std::string::npos) << s.error;
  fs::remove(d / "in/e.png");
  fs::create_symlink("../r.json", d / "out/a.png");
  s = collect({(d / "in/a.png").string()}, (d / "out/a.png").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("would overwrite the output of"), std::string::npos) << s.error;
  fs::remove(d / "out/a.png");
  fs::create_symlink("../old.png", d / "out/a.png");
  fs::create_symlink("out/a.png", d / "r.json");
  EXPECT_FALSE(collect({(d / "in/a.png").string()}, (d / "r.json").string()).ok());
  fs::remove(d / "out/a.png");  // r.json now leads to a file not written yet
  EXPECT_FALSE(collect({(d / "in/a.png").string()}, (d / "r.json").string()).ok());
  EXPECT_TRUE(collect({(d / "in/a.png").string()}, (d / "r2.json").string()).ok());
  // A link to "//" (the root, by slashes alone) names the input's folder like any other spelling.
  fs::create_symlink("//", d / "root");
  jobs.clear();
  CollectOptions via_root{(d / "root").string() + fs::absolute(d / "in").string(), false, ""};
  s = collect_jobs({(d / "in/a.png").string()}, via_root, jobs);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("would overwrite an input"), std::string::npos) << s.error;
  // A folder link an output would replace, in the middle of the report's or an input's path.
  fs::create_directories(d / "rdir");
  touch(d / "rdir/a.png");
  fs::create_symlink("../rdir", d / "out/b.png");
  touch(d / "in/b.png");
  s = collect({(d / "in/b.png").string()}, (d / "out/b.png/r.json").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("would overwrite the output of"), std::string::npos) << s.error;
  s = collect({(d / "in/b.png").string(), (d / "out/b.png/a.png").string()}, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("would overwrite an input (" + (d / "out/b.png/a.png").string() + ")"), std::string::npos)
      << s.error;  // the input hit, not the one whose output it is
  fs::remove(d / "in/b.png");
  touch(d / "in/x/a.png");
  touch(d / "in/y/a.png");
  fs::create_symlink("x", d / "out/y");
  s = collect({(d / "in").string()}, "", true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("both map to output"), std::string::npos) << s.error;
}

TEST(Pipeline, MissingAndUnsupportedInputsAreFileErrors) {
  TempDir d;
  touch(d / "a.jpg");
  std::vector<Job> jobs;
  CollectOptions o{(d / "out").string(), false, ""};
  ASSERT_TRUE(collect_jobs({(d / "nope.png").string(), (d / "a.jpg").string()}, o, jobs).ok());
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_NE(jobs[0].error.find("nope.png"), std::string::npos);
  EXPECT_NE(jobs[1].error.find("a.jpg"), std::string::npos);
}

TEST(Pipeline, OutputPixelTypes) {
  ImageMeta in;
  in.pixel_type = PixelType::UInt8;
  PixelType t;
  ASSERT_TRUE(output_pixel_type("png", in, nullptr, t).ok());
  EXPECT_EQ(t, PixelType::UInt8);
  ASSERT_TRUE(output_pixel_type("exr", in, nullptr, t).ok());
  EXPECT_EQ(t, PixelType::Half);
  in.pixel_type = PixelType::UInt16;
  ASSERT_TRUE(output_pixel_type("exr", in, nullptr, t).ok());
  EXPECT_EQ(t, PixelType::Float);
  in.pixel_type = PixelType::Half;
  ASSERT_TRUE(output_pixel_type("png", in, nullptr, t).ok());
  EXPECT_EQ(t, PixelType::UInt16);
  const PixelType forced = PixelType::Float;
  EXPECT_FALSE(output_pixel_type("png", in, &forced, t).ok());
  ASSERT_TRUE(output_pixel_type("exr", in, &forced, t).ok());
  EXPECT_EQ(t, PixelType::Float);
}

TEST(Pipeline, BoundedQueueKeepsOrderAndBound) {
  BoundedQueue<int> q(2);
  std::atomic<int> pushed{0};
  std::thread producer([&] {
    for (int i = 0; i < 100; ++i) {
      q.push(i);
      ++pushed;
    }
    q.close();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_LE(pushed.load(), 3);  // blocked by the bound (2 queued, at most one more about to be counted)
  int expect = 0;
  while (auto v = q.pop()) EXPECT_EQ(*v, expect++);
  producer.join();
  EXPECT_EQ(expect, 100);
}

// More than 4 channels go through the backend in groups; the result must equal the blur of every channel.
// jobs through one CPU backend stage, files by the lean I/O adapter.
RunRecord run_on_cpu(const std::vector<Job>& jobs, const Plan& plan) {
  auto backend = make_cpu_backend(BackendOptions{});
  PipelineOptions po;
  po.make_io = [] { return make_lean_io(); };
  RunRecord run;
  run_pipeline(jobs, *backend, plan, po, run);
  return run;
}

TEST(Pipeline, WideExrIsBlurredInGroupsAllChannels) {
  auto io = make_lean_io();
  ASSERT_TRUE(io);
  TempDir d;
  Image img = testing::random_image(37, 23, 7, 5);
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Float;
  meta.channel_names = {"A", "B", "G", "R", "Z", "mask.a", "mask.b"};
  meta.alpha_channel = 0;
  ASSERT_TRUE(io->write((d / "wide.exr").string(), img, meta).ok());
  LoadedImage in;
  ASSERT_TRUE(io->read((d / "wide.exr").string(), ReadLimits{}, in).ok());

  std::vector<Job> jobs;
  ASSERT_TRUE(collect_jobs({(d / "wide.exr").string()}, {(d / "out").string(), false, ""}, jobs).ok());
  Plan plan;
  ASSERT_TRUE(resolve_plan("gauss-sep", {{"sigma", "1.7"}, {"border", "wrap"}}, plan).ok());
  const RunRecord run = run_on_cpu(jobs, plan);
  ASSERT_EQ(run.images.size(), 1u);
  ASSERT_TRUE(run.images[0].ok) << run.images[0].error;
  EXPECT_EQ(run.images[0].channels, 7);

  LoadedImage out;
  ASSERT_TRUE(io->read((d / "out/wide.exr").string(), ReadLimits{}, out).ok());
  EXPECT_EQ(out.meta.channel_names, in.meta.channel_names);
  Image expect;
  ASSERT_TRUE(reference_run(plan, in.image, expect).ok());
  ASSERT_EQ(out.image.value_count(), expect.value_count());
  double worst = 0;
  for (size_t i = 0; i < expect.value_count(); ++i)
    worst = std::max(worst, double(std::fabs(out.image.data[i] - expect.data[i])));
  EXPECT_LT(worst, 1e-6);
  EXPECT_NE(out.image.data, in.image.data);  // it was blurred
  // No temporary left beside the output.
  for (const auto& e : fs::directory_iterator(d / "out")) EXPECT_EQ(e.path().filename(), "wide.exr");
}

// A PNG's text that is not UTF-8 is a tEXt chunk's Latin-1: an EXR made from it gets the text as UTF-8 (its raw
// bytes were invalid UTF-8 there), key and value; UTF-8 text (an iTXt's) goes over as it is.
TEST(Pipeline, PngLatin1TextBecomesUtf8InAnExr) {
  auto io = make_lean_io();
  ASSERT_TRUE(io);
  TempDir d;
  ImageMeta meta;
  meta.format = "png";
  meta.pixel_type = PixelType::UInt8;
  meta.attributes = {{"Latin1", "caf\xe9"}, {"Utf8", "caf\xc3\xa9"}, {"\xc9tat", "ok"}};
  ASSERT_TRUE(io->write((d / "t.png").string(), testing::random_image(5, 4, 3, 2), meta).ok());
  std::vector<Job> jobs;
  ASSERT_TRUE(collect_jobs({(d / "t.png").string()}, {(d / "out").string(), false, "exr"}, jobs).ok());
  Plan plan;
  ASSERT_TRUE(resolve_plan("copy", {}, plan).ok());
  const RunRecord run = run_on_cpu(jobs, plan);
  ASSERT_EQ(run.images.size(), 1u);
  ASSERT_TRUE(run.images[0].ok) << run.images[0].error;
  LoadedImage out;
  ASSERT_TRUE(io->read((d / "out/t.exr").string(), ReadLimits{}, out).ok());
  std::map<std::string, std::string> got(out.meta.attributes.begin(), out.meta.attributes.end());
  EXPECT_EQ(got["Latin1"], "caf\xc3\xa9");
  EXPECT_EQ(got["Utf8"], "caf\xc3\xa9");
  EXPECT_EQ(got["\xc3\x89tat"], "ok");
  EXPECT_EQ(got.count("\xc9tat"), 0u);
}

// The reverse: an EXR's UTF-8 keys become the Latin-1 of a PNG keyword (written as their UTF-8 bytes, "CafÃ©", and
// those holding U+00C0-U+00DF refused); a key past Latin-1 is said and dropped; UTF-8 values go to iTXt as they are.
TEST(Pipeline, ExrTextKeysBecomeLatin1InAPng) {
  auto io = make_lean_io();
  ASSERT_TRUE(io);
  TempDir d;
  ImageMeta meta;
  meta.format = "exr";
  meta.pixel_type = PixelType::Half;
  meta.attributes = {{"Gr\xc3\xb6\xc3\x9f" "e", "gro\xc3\x9f"}, {"Caf\xc3\xa9", "ok"}, {"\xe6\x97\xa5", "day"},
                     {"plain", "v"}};
  ASSERT_TRUE(io->write((d / "t.exr").string(), testing::random_image(5, 4, 3, 2), meta).ok());
  std::vector<Job> jobs;
  ASSERT_TRUE(collect_jobs({(d / "t.exr").string()}, {(d / "out").string(), false, "png"}, jobs).ok());
  Plan plan;
  ASSERT_TRUE(resolve_plan("copy", {}, plan).ok());
  std::ostringstream shown;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("w", std::make_shared<spdlog::sinks::ostream_sink_mt>(shown)));
  const RunRecord run = run_on_cpu(jobs, plan);
  spdlog::set_default_logger(previous);
  ASSERT_EQ(run.images.size(), 1u);
  ASSERT_TRUE(run.images[0].ok) << run.images[0].error;
  EXPECT_NE(shown.str().find("'\xe6\x97\xa5' has characters past Latin-1"), std::string::npos) << shown.str();
  LoadedImage out;
  ASSERT_TRUE(io->read((d / "out/t.png").string(), ReadLimits{}, out).ok());
  std::map<std::string, std::string> got(out.meta.attributes.begin(), out.meta.attributes.end());
  EXPECT_EQ(got.size(), 3u);
  EXPECT_EQ(got["Gr\xf6\xdf" "e"], "gro\xc3\x9f");
  EXPECT_EQ(got["Caf\xe9"], "ok");
  EXPECT_EQ(got["plain"], "v");
  // And back to an EXR: the keys as they started.
  std::vector<Job> back;
  ASSERT_TRUE(collect_jobs({(d / "out/t.png").string()}, {(d / "back").string(), false, "exr"}, back).ok());
  ASSERT_TRUE(run_on_cpu(back, plan).images.at(0).ok);
  ASSERT_TRUE(io->read((d / "back/t.exr").string(), ReadLimits{}, out).ok());
  std::map<std::string, std::string> again(out.meta.attributes.begin(), out.meta.attributes.end());
  EXPECT_EQ(again["Gr\xc3\xb6\xc3\x9f" "e"], "gro\xc3\x9f");
  EXPECT_EQ(again["Caf\xc3\xa9"], "ok");
}

// Every image of the run is ok and its output file is the CPU reference's blur of its input (1e-6).
void expect_reference_outputs(const RunRecord& run, const Plan& plan) {
  auto io = make_lean_io();
  for (const ImageRecord& r : run.images) {
    ASSERT_TRUE(r.ok) << r.error;
    LoadedImage in, out;
    ASSERT_TRUE(io->read(r.input, ReadLimits{}, in).ok());
    ASSERT_TRUE(io->read(r.output, ReadLimits{}, out).ok());
    Image expect;
    ASSERT_TRUE(reference_run(plan, in.image, expect).ok());
    ASSERT_EQ(out.image.value_count(), expect.value_count()) << r.input;
    double worst = 0;
    for (size_t i = 0; i < expect.value_count(); ++i)
      worst = std::max(worst, double(std::fabs(out.image.data[i] - expect.data[i])));
    EXPECT_LT(worst, 1e-6) << r.input;
  }
}

// Non-finite inputs (an EXR with NaN, +Inf and -Inf) through the methods that state a footprint (box's impls, box at
// --downsample 2, integral, gauss-2d, gauss-linear, fft, kawase and its dual, diffusion), on the CPU backend: the
// outputs whose square footprint (the plan's nonfinite_reach, through the border) holds one are NaN or that infinity,
// as a direct convolution makes them (core/nonfinite.hpp), and every other output is the reference's blur of the image
// with those values zero. Without the pipeline's handling the running sums of box and integral spread them further.
TEST(Pipeline, NonfiniteInputsFollowTheDirectFootprint) {
  auto io = make_lean_io();
  ASSERT_TRUE(io);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  Image img = testing::random_image(41, 29, 3, 77);
  img.at(5, 4, 0) = nan;
  img.at(30, 20, 1) = inf;
  img.at(33, 22, 1) = -inf;  // with +Inf in one footprint: NaN there
  img.at(40, 0, 2) = inf;    // at the corner: its footprint crosses the border
  Image zeroed = img;
  for (float& v : zeroed.data)
    if (!std::isfinite(v)) v = 0.0f;
  struct Case {
    std::string method;
    std::map<std::string, std::string> params;
    bool spreads;  // the method's own arithmetic carries them past the footprint (running sums)
  };
  const std::vector<Case> cases = {{"box", {{"sigma", "2"}}, true},
                                   {"box", {{"sigma", "2"}, {"impl", "sat"}, {"border", "mirror"}}, true},
                                   {"box", {{"sigma", "3"}, {"impl", "moving-average"}, {"border", "wrap"}}, true},
                                   {"box", {{"sigma", "2"}, {"impl", "2d"}, {"border", "zero"}}, false},
                                   {"integral", {{"sigma", "2.5"}}, true},
                                   {"box", {{"sigma", "6"}, {"downsample", "2"}}, true},  // the program's reach
                                   {"gauss-2d", {{"sigma", "1.5"}, {"border", "wrap"}}, false},
                                   {"gauss-linear", {{"sigma", "2"}}, false},
                                   {"fft", {{"sigma", "2"}, {"border", "mirror"}}, false},
                                   {"kawase", {{"sigma", "3"}}, false},
                                   {"kawase", {{"sigma", "4"}, {"impl", "dual"}}, false},
                                   {"diffusion", {{"sigma", "1.5"}, {"border", "zero"}}, false},
                                   {"gauss-sep", {{"sigma", "2"}, {"border", "mirror"}}, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.method + " " + c.params.at("sigma") + (c.params.count("impl") ? " " + c.params.at("impl") : "") +
                 (c.params.count("downsample") ? " downsample " + c.params.at("downsample") : ""));
    TempDir d;
    ImageMeta meta;
    meta.format = "exr";
    meta.pixel_type = PixelType::Float;
    ASSERT_TRUE(io->write((d / "in.exr").string(), img, meta).ok());
    std::vector<Job> jobs;
    ASSERT_TRUE(collect_jobs({(d / "in.exr").string()}, {(d / "out").string(), false, ""}, jobs).ok());
    Plan plan;
    ASSERT_TRUE(resolve_plan(c.method, c.params, plan).ok());
    ASSERT_EQ(plan.nonfinite_reach, plan.radius);  // the exact support, or with --downsample the program's reach
    const RunRecord run = run_on_cpu(jobs, plan);
    ASSERT_EQ(run.images.size(), 1u);
    ASSERT_TRUE(run.images[0].ok) << run.images[0].error;
    LoadedImage out;
    ASSERT_TRUE(io->read((d / "out/in.exr").string(), ReadLimits{}, out).ok());
    Image finite_blur, raw_blur;
    ASSERT_TRUE(reference_run(plan, zeroed, finite_blur).ok());
    ASSERT_TRUE(reference_run(plan, img, raw_blur).ok());
    size_t nonfinite = 0, raw_nonfinite = 0;
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x)
        for (int ch = 0; ch < img.channels; ++ch) {
          const auto want = testing::direct_footprint(img, x, y, ch, plan.nonfinite_reach, plan.border);
          const float got = out.image.at(x, y, ch);
          EXPECT_EQ(testing::footprint_of(got), want) << x << "," << y << "," << ch;
          if (want == testing::Footprint::Finite) EXPECT_NEAR(got, finite_blur.at(x, y, ch), 1e-5);
          nonfinite += want == testing::Footprint::Finite ? 0 : 1;
          raw_nonfinite += std::isfinite(raw_blur.at(x, y, ch)) ? 0 : 1;
        }
    EXPECT_GT(nonfinite, 0u);
    if (c.spreads) EXPECT_GT(raw_nonfinite, nonfinite) << "the running sums alone spread them past the footprint";
  }
}

// Several backend stages (one per GPU with --device all; here three CPU backends) share one queue: every image
// is blurred exactly once, each as the reference does it, and no stage is left waiting.
TEST(Pipeline, SeveralBackendStagesShareOneQueue) {
  auto io = make_lean_io();
  ASSERT_TRUE(io);
  TempDir d;
  std::vector<Image> images;
  for (int i = 0; i < 9; ++i) {
    images.push_back(testing::random_image(31 + i, 17, 3, 100 + uint32_t(i)));
    ImageMeta meta;
    meta.format = "exr";
    meta.pixel_type = PixelType::Float;
    ASSERT_TRUE(io->write((d / ("in_" + std::to_string(i) + ".exr")).string(), images.back(), meta).ok());
  }
  std::vector<Job> jobs;
  ASSERT_TRUE(collect_jobs({d.str()}, {(d / "out").string(), false, ""}, jobs).ok());
  ASSERT_EQ(jobs.size(), 9u);
  Plan plan;
  ASSERT_TRUE(resolve_plan("box", {{"sigma", "2"}}, plan).ok());
  std::vector<std::unique_ptr<Backend>> owned;
  std::vector<Backend*> stages;
  for (int b = 0; b < 3; ++b) {
    owned.push_back(make_cpu_backend(BackendOptions{}));
    stages.push_back(owned.back().get());
  }
  PipelineOptions po;
  po.make_io = [] { return make_lean_io(); };
  po.io_threads = 2;
  RunRecord run;
  run_pipeline(jobs, stages, plan, po, run);
  ASSERT_EQ(run.images.size(), 9u);
  expect_reference_outputs(run, plan);
}

// Counts finished reads, to see the readers work before the backends are open.
class CountingIO final : public ImageIO {
 public:
  explicit CountingIO(std::atomic<int>& reads) : io_(make_lean_io()), reads_(reads) {}
  std::string name() const override { return io_->name(); }
  Status read(const std::string& path, const ReadLimits& limits, LoadedImage& out) override {
    Status s = io_->read(path, limits, out);
    ++reads_;
    return s;
  }
  Status write(const std::string& path, const Image& img, const ImageMeta& meta) override {
    return io_->write(path, img, meta);
  }

 private:
  std::unique_ptr<ImageIO> io_;
  std::atomic<int>& reads_;
};

// Writes part of the file, then throws (an encoder out of memory): the temporary must not stay behind.
class ThrowingWriterIO final : public ImageIO {
 public:
  ThrowingWriterIO() : io_(make_lean_io()) {}
  std::string name() const override { return io_->name(); }
  Status read(const std::string& path, const ReadLimits& limits, LoadedImage& out) override {
    return io_->read(path, limits, out);
  }
  Status write(const std::string& path, const Image&, const ImageMeta&) override {
    std::ofstream(path) << "the first bytes";
    throw std::bad_alloc();
  }

 private:
  std::unique_ptr<ImageIO> io_;
};

std::vector<Job> write_inputs(TempDir& d, int n) {
  auto io = make_lean_io();
  for (int i = 0; i < n; ++i) {
    ImageMeta meta;
    meta.format = "exr";
    meta.pixel_type = PixelType::Float;
    EXPECT_TRUE(io->write((d / ("in_" + std::to_string(i) + ".exr")).string(),
                          testing::random_image(29 + i, 13, 4, 300 + uint32_t(i)), meta)
                    .ok());
  }
  std::vector<Job> jobs;
  EXPECT_TRUE(collect_jobs({d.str()}, {(d / "out").string(), false, ""}, jobs).ok());
  return jobs;
}

// Backends still opening when the pipeline starts (PendingBackends::open, as blur opens them): the readers
// decode meanwhile, the backends open on the pipeline's calling thread (which runs them), and once they arrive
// every image is blurred as the reference does it.
TEST(Pipeline, ReadsBeforeTheBackendsAreOpen) {
  if (!make_lean_io()) GTEST_SKIP() << "no lean I/O adapter";
  TempDir d;
  const std::vector<Job> jobs = write_inputs(d, 6);
  Plan plan;
  ASSERT_TRUE(resolve_plan("gauss-sep", {{"sigma", "1.5"}}, plan).ok());
  auto backend = make_cpu_backend(BackendOptions{});
  std::promise<std::vector<Backend*>> opened;
  std::atomic<int> reads{0};
  int reads_before_open = -1;
  std::thread::id opened_on;
  auto open = [&] {
    // "Opening" lasts until the readers have finished two images (or 5 s).
    for (int i = 0; i < 500 && reads < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    reads_before_open = reads;
    opened_on = std::this_thread::get_id();
    opened.set_value({backend.get()});
  };
  PipelineOptions po;
  po.make_io = [&reads] { return std::make_unique<CountingIO>(reads); };
  po.io_threads = 2;
  RunRecord run;
  run_pipeline(jobs, PendingBackends{opened.get_future().share(), false, open}, plan, po, run);
  EXPECT_GE(reads_before_open, 2);
  EXPECT_EQ(opened_on, std::this_thread::get_id()) << "the backends open on the thread that runs them";
  ASSERT_EQ(run.images.size(), jobs.size());
  expect_reference_outputs(run, plan);
}

// A write that throws is that image's error, and its temporary is removed (it stayed, hidden, beside the outputs).
TEST(Pipeline, AWriteThatThrowsLeavesNoTemporary) {
  if (!make_lean_io()) GTEST_SKIP() << "no lean I/O adapter";
  TempDir d;
  const std::vector<Job> jobs = write_inputs(d, 2);
  Plan plan;
  ASSERT_TRUE(resolve_plan("copy", {}, plan).ok());
  auto backend = make_cpu_backend(BackendOptions{});
  PipelineOptions po;
  po.make_io = [] { return std::make_unique<ThrowingWriterIO>(); };
  RunRecord run;
  run_pipeline(jobs, *backend, plan, po, run);
  ASSERT_EQ(run.images.size(), 2u);
  for (const auto& im : run.images) {
    EXPECT_FALSE(im.ok);
    EXPECT_NE(im.error.find("bad_alloc"), std::string::npos) << im.error;
  }
  // The output folder the writers made held only the temporaries: it is gone with them.
  EXPECT_FALSE(fs::exists(d / "out"));
}

// An adapter that warns as it reads and writes the second image, as OpenEXR's multi-part or uint reads do.
class WarningIO final : public ImageIO {
 public:
  WarningIO() : io_(make_lean_io()) {}
  std::string name() const override { return io_->name(); }
  Status read(const std::string& path, const ReadLimits& limits, LoadedImage& out) override {
    if (path.find("in_1") != std::string::npos) spdlog::warn("'{}': read with a loss", path);
    return io_->read(path, limits, out);
  }
  Status write(const std::string& path, const Image& img, const ImageMeta& meta) override {
    if (meta.shown_name.find("in_1") != std::string::npos) spdlog::warn("'{}': written with a loss", meta.shown_name);
    return io_->write(path, img, meta);
  }

 private:
  std::unique_ptr<ImageIO> io_;
};

// Warnings logged while an image is read or written go into its record and the report's image entry (under -q
// too: capture_warnings lets them past the level stderr shows), not into another image's.
TEST(Pipeline, WarningsGoToTheirImage) {
  if (!make_lean_io()) GTEST_SKIP() << "no lean I/O adapter";
  std::ostringstream shown;
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>("w", std::make_shared<spdlog::sinks::ostream_sink_mt>(shown));
  capture_warnings(*logger, spdlog::level::err);  // as -q
  spdlog::set_default_logger(logger);
  TempDir d;
  const std::vector<Job> jobs = write_inputs(d, 3);
  Plan plan;
  ASSERT_TRUE(resolve_plan("copy", {}, plan).ok());
  auto backend = make_cpu_backend(BackendOptions{});
  PipelineOptions po;
  po.io_threads = 2;
  po.make_io = [] { return std::make_unique<WarningIO>(); };
  RunRecord run;
  run_pipeline(jobs, *backend, plan, po, run);
  spdlog::warn("a warning of no image's");
  spdlog::set_default_logger(previous);
  ASSERT_EQ(run.images.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(run.images[i].ok) << run.images[i].error;
    EXPECT_EQ(run.images[i].warnings.size(), i == 1 ? 2u : 0u) << i;
  }
  ASSERT_EQ(run.images[1].warnings.size(), 2u);
  EXPECT_NE(run.images[1].warnings[0].find("read with a loss"), std::string::npos) << run.images[1].warnings[0];
  EXPECT_NE(run.images[1].warnings[1].find("written with a loss"), std::string::npos) << run.images[1].warnings[1];
  EXPECT_EQ(image_json(run.images[1])["warnings"].size(), 2u);
  EXPECT_FALSE(image_json(run.images[0]).contains("warnings"));
  EXPECT_EQ(shown.str(), "") << "stderr shows errors only";
}

// Backends that fail to open: the readers stop, nothing is written or recorded, and the pipeline returns.
TEST(Pipeline, BackendsThatFailToOpenEndThePipeline) {
  if (!make_lean_io()) GTEST_SKIP() << "no lean I/O adapter";
  TempDir d;
  const std::vector<Job> jobs = write_inputs(d, 8);
  Plan plan;
  ASSERT_TRUE(resolve_plan("gauss-sep", {{"sigma", "1.5"}}, plan).ok());
  std::promise<std::vector<Backend*>> opened;
  std::atomic<int> reads{0};
  auto open = [&] {
    for (int i = 0; i < 500 && reads < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    opened.set_value({});
  };
  PipelineOptions po;
  po.make_io = [&reads] { return std::make_unique<CountingIO>(reads); };
  po.io_threads = 1;
  RunRecord run;
  run_pipeline(jobs, PendingBackends{opened.get_future().share(), false, open}, plan, po, run);
  EXPECT_GE(reads.load(), 1);
  for (const ImageRecord& r : run.images) EXPECT_TRUE(r.output.empty() || !fs::exists(r.output)) << r.output;
  EXPECT_FALSE(fs::exists(d / "out")) << "nothing written";
}

// An error names its input once: kept where the message names it as a whole path, prefixed otherwise (an output
// name ending in the input's, "o/a.png: interrupted" for input "a.png", had passed for naming it).
TEST(Pipeline, ErrorsNameTheirInput) {
  EXPECT_EQ(error_naming_input("a.png", "o/a.png: interrupted"), "a.png: o/a.png: interrupted");
  EXPECT_EQ(error_naming_input("in/a.png", "out/in/a.png: interrupted"), "in/a.png: out/in/a.png: interrupted");
  EXPECT_EQ(error_naming_input("a.png", "a.png: not a PNG"), "a.png: not a PNG");
  EXPECT_EQ(error_naming_input("a.png", "cannot open 'a.png': No such file"), "cannot open 'a.png': No such file");
  EXPECT_EQ(error_naming_input("a.png", "decode failed (a.png)"), "decode failed (a.png)");
  EXPECT_EQ(error_naming_input("a.png", "a.pngx: odd"), "a.png: a.pngx: odd");
  EXPECT_EQ(error_naming_input("a.png", "backend error"), "a.png: backend error");
}

// A bench of `methods` at `sigmas` on images of `sizes`, one timed run and no warm-up: for what it runs, not its times.
BenchOptions one_run_bench(std::vector<std::string> methods, std::vector<double> sigmas,
                           std::vector<std::pair<int, int>> sizes) {
  BenchOptions o;
  o.methods = std::move(methods);
  o.sigmas = std::move(sigmas);
  o.sizes = std::move(sizes);
  o.repeat = 1, o.warmup = 0, o.warmup_ms = 0;
  return o;
}

TEST(Bench, SizesMethodsAndMedian) {
  std::vector<std::pair<int, int>> sizes;
  ASSERT_TRUE(parse_bench_sizes("1024,640x480", sizes).ok());
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_EQ(sizes[0], std::make_pair(1024, 1024));
  EXPECT_EQ(sizes[1], std::make_pair(640, 480));
  EXPECT_FALSE(parse_bench_sizes("12y4", sizes).ok());
  EXPECT_FALSE(parse_bench_sizes("0", sizes).ok());
  // Numbers past int are refused, not wrapped round (4294967328 was benched as 32).
  for (const char* bad : {"4294967328", "16x4294967304", "65537", "-5", "12x", "x12", "1x2x3", "+7"})
    EXPECT_FALSE(parse_bench_sizes(bad, sizes).ok()) << bad;
  // The readers' limit of 2^28 pixels: 16384^2 and 65536 x 4096 are the largest, one more row is refused.
  for (const char* good : {"16384", "65536x4096", "4096x65536"})
    EXPECT_TRUE(parse_bench_sizes(good, sizes).ok()) << good;
  for (const char* big : {"16385x16384", "65536", "65536x4097"}) {
    const Status s = parse_bench_sizes(big, sizes);
    EXPECT_FALSE(s.ok()) << big;
    EXPECT_NE(s.error.find("over the 268435456"), std::string::npos) << s.error;
  }
  // Spaces around items as --sigma takes them; a size given twice runs once, as a method named twice does.
  ASSERT_TRUE(parse_bench_sizes(" 16, 32 x 8,16", sizes).ok());
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_EQ(sizes[1], std::make_pair(32, 8));
  std::vector<double> sigmas;
  ASSERT_TRUE(parse_bench_sigmas(" 3, 12 ,3,\t48", sigmas));
  EXPECT_EQ(sigmas, (std::vector<double>{3, 12, 48}));
  EXPECT_FALSE(parse_bench_sigmas("0x3", sigmas)) << "plain decimals only";
  EXPECT_FALSE(parse_bench_sigmas(" , ", sigmas)) << "no sigma given";
  // Channel counts as a list too (`--channels 1,4` was refused as out of range 1 to 4).
  std::vector<int> channels;
  ASSERT_TRUE(parse_bench_channels(" 1, 4,1", channels).ok());
  EXPECT_EQ(channels, (std::vector<int>{1, 4}));
  for (const char* bad : {"0", "5", "1,x", "12", "2.0", " , "})
    EXPECT_FALSE(parse_bench_channels(bad, channels).ok()) << bad;
  ASSERT_TRUE(parse_bench_sizes("65536x1,7X3", sizes).ok());
  EXPECT_EQ(sizes[0], std::make_pair(65536, 1));
  EXPECT_EQ(sizes[1], std::make_pair(7, 3));
  std::vector<std::string> methods;
  ASSERT_TRUE(resolve_bench_methods("all", "cpu", methods).ok());
  EXPECT_GE(methods.size(), 3u);
  EXPECT_EQ(std::count(methods.begin(), methods.end(), "kernel"), 0) << "no file given: left out";
  ASSERT_TRUE(resolve_bench_methods("all", "cpu", methods, {{"kernel", "k.txt"}}).ok());
  EXPECT_EQ(std::count(methods.begin(), methods.end(), "kernel"), 1) << "--param kernel=FILE brings it in";
  EXPECT_FALSE(resolve_bench_methods("gauss-sep,nope", "cpu", methods).ok());
  // A variant's sigma would run but show --sigma's; a key twice would keep the last: both refused.
  EXPECT_TRUE(resolve_bench_methods("box:impl=sat:passes=4", "cpu", methods).ok());
  EXPECT_FALSE(resolve_bench_methods("gauss-sep:sigma=5", "cpu", methods).ok());
  EXPECT_FALSE(resolve_bench_methods("box:impl=sat:impl=2d", "cpu", methods).ok());
  EXPECT_FALSE(resolve_bench_methods("box:", "cpu", methods).ok()) << "an empty setting";
  // A variant's list value keeps its commas; the next name starts the next entry.
  ASSERT_TRUE(resolve_bench_methods("kawase:offsets=0,1,2,box,gauss-sep", "cpu", methods).ok());
  EXPECT_EQ(methods, (std::vector<std::string>{"kawase:offsets=0,1,2", "box", "gauss-sep"}));
  // An empty item stays inside a list value (for kawase to refuse, as it refuses --param offsets=1,,2: it was dropped
  // and offsets 1,2 ran); between entries it is skipped.
  ASSERT_TRUE(resolve_bench_methods("kawase:offsets=1,,2,copy,,box", "cpu", methods).ok());
  EXPECT_EQ(methods, (std::vector<std::string>{"kawase:offsets=1,,2", "copy", "box"}));
  // Spaces around the methods and their settings, as around sizes and sigmas (" box" was an unknown method).
  ASSERT_TRUE(resolve_bench_methods("copy, box ,\tkawase: offsets = 0, 1,gauss-sep", "cpu", methods).ok());
  // The table and the JSON name a variant without them (it kept the user's spacing), and one written twice runs once.
  EXPECT_EQ(methods, (std::vector<std::string>{"copy", "box", "kawase:offsets=0,1", "gauss-sep"}));
  ASSERT_TRUE(resolve_bench_methods("box: impl = sat,box:impl=sat", "cpu", methods).ok());
  EXPECT_EQ(methods, (std::vector<std::string>{"box:impl=sat"}));
  // Settings in name order: the same variant with its settings in another order is the same case.
  ASSERT_TRUE(resolve_bench_methods("box:passes=4:impl=sat,box:impl=sat:passes=4", "cpu", methods).ok());
  EXPECT_EQ(methods, (std::vector<std::string>{"box:impl=sat:passes=4"}));
  {  // and the setting's value runs without its spaces; the case is named as resolved
    auto cpu = make_cpu_backend(BackendOptions{});
    BenchOptions o = one_run_bench({"kawase: offsets = 0,1"}, {2}, {{8, 8}});
    BenchResult r;
    const Status s = run_bench(*cpu, o, r);
    ASSERT_TRUE(s.ok()) << s.error;
    ASSERT_EQ(r.cases.size(), 2u);
    EXPECT_EQ(r.cases[1].error, "");
    EXPECT_EQ(r.cases[1].method, "kawase:offsets=0,1");
  }
  EXPECT_DOUBLE_EQ(median_of({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
}

// --method all leaves out a method that cannot take one of the sigmas (diffusion's steps at 400: the whole bench exited
// 2 with nothing run); a method named in the list still fails the bench.
TEST(Bench, AllLeavesOutAMethodThatCannotTakeASigma) {
  auto backend = make_cpu_backend(BackendOptions{});
  BenchOptions o = one_run_bench({"gauss-sep", "diffusion"}, {3, 400}, {{8, 8}});
  BenchResult r;
  const Status named = run_bench(*backend, o, r);
  EXPECT_NE(named.error.find("diffusion, sigma 400"), std::string::npos) << named.error;
  o.skip_unplannable = true;
  ASSERT_TRUE(run_bench(*backend, o, r).ok());
  ASSERT_EQ(r.left_out.size(), 1u);
  EXPECT_EQ(r.left_out[0].rfind("diffusion, sigma 400: ", 0), 0u) << r.left_out[0];
  ASSERT_EQ(r.cases.size(), 3u);  // copy, gauss-sep at both sigmas
  for (const auto& c : r.cases) EXPECT_NE(c.method, "diffusion");
  EXPECT_EQ(bench_json(r, o)["left_out"].size(), 1u);
  // A method that plans at no sigma (a kernel file that does not exist) is an error, not left out.
  o.methods = {"gauss-sep", "kernel"};
  o.params = {{"kernel", "/no/such/kernel.txt"}};
  const Status missing = run_bench(*backend, o, r);
  EXPECT_NE(missing.error.find("/no/such/kernel.txt"), std::string::npos) << missing.error;
}

// Variants that resolve alike at every sigma run once, under the first's name; --param counts (box:passes=3 under
// --param passes=4 is not box).
TEST(Bench, VariantsOfTheSameParametersRunOnce) {
  auto backend = make_cpu_backend(BackendOptions{});
  BenchOptions o =
      one_run_bench({"box", "box:passes=3", "box:passes=4", "box:impl=separable:passes=4"}, {3, 12}, {{8, 8}});
  BenchResult r;
  ASSERT_TRUE(run_bench(*backend, o, r).ok());
  std::vector<std::string> names;
  for (const auto& c : r.cases) names.push_back(c.method);
  EXPECT_EQ(names, (std::vector<std::string>{"copy", "box", "box", "box:passes=4", "box:passes=4"}));
  o.methods = {"box", "box:passes=3"};
  o.params = {{"passes", "4"}};
  ASSERT_TRUE(run_bench(*backend, o, r).ok());
  EXPECT_EQ(r.cases.size(), 5u);  // copy, box (4 passes) and box:passes=3 at two sigmas
}

// Each case's JSON holds its plan's details as blur's report does: what the recipe derived, and where the plan warns,
// the warning and its kind (they were only on stderr, so a script reading the JSON could not tell which case warned).
TEST(Bench, JsonCasesCarryThePlansDetailsAndWarning) {
  auto backend = make_cpu_backend(BackendOptions{});
  BenchOptions o = one_run_bench({"box", "pyramid:down=box4"}, {0.5, 4}, {{16, 16}});
  BenchResult r;
  ASSERT_TRUE(run_bench(*backend, o, r).ok());
  const nlohmann::json j = bench_json(r, o);
  ASSERT_EQ(j["cases"].size(), 5u);  // copy, box and pyramid at two sigmas
  for (const auto& c : j["cases"]) {
    SCOPED_TRACE(c["method"].get<std::string>() + " sigma " + std::to_string(c["sigma"].get<double>()));
    ASSERT_TRUE(c["details"].is_object());
    EXPECT_TRUE(c["details"].contains("program"));
    const bool unused_down = c["method"] == "pyramid:down=box4" && c["sigma"] == 0.5;
    // Box at sigma 0.5 runs widths of 1, no blur: said as blur says it, and kept (it was only logged).
    const bool identity = c["method"] == "box" && c["sigma"] == 0.5;
    EXPECT_EQ(c["details"].contains("warning"), unused_down || identity);
    if (unused_down) {
      EXPECT_EQ(c["details"]["warning_kind"], "unused");
      EXPECT_NE(c["details"]["warning"].get<std::string>().find("--down box4 is not used"), std::string::npos);
    }
    if (identity)
      EXPECT_NE(c["details"]["warning"].get<std::string>().find("box: --sigma 0.5 is not the blur that runs: its "
                                                               "effective sigma is 0"),
                std::string::npos)
          << c["details"]["warning"];
  }
  EXPECT_NE(j["cases"][1]["details"]["program"].get<std::string>().find("box1d(x, w "), std::string::npos)
      << "box's program states its widths";
}

// Several channel counts: each size with each count, its own image, copy first and the ratios against that copy; each
// case names its storage, and the JSON's settings list the counts.
TEST(Bench, ChannelCountsEachRunAsTheirOwnImages) {
  auto backend = make_cpu_backend(BackendOptions{});
  BenchOptions o = one_run_bench({"box"}, {2}, {{16, 12}, {8, 8}});
  o.channels = {1, 4};
  BenchResult r;
  ASSERT_TRUE(run_bench(*backend, o, r).ok());
  ASSERT_EQ(r.cases.size(), 8u);  // (copy, box) for 16x12 x1, x4, 8x8 x1, x4
  const int want[4][3] = {{16, 12, 1}, {16, 12, 4}, {8, 8, 1}, {8, 8, 4}};
  for (size_t i = 0; i < 4; ++i) {
    const BenchCase& copy = r.cases[2 * i];
    const BenchCase& box = r.cases[2 * i + 1];
    EXPECT_TRUE(copy.floor);
    EXPECT_EQ(box.method, "box");
    for (const BenchCase* c : {&copy, &box}) {
      EXPECT_EQ(c->width, want[i][0]);
      EXPECT_EQ(c->height, want[i][1]);
      EXPECT_EQ(c->channels, want[i][2]);
      EXPECT_EQ(c->storage, backend->storage());
      EXPECT_EQ(c->error, "");
    }
    EXPECT_NEAR(box.ratio_to_copy, box.median_ms / copy.median_ms, 1e-12 * box.ratio_to_copy);
    EXPECT_NEAR(box.gbps, 2.0 * want[i][0] * want[i][1] * want[i][2] * 4 / (box.median_ms * 1e-3) / 1e9,
                1e-9 * box.gbps);
  }
  EXPECT_EQ(r.storage, backend->storage()) << "one storage on cpu whatever the channels";
  const auto j = bench_json(r, o);
  EXPECT_EQ(j["settings"]["channels"], nlohmann::json::array({1, 4}));
  EXPECT_EQ(j["cases"][1]["channels"], 1);
  EXPECT_EQ(j["cases"][3]["storage"], backend->storage());
  o.channels = {};
  EXPECT_FALSE(run_bench(*backend, o, r).ok());
}

TEST(Bench, CpuRunHasCopyFirstAndRatios) {
  auto backend = make_cpu_backend(BackendOptions{});
  BenchOptions o;
  o.methods = {"gauss-sep", "copy"};
  o.sigmas = {1, 2};
  o.sizes = {{64, 48}};
  o.channels = {3};
  o.repeat = 3;
  o.warmup = 1;
  o.params = {{"border", "mirror"}};
  BenchResult r;
  ASSERT_TRUE(run_bench(*backend, o, r).ok());
  ASSERT_EQ(r.cases.size(), 3u);  // copy once, gauss-sep at two sigmas
  EXPECT_EQ(r.cases[0].method, "copy");
  EXPECT_DOUBLE_EQ(r.cases[0].ratio_to_copy, 1.0);
  for (const auto& c : r.cases) {
    EXPECT_EQ(c.error, "");
    EXPECT_EQ(c.times_ms.size(), 3u);
    EXPECT_LE(c.min_ms, c.median_ms);
    EXPECT_GT(c.gbps, 0);
    EXPECT_EQ(c.params.at("border"), "mirror");
  }
  EXPECT_EQ(r.cases[2].params.at("sigma"), "2");
  const auto j = bench_json(r, o);
  EXPECT_EQ(j["cases"].size(), 3u);
  EXPECT_EQ(j["backend"]["name"], "cpu");
  EXPECT_NE(bench_table(r).find("gauss-sep"), std::string::npos);

  o.params = {{"nonsense", "1"}};
  EXPECT_FALSE(run_bench(*backend, o, r).ok());

  // A copy variant listed is a case like any other; the ratio stays against the plain copy (it became the divisor).
  o.methods = {"copy:border=wrap", "box"};
  o.sigmas = {2};
  o.params = {};
  ASSERT_TRUE(run_bench(*backend, o, r).ok());
  ASSERT_EQ(r.cases.size(), 3u);
  EXPECT_TRUE(r.cases[0].floor);
  EXPECT_FALSE(r.cases[1].floor);
  EXPECT_EQ(r.cases[1].method, "copy:border=wrap");
  for (const auto& c : r.cases)
    EXPECT_NEAR(c.ratio_to_copy, c.median_ms / r.cases[0].median_ms, 1e-12 * c.ratio_to_copy) << c.method;

  // The table keeps long labels and paths whole (a 256-byte line cut them, newline included) and its columns in line.
  r.cases[1].method = "kawase:offsets=" + std::string(200, '1');
  r.cases[1].path = std::string(300, 'p');
  std::istringstream table(bench_table(r));
  std::string header, line;
  std::getline(table, header);
  std::getline(table, header);
  std::vector<std::string> rows;
  while (std::getline(table, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_NE(rows[1].find(r.cases[1].method + " "), std::string::npos);
  EXPECT_NE(rows[1].find(r.cases[1].path), std::string::npos);
  for (const auto& row : rows) EXPECT_EQ(row.find(" 64x48 ") + 6, header.find(" size ") + 5) << row;
}

// Counts calls, so the test can see that bench keeps the device busy before timing (steady clocks).
class CountingBackend : public Backend {
 public:
  std::unique_ptr<Backend> inner = make_cpu_backend(BackendOptions{});
  int runs = 0;
  std::vector<double> warm_ups;
  std::string name() const override { return "cpu"; }
  std::string device_name() const override { return "counting"; }
  std::string timer_clock() const override { return "host-clock"; }
  Status upload(const Image& src, double& ms) override { return inner->upload(src, ms); }
  Status run(const Plan& plan, RunInfo& info) override {
    ++runs;
    return inner->run(plan, info);
  }
  Status download(Image& dst, double& ms) override { return inner->download(dst, ms); }
  Status warm_up(const Plan& plan, double min_ms) override {
    warm_ups.push_back(min_ms);
    return Backend::warm_up(plan, min_ms);  // the default: run() until min_ms have passed
  }
};

TEST(Bench, WarmUpKeepsTheDeviceBusyFirst) {
  CountingBackend be;
  BenchOptions o;
  o.methods = {"copy"};
  o.sizes = {{32, 32}};
  o.repeat = 2;
  o.warmup = 1;
  o.warmup_ms = 30;
  BenchResult r;
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(run_bench(be, o, r).ok());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(be.warm_ups, std::vector<double>{30});
  EXPECT_GE(ms, 30);
  EXPECT_GT(be.runs, 1 + 2 + 1);  // the warm-up ran at least once beyond the counted runs
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_EQ(r.cases[0].times_ms.size(), 2u);
  EXPECT_EQ(bench_json(r, o)["settings"]["warmup_ms"], 30);

  be.warm_ups.clear();
  o.warmup_ms = 0;  // off
  ASSERT_TRUE(run_bench(be, o, r).ok());
  EXPECT_TRUE(be.warm_ups.empty());
  o.warmup_ms = -1;
  EXPECT_FALSE(run_bench(be, o, r).ok());
}

// Half floats whose format follows the uploaded channels, as GL's with --gl-storage rgba16f: r16f for one channel.
class HalfStorageBackend : public CountingBackend {
 public:
  int channels = 0;  // the last image uploaded's (none yet: the format the backend opens with)
  std::string storage() const override { return channels == 1 ? "r16f" : "rgba16f"; }
  Status upload(const Image& src, double& ms) override {
    channels = src.channels;
    return CountingBackend::upload(src, ms);
  }
};

// What progress sees (an interrupted bench's JSON) has the finished result's header for the cases so far: the backend
// before any case, then the cases' storage with its bytes a value. It had the storage the backend opened with
// (rgba16f where the cases ran r16f) and 4 bytes a value, and no backend at all before the first case.
TEST(Bench, ProgressSeesTheHeaderOfTheCasesSoFar) {
  HalfStorageBackend be;
  BenchOptions o = one_run_bench({"box"}, {2}, {{8, 8}});
  o.channels = {1, 4};
  std::vector<BenchResult> seen;
  BenchResult r;
  ASSERT_TRUE(run_bench(be, o, r, [&](const BenchResult& so_far) { seen.push_back(so_far); }).ok());
  ASSERT_EQ(seen.size(), 5u);  // once the plans are made, then after copy and box at 1 and at 4 channels
  EXPECT_EQ(seen[0].backend, "cpu");
  EXPECT_EQ(seen[0].device, "counting");
  EXPECT_EQ(seen[0].timer_clock, "host-clock");
  EXPECT_TRUE(seen[0].cases.empty());
  EXPECT_EQ(seen[0].storage, "");
  for (size_t k = 1; k <= 2; ++k) {
    EXPECT_EQ(seen[k].storage, "r16f") << k;
    EXPECT_EQ(seen[k].bytes_per_value, 2) << k;
  }
  EXPECT_EQ(bench_json(seen[1], o)["settings"]["bytes_per_value"], 2);
  EXPECT_EQ(seen[4].storage, "r16f (1 channel), rgba16f (4 channels)");
  EXPECT_EQ(seen[4].storage, r.storage);
  EXPECT_EQ(seen[4].bytes_per_value, r.bytes_per_value);

  // No image uploaded: no storage, as for a backend that did not open (it said the one the backend opened with).
  class NoRoomBackend : public CountingBackend {
    Status upload(const Image&, double&) override { return Status::fail("no room"); }
  } full;
  ASSERT_TRUE(run_bench(full, o, r).ok());
  EXPECT_EQ(r.failed(), 4);
  EXPECT_EQ(r.storage, "");
  EXPECT_EQ(r.bytes_per_value, 4);
}

// --method all where every method but copy is left out (a sigma none takes beside one they do) is an error saying why:
// it benched copy alone and succeeded. A sigma of 0 or below is refused before any plan, as blur refuses it (with all
// it left every method out).
TEST(Bench, AllThatWouldRunOnlyCopyIsAnError) {
  auto backend = make_cpu_backend(BackendOptions{});
  BenchOptions o = one_run_bench({"copy", "gauss-sep", "box"}, {3, 600}, {{8, 8}});
  o.skip_unplannable = true;
  BenchResult r;
  const Status s = run_bench(*backend, o, r);
  EXPECT_NE(s.error.find("nothing but copy would run"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("gauss-sep, sigma 600: "), std::string::npos) << s.error;
  EXPECT_TRUE(r.cases.empty());
  for (const double bad : {0.0, -1.0}) {
    o.sigmas = {1, bad};
    const Status refused = check_bench_options(o);
    EXPECT_NE(refused.error.find(" is not above 0"), std::string::npos) << bad << ": " << refused.error;
    EXPECT_EQ(run_bench(*backend, o, r).error, refused.error);
  }
  o.sigmas = {3};
  EXPECT_TRUE(check_bench_options(o).ok());
}

// The host time a backend spends preparing a run (GL's program builds and pass setup) is the image's compute stage
// too: it fell in no stage (a 256^2 GL iir: 46-48 ms of its run outside every stage with a cold shader cache).
class PreparingBackend : public CountingBackend {
 public:
  Status run(const Plan& plan, RunInfo& info) override {
    Status s = CountingBackend::run(plan, info);
    info.compute_ms = 1.5, info.prepare_ms = 2.25;
    return s;
  }
};

TEST(Pipeline, ABackendsPreparationCountsInComputeStage) {
  if (!make_lean_io()) GTEST_SKIP() << "no lean I/O adapter";
  TempDir d;
  const std::vector<Job> jobs = write_inputs(d, 2);
  Plan plan;
  ASSERT_TRUE(resolve_plan("box", {}, plan).ok());
  PreparingBackend be;
  PipelineOptions po;
  po.make_io = [] { return make_lean_io(); };
  RunRecord run;
  run_pipeline(jobs, be, plan, po, run);
  ASSERT_EQ(run.images.size(), 2u);
  for (const auto& im : run.images) {
    ASSERT_TRUE(im.ok) << im.error;
    EXPECT_EQ(im.ms.compute, 1.5 + 2.25);
  }
}

// After host-side preparation that left the device idle as long as its clock takes to fall, the warm-up runs longer by
// as much as its clock took to rise again (the H200's numbers, backend.hpp).
TEST(Bench, WarmUpAfterAnIdleDeviceRunsLonger) {
  EXPECT_EQ(warm_up_after_idle_ms(200, 0), 200);
  EXPECT_EQ(warm_up_after_idle_ms(200, kIdleClockDropMs - 1), 200);
  EXPECT_EQ(warm_up_after_idle_ms(200, kIdleClockDropMs), 200 + kReclockMs);
  EXPECT_EQ(warm_up_after_idle_ms(0, 8500), kReclockMs);
  EXPECT_LE(kIdleClockDropMs, 1500);  // the shortest idle seen to lower the clock (H200, calls 297-298: 1.5-2.5 s)
  EXPECT_GE(kReclockMs, 2 * 450);    // twice the longest rise seen under load
}

// Gives the timed runs of the method `box` as scripted: each call takes the next list of times (the last list
// again once they run out), so the test can play a device whose clock rises during the runs.
class ScriptedTimesBackend : public CountingBackend {
 public:
  std::vector<std::vector<double>> box_times;
  int box_calls = 0;
  Status run_repeated(const Plan& plan, int n, std::vector<double>& ms, RunInfo& info) override {
    if (plan.method != "box") return Backend::run_repeated(plan, n, ms, info);
    const std::vector<double>& t = box_times[size_t(std::min(box_calls, int(box_times.size()) - 1))];
    ++box_calls;
    ms.clear();
    for (int i = 0; i < n; ++i) ms.push_back(t[size_t(i) % t.size()]);
    info = RunInfo{};
    return Status::success();
  }
};

TEST(Bench, RunsThatChangeSpeedAreTimedAgain) {
  ScriptedTimesBackend be;
  BenchOptions o;
  o.methods = {"box"};
  o.sizes = {{16, 16}};
  o.repeat = 4;
  o.warmup = 0;
  o.warmup_ms = 0;
  // 3.0 ms twice then 0.75 twice (the clock rising mid-run: median 1.875, a run under half of it), then steady.
  be.box_times = {{3.0, 3.0, 0.75, 0.75}, {0.75, 0.76, 0.75, 0.74}};
  BenchResult r;
  ASSERT_TRUE(run_bench(be, o, r).ok());
  ASSERT_EQ(r.cases.size(), 2u);  // copy, box
  EXPECT_EQ(r.cases[1].retimed, 1);
  EXPECT_EQ(be.box_calls, 2);
  EXPECT_DOUBLE_EQ(r.cases[1].median_ms, 0.75);
  EXPECT_EQ(bench_json(r, o)["cases"][1]["retimed"], 1);

  // Never settling: timed kRetimeAtMost times more, the last timing kept.
  be.box_calls = 0;
  be.box_times = {{3.0, 3.0, 0.75, 0.75}};
  ASSERT_TRUE(run_bench(be, o, r).ok());
  EXPECT_EQ(r.cases[1].retimed, kRetimeAtMost);
  EXPECT_EQ(be.box_calls, kRetimeAtMost + 1);
  EXPECT_DOUBLE_EQ(r.cases[1].median_ms, 1.875);

  // The clock rising after the first runs (as GL iir on an H200: 0.74-2.89 ms, median 0.98): no run under
  // half the median, the slowest over kRetimeSpread times the fastest: timed again.
  be.box_calls = 0;
  be.box_times = {{2.9, 2.9, 0.75, 0.75, 0.75}, {0.75, 0.76, 0.75, 0.74}};
  o.repeat = 5;
  ASSERT_TRUE(run_bench(be, o, r).ok());
  EXPECT_EQ(r.cases[1].retimed, 1);
  EXPECT_EQ(be.box_calls, 2);
  EXPECT_DOUBLE_EQ(r.cases[1].median_ms, 0.75);
  o.repeat = 4;

  // Steady runs (the slowest at twice the fastest, none under half the median): timed once.
  be.box_calls = 0;
  be.box_times = {{1.0, 1.0, 0.6, 1.2}};
  ASSERT_TRUE(run_bench(be, o, r).ok());
  EXPECT_EQ(r.cases[1].retimed, 0);
  EXPECT_EQ(be.box_calls, 1);
}

// Reads throttle counters that advance by the scripted amounts at each read (power, thermal), the first read of
// each case before its warm-up, the second after its timed runs.
class ThrottledBackend : public CountingBackend {
 public:
  std::vector<std::pair<double, double>> steps;  // per read: the counters' advance since the previous read
  size_t reads = 0;
  double power = 1000, thermal = 50;
  bool throttle_ms(double& power_ms, double& thermal_ms) override {
    const auto& [p, t] = steps[std::min(reads, steps.size() - 1)];
    ++reads;
    power += p, thermal += t;
    power_ms = power, thermal_ms = thermal;
    return true;
  }
};

TEST(Bench, CasesRunOnAThrottledDeviceAreNoted) {
  ThrottledBackend be;
  BenchOptions o;
  o.methods = {"box"};
  o.sizes = {{16, 16}};
  o.repeat = 3;
  o.warmup = 0;
  o.warmup_ms = 20;
  // copy: no advance over its case; box: 400 ms of power capping between its two reads (more than its busy time:
  // the counters are the device's, not the case's), 2 ms of thermal.
  be.steps = {{0, 0}, {0, 0}, {0, 0}, {400, 2}};
  BenchResult r;
  ASSERT_TRUE(run_bench(be, o, r).ok());
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(be.reads, 4u);
  EXPECT_DOUBLE_EQ(r.cases[0].throttled_power_ms, 0);
  EXPECT_DOUBLE_EQ(r.cases[1].throttled_power_ms, 400);
  EXPECT_DOUBLE_EQ(r.cases[1].throttled_thermal_ms, 2);
  EXPECT_GE(r.cases[1].busy_ms, 20);  // the warm-up is inside the counted time
  EXPECT_EQ(throttled_note(r.cases[0]), nullptr);
  ASSERT_NE(throttled_note(r.cases[1]), nullptr);
  EXPECT_STREQ(throttled_note(r.cases[1]), "power limit and temperature");
  // The note shows at most the busy time (the counters advance in steps): 400 ms shows as the case's busy time.
  const std::string table = bench_table(r);
  EXPECT_EQ(table.find("note: copy"), std::string::npos) << table;
  char want[200];
  std::snprintf(want, sizeof want, "for %.1f ms by power and 2.0 ms by temperature of the %.1f ms",
                r.cases[1].busy_ms, r.cases[1].busy_ms);
  EXPECT_NE(table.find(std::string("note: box 16x16x4 sigma 3: the device was held below its clocks (power limit and "
                                   "temperature) ") + want),
            std::string::npos)
      << table;
  const auto j = bench_json(r, o);
  EXPECT_EQ(j["cases"][1]["throttled_ms"]["power"], 400.0);
  EXPECT_EQ(j["cases"][0]["throttled_ms"]["thermal"], 0.0);
  EXPECT_GE(j["cases"][1]["busy_ms"].get<double>(), 20.0);

  // Under 1% of the busy time is not noted; a backend that cannot read the counters gives no field and no note.
  BenchCase c = r.cases[1];
  c.throttled_power_ms = 0.009 * c.busy_ms, c.throttled_thermal_ms = 0;
  EXPECT_EQ(throttled_note(c), nullptr);
  c.throttled_thermal_ms = 0.02 * c.busy_ms;
  EXPECT_STREQ(throttled_note(c), "temperature");
  c.throttled_power_ms = 0.5 * c.busy_ms, c.throttled_thermal_ms = 0;
  EXPECT_STREQ(throttled_note(c), "power limit");
  CountingBackend plain;
  ASSERT_TRUE(run_bench(plain, o, r).ok());
  EXPECT_LT(r.cases[1].throttled_power_ms, 0);
  EXPECT_FALSE(bench_json(r, o)["cases"][1].contains("throttled_ms"));
  EXPECT_EQ(bench_table(r).find("note:"), std::string::npos);
}

// A device that runs out of host memory on box (a reach whose padded images do not fit): each throw becomes that
// case's error, named for what ran out, and the other cases still run (bench used to abort on std::bad_alloc).
class OutOfMemoryBackend : public CountingBackend {
 public:
  bool in_warm_up = false;
  Status run(const Plan& plan, RunInfo& info) override {
    if (plan.method == "box") throw std::bad_alloc();
    return CountingBackend::run(plan, info);
  }
  Status warm_up(const Plan& plan, double min_ms) override {
    if (in_warm_up && plan.method == "box") throw std::runtime_error("driver said no");
    return CountingBackend::warm_up(plan, min_ms);
  }
};

TEST(Bench, ACaseThatThrowsFailsAlone) {
  OutOfMemoryBackend be;
  BenchOptions o;
  o.methods = {"box", "gauss-sep"};
  o.sizes = {{16, 8}};
  o.repeat = 2;
  o.warmup = 0;
  o.warmup_ms = 0;
  BenchResult r;
  ASSERT_TRUE(run_bench(be, o, r).ok());
  ASSERT_EQ(r.cases.size(), 3u);  // copy, box, gauss-sep
  EXPECT_EQ(r.failed(), 1);
  EXPECT_TRUE(r.cases[0].error.empty());
  EXPECT_NE(r.cases[1].error.find("out of memory running box on cpu (16x8, reach "), std::string::npos)
      << r.cases[1].error;
  EXPECT_TRUE(r.cases[2].error.empty()) << r.cases[2].error;
  EXPECT_GT(r.cases[2].median_ms, 0);

  // In JSON the failed case has no times or ratios (null, not 0: a script taking the fastest median took it); the
  // progress callback saw the run once its plans were made, then each case as it finished.
  const nlohmann::json j = bench_json(r, o);
  for (const char* k : {"median_ms", "min_ms", "gbps", "ratio_to_copy"}) {
    EXPECT_TRUE(j["cases"][1][k].is_null()) << k;
    EXPECT_TRUE(j["cases"][2][k].is_number()) << k;
  }
  EXPECT_FALSE(j["summary"].contains("interrupted"));

  be.in_warm_up = true;  // what else a warm-up throws is its message
  o.warmup_ms = 1;
  std::vector<size_t> seen;
  ASSERT_TRUE(run_bench(be, o, r, [&](const BenchResult& so_far) { seen.push_back(so_far.cases.size()); }).ok());
  ASSERT_EQ(r.cases.size(), 3u);
  EXPECT_EQ(r.cases[1].error, "driver said no");
  EXPECT_TRUE(r.cases[2].error.empty()) << r.cases[2].error;
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(Shard, ShardsCoverEveryJobOnceAndAreDeterministic) {
  std::vector<Job> jobs(23);
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i].input = "in/" + std::to_string(100 + i) + ".png";
  for (int n : {1, 2, 3, 7, 23, 40}) {
    std::vector<int> seen(jobs.size(), 0);
    size_t smallest = jobs.size(), largest = 0;
    for (int k = 1; k <= n; ++k) {
      const std::vector<Job> part = shard_jobs(jobs, k, n);
      EXPECT_EQ(shard_jobs(jobs, k, n).size(), part.size());  // same answer every time
      smallest = std::min(smallest, part.size()), largest = std::max(largest, part.size());
      for (const Job& j : part) ++seen[size_t(std::stoi(j.input.substr(3)) - 100)];
    }
    for (int c : seen) EXPECT_EQ(c, 1) << "n=" << n;
    EXPECT_LE(largest - smallest, 1u) << "n=" << n;  // balanced
  }
  EXPECT_EQ(shard_jobs(jobs, 2, 5)[1].input, "in/106.png");  // the 2nd, 7th, 12th, ... job
  // The same list in another order (a stdin list reversed, files named in another order) splits the same way: in the
  // given order shards 1/2 of a list and 2/2 of it reversed both took the even-numbered files.
  std::vector<Job> reversed(jobs.rbegin(), jobs.rend());
  for (int k = 1; k <= 3; ++k) {
    const std::vector<Job> a = shard_jobs(jobs, k, 3), b = shard_jobs(reversed, k, 3);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].input, b[i].input) << k;
  }
}

TEST(Shard, ParsesKOverN) {
  int k = 0, n = 0;
  ASSERT_TRUE(parse_shard("3/8", k, n).ok());
  EXPECT_EQ(k, 3);
  EXPECT_EQ(n, 8);
  for (const char* bad : {"0/4", "5/4", "1/0", "3", "a/b", "-1/2", "1/2/3", "", "/4", "2/"})
    EXPECT_FALSE(parse_shard(bad, k, n).ok()) << bad;
}

}  // namespace
}  // namespace gpublur
