// The "cpu" backend: the reference implementations behind the Backend interface, with float32 schedules
// where they apply (core/reference/cpu_fast.hpp). "Upload" and "download"
// are host copies (so the report's stages mean the same thing on every backend), except through
// upload_take/download_take, which move the buffers: the pipeline's per-image path copies nothing.
#include <chrono>
#include <thread>

#include "core/reference/reference.hpp"

#include "core/reference/cpu_image.hpp"
#include "core/reference/pass_table.hpp"

namespace gpublur {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const BackendOptions& o) : threads_(o.threads) {}
  std::string name() const override { return "cpu"; }
  std::string device_name() const override {
    const unsigned n = threads_ > 0 ? unsigned(threads_) : std::thread::hardware_concurrency();
    return "host CPU, " + std::to_string(n) + (n == 1 ? " thread" : " threads");
  }
  std::string timer_clock() const override { return "host-clock"; }

  Status upload(const Image& src, double& ms) override {
    const auto t0 = std::chrono::steady_clock::now();
    input_ = src;
    ms = ms_since(t0);
    return Status::success();
  }
  Status run(const Plan& plan, RunInfo& info) override {
    const auto t0 = std::chrono::steady_clock::now();
    // The reference's primitives, with the float32 schedules where they apply (cpu_fast.hpp).
    // Recycled buffers: the previous input as this output (same-size folders), intermediates kept.
    if (output_.data.size() != input_.data.size() && spare_.data.size() == input_.data.size())
      output_ = std::move(spare_), spare_ = Image();
    Status s = run_program_cpu(plan.program, input_, output_, threads_, &info.path, &work_);
    output_taken_ = false;
    info.compute_ms = ms_since(t0);
    return s;
  }
  Status download(Image& dst, double& ms) override {
    const auto t0 = std::chrono::steady_clock::now();
    if (Status s = download_check(); !s) return s;
    dst = output_;
    ms = ms_since(t0);
    return Status::success();
  }
  Status upload_take(Image& src, double& ms) override {
    const auto t0 = std::chrono::steady_clock::now();
    spare_ = std::move(input_);  // its buffer becomes the next output
    input_ = std::move(src);
    src = Image();
    ms = ms_since(t0);
    return Status::success();
  }
  Status download_take(Image& dst, double& ms) override {
    if (Status s = download_check(); !s) return s;
    const auto t0 = std::chrono::steady_clock::now();
    dst = std::move(output_);
    output_ = Image();
    output_taken_ = true;
    ms = ms_since(t0);
    return Status::success();
  }

 private:
  int threads_;
  Image input_, output_, spare_;
  std::vector<CpuImage> work_;
  bool output_taken_ = false;
  Status download_check() const {
    return output_taken_ ? Status::fail("cpu: the output was already handed over (download_take)")
                         : Status::success();
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& opts) { return std::make_unique<CpuBackend>(opts); }

}  // namespace gpublur
