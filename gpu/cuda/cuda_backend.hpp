// The CUDA backend's entry points, in plain C++ so the factory needs no CUDA headers.
#pragma once
#include <memory>
#include <string>

#include "core/backend.hpp"

namespace gpublur {

// True when the CUDA runtime reports at least one device. Any error (no driver, "driver version is
// insufficient", no device) counts as "no device"; `why` then holds the runtime's message.
bool cuda_device_present(std::string* why = nullptr);
// Null with one clear line in `error` when there is no usable device or opts.device is out of range.
std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& opts, std::string& error);

}  // namespace gpublur
