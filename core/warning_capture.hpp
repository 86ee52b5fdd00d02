// Per-image warnings for the report: warnings logged on a thread while a WarningCapture lives there go into its
// list as well as to the log (an EXR's second part dropped, uint channels read as float, ...), so that a script
// reading the report can tell "ok" from "ok with losses", also under -q.
#pragma once
#include <string>
#include <vector>

#include <spdlog/logger.h>

namespace gpublur {

class WarningCapture {
 public:
  explicit WarningCapture(std::vector<std::string>& into);
  ~WarningCapture();
  WarningCapture(const WarningCapture&) = delete;
  WarningCapture& operator=(const WarningCapture&) = delete;

 private:
  std::vector<std::string>* previous_;
};

// Gives `logger` the sink that feeds WarningCaptures, and lets warnings reach it whatever `shown` (the level its
// other sinks print from: -q shows errors only) says. Call once, before any thread logs.
void capture_warnings(spdlog::logger& logger, spdlog::level::level_enum shown);

}  // namespace gpublur
