#include "cli/backend_options.hpp"

#include <spdlog/spdlog.h>

namespace gpublur::cli {

void add_backend_options(CLI::App* cmd, BackendArgs& a) {
  cmd->add_option("-b,--backend", a.backend,
                  "cpu, cuda, gl, or auto (cuda, else gl on a GPU, else cpu: not a software GL such as llvmpipe); "
                  "built: " + compiled_backends())
      ->check(CLI::IsMember({"cpu", "cuda", "gl", "auto"}))
      ->capture_default_str();
  cmd->add_option("--device", a.device,
                  "GPU index (CUDA ordinal, EGL device); blur -b cuda also takes a list (0,2) or all: one backend "
                  "per GPU over one shared queue")
      ->capture_default_str();
  cmd->add_option("--threads", a.threads, "CPU backend worker threads (0 = all cores)")
      ->check(CLI::Range(0, 4096));  // (NonNegativeNumber's message printed its range as 0 to 1.8e308)
  cmd->add_option("--gl-storage", a.gl_storage,
                  "GL texture precision: rgba32f (float32), or rgba16f (half the bytes, ~1e-3 relative precision; values "
                  "beyond +-65504 are out of its range and come back wrong); "
                  "textures have the image's channels (R, RG, RGBA for three and four)")
      ->check(CLI::IsMember({"rgba32f", "rgba16f"}))
      ->capture_default_str();
}

namespace {

// "N", "N,M,...", or "all" -> ordinals; false where it is none of those.
bool parse_devices(const std::string& text, const std::string& backend, std::vector<int>& out) {
  out.clear();
  if (text == "all") {
    if (backend != "cuda") return false;  // one backend per GPU is CUDA's; elsewhere "all" would mean device 0
    for (int d = 0; d < backend_device_count(backend); ++d) out.push_back(d);
    return true;
  }
  for (size_t i = 0; i <= text.size();) {
    size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    const std::string part = text.substr(i, j - i);
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos) return false;
    out.push_back(std::stoi(part));
    i = j + 1;
  }
  return !out.empty();
}

// Options the backend in use has no use for are said, not dropped in silence (auto may have chosen it).
void warn_unused(const BackendArgs& a, const std::string& backend) {
  if (backend == "cpu" && a.device.find_first_not_of('0') != std::string::npos)  // "00" is device 0 too
    spdlog::warn("--device {}: the cpu backend has no devices; ignored", a.device);
  if (backend != "cpu" && a.threads != 0) spdlog::warn("--threads is for the cpu backend; ignored on {}", backend);
  if (backend != "gl" && a.gl_storage != "rgba32f")
    spdlog::warn("--gl-storage {} is for the gl backend; {} keeps float32", a.gl_storage, backend);
}

std::unique_ptr<Backend> open_one(const BackendArgs& a, int device, std::string* why = nullptr) {
  BackendOptions bo;
  bo.device = device;
  bo.threads = a.threads;
  bo.half_storage = a.gl_storage == "rgba16f";
  std::string error;
  std::unique_ptr<Backend> backend = make_backend(a.backend, bo, error);
  if (!backend) {
    if (error.empty()) error = "backend '" + a.backend + "' is not available";
    spdlog::error("{}", error);
    if (why) *why = error;
  }
  return backend;
}

}  // namespace

bool open_backends(const BackendArgs& a, std::vector<std::unique_ptr<Backend>>& out, bool& usage,
                   std::string& error) {
  out.clear();
  usage = true;
  error.clear();
  std::vector<int> devices;
  if (!parse_devices(a.device, a.backend, devices)) {
    if (a.device == "all")
      spdlog::error("--device all (one backend per GPU) needs -b cuda; -b {} takes one device ordinal", a.backend);
    else
      spdlog::error("--device '{}' is not an ordinal, a comma-separated list of them, or all", a.device);
    return false;
  }
  if (devices.empty()) {
    // A build without the backend has none of its devices: said as such (it read "no cuda device here").
    error = backend_not_compiled(a.backend);
    if (error.empty()) error = "--device all: no " + a.backend + " device here";
    spdlog::error("{}", error);
    usage = false;
    return false;
  }
  if (devices.size() > 1 && a.backend != "cuda") {
    spdlog::error("--device {}: several devices need -b cuda (one backend per GPU)", a.device);
    return false;
  }
  for (size_t i = 0; i < devices.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (devices[i] == devices[j]) {
        spdlog::error("--device {}: device {} is listed twice", a.device, devices[i]);
        return false;
      }
  usage = false;
  for (int d : devices) {
    std::unique_ptr<Backend> b = open_one(a, d, &error);
    if (!b) return false;
    out.push_back(std::move(b));
  }
  warn_unused(a, out.front()->name());
  return true;
}

std::unique_ptr<Backend> open_backend(const BackendArgs& a, bool& usage, std::string* why) {
  std::vector<int> devices;
  usage = true;
  if (a.device == "all" || !parse_devices(a.device, a.backend, devices) || devices.size() != 1) {
    spdlog::error("--device '{}': this command takes one device ordinal (lists and all are for blur -b cuda)",
                  a.device);
    return nullptr;
  }
  usage = false;
  std::unique_ptr<Backend> backend = open_one(a, devices[0], why);
  if (backend) warn_unused(a, backend->name());
  return backend;
}

}  // namespace gpublur::cli
