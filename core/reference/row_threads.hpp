// Splits rows [0, rows) over worker threads; the CPU reference's only parallelism.
#pragma once
#include <algorithm>
#include <thread>
#include <type_traits>

namespace gpublur {

// Runs fn(ctx, y) for every y in [0, rows) on the calling thread and up to `helpers` threads of one process-wide pool
// that stays between calls (rows taken in turn from a shared counter). A thread's start and join had cost more than a
// small image's whole pass: a folder of 600 thumbnails of 128 x 96 on the cpu backend computed in 290-410 ms with two
// threads started for every pass against 76-97 ms on one (docs/performance.md, "cpu: a pool for the rows' threads").
// Returns false, having run nothing, where the pool is busy with another call (a pass running on two threads at
// once, or a body that itself calls for_rows) or has no thread to lend (a process limit): the caller runs the rows.
bool run_rows_on_pool(int rows, int helpers, void (*fn)(void*, int), void* ctx);

template <class F>
void for_rows(int rows, int threads, F&& body) {
  int n = threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
  n = std::max(1, std::min(n, rows));
  auto row = [](void* c, int y) { (*static_cast<std::remove_reference_t<F>*>(c))(y); };
  if (n > 1 && run_rows_on_pool(rows, n - 1, row, &body)) return;
  for (int y = 0; y < rows; ++y) body(y);
}

}  // namespace gpublur
