// `gpublur blur`: files, folders and stdin lists -> blurred files in -o DIR, plus a report.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <unistd.h>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <spdlog/spdlog.h>

#include "cli/backend_options.hpp"
#include "cli/commands.hpp"
#include "cli/startup.hpp"
#include "cli/method_options.hpp"
#include "core/backend.hpp"
#include "core/io/image_io.hpp"
#include "core/pipeline.hpp"
#include "core/plan.hpp"
#include "core/registry.hpp"
#include "core/report.hpp"

namespace gpublur::cli {
namespace {

struct BlurArgs {
  std::vector<std::string> inputs;
  std::string output_dir;
  std::string method = default_method() ? default_method()->name : "";
  BackendArgs backend;
  std::string format;
  std::string pixel_type;
  bool no_linear = false, no_premultiply = false;
  bool recursive = false, overwrite = false, skip_existing = false;
  std::string report;
  std::string report_format = "json";
  int io_threads = 0;
  int png_compression = 6;
  std::string shard;
  std::string exr_compression;
  std::string io;
  MethodOptions method_options;
  // Options that only some runs use: given where they do nothing, they are warned about, not dropped in silence.
  const CLI::Option *report_format_opt = nullptr, *png_compression_opt = nullptr, *exr_compression_opt = nullptr;
};

int usage(const std::string& message) {
  spdlog::error("{}", message);
  return kExitUsage;
}

// The run's report, its write held against a signal (which waits for it): no temporary is left and no earlier report
// stays. Once written, the interrupt hook is disarmed: a signal after it changes the exit status only (written again
// as interrupted, a whole shard's report failed report merge; on stdout it came twice). False where the write failed
// (said; the hook stays armed).
bool write_final_report(const std::string& path, const RunRecord& run, ReportFormat format) {
  const InterruptHold hold(true);
  if (!hold) return true;  // a signal came first: the interrupt thread writes the report
  // Test hook: a pause before the write, so a test can interrupt it.
  if (const char* ms = std::getenv("GPUBLUR_TEST_REPORT_DELAY_MS"))
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
  if (Status s = write_report_file(path, run, format); !s) {
    spdlog::error("{}", s.error);
    return false;
  }
  InterruptReportScope::report_written();
  return true;
}

int run_blur(BlurArgs& a) {
  // Everything that can be a usage error is checked before any work starts.
  std::map<std::string, std::string> given;
  if (Status s = a.method_options.given(given); !s) return usage(s.error);
  Plan plan;
  if (Status s = resolve_plan(a.method, given, plan); !s) return usage(s.error);
  warn_sigma_overridden(a.method, given, plan);

  PipelineOptions po;
  po.color.linear = !a.no_linear;
  po.color.premultiply = !a.no_premultiply;
  po.overwrite = a.overwrite;
  po.skip_existing = a.skip_existing;
  po.io_threads = a.io_threads;
  po.png_compression = a.png_compression;
  po.exr_compression = a.exr_compression;
  po.make_io = [io = a.io] { return make_image_io(io); };
  // GPUBLUR_PACKED_IO=0 / 1: 8-bit PNGs never / always go to the backend as bytes (to measure and test both
  // paths); unset: where the backend converts on a device (PipelineOptions::packed_io).
  if (const char* e = std::getenv("GPUBLUR_PACKED_IO"); e && (std::string(e) == "0" || std::string(e) == "1"))
    po.packed_io = std::atoi(e);
  if (!a.pixel_type.empty()) {
    if (!parse_pixel_type(a.pixel_type, po.pixel_type))
      return usage("--pixel-type '" + a.pixel_type + "' is not one of: uint8, uint16, half, float");
    po.has_pixel_type = true;
    if (!a.format.empty() && !pixel_type_fits(a.format, po.pixel_type))
      return usage("--pixel-type " + a.pixel_type + " cannot be written as " + a.format +
                   " (png: uint8, uint16; exr: half, float)");
  }
  ReportFormat report_format;
  if (!parse_report_format(a.report_format, report_format))
    return usage("--report-format '" + a.report_format + "' is not one of: json, jsonl, csv");
  if (!make_image_io(a.io)) return usage("image I/O adapter '" + a.io + "' is not built into this binary");

  std::vector<std::string> inputs;
  if (Status s = expand_stdin_lists(a.inputs, inputs); !s) return usage(s.error);
  std::vector<Job> jobs;
  CollectOptions co{a.output_dir, a.recursive, a.format, a.report};
  if (Status s = collect_jobs(inputs, co, jobs); !s) return usage(s.error);
  if (po.has_pixel_type)  // each output's format is known now: a type it cannot hold fails before any decode
    for (const Job& job : jobs)  // a job already failed (a missing file) has no format: it stays its own error
      if (job.error.empty() && !pixel_type_fits(job.format, po.pixel_type))
        return usage("--pixel-type " + a.pixel_type + " cannot be written as " + job.format + " (" + job.output +
                     "; png: uint8, uint16; exr: half, float; --format changes the output format)");
  if (a.report.empty() && a.report_format_opt->count())
    spdlog::warn("--report-format {} without --report: no report is written", a.report_format);
  for (const auto& [opt, format] : {std::pair{a.png_compression_opt, "png"}, std::pair{a.exr_compression_opt, "exr"}})
    if (opt->count() && !jobs.empty() &&
        std::none_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.format == format; }))
      spdlog::warn("{}: no output is {}; ignored", opt->get_name(), format);
  int shard_k = 0, shard_n = 0;
  const size_t all_jobs = jobs.size();
  if (!a.shard.empty()) {
    if (Status s = parse_shard(a.shard, shard_k, shard_n); !s) return usage(s.error);
    jobs = shard_jobs(jobs, shard_k, shard_n);
    spdlog::info("shard {}/{}: {} of {} image(s)", shard_k, shard_n, jobs.size(), all_jobs);
  }
  if (jobs.empty()) spdlog::warn("no input images");

  if (a.output_dir.empty()) return usage("-o: the output folder is empty");
  // The folders -o makes, innermost first: a run that ends before any image (a report path refused, a backend
  // that does not open) takes them away again, so it leaves nothing behind.
  std::error_code ec;
  const std::vector<std::filesystem::path> made =
      missing_folders(std::filesystem::absolute(a.output_dir, ec).lexically_normal());
  auto unmake = [&] {
    std::error_code ignored;  // `ec` keeps the reason that may be reported after this
    for (const auto& p : made) std::filesystem::remove(p, ignored);  // only while empty
  };
  std::filesystem::create_directories(a.output_dir, ec);
  if (ec || !std::filesystem::is_directory(a.output_dir)) {  // -o names a file, or a folder we may not make
    unmake();
    return usage("cannot create output folder " + a.output_dir + ": " + (ec ? ec.message() : "not a folder"));
  }
  // A folder that exists but takes no files (permissions, a read-only mount) fails every write; found here, before
  // any image is read and blurred.
  if (access(a.output_dir.c_str(), W_OK | X_OK) != 0) {
    const int e = errno;
    unmake();
    return usage("cannot write into output folder " + a.output_dir + ": " + std::strerror(e));
  }
  if (Status s = check_text_file_target("--report", a.report); !s) {
    unmake();
    return usage(s.error);
  }

  // The backends open on this thread while the pipeline's readers decode the first images: a GPU driver's
  // start-up (CUDA: ~215 ms on an H100) overlaps the first decodes instead of preceding them, and the thread
  // that opens a backend is the one that runs it (PendingBackends::open).
  // A named backend (the option admits cpu, cuda, gl, auto) is checked before any read; "auto" once open.
  const std::string& named = a.backend.backend;
  if (named != "auto" && !method_on_backend(*find_method(a.method), named))
    return usage("method '" + a.method + "' is not implemented on backend '" + named + "'");
  prepare_backend_environment(named);  // before the readers start: it may set environment variables
  std::vector<std::unique_ptr<Backend>> backends;
  bool open_ok = false, usage_error = false;
  std::string open_usage;  // a usage error found once open ("auto" chose a backend without the method)
  std::string open_error;  // why the backends did not open (not a usage error): each image's error in the report
  double backend_init_ms = 0;
  std::promise<std::vector<Backend*>> opened;
  RunRecord run;
  run.method = plan.method;
  run.params = plan.params;
  run.details = plan.details;
  run.effective_sigma = plan.effective_sigma;
  run.radius = plan.radius;
  run.linear = po.color.linear;
  run.premultiply = po.color.premultiply;
  run.io = make_image_io(a.io)->name();
  run.before_main_ms = before_main_ms();
  run.shard_k = shard_k, run.shard_n = shard_n, run.shard_jobs = shard_n > 0 ? all_jobs : 0;
  std::mutex header_mutex;  // run's header: the interrupt thread reads it while the backends open
  auto backend_fields = [&] {
    Backend* backend = backends[0].get();
    run.backend = backend->name();
    run.device = backend->device_name();
    for (size_t i = 1; i < backends.size(); ++i) run.device += ", " + backends[i]->device_name();
    run.timer_clock = backend->timer_clock();
    run.storage = backend->storage();
    run.backend_init_ms = backend_init_ms;
  };
  // Run by the pipeline on this thread, which then runs the first backend's stage, while its readers decode.
  // Whatever it meets, it keeps the promise: a backend that throws while it starts (out of memory, a driver's
  // exception) fails the run as one that says no; unkept, the pipeline's readers were left running (std::terminate).
  auto open = [&] {
    std::vector<Backend*> ready;
    const auto init_start = std::chrono::steady_clock::now();
    const auto failed = [&](const std::string& why) {
      ready.clear();
      backends.clear();
      open_ok = false, usage_error = false, open_usage.clear();
      open_error = "backend '" + named + "' did not start: " + why;
      spdlog::error("{}", open_error);
    };
    try {
      // Test hooks: a pause before the backends open, so a test can interrupt the run there; a throw.
      if (const char* ms = std::getenv("GPUBLUR_TEST_OPEN_DELAY_MS"))
        std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
      if (std::getenv("GPUBLUR_TEST_OPEN_THROW")) throw std::runtime_error("test hook: GPUBLUR_TEST_OPEN_THROW");
      open_ok = open_backends(a.backend, backends, usage_error, open_error);
      backend_init_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - init_start).count();
      if (open_ok && !method_on_backend(*find_method(a.method), backends[0]->name())) {
        open_usage = "method '" + a.method + "' is not implemented on backend '" + backends[0]->name() + "'";
        open_ok = false;
      }
      if (open_ok) {
        {
          std::lock_guard<std::mutex> lock(header_mutex);
          backend_fields();
        }
        spdlog::debug("start-up: backend ready at a process age of {:.1f} ms ({:.1f} ms to open)",
                      process_age_now_ms(), backend_init_ms);
        // The blur that runs, where the parameters set it apart from --sigma (box --width 5 at sigma 3: 2.449; an
        // identity, spread --radius 1, 0). A kernel that is not a blur has none to say.
        const bool apart = plan.blur && plan.effective_sigma >= 0 &&
                           std::abs(plan.effective_sigma - plan.sigma) > 0.01 * plan.sigma;
        spdlog::info("{} on {} ({}), sigma {}{}, radius {}, {} image(s)", a.method, run.backend, run.device, plan.sigma,
                     apart ? fmt::format(" (effective {:.4g})", plan.effective_sigma) : "", plan.radius, jobs.size());
        for (auto& bk : backends) ready.push_back(bk.get());
      }
    } catch (const std::exception& e) {
      failed(e.what());
    } catch (...) {
      failed("an exception of unknown type");
    }
    opened.set_value(std::move(ready));
  };
  // The 8-bit path's choice for images read before the backends are known: CUDA always takes it.
  const PendingBackends pending{opened.get_future().share(), named == "cuda", open};

  // A progress bar on stderr when it is a terminal and logging is not quietened: images done/total, rate,
  // ETA; it replaces the per-image info lines (errors still print, on their own line).
  const bool bar = isatty(STDERR_FILENO) && spdlog::get_level() <= spdlog::level::info && jobs.size() > 1;
  const auto start = std::chrono::steady_clock::now();
  if (bar) {
    po.log_each_ok = false;
    po.on_progress = [start](size_t done, size_t total) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double rate = s > 0 ? double(done) / s : 0;
      const int width = 30, filled = int(width * done / std::max<size_t>(total, 1));
      std::string b(size_t(filled), '#');
      b.resize(size_t(width), '.');
      std::fprintf(stderr, "\r\033[K[%s] %zu/%zu images, %.2f images/s, ETA %.0f s", b.c_str(), done, total, rate,
                   rate > 0 ? double(total - done) / rate : 0.0);
      if (done == total) std::fprintf(stderr, "\n");
      std::fflush(stderr);
    };
  }

  // Interrupted, the report still says what was done: the images finished before the signal, summary
  // "interrupted" (an earlier report at that path would otherwise look like this run's). While the backends open
  // the header has no backend yet: the one asked for ("" for auto), no device (docs/report.schema.json). The
  // folders -o made go where still empty, as for any run that ends before its images, with a report or without.
  po.on_interrupt = [&](RunRecord& finished) {
    if (!a.report.empty()) {
      {
        std::lock_guard<std::mutex> lock(header_mutex);
        const std::string storage = finished.storage, clock = finished.timer_clock;  // as of the last image run
        copy_run_header(run, finished);
        if (!storage.empty()) finished.storage = storage;
        if (!clock.empty()) finished.timer_clock = clock;
      }
      if (finished.backend.empty() && named != "auto") finished.backend = named;
      // Jobs the run never reached (a backend that did not open, its images not yet named) are absent.
      auto& im = finished.images;
      im.erase(std::remove_if(im.begin(), im.end(), [](const ImageRecord& rec) { return rec.input.empty(); }),
               im.end());
      if (Status s = write_report_file(a.report, finished, report_format); !s)
        spdlog::error("{}", s.error);
      else if (a.report != "-")
        spdlog::warn("report of the {} image(s) finished before the interrupt written to {}", finished.images.size(),
                     a.report);
    }
    unmake();  // only folders still empty
  };
  const InterruptReportScope report_scope;  // the hook reports the whole run until the report below is written
  try {
    run_pipeline(jobs, pending, plan, po, run);
  } catch (const std::exception& e) {  // it could not start (no threads): nothing was read or written
    spdlog::error("{}", e.what());
    unmake();
    return kExitFailed;
  }
  if (!open_ok && (usage_error || !open_usage.empty())) {
    unmake();  // nothing was written
    return open_usage.empty() ? kExitUsage : usage(open_usage);
  }
  if (!open_ok) {
    // Exit 1 says an image failed: the report names every image as not run, with the reason, so that an earlier
    // report at its path does not pass for this run's.
    if (const InterruptHold hold(true); hold) {  // the interrupt hook reads the run
      std::lock_guard<std::mutex> lock(header_mutex);
      if (named != "auto") run.backend = named;
      for (size_t i = 0; i < jobs.size(); ++i)
        if (run.images[i].input.empty()) {
          run.images[i].input = jobs[i].input;
          run.images[i].output = jobs[i].output;
          run.images[i].error = !jobs[i].error.empty() ? jobs[i].error  // (a missing file's, known before)
                                : jobs[i].input + ": not run: " +
                                      (open_error.empty() ? "the backend did not open" : open_error);
        }
    }
    if (!a.report.empty()) write_final_report(a.report, run, report_format);
    unmake();  // nothing was written (the report may sit in a folder -o made: after it)
    return kExitFailed;
  }
  {
    std::lock_guard<std::mutex> lock(header_mutex);
    // Again after the runs: a backend may settle its clock on the first ones, and GL's storage is the texture
    // format of the last image (r32f for one channel); at open it has seen none.
    run.timer_clock = backends[0]->timer_clock();
    run.storage = backends[0]->storage();
  }

  const int failed = run.failed();
  if (run.skipped() > 0)
    spdlog::info("{} image(s), {} failed, {} skipped (their outputs exist), {:.1f} ms", run.images.size(), failed,
                 run.skipped(), run.wall_ms);
  else
    spdlog::info("{} image(s), {} failed, {:.1f} ms", run.images.size(), failed, run.wall_ms);
  if (!a.report.empty() && !write_final_report(a.report, run, report_format)) return kExitFailed;
  const auto close_start = std::chrono::steady_clock::now();
  backends.clear();
  spdlog::debug("start-up: backends closed in {:.1f} ms",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - close_start).count());
  return failed ? kExitFailed : kExitOk;
}

}  // namespace

std::function<int()> add_blur_command(CLI::App& app) {
  auto args = std::make_shared<BlurArgs>();
  CLI::App* cmd = app.add_subcommand("blur", "blur image files and folders into an output folder");
  cmd->add_option("inputs", args->inputs,
                  "files, folders (their .exr/.png files) and '-' for a newline-separated list on stdin; a name "
                  "that begins with '-' goes after --")
      ->required()
      ->type_name("INPUT");
  cmd->add_option("-o,--output", args->output_dir,
                  "output folder (created if missing); outputs mirror input names and never replace an input")
      ->required()
      ->type_name("DIR");
  cmd->add_option("-m,--method", args->method, "blur method (list below)")->capture_default_str();
  add_backend_options(cmd, args->backend);
  cmd->add_flag("-r,--recursive", args->recursive, "descend into sub-folders, keeping their structure in -o");
  cmd->add_option("--format", args->format, "write every output in this format (changes the extension)")
      ->check(CLI::IsMember({"exr", "png"}));
  cmd->add_option("--pixel-type", args->pixel_type,
                  "output pixel type (png: uint8, uint16; exr: half, float); default: the input's")
      ->check(CLI::IsMember({"uint8", "uint16", "half", "float"}));
  cmd->add_flag("--no-linear", args->no_linear, "blur sRGB (PNG) data as encoded, not in linear light");
  cmd->add_flag("--no-premultiply", args->no_premultiply,
                "do not premultiply straight (PNG) alpha for the blur");
  auto* overwrite = cmd->add_flag("--overwrite", args->overwrite,
                                  "replace existing output files (without it an existing output is an error for that "
                                  "file)");
  cmd->add_flag("--skip-existing", args->skip_existing,
                "an input whose output exists is not read, and counts as skipped, not failed (resuming a batch)")
      ->excludes(overwrite);
  cmd->add_option("--report", args->report, "write the run report to FILE ('-' = stdout; logs stay on stderr)")
      ->type_name("FILE")
      ->check(kNamesAFile);
  args->report_format_opt =
      cmd->add_option("--report-format", args->report_format,
                      "json (one document), jsonl (a line per image + a summary line) or csv")
          ->check(CLI::IsMember({"json", "jsonl", "csv"}))
          ->capture_default_str();
  cmd->add_option("--io-threads", args->io_threads,
                  "decode threads (as many again encode); default: one per core, fewer if memory is short")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--shard", args->shard,
                  "K/N: process only every N-th input starting with the K-th (of the inputs sorted by name), so N "
                  "machines or jobs split a folder with no coordinator")
      ->type_name("K/N");
  args->png_compression_opt = cmd->add_option("--png-compression", args->png_compression,
                                              "zlib level of PNG outputs, 0 (none, fastest) to 9 (smallest)")
                                  ->check(CLI::Range(0, 9))
                                  ->capture_default_str();
  args->exr_compression_opt =
      cmd->add_option("--exr-compression", args->exr_compression,
                      "compression of EXR outputs (default: the input's; zip for PNG inputs)")
          ->check(CLI::IsMember({"none", "rle", "zip", "zips", "piz", "pxr24", "b44", "b44a", "dwaa", "dwab"}));
  cmd->add_option("--io", args->io, io_option_help())
      ->check(CLI::IsMember({"oiio", "lean"}));
  args->method_options.add_to(*cmd);
  cmd->footer(methods_footer());
  return [args, cmd] { return run_blur(*args); };
}

}  // namespace gpublur::cli
