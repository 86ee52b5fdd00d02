// for_rows (core/reference/row_threads.hpp): every row once, on the caller and the pool's threads, whatever else
// calls it at the same time (a busy pool runs the rows on the caller) or from inside a row (no deadlock).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/reference/row_threads.hpp"

namespace gpublur {
namespace {

TEST(ForRows, EveryRowOnce) {
  for (int threads : {0, 1, 2, 3, 8, 64})
    for (int rows : {0, 1, 2, 3, 7, 100, 1001}) {
      std::vector<std::atomic<int>> seen(static_cast<size_t>(rows));
      for (auto& s : seen) s = 0;
      for_rows(rows, threads, [&](int y) { seen[size_t(y)]++; });
      for (int y = 0; y < rows; ++y) ASSERT_EQ(seen[size_t(y)].load(), 1) << "rows " << rows << " threads " << threads;
    }
}

TEST(ForRows, SlowRowsRunOnSeveralThreads) {
  std::mutex m;
  std::set<std::thread::id> ids;
  for_rows(8, 4, [&](int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> lk(m);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_GE(ids.size(), 2u) << "the pool lent no thread";
  EXPECT_TRUE(ids.count(std::this_thread::get_id())) << "the caller takes rows too";
}

TEST(ForRows, ConcurrentAndNestedCalls) {
  constexpr int kOuter = 6, kInner = 50;
  std::vector<std::atomic<int>> seen(static_cast<size_t>(2 * kOuter * kInner));
  for (auto& s : seen) s = 0;
  auto job = [&](int base) {
    for_rows(kOuter, 3, [&](int o) {
      for_rows(kInner, 3, [&](int i) { seen[size_t(base + o * kInner + i)]++; });
    });
  };
  std::thread other(job, kOuter * kInner);
  job(0);
  other.join();
  for (size_t k = 0; k < seen.size(); ++k) ASSERT_EQ(seen[k].load(), 1) << k;
}

}  // namespace
}  // namespace gpublur
