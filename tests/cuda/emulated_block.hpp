// An emulated CUDA block for the host tests of block-level device code (box_cascade.cuh, iir_rows.cuh): nth
// std::threads with block barriers and emulated warp shuffles, passed as the code's block policy (Emu, as the
// kernels pass cuda::DeviceBlock), and the clock (EmuClock) of the race-checking shared memory
// (tests/cuda/shadow_memory.hpp). One block at a time.
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gpublur::testing {

class Barrier {
 public:
  Barrier(int n, std::function<void()> done) : n_(n), done_(std::move(done)) {}
  void wait() {
    std::unique_lock<std::mutex> lk(m_);
    const long gen = gen_;
    if (++count_ == n_) {
      count_ = 0;
      ++gen_;
      if (done_) done_();
      cv_.notify_all();
      return;
    }
    cv_.wait(lk, [&] { return gen_ != gen; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int n_, count_ = 0;
  long gen_ = 0;
  std::function<void()> done_;
};

// A warp's barrier (the emulated shuffles): 32 threads spin with yields for a while, then sleep on a condition
// variable. Spinning alone was 8x faster than Barrier for the thousands of shuffles a block's scans take, but
// slowed to a crawl where other processes share the cores (ctest in parallel); the sleep bounds that.
class WarpBarrier {
 public:
  void wait() {
    const long gen = gen_.load();
    if (count_.fetch_add(1) + 1 == 32) {
      count_.store(0);
      std::lock_guard<std::mutex> lk(m_);
      gen_.fetch_add(1);
      cv_.notify_all();
      return;
    }
    for (int i = 0; i < 200; ++i) {
      if (gen_.load() != gen) return;
      std::this_thread::yield();
    }
    std::unique_lock<std::mutex> lk(m_);
    cv_.wait(lk, [&] { return gen_.load() != gen; });
  }

 private:
  std::atomic<int> count_{0};
  std::atomic<long> gen_{0};
  std::mutex m_;
  std::condition_variable cv_;
};

// The block policy, emulated (one block at a time): every thread of a warp calls shfl_up together.
struct Emu {
  static inline thread_local int t = 0;
  static inline int n = 0;
  static inline std::unique_ptr<Barrier> bar;
  static inline std::vector<std::unique_ptr<WarpBarrier>> warp_bar;
  static inline std::vector<double> shfl;
  static inline std::atomic<long> epoch{0};  // block barriers passed
  static int tid() { return t; }
  static int nth() { return n; }
  static void sync() { bar->wait(); }
  static double shfl_up(double v, int o, int width = 32) {
    const int w = t / 32, lane = t % 32;
    shfl[size_t(t)] = v;
    warp_bar[size_t(w)]->wait();
    const double r = lane % width >= o ? shfl[size_t(t - o)] : v;
    warp_bar[size_t(w)]->wait();
    return r;
  }
};

template <typename F>
void run_block(int nth, F body) {
  Emu::n = nth;
  Emu::epoch = 0;
  Emu::bar = std::make_unique<Barrier>(nth, [] { ++Emu::epoch; });
  Emu::warp_bar.clear();
  for (int w = 0; w < (nth + 31) / 32; ++w) Emu::warp_bar.push_back(std::make_unique<WarpBarrier>());
  Emu::shfl.assign(size_t(nth), 0.0);
  std::vector<std::thread> threads;
  for (int i = 0; i < nth; ++i)
    threads.emplace_back([&body, i] {
      Emu::t = i;
      body();
    });
  for (std::thread& th : threads) th.join();
}

// The block's clock for the shadowed shared memory (tests/cuda/shadow_memory.hpp).
struct EmuClock {
  static int thread() { return Emu::t; }
  static long barriers() { return Emu::epoch; }
};

}  // namespace gpublur::testing
