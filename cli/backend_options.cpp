#include "cli/backend_options.hpp"

#include <spdlog/spdlog.h>

namespace gpublur::cli {

void add_backend_options(CLI::App* cmd, BackendArgs& a) {
  cmd->add_option("-b,--backend", a.backend,
                  "cpu, cuda, gl, or auto (cuda, else gl, else cpu); built: " + compiled_backends())
      ->check(CLI::IsMember({"cpu", "cuda", "gl", "auto"}))
      ->capture_default_str();
  cmd->add_option("--device", a.device, "GPU index (CUDA ordinal, EGL device)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--threads", a.threads, "CPU backend worker threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--gl-storage", a.gl_storage,
                  "GL texture format: rgba32f, or rgba16f (half the bytes, ~1e-3 relative precision)")
      ->check(CLI::IsMember({"rgba32f", "rgba16f"}))
      ->capture_default_str();
}

std::unique_ptr<Backend> open_backend(const BackendArgs& a) {
  BackendOptions bo;
  bo.device = a.device;
  bo.threads = a.threads;
  bo.half_storage = a.gl_storage == "rgba16f";
  std::string error;
  std::unique_ptr<Backend> backend = make_backend(a.backend, bo, error);
  if (!backend) spdlog::error("{}", error.empty() ? "backend '" + a.backend + "' is not available" : error);
  return backend;
}

}  // namespace gpublur::cli
