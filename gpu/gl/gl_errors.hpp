// The GL error queue in words (internal to gpu/gl). Needs the context current.
#pragma once

#include <string>

namespace gpublur {

// Every error queued, drained: "out of GPU memory" or "GL error 0x0502", comma-separated; empty where none was.
std::string gl_error_text();

}  // namespace gpublur
