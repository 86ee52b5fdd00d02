// Error reporting across layers: plain values, never exceptions (OIIO-style src -> dst calls).
#pragma once
#include <string>
#include <utility>

namespace gpublur {

struct Status {
  std::string error;  // empty means success
  bool ok() const { return error.empty(); }
  explicit operator bool() const { return ok(); }
  static Status success() { return {}; }
  static Status fail(std::string message) { return Status{std::move(message)}; }
};

}  // namespace gpublur
