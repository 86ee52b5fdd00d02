#include "core/memory.hpp"

#include <cstdio>
#include <cstring>

namespace gpublur {

double available_memory_bytes() {
  double avail = 0;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char key[64];
    double kb = 0;
    while (std::fscanf(f, "%63s %lf kB\n", key, &kb) == 2)
      if (std::strcmp(key, "MemAvailable:") == 0) avail = kb * 1024.0;
    std::fclose(f);
  }
  if (std::FILE* f = std::fopen("/sys/fs/cgroup/memory.max", "r")) {
    double limit = 0;
    if (std::fscanf(f, "%lf", &limit) == 1 && limit > 0 && (avail <= 0 || limit < avail)) avail = limit;
    std::fclose(f);
  }
  return avail > 0 ? avail : 4.0 * (1 << 30);  // unknown: assume 4 GiB
}

}  // namespace gpublur
