// Default behaviour shared by the backends.
#include "core/backend.hpp"

#include <chrono>
#include <new>

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

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

Status Backend::upload_packed(const PackedImage& src, const PackedColour& colour, double& ms) {
  const auto t0 = std::chrono::steady_clock::now();
  Image img;
  unpack_image(src, colour, img);
  const double convert = ms_since(t0);
  Status s = upload_take(img, ms);
  ms += convert;
  return s;
}

Status Backend::download_packed(PackedImage& dst, const PackedColour& colour, double& ms) {
  Image img;
  if (Status s = download_take(img, ms); !s) return s;
  const auto t0 = std::chrono::steady_clock::now();
  pack_image(img, colour, dst);
  ms += ms_since(t0);
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

Status guarded_run(const Backend& backend, const Plan& plan, int width, int height, const std::function<Status()>& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Status::fail("out of memory running " + plan.method + " on " + backend.name() + " (" +
                        std::to_string(width) + "x" + std::to_string(height) + ", reach " +
                        std::to_string(plan.radius) + "): its intermediate images do not fit");
  } catch (const std::exception& e) {
    return Status::fail(e.what());
  }
}

}  // namespace gpublur
