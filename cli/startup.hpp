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
// The process's age now, on the same clock (ms; -1 where it could not be read).
double process_age_now_ms();

// Started with stdout closed (`>&-`; main holds it on /dev/null): counts what the command writes to std::cout, so
// that exit_process can say that output was lost instead of exiting 0 over it, and has files named for descriptor 1
// refused (note_stdout_closed).
void count_lost_stdout();

// Ends the process with rc once its output is flushed, skipping static destructors and atexit handlers: the
// CUDA runtime's and EGL's teardown there costs a cold start milliseconds that the OS's own clean-up does not
// (docs/performance.md, cold start). Every command has closed its files and backends before it returns.
// GPUBLUR_EXIT_TEARDOWN=1 exits the ordinary way instead (to measure what is skipped). A 0 becomes 1, with an
// error, where stdout could not take what the command wrote, or was closed when it wrote.
[[noreturn]] void exit_process(int rc);

}  // namespace gpublur::cli
