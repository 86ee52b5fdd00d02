// Splits rows [0, rows) over worker threads; the CPU reference's only parallelism.
#pragma once
#include <algorithm>
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
  for (int t = 0; t < n; ++t)
    pool.emplace_back([&, t] {
      for (int y = t; y < rows; y += n) body(y);  // interleaved: cost per row can vary at borders
    });
  for (auto& th : pool) th.join();
}

}  // namespace gpublur
