// Per-pass device times, a diagnostic for speed work (docs/performance.md): with GPUBLUR_PASS_TIMES=1 the
// CUDA and GL backends time every pass (kernel or dispatch step) of each run with device timestamps (the cpu
// backend with the host's clock) and log one line per run at info level, "pass times ms: FORM MS, FORM MS, ..."
// (scripts/pass_times.py takes the medians). Off by default: the timestamps between passes add a little to the
// run's own time.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace gpublur {

inline bool pass_times_wanted() {
  static const bool on = [] {
    const char* e = std::getenv("GPUBLUR_PASS_TIMES");
    return e && *e == '1';
  }();
  return on;
}

// "pass times ms: a 0.123, b 0.456"
inline std::string pass_times_line(const std::vector<std::pair<std::string, double>>& t) {
  std::string s = "pass times ms:";
  char buf[64];
  for (size_t i = 0; i < t.size(); ++i) {
    std::snprintf(buf, sizeof buf, " %.4f", t[i].second);
    s += (i ? ", " : " ") + t[i].first + buf;
  }
  return s;
}

}  // namespace gpublur
