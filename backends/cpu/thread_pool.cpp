// The CPU backend's worker pool; see thread_pool.h.
#include "thread_pool.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

namespace xpu::cpu {

bool startKernelThread(pthread_t &out, void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr))
    return false;
  bool ok = pthread_attr_setstacksize(&attr, kKernelStackBytes) == 0 &&
            pthread_create(&out, &attr, fn, arg) == 0;
  pthread_attr_destroy(&attr);
  return ok;
}

uint64_t WaitWord::nowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

void WaitWord::pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void WaitWord::sleep(uint32_t seen) {
  // Returns at once when the word moved on since `seen` (a wake in between).
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&seq_), FUTEX_WAIT_PRIVATE, seen,
          nullptr, nullptr, 0);
}

void WaitWord::wakeAll() {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&seq_), FUTEX_WAKE_PRIVATE, INT_MAX,
          nullptr, nullptr, 0);
}

/// One parallelFor call. It lives on the caller's stack: the caller leaves
/// only after unlinking it (no worker joins later) and seeing every worker
/// that joined leave it. [0, n) is split into one contiguous range per
/// thread, as OpenMP's static schedule does: thread p starts on range p, so
/// a launch repeated with the same shape gives each thread the same
/// workgroups, whose data its caches may still hold (the 2-D stencil's
/// 32 MB ran 0.78-0.95x OpenMP when chunks went to whichever thread came
/// first). A thread done with its range takes chunks of the others'.
struct ThreadPool::Job {
  static constexpr unsigned kMaxRanges = 64;
  struct alignas(64) Range {
    std::atomic<uint64_t> next{0}; ///< first index not handed out
    uint64_t end = 0;
  };
  Body body = nullptr;
  void *context = nullptr;
  uint64_t n = 0, grain = 1;
  unsigned ranges = 1;
  Range range[kMaxRanges];
  std::atomic<uint64_t> done{0};   ///< indices finished
  std::atomic<uint32_t> active{0}; ///< workers inside run()
  Job *prev = nullptr, *after = nullptr;

  void split(unsigned parts) {
    ranges = std::max(1u, std::min(parts, kMaxRanges));
    for (unsigned p = 0; p < ranges; ++p) {
      range[p].next.store(n * p / ranges, std::memory_order_relaxed);
      range[p].end = n * (p + 1) / ranges;
    }
  }
  bool open() const {
    for (unsigned p = 0; p < ranges; ++p)
      if (range[p].next.load(std::memory_order_relaxed) < range[p].end)
        return true;
    return false;
  }
  void run(unsigned self) {
    for (unsigned k = 0; k < ranges; ++k) {
      Range &r = range[(self + k) % ranges];
      for (;;) {
        uint64_t begin = r.next.fetch_add(grain, std::memory_order_relaxed);
        if (begin >= r.end)
          break;
        uint64_t end = std::min(r.end, begin + grain);
        body(context, begin, end);
        done.fetch_add(end - begin, std::memory_order_release);
      }
    }
  }
};

static unsigned usableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return std::max(1, CPU_COUNT(&set));
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? unsigned(n) : 1;
}

ThreadPool::ThreadPool() {
  unsigned cores = usableCores();
  for (unsigned i = 1; i < cores; ++i) {
    pthread_t t;
    if (!startKernelThread(t, &ThreadPool::workerMain, this))
      break; // run with the workers there are
    pthread_detach(t);
    ++workers_;
  }
}

ThreadPool &ThreadPool::get() {
  static ThreadPool *pool = new ThreadPool(); // workers live as long as the process
  return *pool;
}

void *ThreadPool::workerMain(void *self) {
  static_cast<ThreadPool *>(self)->workerLoop();
  return nullptr;
}

ThreadPool::Job *ThreadPool::join() {
  std::lock_guard<std::mutex> g(mu_);
  for (Job *j = first_; j; j = j->after)
    if (j->open()) {
      j->active.fetch_add(1, std::memory_order_relaxed);
      return j;
    }
  return nullptr;
}

void ThreadPool::workerLoop() {
  unsigned self = 1 + workerIds_.fetch_add(1); // the caller of a job is 0
  for (;;) {
    uint64_t seen = posted_.load(std::memory_order_acquire);
    if (Job *j = join()) {
      j->run(self);
      j->active.fetch_sub(1, std::memory_order_release); // j may go now
      finished.wake();
      continue;
    }
    posted.await([&] { return posted_.load(std::memory_order_acquire) != seen; });
  }
}

void ThreadPool::parallelFor(uint64_t n, Body body, void *context) {
  if (n == 0)
    return;
  if (n == 1 || workers_ == 0) {
    body(context, 0, n);
    return;
  }
  Job job;
  job.body = body;
  job.context = context;
  job.n = n;
  job.grain = std::max<uint64_t>(1, n / (uint64_t(concurrency()) * 8));
  job.split(concurrency());
  {
    std::lock_guard<std::mutex> g(mu_);
    job.prev = last_;
    (last_ ? last_->after : first_) = &job;
    last_ = &job;
  }
  posted_.fetch_add(1, std::memory_order_release);
  posted.wake();
  job.run(0);
  {
    std::lock_guard<std::mutex> g(mu_);
    (job.prev ? job.prev->after : first_) = job.after;
    (job.after ? job.after->prev : last_) = job.prev;
  }
  finished.await([&] {
    return job.done.load(std::memory_order_acquire) == n &&
           job.active.load(std::memory_order_acquire) == 0;
  });
}

} // namespace xpu::cpu
