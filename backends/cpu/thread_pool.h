// The threads that run CPU kernels: a pool with one worker per core the
// process may use, shared by every launch (several streams may use it at
// once), and a waiting primitive that spins briefly before it sleeps, so
// that back-to-back launches never pay for waking a sleeping thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <pthread.h>

namespace xpu::cpu {

/// Stack of every thread that runs kernels: a workgroup's context arrays
/// (values live across barriers, up to 16 MiB, see CPUWorkItemLoops.cpp)
/// are on it. Reserved, not committed.
constexpr size_t kKernelStackBytes = 64ull << 20;

/// Starts `fn(arg)` on a new thread with a kernel-sized stack.
bool startKernelThread(pthread_t &out, void *(*fn)(void *), void *arg);

/// A word to wait on: waiters spin for a short while, then sleep in the
/// kernel; wake() is one atomic add when nobody sleeps.
class WaitWord {
public:
  /// Returns once `ready()` holds.
  template <typename Ready> void await(Ready ready) {
    if (ready() || spin(ready))
      return;
    for (;;) {
      uint32_t seen = seq_.load(std::memory_order_seq_cst);
      if (ready())
        return;
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      if (!ready())
        sleep(seen);
      sleepers_.fetch_sub(1, std::memory_order_seq_cst);
      if (ready())
        return;
    }
  }
  /// Call after making what waiters wait for true.
  void wake() {
    seq_.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst))
      wakeAll();
  }

private:
  /// Spins for about kSpinNs; true if `ready()` came true meanwhile.
  template <typename Ready> bool spin(Ready ready) {
    uint64_t start = nowNs();
    for (unsigned i = 1;; ++i) {
      pause();
      if (ready())
        return true;
      if (i % 64 == 0 && nowNs() - start > kSpinNs)
        return false;
    }
  }
  static constexpr uint64_t kSpinNs = 50'000;
  static uint64_t nowNs();
  static void pause();
  void sleep(uint32_t seen);
  void wakeAll();

  std::atomic<uint32_t> seq_{0};
  std::atomic<uint32_t> sleepers_{0};
};

class ThreadPool {
public:
  static ThreadPool &get();
  /// Threads that run a launch: the workers and the calling thread.
  unsigned concurrency() const { return workers_ + 1; }

  using Body = void (*)(void *context, uint64_t begin, uint64_t end);
  /// Calls body(context, begin, end) over disjoint chunks covering [0, n),
  /// on the pool and the calling thread; returns when every chunk has run.
  /// Allocates nothing.
  void parallelFor(uint64_t n, Body body, void *context);

  struct Job;

private:
  ThreadPool();
  static void *workerMain(void *self);
  void workerLoop();

  /// A job a worker may join; marks it joined (Job::active).
  Job *join();

  unsigned workers_ = 0;
  std::atomic<unsigned> workerIds_{0}; ///< hands each worker its range index
  std::mutex mu_;            ///< guards the job list
  Job *first_ = nullptr;     ///< open jobs, oldest first
  Job *last_ = nullptr;
  std::atomic<uint64_t> posted_{0}; ///< jobs posted so far
  WaitWord posted;           ///< workers wait here for a job
  WaitWord finished;         ///< callers wait here for their job's end
};

} // namespace xpu::cpu
