// The CPU backend's worker pool; see thread_pool.h.
#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace xpu::cpu {

namespace {
struct Job {
  uint64_t n = 0, grain = 1;
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> done{0};
  const std::function<void(uint64_t, uint64_t)> *body = nullptr;

  /// Runs chunks until none are left; returns true if it ran any.
  bool work() {
    bool ran = false;
    for (;;) {
      uint64_t begin = next.fetch_add(grain, std::memory_order_relaxed);
      if (begin >= n)
        return ran;
      uint64_t end = std::min(n, begin + grain);
      (*body)(begin, end);
      done.fetch_add(end - begin, std::memory_order_acq_rel);
      ran = true;
    }
  }
};
} // namespace

struct ThreadPool::Impl {
  std::mutex mu;
  std::condition_variable wake, finished;
  std::list<std::shared_ptr<Job>> jobs;
  std::vector<std::thread> threads;

  void workerLoop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      wake.wait(lock, [&] { return !jobs.empty(); });
      std::shared_ptr<Job> job = jobs.front();
      lock.unlock();
      job->work();
      lock.lock();
      // Nothing left to hand out: stop offering it.
      if (!jobs.empty() && jobs.front() == job &&
          job->next.load(std::memory_order_relaxed) >= job->n)
        jobs.pop_front();
      finished.notify_all();
    }
  }
};

ThreadPool::ThreadPool() : impl(new Impl) {
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < n; ++i) {
    impl->threads.emplace_back([this] { impl->workerLoop(); });
    impl->threads.back().detach();
  }
}

ThreadPool &ThreadPool::get() {
  static ThreadPool *pool = new ThreadPool(); // workers live as long as the process
  return *pool;
}

unsigned ThreadPool::concurrency() const { return impl->threads.size() + 1; }

void ThreadPool::parallelFor(uint64_t n,
                             const std::function<void(uint64_t, uint64_t)> &body) {
  if (n == 0)
    return;
  if (n == 1 || impl->threads.empty()) {
    body(0, n);
    return;
  }
  auto job = std::make_shared<Job>();
  job->n = n;
  job->grain = std::max<uint64_t>(1, n / (uint64_t(concurrency()) * 8));
  job->body = &body;
  {
    std::lock_guard<std::mutex> g(impl->mu);
    impl->jobs.push_back(job);
  }
  impl->wake.notify_all();
  job->work();
  std::unique_lock<std::mutex> lock(impl->mu);
  impl->jobs.remove(job);
  impl->finished.wait(lock, [&] { return job->done.load() >= n; });
}

} // namespace xpu::cpu
