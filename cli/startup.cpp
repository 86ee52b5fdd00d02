#include "cli/startup.hpp"

#include <time.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <streambuf>
#include <string>

#include "core/output_file.hpp"
#include "core/pipeline.hpp"

namespace gpublur::cli {

namespace {

double g_before_main = -1;

// std::cout's buffer while stdout is closed: passes everything on (to /dev/null) and counts it.
class CountingBuf : public std::streambuf {
 public:
  explicit CountingBuf(std::streambuf* inner) : inner_(inner) {}
  size_t count() const { return count_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    ++count_;
    return inner_->sputc(traits_type::to_char_type(c));
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    count_ += size_t(n);
    return inner_->sputn(s, n);
  }
  int sync() override { return inner_->pubsync(); }

 private:
  std::streambuf* inner_;
  size_t count_ = 0;
};
CountingBuf* g_lost_stdout = nullptr;

// The process's age in ms, or -1.
double process_age_ms() {
  std::FILE* f = std::fopen("/proc/self/stat", "r");
  if (!f) return -1;
  char buf[4096];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  // Field 2 (comm) may hold spaces and parentheses: the fields after it start past the last ')'.
  const char* p = std::strrchr(buf, ')');
  if (!p) return -1;
  unsigned long long start_ticks = 0;
  // After ')': state (3), then fields 4..21, then starttime (22).
  int field = 2;
  for (const char* q = p + 1; *q; ++q) {
    if (*q == ' ') {
      ++field;
      if (field == 22) {
        start_ticks = std::strtoull(q + 1, nullptr, 10);
        break;
      }
    }
  }
  const long hz = sysconf(_SC_CLK_TCK);
  timespec now{};
  if (field != 22 || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
  const double age = (double(now.tv_sec) + now.tv_nsec * 1e-9 - double(start_ticks) / double(hz)) * 1000.0;
  return age >= 0 ? age : -1;
}

}  // namespace

void record_main_entry() { g_before_main = process_age_ms(); }

void count_lost_stdout() {
  if (!g_lost_stdout) g_lost_stdout = new CountingBuf(std::cout.rdbuf());  // lives to the process's end
  std::cout.rdbuf(g_lost_stdout);
  note_stdout_closed();  // files named for descriptor 1 are refused too (core/output_file.hpp)
}
double before_main_ms() { return g_before_main; }
double process_age_now_ms() { return process_age_ms(); }

void exit_process(int rc) {
  if (interrupted()) rc = 130;  // the pipeline may end (its writes cancelled) before the handler's own exit
  spdlog::debug("start-up: main() done at a process age of {:.1f} ms", process_age_ms());
  std::cout.flush();
  // What a command wrote to stdout (a table, JSON) that stdout could not take (a full disk, a closed pipe) is a
  // lost result: never exit 0 over it.
  if ((!std::cout || std::fflush(stdout) != 0) && rc == 0) {
    spdlog::error("cannot write to stdout: the output is lost");
    rc = 1;
  }
  if (g_lost_stdout && g_lost_stdout->count() > 0 && rc == 0) {
    spdlog::error("stdout was closed: the command's output ({} bytes) is lost", g_lost_stdout->count());
    rc = 1;
  }
  if (const char* e = std::getenv("GPUBLUR_EXIT_TEARDOWN"); e && *e == '1') std::exit(rc);
  spdlog::shutdown();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(rc);
}

}  // namespace gpublur::cli
