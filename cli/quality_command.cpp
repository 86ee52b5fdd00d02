// `gpublur quality`: a method's effective sigma (the thesis's fit) and its error against the exact Gaussian,
// on image files or the built-in set; a table on stdout, or one JSON document with --json.
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include "cli/backend_options.hpp"
#include "cli/commands.hpp"
#include "cli/method_options.hpp"
#include "core/io/image_io.hpp"
#include "core/pipeline.hpp"
#include "core/plan.hpp"
#include "core/quality.hpp"
#include "core/quality_images.hpp"
#include "core/registry.hpp"
#include "core/report.hpp"
#include "core/warning_capture.hpp"

namespace gpublur::cli {
namespace {

struct QualityArgs {
  std::vector<std::string> inputs;
  std::string method;
  BackendArgs backend;
  bool json = false;
  int size = kQualityImageSize;
  bool no_linear = false, no_premultiply = false, no_impulse = false;
  std::string io;
  MethodOptions method_options;
  CLI::Option* size_opt = nullptr;
};

int usage(const std::string& message) {
  spdlog::error("{}", message);
  return kExitUsage;
}

// Files as given; a folder stands for its images as blur scans it (scan_folder, not recursive), in the same order.
// Names in a folder that cannot be read as files (broken links) and folders that cannot be listed come with their
// error (QualityInput::error set, nothing to read).
std::vector<QualityInput> expand_inputs(const std::vector<std::string>& args) {
  std::vector<QualityInput> out;
  for (const auto& arg : args) {
    std::error_code ec;
    if (!std::filesystem::is_directory(arg, ec)) {
      out.push_back(QualityInput{arg, Image{}, ""});  // a missing file is reported as that input's error by the reader
      continue;
    }
    for (const FolderEntry& e : scan_folder(arg, false))
      out.push_back(QualityInput{e.file.string(), Image{}, e.error});
  }
  return out;
}

// A run that measures nothing exits 1; with --json stdout still holds one document, saying why (a script reading it
// met empty input).
// `logged`: the message was said already (open_one logs why a backend did not open; it was printed twice).
// `warnings`: those logged before it (--border's, the plan's), in the document too where there are any.
int fail_run(const QualityArgs& a, const std::string& backend, const std::string& message,
             const std::vector<std::string>& warnings, bool logged = false) {
  if (!logged) spdlog::error("{}", message);
  if (a.json) {
    nlohmann::json j{{"schema_version", 1},
                     {"tool", {{"name", "gpublur"}, {"version", GPUBLUR_VERSION}, {"command", "quality"}}},
                     {"method", a.method},
                     {"backend", backend},
                     {"error", message}};
    if (!warnings.empty()) j["warnings"] = warnings;
    std::cout << json_text(j, 2) << "\n";
  }
  return kExitFailed;
}

int run_quality(QualityArgs& a) {
  // Every warning of the run reaches the JSON, not only stderr (a script reading the JSON alone missed --border's);
  // an image's own go to that image (measure_quality's captures, nested in this one).
  std::vector<std::string> warnings;
  const WarningCapture capture(warnings);
  // --json is a flag here (bench's takes a file): a .json name after it is a file meant for the JSON, not an image.
  for (const std::string& in : a.inputs) {
    std::error_code ec;
    if (lowercase_extension(in) == "json" && !std::filesystem::is_directory(in, ec))
      return usage("'" + in + "' is not an image: quality's --json writes the JSON to stdout (redirect it: --json > " +
                   in + ")");
  }
  std::map<std::string, std::string> given;
  if (Status s = a.method_options.given(given); !s) return usage(s.error);
  Plan plan;
  if (Status s = resolve_plan(a.method, given, plan); !s) return usage(s.error);
  warn_sigma_overridden(a.method, given, plan);
  // The reference Gaussians read past the edges as clamp does (the thesis's measure); another border mode differs from
  // them within a kernel's reach of the edges, which the numbers then count as error.
  if (plan.border != Border::Clamp)
    spdlog::warn("quality: the reference Gaussians use the clamp border; with --border {} the method's outputs near "
                 "the edges differ from them, which lowers PSNR and moves the fit (more so on small images)",
                 border_name(plan.border));
  std::unique_ptr<ImageIO> io = make_image_io(a.io);
  if (!io) return usage("image I/O adapter '" + a.io + "' is not built into this binary");

  bool usage_error = false;
  std::string why;
  std::unique_ptr<Backend> backend = open_backend(a.backend, usage_error, &why);
  if (!backend && usage_error) return kExitUsage;
  if (!backend)
    return fail_run(a, a.backend.backend,
                    "backend '" + a.backend.backend + "' did not open: " + (why.empty() ? "see the log" : why),
                    warnings, true);
  if (!method_on_backend(*find_method(a.method), backend->name()))
    return usage("method '" + a.method + "' is not implemented on backend '" + backend->name() + "'");

  std::vector<QualityInput> inputs;
  if (a.inputs.empty()) {
    spdlog::info("no images given: the built-in set, {}x{}", a.size, a.size);
    inputs = builtin_quality_inputs(a.size);
  } else {
    if (a.size_opt->count()) spdlog::warn("--size is the built-in images'; images are given: ignored");
    std::vector<std::string> args;  // `-`: a list from stdin, as blur takes it
    if (Status s = expand_stdin_lists(a.inputs, args); !s) return usage(s.error);
    std::vector<QualityInput> listed = expand_inputs(args);
    std::vector<std::string> files;
    for (const QualityInput& q : listed)
      if (q.error.empty()) files.push_back(q.name);
    // One image given twice would count twice in the mean (blur refuses it too): by any name, hard links too (one
    // file: one device and inode).
    std::map<std::string, std::string> seen;
    for (const std::string& f : files) {
      struct stat st {};
      const std::string key = ::stat(f.c_str(), &st) == 0
                                  ? std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino)
                                  : real_path(f);
      if (auto [it, fresh] = seen.emplace(key, f); !fresh)
        return usage("inputs " + it->second + " and " + f + " are one image given twice");
    }
    ColorOptions color;
    color.linear = !a.no_linear;
    color.premultiply = !a.no_premultiply;
    std::vector<QualityInput> read = read_quality_inputs(files, *io, color);
    size_t next = 0;  // the inputs in the order listed, the failed names among them
    for (QualityInput& q : listed) inputs.push_back(q.error.empty() ? std::move(read[next++]) : std::move(q));
    if (inputs.empty())
      return fail_run(a, backend->name(), "no image to measure: the folders and lists named hold no .exr or .png file",
                      warnings);
  }
  spdlog::info("{} on {} ({}), sigma {}, {} image(s)", a.method, backend->name(), backend->device_name(),
               plan.sigma, inputs.size());

  QualityOptions qo;
  qo.impulse = !a.no_impulse;
  // Half-float textures are judged against float32 Gaussians on the cpu backend: on the same textures the
  // reference carried the method's rounding and an rgba16f run read "identical" to the exact Gaussian.
  std::unique_ptr<Backend> judge;
  if (a.backend.gl_storage == "rgba16f" && backend->name() == "gl") {
    std::string error;
    judge = make_backend("cpu", BackendOptions{}, error);
    if (!judge)
      return fail_run(a, backend->name(), "the float32 reference for --gl-storage rgba16f (cpu backend): " + error,
                      warnings);
    spdlog::info("--gl-storage rgba16f: the reference Gaussians run on the cpu backend in float32");
    qo.reference_backend = judge.get();
  }
  // What the JSON says beside the measurement: the run's warnings first, in the order logged, and how images were read.
  auto complete = [&](QualityResult& r) {
    r.warnings.insert(r.warnings.begin(), warnings.begin(), warnings.end());
    r.linear = !a.no_linear;
    r.premultiply = !a.no_premultiply;
    r.io = io->name();
  };
  // Interrupted, --json still writes what was measured, as bench does: the images finished before the signal and
  // summary.interrupted (stdout held nothing: a script met empty input). The hook is armed once measure_quality has
  // said what it measures; what it reads is kept here on the measuring thread, as the warnings are logged there.
  std::mutex done_mutex;
  QualityResult done;
  bool armed = false;
  const InterruptReportScope json_scope;  // the hook writes the JSON until the JSON below is written
  if (a.json)
    qo.progress = [&](const QualityResult& so_far) {
      {
        std::lock_guard<std::mutex> lock(done_mutex);
        done = so_far;
        complete(done);
      }
      if (armed) return;
      armed = true;  // (not under done_mutex: the interrupt thread takes it inside the hook)
      arm_interrupt_report([&] {
        std::lock_guard<std::mutex> lock(done_mutex);
        done.interrupted = true;
        std::cout << json_text(quality_json(done), 2) << "\n" << std::flush;
      });
    };
  QualityResult r;
  const Status measured = measure_quality(*backend, plan, inputs, qo, r);
  complete(r);
  if (!a.json) {
    if (!measured) return fail_run(a, backend->name(), measured.error, r.warnings);
    std::cout << quality_table(r) << std::flush;
    return r.failed() ? kExitFailed : kExitOk;
  }
  const InterruptHold hold(true);  // a signal now waits for the write, then changes the exit status only
  if (!hold) return kExitFailed;   // it came first: the interrupt thread writes the JSON and exits 130
  int status = kExitFailed;
  if (!measured) {
    fail_run(a, backend->name(), measured.error, r.warnings);
  } else {
    // As bench does: stdout carries only the JSON; the table goes to stderr unless -q (errors only there).
    if (spdlog::get_level() <= spdlog::level::info) std::cerr << quality_table(r) << std::flush;
    std::cout << json_text(quality_json(r), 2) << "\n" << std::flush;
    status = r.failed() ? kExitFailed : kExitOk;
  }
  InterruptReportScope::report_written();
  return status;
}

}  // namespace

std::function<int()> add_quality_command(CLI::App& app) {
  auto a = std::make_shared<QualityArgs>();
  CLI::App* cmd = app.add_subcommand(
      "quality",
      "effective sigma of a method (the sigma of the exact Gaussian closest in mean abs difference) and its "
      "PSNR / max / mean abs error against the exact Gaussian of --sigma, per image and as a mean");
  cmd->add_option("images", a->inputs,
                  "EXR/PNG files or folders, read as blur reads them (linear light, premultiplied alpha); `-`: a list "
                  "of them from stdin, as blur takes; none: the built-in set (1/f noise, hard edges, fine texture, a "
                  "mixed scene)")
      ->type_name("IMAGE");
  cmd->add_option("-m,--method", a->method, "the method to measure (list below)")->required();
  add_backend_options(cmd, a->backend);
  cmd->add_flag("--json", a->json, "write one JSON document to stdout (the table goes to stderr)");
  a->size_opt = cmd->add_option("--size", a->size, "size of the built-in images (square)")
                    ->check(CLI::Range(16, 8192))
                    ->capture_default_str();
  cmd->add_flag("--no-linear", a->no_linear, "take sRGB (PNG) data as encoded, not in linear light");
  cmd->add_flag("--no-premultiply", a->no_premultiply, "do not premultiply straight (PNG) alpha");
  cmd->add_flag("--no-impulse", a->no_impulse, "skip the impulse-response standard deviation");
  cmd->add_option("--io", a->io, io_option_help())
      ->check(CLI::IsMember({"oiio", "lean"}));
  a->method_options.add_to(*cmd);
  cmd->footer(methods_footer());
  return [a] { return run_quality(*a); };
}

}  // namespace gpublur::cli
