// Where a cold start goes before any image (issue 12 point 7): the time the process existed before main()
// (dynamic linking, static constructors), measured once when main() begins. The blur report carries it with
// the backend's start-up time (summary.startup_ms).
#pragma once

namespace gpublur::cli {

// Call first in main(): remembers how long the process had run by then.
void record_main_entry();
// That time in ms: from the kernel's start time of the process (/proc/self/stat, in clock ticks: 10 ms
// resolution) to main() on CLOCK_BOOTTIME; -1 where it could not be read.
double before_main_ms();

}  // namespace gpublur::cli
