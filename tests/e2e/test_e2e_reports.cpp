// End-to-end: what a script reading gpublur's reports and streams can rely on. A report is this run's (interrupted at
// any point, or with a backend that did not open), merges refuse incomplete shards, -q leaves stderr to errors, and
// quality and bench say what they measured.
#include <csignal>
#include <cstring>
#include <functional>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>

#include "tests/e2e/e2e_fixture.hpp"
#include "tests/e2e/schema_check.hpp"

namespace gpublur {
namespace {

using namespace gpublur::e2e;

// Runs `args` (one argument each) in a child with `env` set, stdout to out.txt (or `stdout_fd`), stderr to err.txt,
// stdin from `stdin_fd` where given; returns its pid.
pid_t spawn(const fs::path& dir, const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
            int stdin_fd = -1, int stdout_fd = -1) {
  const std::string bin = gpublur::testing::gpublur_bin(), err = (dir / "err.txt").string(),
                    out = (dir / "out.txt").string();
  const pid_t pid = fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    if (stdin_fd >= 0) dup2(stdin_fd, 0);
    freopen(err.c_str(), "w", stderr);
    if (stdout_fd >= 0)
      dup2(stdout_fd, 1);
    else
      freopen(out.c_str(), "w", stdout);
    std::vector<char*> argv{const_cast<char*>(bin.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

int exit_status(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

bool wait_for(const std::function<bool()>& ready) {
  for (int i = 0; i < 1000; ++i) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The exit status of `pid` where it ends within `seconds`, else -1 (or where a signal ended it): it is then killed, so
// a run that hangs fails the test instead of hanging it.
int exit_status_within(pid_t pid, int seconds) {
  int status = 0;
  for (int i = 0; i < seconds * 100; ++i) {
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

// Whether `doc` holds to docs/NAME.schema.json; where not, the first violation and the document.
::testing::AssertionResult fits_schema(const std::string& name, const json& doc) {
  const auto errors = testing::schema_errors(load_schema(name), doc);
  if (errors.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << name << " schema: " << errors.size() << " error(s), the first "
                                       << errors.front() << "\n" << doc.dump(1);
}

// Starts a run that a signal then finds under way, its report (blur) or JSON (bench) at `report`: blur in the pause
// before its backend opens, bench after its first case (copy; gauss-2d at sigma 40 on the cpu backend runs for
// minutes). Blur reads dir/a.png.
pid_t start_long_run(const fs::path& dir, bool bench, const std::string& report,
                     std::map<std::string, std::string> env = {}) {
  fs::remove_all(dir / "o");
  fs::remove(dir / "err.txt");
  std::vector<std::string> args = {"bench", "-b", "cpu", "-v", "--method", "copy,gauss-2d", "--sigma", "40",
                                   "--size", "256", "--repeat", "5", "--json", report};
  if (!bench) {
    args = {"blur", (dir / "a.png").string(), "-o", (dir / "o").string(), "-b", "cpu", "--report", report};
    env["GPUBLUR_TEST_OPEN_DELAY_MS"] = "20000";
  }
  const pid_t pid = spawn(dir, args, env);
  if (pid <= 0) return pid;
  if (bench) {
    EXPECT_TRUE(wait_for([&] { return slurp(dir / "err.txt").find("bench copy 256x256x4") != std::string::npos; }));
  } else {
    EXPECT_TRUE(wait_for([&] { return fs::exists(dir / "o"); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the open's pause
  }
  return pid;
}

// A FIFO with a reader that never reads and a full buffer: a write to it blocks (a full pipe, a stalled reader).
struct StalledFifo {
  int reader = -1, writer = -1;
  bool full = false;
  explicit StalledFifo(const fs::path& path) {
    if (mkfifo(path.c_str(), 0600) != 0) return;
    reader = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    writer = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    const std::string block(4096, 'x');
    while (writer >= 0 && write(writer, block.data(), block.size()) > 0) {
    }
    full = reader >= 0 && writer >= 0 && errno == EAGAIN;
  }
  ~StalledFifo() {
    close(reader);
    close(writer);
  }
};

// A signal after every image is written, while the report is being written: the write goes on, whole, and the run
// exits 130 with no temporary beside the report. (The process ended at once: the earlier report stayed, and a report's
// temporary could stay with it.) On stdout the report comes once (it came a second time, marked interrupted).
TEST_F(E2E, InterruptWhileTheReportIsWrittenLeavesItWhole) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 61);
  make_image("b.png", 16, 12, 3, PixelType::UInt8, 62);
  fs::create_directories(at("rep"));
  for (const std::string report : {at("rep/r.json").string(), std::string("-")}) {
    SCOPED_TRACE(report);
    std::ofstream(at("rep/r.json")) << "an earlier run's report";
    fs::remove_all(at("o"));
    const pid_t pid = spawn(dir_,
                            {"blur", at("a.png").string(), at("b.png").string(), "-o", at("o").string(), "-b", "cpu",
                             "--report", report},
                            {{"GPUBLUR_TEST_REPORT_DELAY_MS", "3000"}});
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(wait_for([&] { return fs::exists(at("o/a.png")) && fs::exists(at("o/b.png")); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // into the report's pause
    kill(pid, SIGINT);
    EXPECT_EQ(exit_status(pid), 130) << slurp(at("err.txt"));
    EXPECT_TRUE(leftovers(at("rep")).empty()) << leftovers(at("rep")).front();
    const std::string text = slurp(report == "-" ? at("out.txt") : at("rep/r.json"));
    ASSERT_TRUE(json::accept(text)) << "not one JSON document:\n" << text;
    const json rep = json::parse(text);
    const auto errors = testing::schema_errors(load_schema(), rep);
    EXPECT_TRUE(errors.empty()) << errors.front();
    EXPECT_EQ(rep["summary"]["images"], 2);
    EXPECT_EQ(rep["summary"]["failed"], 0);
    EXPECT_EQ(rep["backend"]["name"], "cpu");
  }
}

// A signal while the list of inputs is still coming on stdin (`find ... | gpublur blur -` stopped by a scheduler, a
// Ctrl-C at a terminal): exit 130. The interrupt thread's flush of every stream waited for stdin's lock, held by the
// read, and the process never exited (SIGKILL only).
TEST_F(E2E, InterruptWhileReadingTheListFromStdinExits) {
  int list[2];
  ASSERT_EQ(pipe(list), 0);
  const pid_t pid = spawn(dir_, {"blur", "-", "-o", at("o").string(), "-b", "cpu"}, {}, list[0]);
  ASSERT_GT(pid, 0);
  close(list[0]);
  // Once its signals are blocked (the interrupt thread takes them; before that SIGINT's default action ends it),
  // then a moment for the read to start.
  const auto sigint_blocked = [&] {
    std::ifstream st("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(st, line);)
      if (line.rfind("SigBlk:", 0) == 0)
        return (std::stoull(line.substr(7), nullptr, 16) & (1ull << (SIGINT - 1))) != 0;
    return false;
  };
  EXPECT_TRUE(wait_for(sigint_blocked));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGINT);
  const int code = exit_status_within(pid, 5);
  close(list[1]);
  EXPECT_EQ(code, 130) << "-1: still running 5 s after SIGINT (killed), or ended by a signal";
}

// A signal while the backend opens: the report names the backend asked for (none had opened: its header was
// empty, which the schema refused), and the output folder the run made is taken away again.
TEST_F(E2E, InterruptWhileTheBackendOpensNamesItAndLeavesNoFolder) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 63);
  std::ofstream(at("r.json")) << "an earlier run's report";
  const pid_t pid = spawn(
      dir_, {"blur", at("a.png").string(), "-o", at("o/new").string(), "-b", "cpu", "--report", at("r.json").string()},
      {{"GPUBLUR_TEST_OPEN_DELAY_MS", "20000"}});
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for([&] { return fs::exists(at("o/new")); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the open's pause
  kill(pid, SIGTERM);
  EXPECT_EQ(exit_status(pid), 130) << slurp(at("err.txt"));
  const json rep = json::parse(slurp(at("r.json")));
  const auto errors = testing::schema_errors(load_schema(), rep);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(rep["summary"]["interrupted"], true);
  EXPECT_EQ(rep["backend"]["name"], "cpu");
  EXPECT_EQ(rep["backend"]["device"], "");
  EXPECT_FALSE(fs::exists(at("o"))) << "the folders -o made are left behind";
}

// Without --report too: a signal while the backend opens takes away the folders -o made (they stayed, empty).
TEST_F(E2E, InterruptWithoutAReportLeavesNoFolder) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 63);
  const pid_t pid = spawn(dir_, {"blur", at("a.png").string(), "-o", at("o/new").string(), "-b", "cpu"},
                          {{"GPUBLUR_TEST_OPEN_DELAY_MS", "20000"}});
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for([&] { return fs::exists(at("o/new")); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the open's pause
  kill(pid, SIGINT);
  EXPECT_EQ(exit_status(pid), 130) << slurp(at("err.txt"));
  EXPECT_FALSE(fs::exists(at("o"))) << "the folders -o made are left behind";
}

// A signal the caller ignores (nohup, `trap '' INT`) stays ignored: the run goes on to the end (it stopped, exit 130,
// a nohup'd batch ended by its terminal closing).
TEST_F(E2E, SignalsTheCallerIgnoresStayIgnored) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 64);
  struct sigaction ignore {}, hup {}, intr {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGHUP, &ignore, &hup);
  sigaction(SIGINT, &ignore, &intr);
  const pid_t pid = spawn(dir_, {"blur", at("a.png").string(), "-o", at("o").string(), "-b", "cpu"},
                          {{"GPUBLUR_TEST_OPEN_DELAY_MS", "1500"}});
  sigaction(SIGHUP, &hup, nullptr);
  sigaction(SIGINT, &intr, nullptr);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for([&] { return fs::exists(at("o")); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the open's pause
  kill(pid, SIGHUP);
  kill(pid, SIGINT);
  EXPECT_EQ(exit_status(pid), 0) << slurp(at("err.txt"));
  EXPECT_TRUE(fs::exists(at("o/a.png")));
}

// No report's temporary stays beside it: report merge's write waits for a signal (it was cut off, its temporary left),
// and a second signal that stops blur's wait for its report removes the report's temporary too.
TEST_F(E2E, InterruptedReportWritesLeaveNoTemporary) {
  make_image("in/a.png", 8, 6, 3, PixelType::UInt8, 80);
  make_image("in/b.png", 8, 6, 3, PixelType::UInt8, 81);
  for (const char* k : {"1", "2"}) {
    const Result r = run("blur " + quote(at("in").string()) + " -o " + quote(at("o").string()) + " -b cpu --shard " +
                         k + "/2 --overwrite --report " + quote(at(std::string("s") + k + ".json").string()));
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  fs::create_directories(at("rep"));
  const std::map<std::string, std::string> slow = {{"GPUBLUR_TEST_TEXT_WRITE_DELAY_MS", "1500"}};
  pid_t pid = spawn(dir_, {"report", "merge", at("s1.json").string(), at("s2.json").string(), "-o",
                           at("rep/m.json").string()}, slow);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for([&] { return !leftovers(at("rep")).empty(); }));
  kill(pid, SIGINT);
  EXPECT_EQ(exit_status(pid), 130) << slurp(at("err.txt"));
  EXPECT_TRUE(leftovers(at("rep")).empty()) << leftovers(at("rep")).front();
  EXPECT_TRUE(json::accept(slurp(at("rep/m.json")))) << "the merged report is not whole";

  pid = spawn(dir_, {"blur", at("in").string(), "-o", at("o2").string(), "-b", "cpu", "--report",
                     at("rep/r.json").string()}, slow);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for([&] { return !leftovers(at("rep")).empty(); }));
  kill(pid, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  kill(pid, SIGINT);
  EXPECT_EQ(exit_status(pid), 130) << slurp(at("err.txt"));
  EXPECT_TRUE(leftovers(at("rep")).empty()) << leftovers(at("rep")).front();
}

// Output to a stdout pipe whose reader has gone (`methods --json | true`) is an error, exit 1 with the reason, for
// every command: methods and bench were killed by SIGPIPE (exit 141, nothing said), only blur ignored it.
TEST_F(E2E, AClosedStdoutPipeIsAnErrorForEveryCommand) {
  for (const std::vector<std::string> args :
       {std::vector<std::string>{"methods", "--json"}, {"bench", "-b", "cpu", "-m", "copy", "--size", "8", "--repeat",
                                                       "1", "--json", "-"},
        {"quality", "-b", "cpu", "-m", "box", "--size", "16", "--json"}}) {
    SCOPED_TRACE(args[0]);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    close(fds[0]);  // no reader: the first write fails (EPIPE), or raises SIGPIPE
    const pid_t pid = spawn(dir_, args, {}, -1, fds[1]);
    close(fds[1]);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 1);
    EXPECT_NE(slurp(at("err.txt")).find("cannot write to stdout"), std::string::npos) << slurp(at("err.txt"));
  }
}

// An interrupted bench with --json FILE leaves this run's JSON there: the cases finished before the signal and
// summary.interrupted (the file kept an earlier bench's results, which passed for this run's).
TEST_F(E2E, InterruptedBenchWritesTheCasesItFinished) {
  std::ofstream(at("b.json")) << "an earlier bench's results";
  // copy ends at once; gauss-2d at sigma 40 on the cpu backend runs for minutes.
  const pid_t pid = spawn(dir_,
                          {"bench", "-b", "cpu", "-v", "--method", "copy,gauss-2d", "--sigma", "40", "--size", "256",
                           "--repeat", "5", "--json", at("b.json").string()},
                          {});
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for([&] { return slurp(at("err.txt")).find("bench copy 256x256x4") != std::string::npos; }));
  kill(pid, SIGINT);
  EXPECT_EQ(exit_status(pid), 130) << slurp(at("err.txt"));
  const std::string text = slurp(at("b.json"));
  ASSERT_TRUE(json::accept(text)) << text;
  const json j = json::parse(text);
  EXPECT_TRUE(fits_schema("bench", j));
  EXPECT_EQ(j["summary"]["interrupted"], true);
  ASSERT_EQ(j["cases"].size(), 1u) << text;
  EXPECT_EQ(j["cases"][0]["method"], "copy");
  EXPECT_EQ(j["settings"]["methods"], json::array({"copy", "gauss-2d"}));
  EXPECT_TRUE(leftovers(dir_).empty()) << leftovers(dir_).front();
}

// Interrupted before its first case finished (copy's 60-s warm-up), bench's JSON names the backend that opened, with
// its device and clock, and holds the warnings logged so far (the variant benched once, logged after the hook was
// armed: the sign to send the signal). Its backend was all "" and it had no warnings.
TEST_F(E2E, InterruptedBenchBeforeItsFirstCaseNamesTheBackend) {
  const pid_t pid = spawn(dir_,
                          {"bench", "-b", "cpu", "--method", "copy,box,box:passes=3", "--size", "64", "--warmup-ms",
                           "60000", "--json", at("b.json").string()},
                          {});
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for([&] { return slurp(at("err.txt")).find("benched once") != std::string::npos; }));
  kill(pid, SIGINT);
  EXPECT_EQ(exit_status(pid), 130) << slurp(at("err.txt"));
  const std::string text = slurp(at("b.json"));
  ASSERT_TRUE(json::accept(text)) << text;
  const json j = json::parse(text);
  EXPECT_TRUE(fits_schema("bench", j));
  EXPECT_EQ(j["summary"]["interrupted"], true);
  EXPECT_TRUE(j["cases"].empty()) << text;
  EXPECT_EQ(j["backend"]["name"], "cpu");
  EXPECT_NE(j["backend"]["device"], "");
  EXPECT_EQ(j["backend"]["timer_clock"], "host-clock");
  EXPECT_EQ(j["backend"]["storage"], "") << "no case uploaded";
  EXPECT_NE(j.value("warnings", json::array()).dump().find("benched once"), std::string::npos) << text;
}

// Interrupted on GL with --gl-storage rgba16f after a one-channel case, bench's JSON says that case's storage (r16f)
// and 2 bytes a value, as the finished run's does; it said rgba16f, seen when the backend opened, and 4.
TEST_F(E2E, InterruptedGlBenchReportsTheStorageItRan) {
  const pid_t pid = spawn(dir_,
                          {"bench", "-b", "gl", "--gl-storage", "rgba16f", "-v", "--method", "copy,gauss-2d", "--sigma",
                           "40", "--size", "256", "--channels", "1", "--repeat", "5", "--json", at("b.json").string()},
                          {});
  ASSERT_GT(pid, 0);
  int status = 0;
  bool ended = false;
  EXPECT_TRUE(wait_for([&] {
    ended = waitpid(pid, &status, WNOHANG) == pid;
    return ended || slurp(at("err.txt")).find("bench copy 256x256x1") != std::string::npos;
  }));
  if (ended) {  // no GL here: the run ended before its first case
    const std::string err = slurp(at("err.txt"));
    if (err.find("EGL") != std::string::npos || err.find(kNotBuiltIn) != std::string::npos)
      GTEST_SKIP() << "no GL here: " << err;
    FAIL() << "bench ended before its first case: " << err;
  }
  kill(pid, SIGINT);
  EXPECT_EQ(exit_status(pid), 130) << slurp(at("err.txt"));
  const json j = json::parse(slurp(at("b.json")));
  EXPECT_TRUE(fits_schema("bench", j));
  EXPECT_EQ(j["summary"]["interrupted"], true);
  ASSERT_FALSE(j["cases"].empty()) << j.dump(1);
  EXPECT_EQ(j["cases"][0]["storage"], "r16f");
  EXPECT_EQ(j["backend"]["storage"], "r16f") << j["backend"].dump();
  EXPECT_EQ(j["settings"]["bytes_per_value"], 2);
}

// Interrupted while it measures, quality --json writes what it measured, as bench does: the images finished before the
// signal, their mean and summary.interrupted (stdout held nothing). a.png is measured at once; gauss-2d at sigma 30 on
// the cpu backend takes a minute or more on big.png.
TEST_F(E2E, InterruptedQualityWritesTheImagesItMeasured) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 87);
  make_image("big.png", 768, 768, 3, PixelType::UInt8, 88);
  const pid_t pid = spawn(dir_,
                          {"quality", "-b", "cpu", "-m", "gauss-2d", "--sigma", "30", "--no-impulse",
                           "--border", "mirror", at("a.png").string(), at("big.png").string(), "--json"},
                          {});
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for([&] { return slurp(at("err.txt")).find("a.png: effective sigma") != std::string::npos; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past the image's record, logged just before it
  kill(pid, SIGINT);
  EXPECT_EQ(exit_status(pid), 130) << slurp(at("err.txt"));
  const std::string text = slurp(at("out.txt"));
  ASSERT_TRUE(json::accept(text)) << "stdout: '" << text << "'";
  const json q = json::parse(text);
  EXPECT_TRUE(fits_schema("quality", q));
  EXPECT_EQ(q["summary"]["interrupted"], true);
  ASSERT_EQ(q["images"].size(), 1u) << q.dump(1);
  EXPECT_EQ(q["images"][0]["status"], "ok");
  EXPECT_EQ(q["mean"]["count"], 1);
  EXPECT_EQ(q["method"], "gauss-2d");
  EXPECT_NE(q.value("warnings", json::array()).dump().find("clamp border"), std::string::npos) << q.dump(1);
}

// A second signal while the interrupt thread writes the report ends the process at once, 130, saying so: the write may
// block for good (a FIFO whose reader stalls, a full pipe, a stalled network filesystem), and nothing waited for
// signals any more, so only SIGKILL ended the run. A report's temporary is removed (regular file, its write paused).
TEST_F(E2E, ASecondSignalEndsAnInterruptedRunWhoseReportWriteBlocks) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 65);
  fs::create_directories(at("rep"));
  std::ofstream(at("rep/r.json")) << "an earlier run's report";
  const StalledFifo blur_fifo(at("r.fifo")), bench_fifo(at("b.fifo"));
  ASSERT_TRUE(blur_fifo.full && bench_fifo.full) << std::strerror(errno);
  for (const fs::path& report : {at("r.fifo"), at("rep/r.json"), at("b.fifo")}) {
    SCOPED_TRACE(report);
    const bool paused = report == at("rep/r.json");
    std::map<std::string, std::string> env;
    if (paused) env["GPUBLUR_TEST_TEXT_WRITE_DELAY_MS"] = "20000";
    const pid_t pid = start_long_run(dir_, report == at("b.fifo"), report.string(), env);
    ASSERT_GT(pid, 0);
    kill(pid, SIGINT);
    // Into the report's write, which blocks (or pauses, its temporary made), past the 100 ms from its start in which a
    // signal is taken as sent with the first.
    if (paused) EXPECT_TRUE(wait_for([&] { return !leftovers(at("rep")).empty(); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), 0) << "ended before the second signal: " << slurp(at("err.txt"));
    kill(pid, SIGINT);
    EXPECT_EQ(exit_status_within(pid, 5), 130) << slurp(at("err.txt"));
    const std::string err = slurp(at("err.txt"));
    EXPECT_NE(err.find("interrupted again; exiting without finishing the report"), std::string::npos) << err;
    EXPECT_TRUE(leftovers(at("rep")).empty()) << leftovers(at("rep")).front();
  }
}

// Interrupted, a report path that is a FIFO with no reader is not waited for (the interrupt thread blocked in open()
// for good): the run exits 130 at once, saying the report was not written. Uninterrupted, the write waits for a reader
// as any FIFO's writer does (one may come later: OutputFile.AFifoOrADeviceIsWrittenNotReplaced).
TEST_F(E2E, AnInterruptedRunDoesNotWaitForAReportFifosReader) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 66);
  for (const fs::path& report : {at("r.fifo"), at("b.fifo")}) {
    SCOPED_TRACE(report);
    ASSERT_EQ(mkfifo(report.c_str(), 0600), 0);
    const pid_t pid = start_long_run(dir_, report == at("b.fifo"), report.string());
    ASSERT_GT(pid, 0);
    kill(pid, SIGINT);
    EXPECT_EQ(exit_status_within(pid, 5), 130) << slurp(at("err.txt"));
    const std::string err = slurp(at("err.txt"));
    EXPECT_NE(err.find(report.string() + ": no reader on the FIFO; not written"), std::string::npos) << err;
  }
  // A run already waiting for its report FIFO's reader when the signal comes stops waiting (the signal waited for the
  // write, and only a second one ended the run, saying nothing of the report).
  ASSERT_EQ(mkfifo(at("w.fifo").c_str(), 0600), 0);
  fs::remove_all(at("o"));
  const pid_t pid = spawn(dir_, {"blur", at("a.png").string(), "-o", at("o").string(), "-b", "cpu", "--report",
                                 at("w.fifo").string()}, {});
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for([&] { return fs::exists(at("o/a.png")); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the wait for a reader
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), 0) << "ended without a reader: " << slurp(at("err.txt"));
  kill(pid, SIGINT);
  EXPECT_EQ(exit_status_within(pid, 5), 130) << slurp(at("err.txt"));
  const std::string err = slurp(at("err.txt"));
  EXPECT_NE(err.find(at("w.fifo").string() + ": no reader on the FIFO; not written"), std::string::npos) << err;
}

// Signals sent together (Ctrl-C, and a wrapper forwarding its own SIGTERM; a terminal closing) are one interrupt: the
// report is written, whole, and the run exits 130. The second, still pending when the report's write began (or coming
// a moment after), ended the run at once without it, as a signal while the write blocks does.
TEST_F(E2E, SignalsSentTogetherStillWriteTheReport) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 68);
  fs::create_directories(at("rep"));
  const std::map<std::string, std::string> slow = {{"GPUBLUR_TEST_TEXT_WRITE_DELAY_MS", "300"}};
  struct Pair {
    int first, second, apart_ms;
  };
  for (const bool bench : {false, true})
    for (const Pair& p : {Pair{SIGINT, SIGTERM, 0}, Pair{SIGTERM, SIGHUP, 0}, Pair{SIGINT, SIGTERM, 20}}) {
      SCOPED_TRACE(std::string(bench ? "bench " : "blur ") + strsignal(p.first) + ", " + strsignal(p.second) + " " +
                   std::to_string(p.apart_ms) + " ms after");
      std::ofstream(at("rep/r.json")) << "an earlier run's report";
      const pid_t pid = start_long_run(dir_, bench, at("rep/r.json").string(), slow);
      ASSERT_GT(pid, 0);
      kill(pid, p.first);
      if (p.apart_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(p.apart_ms));
      kill(pid, p.second);
      EXPECT_EQ(exit_status_within(pid, 10), 130) << slurp(at("err.txt"));
      const std::string err = slurp(at("err.txt")), text = slurp(at("rep/r.json"));
      ASSERT_TRUE(json::accept(text)) << "not the report: " << text << "\n" << err;
      EXPECT_EQ(json::parse(text)["summary"]["interrupted"], true);
      EXPECT_EQ(err.find("interrupted again"), std::string::npos) << err;
      EXPECT_TRUE(leftovers(at("rep")).empty()) << leftovers(at("rep")).front();
    }
}

// A second signal while a report's temporary is being created (an open() that returns late: a network filesystem's
// round trip) removes it: listed only once open() returned, it was left behind where the process ended before. The
// interrupt thread's report (its second signal ends the process at once) and the run's own (the second signal stops
// the interrupt thread's wait for it).
TEST_F(E2E, ASecondSignalWhileAReportTemporaryIsCreatedLeavesNone) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 69);
  const std::map<std::string, std::string> slow = {{"GPUBLUR_TEST_TEXT_CREATE_DELAY_MS", "20000"}};
  for (const bool own : {false, true}) {
    SCOPED_TRACE(own ? "the run's own report" : "the interrupted run's report");
    fs::remove_all(at("o"));
    fs::remove_all(at("rep"));
    fs::create_directories(at("rep"));
    const pid_t pid = own ? spawn(dir_, {"blur", at("a.png").string(), "-o", at("o").string(), "-b", "cpu",
                                         "--report", at("rep/r.json").string()}, slow)
                          : start_long_run(dir_, false, at("rep/r.json").string(), slow);
    ASSERT_GT(pid, 0);
    if (!own) kill(pid, SIGINT);
    EXPECT_TRUE(wait_for([&] { return !leftovers(at("rep")).empty(); }));
    if (own) kill(pid, SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // past the 100 ms of signals sent with the first
    kill(pid, SIGINT);
    EXPECT_EQ(exit_status_within(pid, 5), 130) << slurp(at("err.txt"));
    EXPECT_TRUE(leftovers(at("rep")).empty()) << leftovers(at("rep")).front();
  }
}

// Interrupted on GL, the report's storage is the texture format of the images run (r32f for one channel), as a
// finished run's is; it said the rgba32f seen when the backend opened.
TEST_F(E2E, InterruptedGlRunReportsTheStorageItRan) {
  make_image("a.png", 16, 12, 1, PixelType::UInt8, 67);
  const pid_t pid = spawn(dir_,
                          {"blur", at("a.png").string(), "-o", at("o").string(), "-b", "gl", "--io-threads", "1",
                           "--report", at("r.json").string()},
                          {{"GPUBLUR_TEST_WRITE_DELAY_MS", "20000"}});
  ASSERT_GT(pid, 0);
  const bool writing = wait_for([&] { return !leftovers(at("o")).empty(); });
  if (!writing) {  // no GL here: the run ended without writing
    kill(pid, SIGKILL);
    exit_status(pid);
    GTEST_SKIP() << "no GL here: " << slurp(at("err.txt"));
  }
  kill(pid, SIGINT);
  EXPECT_EQ(exit_status(pid), 130) << slurp(at("err.txt"));
  const json rep = json::parse(slurp(at("r.json")));
  const auto errors = testing::schema_errors(load_schema(), rep);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(rep["summary"]["interrupted"], true);
  EXPECT_EQ(rep["backend"]["name"], "gl");
  EXPECT_EQ(rep["backend"]["storage"], "r32f") << rep.dump();
}

// A backend that does not open exits 1, "an image failed": the report says which and why, each image as not run,
// instead of leaving an earlier run's "all ok" at its path. -b cuda where no CUDA device is usable (CI); skipped
// where one is.
TEST_F(E2E, ABackendThatDoesNotOpenReportsEveryImageNotRun) {
  make_image("a.png", 8, 8, 3, PixelType::UInt8, 64);
  std::ofstream(at("r.json")) << "an earlier run's report";
  const Result r = run("blur " + quote(at("a.png").string()) + " " + quote(at("gone.png").string()) + " -o " +
                       quote(at("o").string()) + " -b cuda --report " + quote(at("r.json").string()));
  if (r.err.find(kNotBuiltIn) != std::string::npos) GTEST_SKIP() << "built without CUDA";
  EXPECT_EQ(r.rc, 1) << r.err;  // gone.png fails whether or not CUDA opens
  const json rep = json::parse(slurp(at("r.json")));
  ASSERT_EQ(rep["images"].size(), 2u) << rep.dump();
  if (rep["images"][0]["status"] == "ok") GTEST_SKIP() << "a CUDA device is present here";
  const auto errors = testing::schema_errors(load_schema(), rep);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(rep["backend"]["name"], "cuda");
  EXPECT_NE(rep["images"][0]["error"].get<std::string>().find("not run: CUDA"), std::string::npos) << rep.dump();
  EXPECT_NE(rep["images"][1]["error"].get<std::string>().find("no such file"), std::string::npos) << rep.dump();
  EXPECT_EQ(rep["summary"]["failed"], 2);
  EXPECT_FALSE(fs::exists(at("o")));
}

// A backend that throws while it opens (out of memory, a driver's exception; here a test hook) fails the run as one
// that says no: exit 1 and every image reported not run, with the reason. The pipeline's readers were left running
// and the process ended in std::terminate (SIGABRT) before.
TEST_F(E2E, ABackendThatThrowsWhileOpeningFailsTheRunCleanly) {
  make_image("a.png", 8, 8, 3, PixelType::UInt8, 65);
  make_image("b.png", 8, 8, 3, PixelType::UInt8, 66);
  const Result r = run("blur " + quote(at("a.png").string()) + " " + quote(at("b.png").string()) + " -o " +
                           quote(at("o").string()) + " -b cpu --report " + quote(at("r.json").string()),
                       "", "GPUBLUR_TEST_OPEN_THROW=1");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("did not start: test hook"), std::string::npos) << r.err;
  const json rep = json::parse(slurp(at("r.json")));
  const auto errors = testing::schema_errors(load_schema(), rep);
  EXPECT_TRUE(errors.empty()) << errors.front();
  ASSERT_EQ(rep["images"].size(), 2u) << rep.dump();
  for (const auto& im : rep["images"])
    EXPECT_NE(im["error"].get<std::string>().find("not run: backend 'cpu' did not start"), std::string::npos)
        << rep.dump();
  EXPECT_FALSE(fs::exists(at("o")));
}

// bench --json FILE where the backend does not open: exit 1 and the file says why, as blur's report does (an earlier
// bench's results stayed at the path and passed for this run's). -b cuda where no CUDA device is usable (CI).
TEST_F(E2E, BenchJsonSaysTheBackendDidNotOpen) {
  std::ofstream(at("b.json")) << R"({"old": 1})";
  const Result r = run("bench -b cuda -m box --size 8 --sigma 2 --json " + quote(at("b.json").string()));
  if (r.rc == 0) GTEST_SKIP() << "a CUDA device is present here";
  if (r.err.find(kNotBuiltIn) != std::string::npos) GTEST_SKIP() << "built without CUDA";
  EXPECT_EQ(r.rc, 1) << r.err;
  const json j = json::parse(slurp(at("b.json")));
  EXPECT_TRUE(fits_schema("bench", j));
  EXPECT_FALSE(j.contains("old")) << j.dump();
  EXPECT_NE(j.value("error", "").find("backend 'cuda' did not open"), std::string::npos) << j.dump();
  EXPECT_TRUE(j["cases"].empty());
  EXPECT_EQ(j["backend"]["name"], "cuda");
}

// bench --json - where the backend does not open: stdout holds the same document saying why (it held nothing, and a
// script reading it met empty input; only --json FILE had it). -b cuda where no CUDA device is usable (CI).
TEST_F(E2E, BenchJsonToStdoutSaysTheBackendDidNotOpen) {
  const Result r = run("bench -b cuda -m box --size 8 --sigma 2 --json -");
  if (r.rc == 0) GTEST_SKIP() << "a CUDA device is present here";
  if (r.err.find(kNotBuiltIn) != std::string::npos) GTEST_SKIP() << "built without CUDA";
  EXPECT_EQ(r.rc, 1) << r.err;
  ASSERT_TRUE(json::accept(r.out)) << "stdout: '" << r.out << "'";
  const json j = json::parse(r.out);
  EXPECT_TRUE(fits_schema("bench", j));
  EXPECT_NE(j.value("error", "").find("backend 'cuda' did not open"), std::string::npos) << j.dump();
  EXPECT_TRUE(j["cases"].empty());
  EXPECT_EQ(j["backend"]["name"], "cuda");
  EXPECT_EQ(j["settings"]["methods"], json::array({"box"}));
}

// The method list and the other options are usage errors (exit 2, no JSON) before the backend opens: with -b cuda and
// no CUDA device (this machine), an unknown method exited 1 as the backend's failure, its JSON's methods [].
TEST_F(E2E, BenchChecksUsageBeforeTheBackendOpens) {
  for (const std::string args : {"-m nope", "-m box:nope=1", "-m box --param nonsense=1", "-m box --sigma 2,-1"}) {
    SCOPED_TRACE(args);
    fs::remove(at("b.json"));
    const Result r = run("bench -b cuda " + args + " --size 8 --repeat 1 --warmup 0 --warmup-ms 0 --json " +
                         quote(at("b.json").string()));
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(r.err.find("did not open"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(at("b.json")));
  }
  const Result r = run("bench -b cuda -m nope --size 8");
  EXPECT_NE(r.err.find("unknown method 'nope'"), std::string::npos) << r.err;
}

// A sigma of 0 or below is a usage error, as blur's; so is --method all where every method but copy would be left out
// (600 is past every method's range). Both ran copy alone and exited 0.
TEST_F(E2E, BenchRefusesSigmasNoMethodTakes) {
  const std::string rest = " --size 8 --channels 1 --repeat 1 --warmup 0 --warmup-ms 0 --json " +
                           quote(at("b.json").string());
  for (const std::string sigmas : {"1,-1", "0", "-2"}) {
    const Result r = run("bench -b cpu -m all --sigma " + sigmas + rest);
    EXPECT_EQ(r.rc, 2) << sigmas << ": " << r.err;
    EXPECT_NE(r.err.find(" is not above 0"), std::string::npos) << r.err;
  }
  const Result r = run("bench -b cpu -m all --sigma 3,600" + rest);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--method all: every method but copy was left out (the first: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing but copy would run"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(at("b.json")));
  // One method that takes every sigma is a bench (diffusion alone left out at 400: BenchJsonFollowsItsSchema).
}

// bench's JSON names its command and holds the run's warnings (present where there are any, also under -q): an ignored
// backend option, a variant benched once as an earlier entry, a plan's cost. They were on stderr only.
TEST_F(E2E, BenchJsonCarriesItsWarningsAndCommand) {
  Result r = run("-q bench -b cpu --gl-storage rgba16f -m box,box:passes=3,gauss-2d --sigma 200 --size 8 --channels 1 "
                 "--repeat 1 --warmup 0 --warmup-ms 0 --json -");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  json j = json::parse(r.out);
  EXPECT_TRUE(fits_schema("bench", j));
  EXPECT_EQ(j["tool"]["command"], "bench");
  const std::string warnings = j.value("warnings", json::array()).dump();
  EXPECT_NE(warnings.find("--gl-storage rgba16f is for the gl backend"), std::string::npos) << j.dump(1);
  EXPECT_NE(warnings.find("box:passes=3 runs as box (the same parameters): benched once"), std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("gauss-2d at radius 600 reads 1201^2"), std::string::npos) << warnings;
  r = run("bench -b cpu -m box --sigma 2 --size 8 --repeat 1 --warmup 0 --warmup-ms 0 --json -");
  ASSERT_EQ(r.rc, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_FALSE(j.contains("warnings")) << j.dump(1);
  EXPECT_TRUE(fits_schema("bench", j));
}

// bench takes no --NAME VALUE method options (it runs several methods): the usage error says how to give one.
TEST_F(E2E, BenchSaysHowToGiveAMethodParameter) {
  const Result r = run("bench -b cpu -m box --passes 5 --size 8");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("bench takes method parameters as --param passes=VALUE"), std::string::npos) << r.err;
  // bench's own --sigma and --border (registry parameters too) before the one it does not take: that one is named.
  for (const std::string before : {"--sigma 3", "--border clamp", "--sigma=3"}) {
    const Result r2 = run("bench -b cpu -m box " + before + " --passes=5 --size 8");
    EXPECT_EQ(r2.rc, 2) << r2.err;
    EXPECT_NE(r2.err.find("as --param passes=VALUE"), std::string::npos) << before << r2.err;
  }
  const Result other = run("bench -b cpu -m box --frobnicate 5 --size 8");
  EXPECT_EQ(other.rc, 2);
  EXPECT_EQ(other.err.find("method parameters"), std::string::npos) << other.err;  // no such parameter: no hint
}

// report merge: a shard whose run was interrupted makes the merge exit 1 naming it (the merged report is written,
// as for a missing shard); a blur report whose missing input was named twice lists it once, and merges.
TEST_F(E2E, ReportMergeRefusesAnInterruptedShardAndTakesRepeatedMissingInputs) {
  for (int i = 0; i < 4; ++i) make_image("in/p" + std::to_string(i) + ".png", 8, 6, 3, PixelType::UInt8, 70 + i);
  for (const char* k : {"1", "2"}) {
    const Result r = run("blur " + quote(at("in").string()) + " -o " + quote(at("o").string()) + " -b cpu --shard " +
                         k + "/2 --report " + quote(at(std::string("s") + k + ".json").string()));
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  json cut = json::parse(slurp(at("s2.json")));
  cut["images"].erase(cut["images"].size() - 1);
  cut["summary"]["images"] = 1;  // as an interrupted run's report counts the images it finished
  cut["summary"]["interrupted"] = true;
  std::ofstream(at("s2.json")) << cut.dump(2);
  Result r = run("report merge " + quote(at("s1.json").string()) + " " + quote(at("s2.json").string()) + " -o " +
                 quote(at("m.json").string()));
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("s2.json interrupted"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(slurp(at("m.json")))["summary"]["interrupted"], true);

  r = run("blur " + quote(at("in/p0.png").string()) + " gone.png gone.png ./gone.png -o " + quote(at("o2").string()) +
          " -b cpu --report " + quote(at("g.json").string()));
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_EQ(json::parse(slurp(at("g.json")))["images"].size(), 2u);
  r = run("report merge " + quote(at("g.json").string()) + " -o " + quote(at("gm.json").string()));
  EXPECT_EQ(r.rc, 0) << r.err;
}

// -q: errors only on stderr, also where the table would go there (bench --json -, quality --json).
TEST_F(E2E, QuietLeavesStderrToErrors) {
  make_image("a.png", 24, 20, 3, PixelType::UInt8, 65);
  Result r = run("-q bench -b cpu -m box --size 16 --repeat 2 --warmup 0 --warmup-ms 0 --json -");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(json::accept(r.out)) << r.out;
  r = run("-q quality -b cpu -m box " + quote(at("a.png").string()) + " --json --no-impulse");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const json q = json::parse(r.out);
  EXPECT_EQ(q["storage"], "float32");
  EXPECT_EQ(q["colour"]["linear"], true);
  EXPECT_EQ(q["reference"]["backend"], "cpu");
  EXPECT_FALSE(q["io"].get<std::string>().empty());
  // Without -q the table is there.
  r = run("bench -b cpu -m box --size 16 --repeat 2 --warmup 0 --warmup-ms 0 --json -");
  EXPECT_NE(r.err.find("median_ms"), std::string::npos) << r.err;
}

// bench --json /dev/stdout (or /dev/fd/1) is --json -: the table goes to stderr. It went to stdout before the JSON, so
// that what a script read there did not parse.
TEST_F(E2E, BenchJsonToDevStdoutIsOnlyJson) {
  for (const std::string path : {"/dev/stdout", "/dev/fd/1"}) {
    const Result r = run("bench -b cpu -m box --size 16 --repeat 2 --warmup 0 --warmup-ms 0 --json " + path);
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(json::accept(r.out)) << path << ": " << r.out;
    EXPECT_NE(r.err.find("median_ms"), std::string::npos) << r.err;
  }
}

// --param takes spaces around its name and value, as a variant's settings do: "passes = 4" was a parameter named
// "passes " that no method has.
TEST_F(E2E, ParamTakesSpacesAroundNameAndValue) {
  const Result r =
      run("bench -b cpu -m box --param \"passes = 4\" --size 8 --repeat 1 --warmup 0 --warmup-ms 0 --json -");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["cases"][1]["params"]["passes"], "4") << r.out;
}

// bench's sigma column is --sigma's: where a parameter decides the blur instead, it says so, as blur does.
TEST_F(E2E, BenchSaysWhereOtherParametersDecideTheSigma) {
  const Result r = run("bench -b cpu -m box --param width=9 --sigma 1 --size 16 --repeat 2 --warmup 0 --warmup-ms 0");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("box: --sigma 1 is not the blur that runs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--width 9"), std::string::npos) << r.err;
}

// blur's start line gives the sigma that runs beside --sigma where the parameters set it apart (under the 25% of the
// warning above: box --width 5 at sigma 3 is 2.449), and only --sigma where they agree.
TEST_F(E2E, BlurSaysTheEffectiveSigma) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 67);
  Result r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("o").string()) + " -b cpu -m box --width 5 "
                 "--sigma 3");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("sigma 3 (effective 2.449), radius 6"), std::string::npos) << r.err;
  r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("g").string()) + " -b cpu -m gauss-sep --sigma 3");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("sigma 3, radius 9"), std::string::npos) << r.err;
  // An identity says so (spread --radius 1 without --sigma: the line said sigma 2 alone).
  r = run("blur " + quote(at("a.png").string()) + " -o " + quote(at("s").string()) + " -b cpu -m spread --radius 1");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("(effective 0), radius"), std::string::npos) << r.err;
}

// quality on GL's half-float textures is judged against float32 Gaussians (the cpu backend's): on the same textures
// the reference carried the method's rounding and the run read identical to the exact Gaussian.
TEST_F(E2E, QualityOnHalfTexturesIsJudgedInFloat) {
  make_image("a.png", 32, 24, 3, PixelType::UInt16, 66);
  const Result r = run("quality -b gl --gl-storage rgba16f -m gauss-sep --sigma 2 " + quote(at("a.png").string()) +
                       " --json --no-impulse");
  if (r.err.find(kNotBuiltIn) != std::string::npos || r.err.find("EGL") != std::string::npos)
    GTEST_SKIP() << "no GL here: " << r.err;
  ASSERT_EQ(r.rc, 0) << r.err;
  const json q = json::parse(r.out);
  EXPECT_EQ(q["reference"]["backend"], "cpu");
  EXPECT_EQ(q["storage"], "rgba16f");
  const json& im = q["images"][0];
  EXPECT_EQ(im["identical"], false) << im.dump();
  EXPECT_GT(im["max_abs"].get<double>(), 1e-5) << im.dump();  // half floats: ~1e-3 relative
  EXPECT_LT(im["max_abs"].get<double>(), 5e-3) << im.dump();
}

// bench --json holds to docs/bench.schema.json: several methods (a variant among them), sigmas, sizes and channel
// counts; --method all with a method left out; cases that failed (null times). The JSON of a backend that did not open
// and of an interrupted run are checked where those are provoked (BenchJsonSaysTheBackendDidNotOpen,
// InterruptedBenchWritesTheCasesItFinished).
TEST_F(E2E, BenchJsonFollowsItsSchema) {
  Result r = run("bench -b cpu -m box,gauss-sep,box:impl=sat --sigma 1,2 --size 8,12x6 --channels 1,3 --repeat 2 "
                 "--warmup 0 --warmup-ms 0 --json " + quote(at("b.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(slurp(at("b.json")));
  EXPECT_TRUE(fits_schema("bench", j));
  EXPECT_EQ(j["cases"].size(), 2u * 2 * (1 + 3 * 2));  // sizes x channel counts x (copy + methods x sigmas)
  EXPECT_EQ(j["left_out"], json::array());

  // --method all at sigma 400: diffusion cannot take it (400000 steps) and is left out; the others run.
  r = run("bench -b cpu -m all --sigma 400 --size 4 --channels 1 --repeat 1 --warmup 0 --warmup-ms 0 --json " +
          quote(at("all.json").string()));
  ASSERT_EQ(r.rc, 0) << r.err;
  j = json::parse(slurp(at("all.json")));
  EXPECT_TRUE(fits_schema("bench", j));
  ASSERT_FALSE(j["left_out"].empty()) << j.dump(1);
  EXPECT_NE(j["left_out"].dump().find("diffusion, sigma 400"), std::string::npos) << j["left_out"].dump();
  EXPECT_GT(j["cases"].size(), 2u);

  // Failed cases: the 16384^2 image (4 GiB of floats) does not fit a 2 GB address space, so its copy and box fail
  // (null times, no storage); the 8^2 image's run.
  const std::string cmd = "ulimit -v 2000000; exec " + quote(gpublur::testing::gpublur_bin()) +
                          " bench -b cpu --threads 1 -m box --sigma 1 --size 8,16384 --repeat 1 --warmup 0 "
                          "--warmup-ms 0 --json " + quote(at("f.json").string()) + " >/dev/null 2>" +
                          quote(at("err.txt").string());
  const int status = std::system(("bash -c " + quote(cmd)).c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1) << slurp(at("err.txt"));
  j = json::parse(slurp(at("f.json")));
  EXPECT_TRUE(fits_schema("bench", j));
  ASSERT_EQ(j["cases"].size(), 4u) << j.dump(1);
  for (size_t k = 0; k < 4; ++k) {
    const json& c = j["cases"][k];
    EXPECT_EQ(c["status"], k < 2 ? "ok" : "error") << c.dump();
    EXPECT_EQ(c["median_ms"].is_null(), k >= 2) << c.dump();
    EXPECT_EQ(c["ratio_to_copy"].is_null(), k >= 2) << c.dump();
  }
  EXPECT_EQ(j["summary"]["failed"], 2);
}

// On GL (llvmpipe here: tiny sizes), each channel count's texture format per case, as the schema lists them.
TEST_F(E2E, BenchJsonOnGlFollowsItsSchema) {
  const Result r = run("bench -b gl -m box,gauss-sep --sigma 1 --size 8 --channels 1,3 --repeat 1 --warmup 0 "
                       "--warmup-ms 0 --json " + quote(at("g.json").string()));
  if (r.rc != 0 && (r.err.find("EGL") != std::string::npos || r.err.find(kNotBuiltIn) != std::string::npos))
    GTEST_SKIP() << "no GL here: " << r.err;
  ASSERT_EQ(r.rc, 0) << r.err;
  const json j = json::parse(slurp(at("g.json")));
  EXPECT_TRUE(fits_schema("bench", j));
  ASSERT_EQ(j["cases"].size(), 6u);
  EXPECT_EQ(j["cases"][0]["storage"], "r32f");
  EXPECT_EQ(j["cases"][3]["storage"], "rgba32f");
}

// quality --json holds to docs/quality.schema.json: measured images beside failed ones (a missing file, a 1x1 image
// that no blur changes), an image of six channels (measured in groups of 4), an exact method (psnr_db null,
// identical), a method with no impulse response, no image measured (a mean of count 0), and a run that measures
// nothing (the document of an error).
TEST_F(E2E, QualityJsonFollowsItsSchema) {
  make_image("in/a.png", 16, 12, 3, PixelType::UInt8, 80);
  make_image("in/b.exr", 10, 14, 6, PixelType::Float, 81);
  make_image("in/dot.png", 1, 1, 3, PixelType::UInt8, 82);
  const std::string a = quote(at("in/a.png").string()), gone = quote(at("gone.png").string());
  Result r = run("quality -b cpu -m box --sigma 1 --no-impulse " + quote(at("in").string()) + " " + gone + " --json");
  EXPECT_EQ(r.rc, 1) << r.err;
  json q = json::parse(r.out);
  EXPECT_TRUE(fits_schema("quality", q));
  ASSERT_EQ(q["images"].size(), 4u) << q.dump(1);
  EXPECT_EQ(q["mean"]["count"], 2);
  EXPECT_EQ(q["summary"]["failed"], 2);

  r = run("quality -b cpu -m gauss-sep --sigma 1 " + a + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  q = json::parse(r.out);
  EXPECT_TRUE(fits_schema("quality", q));
  EXPECT_TRUE(q["images"][0]["psnr_db"].is_null()) << q.dump(1);
  EXPECT_EQ(q["mean"]["identical"], true);

  r = run("quality -b cpu -m bilateral --sigma 1 " + a + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  q = json::parse(r.out);
  EXPECT_TRUE(fits_schema("quality", q));
  EXPECT_TRUE(q["impulse_sigma"].is_null());

  r = run("quality -b cpu -m box " + gone + " --json");
  EXPECT_EQ(r.rc, 1) << r.err;
  q = json::parse(r.out);
  EXPECT_TRUE(fits_schema("quality", q));
  EXPECT_EQ(q["mean"], json({{"count", 0}}));

  fs::create_directories(at("empty"));
  r = run("quality -b cpu -m box " + quote(at("empty").string()) + " --json");
  EXPECT_EQ(r.rc, 1) << r.err;
  q = json::parse(r.out);
  EXPECT_TRUE(fits_schema("quality", q));
  EXPECT_TRUE(q.contains("error")) << q.dump(1);
}

// On GL (llvmpipe: one small image), the storage of a one-channel image, as the schema lists them.
TEST_F(E2E, QualityJsonOnGlFollowsItsSchema) {
  make_image("a.png", 12, 10, 1, PixelType::UInt8, 83);
  const Result r = run("quality -b gl -m box --sigma 1 --no-impulse " + quote(at("a.png").string()) + " --json");
  if (r.err.find(kNotBuiltIn) != std::string::npos || r.err.find("EGL") != std::string::npos)
    GTEST_SKIP() << "no GL here: " << r.err;
  ASSERT_EQ(r.rc, 0) << r.err;
  const json q = json::parse(r.out);
  EXPECT_TRUE(fits_schema("quality", q));
  EXPECT_EQ(q["storage"], "r32f");
}

// The tests' checker (schema_check.hpp) skips keywords it does not know, so every keyword the three schemas use must be
// one it checks: a schema's minItems or exclusiveMinimum was held to nothing.
TEST_F(E2E, SchemaCheckerKnowsEveryKeywordTheSchemasUse) {
  const std::set<std::string> known = {"$defs", "$id", "$ref", "$schema", "additionalProperties", "description",
                                       "enum", "exclusiveMinimum", "items", "maxItems", "maximum", "minItems",
                                       "minimum", "oneOf", "properties", "required", "title", "type"};
  std::function<void(const json&, const std::string&)> walk = [&](const json& s, const std::string& at) {
    if (s.is_array())
      for (const auto& x : s) walk(x, at);
    if (!s.is_object()) return;
    for (const auto& [k, v] : s.items()) {
      EXPECT_TRUE(known.count(k)) << at << ": keyword " << k << " is not checked by schema_check.hpp";
      if (k == "properties" || k == "$defs")
        for (const auto& [name, sub] : v.items()) walk(sub, at + "/" + name);
      else if (k != "enum" && k != "required")
        walk(v, at + "/" + k);
    }
  };
  for (const char* name : {"report", "bench", "quality"}) walk(load_schema(name), name);
  // And the four it learned hold: one of each broken.
  const json schema = {{"type", "object"},
                       {"properties",
                        {{"a", {{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", 3}}},
                         {"b", {{"type", "array"}, {"minItems", 1}, {"maxItems", 2}}}}}};
  EXPECT_TRUE(testing::schema_errors(schema, json{{"a", 1}, {"b", {1}}}).empty());
  for (const json& bad : {json{{"a", 0}}, json{{"a", 4}}, json{{"b", json::array()}}, json{{"b", {1, 2, 3}}}})
    EXPECT_EQ(testing::schema_errors(schema, bad).size(), 1u) << bad.dump();
}

// The schemas refuse what they should, so that the tests above can fail: a document without a required field, a failed
// case or image with numbers it cannot have, a measured image without its measurement.
TEST_F(E2E, TheBenchAndQualitySchemasRefuseIncompleteDocuments) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 84);
  Result r = run("bench -b cpu -m box --size 8 --repeat 1 --warmup 0 --warmup-ms 0 --json -");
  ASSERT_EQ(r.rc, 0) << r.err;
  const json bench = json::parse(r.out);
  ASSERT_TRUE(fits_schema("bench", bench));
  json cut = bench;
  cut.erase("settings");
  EXPECT_FALSE(fits_schema("bench", cut));
  cut = bench;
  cut["cases"][1].erase("median_ms");
  EXPECT_FALSE(fits_schema("bench", cut));
  cut = bench;
  cut["cases"][1]["times_ms"] = "3";
  EXPECT_FALSE(fits_schema("bench", cut));

  r = run("quality -b cpu -m box --no-impulse " + quote(at("a.png").string()) + " " +
          quote(at("gone.png").string()) + " --json");
  ASSERT_EQ(r.rc, 1) << r.err;
  const json quality = json::parse(r.out);
  ASSERT_TRUE(fits_schema("quality", quality));
  cut = quality;
  cut.erase("mean");
  EXPECT_FALSE(fits_schema("quality", cut));
  cut = quality;
  cut["images"][0].erase("psnr_db");  // measured: every measurement
  EXPECT_FALSE(fits_schema("quality", cut));
  cut = quality;
  cut["images"][1]["effective_sigma"] = 1.0;  // failed: none
  EXPECT_FALSE(fits_schema("quality", cut));
  cut = quality;
  cut["mean"] = {{"count", 0}, {"psnr_db", 30.0}};
  EXPECT_FALSE(fits_schema("quality", cut));
  const json failed{{"schema_version", 1},
                    {"tool", {{"name", "gpublur"}, {"version", "1"}, {"command", "quality"}}},
                    {"method", "box"},
                    {"backend", "cuda"}};
  EXPECT_FALSE(fits_schema("quality", failed));  // no error
  json with_error = failed;
  with_error["error"] = "backend 'cuda' did not open";
  EXPECT_TRUE(fits_schema("quality", with_error));
}

// What quality warns of is in its JSON too, as blur's report keeps an image's warnings: the run's (--border mirror
// against the clamp reference, images smaller than the reference kernel) at the top, an image's (what its read met: a
// PNG without its IEND chunk) in that image, also under -q; and in the document of a run that measured nothing. They
// were on stderr only, where a script reading the JSON did not see them.
TEST_F(E2E, QualityJsonCarriesItsWarnings) {
  make_image("a.png", 16, 12, 3, PixelType::UInt8, 85);
  make_image("b.png", 16, 12, 3, PixelType::UInt8, 86);
  const std::string png = slurp(at("a.png"));
  ASSERT_EQ(png.substr(png.size() - 8, 4), "IEND");
  std::ofstream(at("a.png"), std::ios::binary | std::ios::trunc) << png.substr(0, png.size() - 12);
  const Result r = run("-q quality -b cpu -m box --sigma 4 --border mirror --no-impulse --io lean " +
                       quote(at("a.png").string()) + " " + quote(at("b.png").string()) + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const json q = json::parse(r.out);
  EXPECT_TRUE(fits_schema("quality", q));
  const std::string run_warnings = q.value("warnings", json::array()).dump();
  EXPECT_NE(run_warnings.find("the reference Gaussians use the clamp border"), std::string::npos) << q.dump(1);
  EXPECT_NE(run_warnings.find("smaller than the reference kernel"), std::string::npos) << q.dump(1);
  EXPECT_EQ(run_warnings.find("IEND"), std::string::npos) << "an image's warning is that image's: " << run_warnings;
  ASSERT_EQ(q["images"].size(), 2u);
  EXPECT_NE(q["images"][0].value("warnings", json::array()).dump().find("no IEND chunk"), std::string::npos)
      << q["images"][0].dump();
  EXPECT_FALSE(q["images"][1].contains("warnings")) << q["images"][1].dump();

  fs::create_directories(at("empty"));
  const Result none = run("quality -b cpu -m box --border mirror " + quote(at("empty").string()) + " --json");
  EXPECT_EQ(none.rc, 1) << none.err;
  const json f = json::parse(none.out);
  EXPECT_TRUE(fits_schema("quality", f));
  EXPECT_NE(f.value("warnings", json::array()).dump().find("clamp border"), std::string::npos) << f.dump(1);
}

}  // namespace
}  // namespace gpublur
