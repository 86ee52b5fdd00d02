#include "core/warning_capture.hpp"

#include <algorithm>
#include <memory>
#include <mutex>

#include <spdlog/sinks/base_sink.h>

namespace gpublur {
namespace {

thread_local std::vector<std::string>* t_capture = nullptr;

// Appends the thread's warnings to its capture, if it has one (errors are the image's error already; the list is the
// thread's own: no lock).
class CaptureSink : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (t_capture && msg.level == spdlog::level::warn)
      t_capture->emplace_back(msg.payload.begin(), msg.payload.end());
  }
  void flush_() override {}
};

}  // namespace

WarningCapture::WarningCapture(std::vector<std::string>& into) : previous_(t_capture) { t_capture = &into; }
WarningCapture::~WarningCapture() { t_capture = previous_; }

void capture_warnings(spdlog::logger& logger, spdlog::level::level_enum shown) {
  for (auto& sink : logger.sinks()) sink->set_level(shown);
  logger.sinks().push_back(std::make_shared<CaptureSink>());
  logger.set_level(std::min(shown, spdlog::level::warn));
}

}  // namespace gpublur
