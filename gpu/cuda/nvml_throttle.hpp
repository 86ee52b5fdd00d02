// The device's throttle counters through NVML (the driver's libnvidia-ml.so.1, opened at run time: the bundle
// carries no NVML and a machine without the driver simply has none).
#pragma once

namespace gpublur::cuda {

// Milliseconds the CUDA device `device` has been held below its clocks by its power limit and by its temperature
// (NVML's violation counters, NVML_PERF_POLICY_POWER and _THERMAL: they only grow). False where NVML or the
// counters are not there.
bool nvml_throttle_ms(int device, double& power_ms, double& thermal_ms);

}  // namespace gpublur::cuda
