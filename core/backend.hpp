// The one small interface every backend (cpu, cuda, gl) implements. A backend holds one resident image:
// upload it, run any number of resolved plans on it (each reads the uploaded input and writes the
// resident output), download the output. Each call reports its own time in milliseconds, measured with
// the backend's clock (device events where there are any; see timer_clock()).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/packed.hpp"
#include "core/plan.hpp"
#include "core/status.hpp"

namespace gpublur {

struct BackendOptions {
  int device = 0;            // --device N: which GPU (CUDA ordinal, EGL device index)
  bool half_storage = false;  // GL: half-float textures (R16F / RG16F / RGBA16F) instead of float32
  int threads = 0;           // CPU: worker threads, 0 = hardware concurrency
};

// What one run did, beyond the time: e.g. which interpolation path gauss-linear took.
struct RunInfo {
  double compute_ms = 0;  // the program's time on the backend's clock (device events, GL timer queries)
  // Host time run() spent before its timed work, preparing it: GL builds its programs and sets up each pass (a new
  // shape's first image: tens of ms on llvmpipe, 0.1-2 s a program on NVIDIA's cold cache), CUDA allocates the
  // program's images and scratch. The report counts it in the image's compute stage: it is the backend's time.
  double prepare_ms = 0;
  std::string path;  // the schedules the backend ran, "+"-joined (e.g. "fused-fixed-64x64", "box1d-tiles")
};

// A device left idle for a second or two lowers its clock and needs a few hundred milliseconds of load to raise it
// again, longer than a usual warm-up: on an H200 the SM clock fell from 1980 to 345 MHz 1.5-2.5 s into an idle and
// came back 0.3-0.45 s after GL load resumed, so the case timed right after NVIDIA's GL compiler had built its programs
// (8.5 s) ran at 345 MHz through its 200-ms warm-up and all its timed runs (GL iir 4096^2 2.89 ms a run against 0.74;
// docs/performance.md, "GL's slow first timing: the clock after the builds"). So a warm-up that follows idle_ms of
// host-side preparation keeps the device busy kReclockMs longer where idle_ms reaches kIdleClockDropMs.
constexpr double kIdleClockDropMs = 1000;
constexpr double kReclockMs = 1000;
inline double warm_up_after_idle_ms(double min_ms, double idle_ms) {
  return idle_ms >= kIdleClockDropMs ? min_ms + kReclockMs : min_ms;
}

// Whether a storage() string names half floats (r16f, rg16f, rgba16f: --gl-storage rgba16f), not 32-bit floats.
inline bool is_half_storage(const std::string& storage) {
  return storage.size() >= 3 && storage.compare(storage.size() - 3, 3, "16f") == 0;
}
// The values a pixel holds on the device: a texture format's channels (r, rg, rgba: GL keeps three channels as
// rgba), else the image's own.
inline int storage_values(const std::string& storage, int channels) {
  const size_t n = storage.find_first_of("0123456789");
  const std::string letters = storage.substr(0, n);
  return letters == "r" ? 1 : letters == "rg" ? 2 : letters == "rgb" ? 3 : letters == "rgba" ? 4 : channels;
}

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;         // "cpu", "cuda", "gl"
  virtual std::string device_name() const = 0;  // e.g. "NVIDIA H100 80GB HBM3", "llvmpipe (LLVM 15.0.6, 256 bits)"
  // Which clock the times come from: "cuda-events", "gl-timer-query", "host-clock-glfinish", "host-clock".
  virtual std::string timer_clock() const = 0;
  // Element format of images on the device: "float32" (CPU, CUDA) or the GL texture format of the last image
  // uploaded (r32f, rg32f, rgba32f for three or four channels, or their 16f forms; rgba32f before any).
  virtual std::string storage() const { return "float32"; }

  // src has 1..4 channels (the pipeline splits wider images). Replaces any resident image.
  virtual Status upload(const Image& src, double& ms) = 0;
  // Runs the plan on the resident input into the resident output. May be called repeatedly (bench).
  virtual Status run(const Plan& plan, RunInfo& info) = 0;
  // Writes the resident output into dst (resized to the uploaded image's shape).
  virtual Status download(Image& dst, double& ms) = 0;
  // For callers that are done with src / want the output once (the blur pipeline): a backend in host memory
  // (cpu) takes src's buffer and hands its output's buffer over instead of copying 100 MB per 4K image;
  // src is left empty, and a second download_take before the next run fails. GPU backends copy as usual.
  virtual Status upload_take(Image& src, double& ms) { return upload(src, ms); }
  virtual Status download_take(Image& dst, double& ms) { return download(dst, ms); }
  // 8-bit samples in and out with the colour steps run by the backend (core/packed.hpp): the folder job's form
  // for 8-bit PNGs. The default converts on the host (unpack_image / pack_image, timed with the transfer) around
  // upload_take / download_take; GPU backends move the bytes and convert on the device. Results equal the
  // float path's bit for bit.
  virtual Status upload_packed(const PackedImage& src, const PackedColour& colour, double& ms);
  // Whether the folder job should hand this backend 8-bit images: where the conversion runs on a device. On the
  // host (cpu, and GL on llvmpipe) the float path is faster: its conversions run on the pipeline's I/O threads
  // in parallel rather than in the backend's stage (measured: docs/performance.md, "8-bit path").
  virtual bool prefers_packed() const { return false; }
  virtual Status download_packed(PackedImage& dst, const PackedColour& colour, double& ms);
  // Untimed: keeps the device busy with the plan for at least min_ms of wall time (at least one run), so that
  // timed runs after it see steady-state clocks. Measured on an H100: after a host-bound pause (an upload)
  // the SM clock falls to ~600 MHz and GL's short synchronous runs do not raise it again (docs/performance.md).
  // The default calls run() in a loop; a backend whose run() waits for the device overrides it to queue
  // runs back to back.
  // A backend that prepares the plan first (GL builds its programs) warms up for warm_up_after_idle_ms.
  virtual Status warm_up(const Plan& plan, double min_ms);
  // n runs of the plan, each timed on its own into ms (n values); info as for the last run. The default calls
  // run() n times. GL overrides it to queue the n runs back to back, one timer query each, and read the
  // queries afterwards: with a wait after every short run the GPU idles between them and NVIDIA's GL
  // driver may lower the clock (measured: 4096 copy 0.36 instead of 0.23 ms after a 200 ms warm-up).
  virtual Status run_repeated(const Plan& plan, int n, std::vector<double>& ms, RunInfo& info);
  // How long the device has been held below its clocks so far, in milliseconds, by its power limit (power_ms) and
  // its temperature (thermal_ms), from counters that only grow; false where the backend cannot read them (the
  // default). The bench reads them around each case's warm-up and timed runs: on an H200, iir's sustained load
  // reaches the board's 700 W cap and its cases run 5-8% slower in the troughs (docs/performance.md, "iir's cost
  // over sigma").
  virtual bool throttle_ms(double& power_ms, double& thermal_ms) {
    (void)power_ms, (void)thermal_ms;
    return false;
  }
};

// Creates a backend by name ("cpu", "cuda", "gl", or "auto": cuda if a device is present, else gl if EGL
// works, else cpu). On failure returns null and sets `error` to one clear line.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& opts, std::string& error);

// Settles, before any thread may read the environment, what a backend of that name reads from it when it opens
// (gl and auto: where the GL drivers keep compiled programs, gpu/gl/shader_cache.hpp). Opening does it anyway;
// the CLI calls this first because it opens backends while its readers run.
void prepare_backend_environment(const std::string& name);

// Calls f, which runs plan (or uploads or warms up for it) on backend over a width x height image, and turns what f
// throws into a failed Status, so that no exception leaves a caller's loop (bench and quality aborted on one):
// running out of host memory says what ran out (a wide reach's padded intermediates, e.g. box sat at width 4097
// with 8 passes) rather than "std::bad_alloc".
Status guarded_run(const Backend& backend, const Plan& plan, int width, int height, const std::function<Status()>& f);

// Backend names compiled into this binary, for help text.
std::string compiled_backends();
// For a backend name (cpu, cuda or gl) this binary was built without, the error that says so; else empty.
std::string backend_not_compiled(const std::string& name);
// How many devices `--device all` means for a backend: CUDA's device count (0 without one); 1 for the others.
int backend_device_count(const std::string& name);

}  // namespace gpublur
