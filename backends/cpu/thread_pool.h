// A pool with one worker per core that runs the workgroups of CPU launches.
// Several launches (from several streams) may share it at once.
#pragma once

#include <cstdint>
#include <functional>

namespace xpu::cpu {

class ThreadPool {
public:
  static ThreadPool &get();
  /// Workers in the pool, counting the calling thread.
  unsigned concurrency() const;
  /// Calls body(begin, end) over disjoint chunks covering [0, n), on the
  /// pool and the calling thread; returns when every chunk has run.
  void parallelFor(uint64_t n,
                   const std::function<void(uint64_t, uint64_t)> &body);

private:
  ThreadPool();
  struct Impl;
  Impl *impl;
};

} // namespace xpu::cpu
