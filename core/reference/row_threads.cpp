#include "core/reference/row_threads.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <system_error>
#include <vector>

namespace gpublur {
namespace {

// The pool's threads wait for a job's generation; up to `want` of them join the caller in taking rows while any are
// left. One job at a time (busy); the pool is never destroyed, so no exit path waits on its threads.
class RowPool {
 public:
  bool run(int rows, int helpers, void (*fn)(void*, int), void* ctx) {
    // A flag, not a mutex: a row's body on the calling thread may call for_rows again, and a mutex's try_lock by
    // its owner is undefined.
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    struct Release {
      std::atomic<bool>& b;
      ~Release() { b.store(false, std::memory_order_release); }
    } release{busy_};
    grow(helpers);
    helpers = std::min<int>(helpers, int(threads_.size()));
    if (helpers < 1) return false;
    {
      std::lock_guard<std::mutex> lk(m_);
      fn_ = fn, ctx_ = ctx, rows_ = rows, want_ = helpers, joined_ = 0, open_ = true;
      next_.store(0, std::memory_order_relaxed);
      ++gen_;
    }
    start_.notify_all();
    take_rows(fn, ctx, rows);
    // Every row is taken: helpers that have not joined yet stay out (the caller does not wait for a thread to be
    // scheduled only to find no rows), those that joined finish their last row.
    std::unique_lock<std::mutex> lk(m_);
    open_ = false;
    done_.wait(lk, [&] { return active_ == 0; });
    return true;
  }

 private:
  void take_rows(void (*fn)(void*, int), void* ctx, int rows) {
    for (int y; (y = next_.fetch_add(1, std::memory_order_relaxed)) < rows;) fn(ctx, y);
  }
  // Up to `n` threads (busy_ held: no job is running, gen_ is stable). A process limit (ulimit -u) leaves fewer.
  void grow(int n) {
    while (int(threads_.size()) < n) {
      try {
        threads_.emplace_back([this, seen = gen_] { work(seen); });
      } catch (const std::system_error&) {
        return;
      }
      threads_.back().detach();
    }
  }
  void work(uint64_t seen) {
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      start_.wait(lk, [&] { return gen_ != seen; });
      seen = gen_;
      if (!open_ || joined_ >= want_) continue;  // the rows are all taken, or the job wants fewer threads
      ++joined_, ++active_;
      void (*fn)(void*, int) = fn_;
      void* ctx = ctx_;
      const int rows = rows_;
      lk.unlock();
      take_rows(fn, ctx, rows);
      lk.lock();
      if (--active_ == 0) done_.notify_one();
    }
  }

  std::atomic<bool> busy_{false};
  std::mutex m_;
  std::condition_variable start_, done_;
  std::vector<std::thread> threads_;  // detached; kept for their count
  void (*fn_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
  int rows_ = 0, want_ = 0, joined_ = 0, active_ = 0;  // active_: joined threads still taking rows
  bool open_ = false;                                   // rows may be left: threads may still join
  uint64_t gen_ = 0;
  std::atomic<int> next_{0};
};

}  // namespace

bool run_rows_on_pool(int rows, int helpers, void (*fn)(void*, int), void* ctx) {
  static RowPool* pool = new RowPool();  // never destroyed (see RowPool)
  return pool->run(rows, helpers, fn, ctx);
}

}  // namespace gpublur
