// How much memory this process can still have: for budgets (I/O threads) and for refusing a program whose buffers
// cannot fit before the system's OOM killer ends the run with no message.
#pragma once

namespace gpublur {

// MemAvailable (/proc/meminfo), or the cgroup's limit where lower (containers, Slurm jobs); 4 GiB where neither
// can be read.
double available_memory_bytes();

}  // namespace gpublur
