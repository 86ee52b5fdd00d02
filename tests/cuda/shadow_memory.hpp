// The shared-memory arrays of an emulated CUDA block (tests/cuda/*_emulated.cu): every access bounds-checked,
// and two threads touching one element between the same two barriers (one of them writing) reported as a race.
// Clock is the emulation's: Clock::thread() the running thread, Clock::barriers() the block barriers passed.
// Accesses take a mutex, so an emulation may run its threads as std::threads or one after another.
#pragma once
#include <mutex>
#include <string>
#include <vector>

namespace gpublur::testing {

template <typename Clock>
struct Shadow {
  struct Cell {
    long we = -1, re = -1;  // the barrier interval of the last write, of the last reads
    int wt = -1, rt = -1;
    bool rmulti = false;  // read by more than one thread in interval re
  };
  std::string name;
  std::vector<Cell> cells;
  std::mutex m;
  std::vector<std::string> errors;
  Shadow(std::string nm, size_t n) : name(std::move(nm)), cells(n) {}
  void error(const std::string& e) {
    if (errors.size() < 8) errors.push_back(name + ": " + e);
  }
  bool check(long i) {
    if (i >= 0 && size_t(i) < cells.size()) return true;
    error("index " + std::to_string(i) + " out of bounds (" + std::to_string(cells.size()) + ")");
    return false;
  }
  bool read(long i) {
    std::lock_guard<std::mutex> lk(m);
    if (!check(i)) return false;
    const long e = Clock::barriers();
    const int t = Clock::thread();
    Cell& c = cells[size_t(i)];
    if (c.we == e && c.wt != t)
      error("thread " + std::to_string(t) + " reads " + std::to_string(i) + " written by thread " +
            std::to_string(c.wt) + " since the last barrier");
    if (c.re != e) {
      c.re = e, c.rt = t, c.rmulti = false;
    } else if (c.rt != t) {
      c.rmulti = true;
    }
    return true;
  }
  bool write(long i) {
    std::lock_guard<std::mutex> lk(m);
    if (!check(i)) return false;
    const long e = Clock::barriers();
    const int t = Clock::thread();
    Cell& c = cells[size_t(i)];
    if (c.we == e && c.wt != t)
      error("threads " + std::to_string(c.wt) + " and " + std::to_string(t) + " write " + std::to_string(i));
    if (c.re == e && (c.rmulti || c.rt != t))
      error("thread " + std::to_string(t) + " writes " + std::to_string(i) + " read by thread " +
            std::to_string(c.rt) + " since the last barrier");
    c.we = e, c.wt = t;
    return true;
  }
};

// A pointer into a shadowed array, as the kernels' shared-memory pointers are used (p[i], p + d).
template <typename T, typename Clock>
struct ChkPtr {
  T* p;
  Shadow<Clock>* sh;
  long off;
  ChkPtr operator+(long d) const { return ChkPtr{p, sh, off + d}; }
  struct Ref {
    T* p;
    Shadow<Clock>* sh;
    long i;
    operator T() const { return sh->read(i) ? p[i] : T{}; }
    const Ref& operator=(const T& v) const {
      if (sh->write(i)) p[i] = v;
      return *this;
    }
  };
  Ref operator[](long i) const { return Ref{p, sh, off + i}; }
};

// The clock of an emulation that runs a block's threads one after another: it sets tid before each thread's
// call and counts the barriers (or kernel boundaries) it passes in phase.
struct SerialClock {
  static inline int tid = 0;
  static inline long phase = 0;
  static int thread() { return tid; }
  static long barriers() { return phase; }
};

}  // namespace gpublur::testing
