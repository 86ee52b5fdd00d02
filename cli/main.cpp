// gpublur: batch image blurring on the GPU (CUDA, GL) or the CPU reference.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "cli/startup.hpp"
#include "core/pipeline.hpp"
#include "core/registry.hpp"
#include "core/warning_capture.hpp"

namespace {

// A standard descriptor that came closed (`2>&-`) would go to the first file the run opens, and the log lines
// meant for it into an output image: each closed one is held open on /dev/null instead. A closed stdout's writes are
// counted (count_lost_stdout): results written there are lost, and the exit status says so.
void open_closed_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == 0) gpublur::note_stdin_closed();
    if (fd == 1) gpublur::cli::count_lost_stdout();
    const int null_fd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null_fd >= 0 && null_fd != fd) {  // a lower descriptor still closed took it: move it
      dup2(null_fd, fd);
      close(null_fd);
    }
  }
}

// Whether some registry method has a parameter of this name.
bool registry_param_name(const std::string& name) {
  for (const auto& m : gpublur::method_registry())
    if (gpublur::find_param(m, name)) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpublur::cli;
  open_closed_standard_fds();  // before anything opens a file
  record_main_entry();
  // A folder job allocates the same large images (100 MB per 4K RGB float image) for every file. glibc serves
  // them by mmap and unmaps them on free, so each image faulted in and zeroed fresh pages: 30-40% of a cpu
  // folder job's CPU time was the kernel clearing pages (docs/performance.md, "page faults"). One arena, no
  // mmap, and a high trim threshold keep freed images in the heap for the next file.
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // A pipe that closes (`2>&1 | head`, `methods --json | true`) must not kill a command midway (a batch's temporaries
  // left behind, exit 141 with nothing said): writes to it fail, logs quietly, and output on stdout that cannot go is
  // an error, exit 1 (exit_process), for every command alike.
  std::signal(SIGPIPE, SIG_IGN);
  // Before any thread exists, so every thread inherits the blocked SIGINT/SIGTERM (see the handler).
  gpublur::install_interrupt_handler();

  auto logger = spdlog::stderr_color_mt("gpublur");
  logger->set_pattern("gpublur: %^%l%$: %v");
  spdlog::set_default_logger(logger);

  CLI::App app{"gpublur " GPUBLUR_VERSION
               ": blur EXR/PNG images with a named method on a CPU, CUDA or GL backend, with a timing report"};
  app.set_version_flag("--version", "gpublur " GPUBLUR_VERSION);
  app.require_subcommand(1);
  app.fallthrough();
  bool quiet = false;
  int verbose = 0;
  CLI::Option* quiet_opt = app.add_flag("-q,--quiet", quiet, "errors only on stderr");
  app.add_flag("-v,--verbose", verbose, "more detail on stderr (debug messages)")->excludes(quiet_opt);
  app.footer("Exit status: 0 all ok, 1 any image (or case) failed, 2 usage error, 130 interrupted.");
  // CLI11's own usage errors read as every other error ("--repeat: Value 0 not in range" had no prefix).
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return "gpublur: error: " + CLI::FailureMessage::simple(a, e);
  });

  auto methods = add_methods_command(app);
  auto blur = add_blur_command(app);
  auto bench = add_bench_command(app);
  auto quality = add_quality_command(app);
  auto report = add_report_command(app);

  // The first word that is no option names the command: an unknown one is named ("A subcommand is required" said
  // nothing of `gpublur frobnicate`).
  std::string command;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (!word.empty() && word[0] == '-') continue;
    const auto named = app.get_subcommands([&](const CLI::App* c) { return c->check_name(word); });
    if (named.empty()) {
      std::fprintf(stderr,
                   "gpublur: error: unknown command '%s' (choose methods, blur, bench, quality or report; --help)\n",
                   word.c_str());
      exit_process(kExitUsage);
    }
    command = word;
    break;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help / version / the error
    // bench runs several methods, so it takes no --NAME VALUE method options (CLI11 said only "not expected").
    // The word named is the first that bench does not take itself (its --sigma and --border are also parameters).
    if (dynamic_cast<const CLI::ExtrasError*>(&e) && command == "bench") {
      const CLI::App* bench = app.get_subcommand("bench");
      for (int i = 1; i < argc; ++i) {
        const std::string w = argv[i];
        if (w.rfind("--", 0) != 0) continue;
        const std::string name = w.substr(2, w.find('=') == std::string::npos ? std::string::npos : w.find('=') - 2);
        if (bench->get_option_no_throw("--" + name) || !registry_param_name(name)) continue;
        std::fprintf(stderr, "gpublur: bench takes method parameters as --param %s=VALUE (every method that has "
                     "it) or per method as METHOD:%s=VALUE\n", name.c_str(), name.c_str());
        break;
      }
    }
    exit_process(rc == 0 ? kExitOk : kExitUsage);  // help that stdout could not take is not a success
  }
  // stderr shows from this level; warnings reach the report's per-image lists whatever it is (-q too).
  gpublur::capture_warnings(*logger, quiet          ? spdlog::level::err
                                     : verbose >= 2 ? spdlog::level::trace
                                     : verbose == 1 ? spdlog::level::debug
                                                    : spdlog::level::info);

  int rc = kExitUsage;
  try {
    if (app.got_subcommand("methods")) rc = methods();
    else if (app.got_subcommand("blur")) rc = blur();
    else if (app.got_subcommand("bench")) rc = bench();
    else if (app.got_subcommand("quality")) rc = quality();
    else if (app.got_subcommand("report")) rc = report();
  } catch (const std::exception& e) {  // e.g. a thread the system refused (ulimit -u): said, not an abort
    spdlog::error("{}", e.what());
    rc = kExitFailed;
  }
  exit_process(rc);
}
