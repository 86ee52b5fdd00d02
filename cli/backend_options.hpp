// The backend options `blur` and `bench` share: declared once, turned into a Backend once.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/backend.hpp"

namespace gpublur::cli {

struct BackendArgs {
  std::string backend = "auto";
  std::string device = "0";  // an ordinal; for blur -b cuda also a list "0,2" or "all"
  int threads = 0;
  std::string gl_storage = "rgba32f";
};

// Adds -b/--backend, --device, --threads and --gl-storage to `cmd`.
void add_backend_options(CLI::App* cmd, BackendArgs& a);
// Creates the backend; on failure logs one clear error line and returns null, `usage` saying whether it is a
// usage error (exit 2: a --device list or all, which only blur -b cuda takes).
std::unique_ptr<Backend> open_backend(const BackendArgs& a, bool& usage, std::string* why = nullptr);
// For blur: one backend per device of --device (an ordinal, a list, or all: CUDA only for more than one).
// False with one clear error line logged, that line also in `error` (the report names it for each image);
// `usage` says whether it is a usage error (exit 2).
bool open_backends(const BackendArgs& a, std::vector<std::unique_ptr<Backend>>& out, bool& usage,
                   std::string& error);

}  // namespace gpublur::cli
