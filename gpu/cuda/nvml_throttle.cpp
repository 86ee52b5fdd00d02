#include "gpu/cuda/nvml_throttle.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <mutex>

namespace gpublur::cuda {
namespace {

// The few NVML declarations used (nvml.h is not among the toolkit's packages here): a return code (0 = success),
// an opaque device handle, and the violation record (a CPU timestamp in microseconds, the time in nanoseconds).
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlViolationTime {
  unsigned long long reference_time;
  unsigned long long violation_time;
};
constexpr int kPerfPolicyPower = 0, kPerfPolicyThermal = 1;

struct Nvml {
  bool ok = false;
  int (*device_by_bus_id)(const char*, NvmlDevice*) = nullptr;
  int (*violation_status)(NvmlDevice, int, NvmlViolationTime*) = nullptr;
};

const Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    const auto init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    n.device_by_bus_id =
        reinterpret_cast<int (*)(const char*, NvmlDevice*)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    n.violation_status =
        reinterpret_cast<int (*)(NvmlDevice, int, NvmlViolationTime*)>(dlsym(lib, "nvmlDeviceGetViolationStatus"));
    n.ok = init && n.device_by_bus_id && n.violation_status && init() == 0;  // (left initialised: process-wide)
  });
  return n;
}

}  // namespace

bool nvml_throttle_ms(int device, double& power_ms, double& thermal_ms) {
  const Nvml& n = nvml();
  if (!n.ok) return false;
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, int(sizeof bus), device) != cudaSuccess) return false;
  NvmlDevice d = nullptr;
  NvmlViolationTime p{}, t{};
  if (n.device_by_bus_id(bus, &d) != 0 || n.violation_status(d, kPerfPolicyPower, &p) != 0 ||
      n.violation_status(d, kPerfPolicyThermal, &t) != 0)
    return false;
  power_ms = double(p.violation_time) * 1e-6;
  thermal_ms = double(t.violation_time) * 1e-6;
  return true;
}

}  // namespace gpublur::cuda
