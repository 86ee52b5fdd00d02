// The CUDA backend's entry points, in plain C++ so the factory needs no CUDA headers.
#pragma once
#include <memory>
#include <string>

#include "core/backend.hpp"

namespace gpublur {

// True when the CUDA runtime reports at least one device. Any error (no driver, "driver version is
// insufficient", no device) counts as "no device"; `why` then holds the runtime's message.
bool cuda_device_present(std::string* why = nullptr);
// The number of CUDA devices (0 on any error, as above).
int cuda_device_count();
// Null with one clear line in `error` when there is no usable device or opts.device is out of range.
std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& opts, std::string& error);

}  // namespace gpublur

namespace gpublur {

// For tests and tools. Fills the resident output with `value` (tests poison it with NaN so that pixels a
// kernel leaves unwritten fail the comparison). Needs a prior upload.
Status cuda_fill_output(Backend& cuda_backend, float value);
// Allocates the device buffers for a width x height x channels image (what upload does first). Fails with
// a clear message naming the bytes when the device cannot hold it.
Status cuda_reserve(Backend& cuda_backend, int width, int height, int channels);

}  // namespace gpublur
