// Splits rows [0, rows) over worker threads; the CPU reference's only parallelism.
#pragma once
#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

namespace gpublur {

template <class F>
void for_rows(int rows, int threads, F&& body) {
  int n = threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
  n = std::max(1, std::min(n, rows));
  if (n == 1) {
    for (int y = 0; y < rows; ++y) body(y);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(size_t(n));
  auto share = [&](int t) {
    for (int y = t; y < rows; y += n) body(y);  // interleaved: cost per row can vary at borders
  };
  int t = 0;
  try {
    for (; t < n; ++t) pool.emplace_back(share, t);
  } catch (const std::system_error&) {  // a process limit (ulimit -u): the shares without a thread run here
    for (; t < n; ++t) share(t);
  }
  for (auto& th : pool) th.join();
}

}  // namespace gpublur
