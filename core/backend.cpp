// Default behaviour shared by the backends.
#include "core/backend.hpp"

#include <chrono>

namespace gpublur {

Status Backend::warm_up(const Plan& plan, double min_ms) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  do {
    RunInfo info;
    if (Status s = run(plan, info); !s) return s;
  } while (std::chrono::duration<double, std::milli>(Clock::now() - t0).count() < min_ms);
  return Status::success();
}

Status Backend::run_repeated(const Plan& plan, int n, std::vector<double>& ms, RunInfo& info) {
  ms.clear();
  for (int i = 0; i < n; ++i) {
    if (Status s = run(plan, info); !s) return s;
    ms.push_back(info.compute_ms);
  }
  return Status::success();
}

}  // namespace gpublur
