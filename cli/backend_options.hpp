// The backend options `blur` and `bench` share: declared once, turned into a Backend once.
#pragma once
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "core/backend.hpp"

namespace gpublur::cli {

struct BackendArgs {
  std::string backend = "auto";
  int device = 0;
  int threads = 0;
  std::string gl_storage = "rgba32f";
};

// Adds -b/--backend, --device, --threads and --gl-storage to `cmd`.
void add_backend_options(CLI::App* cmd, BackendArgs& a);
// Creates the backend; on failure logs one clear error line and returns null.
std::unique_ptr<Backend> open_backend(const BackendArgs& a);

}  // namespace gpublur::cli
