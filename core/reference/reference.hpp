// The CPU reference: the ground truth for each method's own definition (like the CUDA samples' _gold.cpp).
// Multi-threaded over rows; float32 storage, double accumulation.
#pragma once
#include <memory>

#include "core/backend.hpp"
#include "core/image.hpp"
#include "core/plan.hpp"
#include "core/status.hpp"

namespace gpublur {

// dst = plan applied to src (any channel count). threads = 0 uses the hardware concurrency.
Status reference_run(const Plan& plan, const Image& src, Image& dst, int threads = 0);

// The "cpu" backend: reference_run behind the Backend interface, timed with a host clock.
std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& opts);

}  // namespace gpublur
