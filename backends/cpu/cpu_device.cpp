// The CPU backend: the host as a device. Buffers are host memory, a stream
// is a worker thread with a ring of tasks, and a launch spreads its
// workgroups over the thread pool; each workgroup is one call of the
// kernel's entry point.
#include "cpu_codegen.h"
#include "launch_shape.h"
#include "thread_pool.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Config/llvm-config.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>

namespace xpu::cpu {

using rt::Status;

namespace {

/// Host memory: allocated here (and freed), or imported (the caller's).
class CpuBuffer : public rt::BackendBuffer {
public:
  CpuBuffer(void *p, bool owned) : data(p), owned(owned) {}
  ~CpuBuffer() override {
    if (owned)
      std::free(data);
  }
  uint64_t address() const override { return reinterpret_cast<uint64_t>(data); }
  void *hostPointer() const override { return data; }
  void *data;
  bool owned;
};

void *bytesOf(rt::BackendBuffer &b) { return static_cast<CpuBuffer &>(b).data; }

/// An event completes when the queue reaches the point it was recorded at.
class CpuEvent : public rt::BackendEvent {
public:
  std::mutex mu;
  std::condition_variable cv;
  uint64_t recorded = 0, completed = 0;
  std::chrono::steady_clock::time_point completedTime;

  uint64_t mark() {
    std::lock_guard<std::mutex> g(mu);
    return ++recorded;
  }
  void complete(uint64_t gen) {
    {
      std::lock_guard<std::mutex> g(mu);
      completed = std::max(completed, gen);
      completedTime = std::chrono::steady_clock::now();
    }
    cv.notify_all();
  }
  void waitFor(uint64_t gen) {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return completed >= gen; });
  }
  Status synchronize() override {
    uint64_t target;
    {
      std::lock_guard<std::mutex> g(mu);
      target = recorded;
    }
    waitFor(target);
    return {};
  }
  std::optional<std::chrono::steady_clock::time_point> completedAt() override {
    std::lock_guard<std::mutex> g(mu);
    return completedTime;
  }
  bool isComplete() override {
    std::lock_guard<std::mutex> g(mu);
    return completed >= recorded;
  }
  Status elapsedSince(rt::BackendEvent &start, double &ms) override {
    auto &s = static_cast<CpuEvent &>(start);
    if (!isComplete() || !s.isComplete())
      return {XPU_ERROR_BUSY, "an event has not completed yet"};
    if (&s == this) {
      ms = 0;
      return {};
    }
    // Both at once: elapsed(a, b) and elapsed(b, a) may run concurrently.
    std::scoped_lock g(mu, s.mu);
    ms = std::chrono::duration<double, std::milli>(completedTime - s.completedTime).count();
    return {};
  }
};

/// What the workers of one launch share.
struct Grid {
  GroupEntry entry;
  GroupEntry copyingEntry; ///< run over the same grid after `entry`, if set
  uint64_t copyingSharedBytes;
  const uint8_t *args;
  uint64_t sharedBytes;
  uint32_t grid[3], block[3];
  uint32_t flags;
  uint32_t *status;
};

/// Runs workgroups [begin, end) of a launch on this thread.
void runGroups(void *context, uint64_t begin, uint64_t end) {
  const Grid &g = *static_cast<const Grid *>(context);
  // This thread's shared block, kept across workgroups and launches.
  thread_local std::unique_ptr<std::max_align_t[]> shared;
  thread_local uint64_t sharedWords = 0;
  uint64_t words = (g.sharedBytes + sizeof(std::max_align_t) - 1) /
                   sizeof(std::max_align_t);
  if (words > sharedWords) {
    shared.reset(new std::max_align_t[words]);
    sharedWords = words;
  }
  abi::CpuLaunch launch;
  for (int d = 0; d < 3; ++d) {
    launch.block[d] = g.block[d];
    launch.grid[d] = g.grid[d];
  }
  launch.flags = g.flags;
  launch.shared = reinterpret_cast<char *>(shared.get());
  launch.status = g.status;
  // The entry point runs the whole range in one loop (it sets launch.wg).
  g.entry(g.args, &launch, begin, end);
}

/// abi::kCpuBuffersDistinct when no buffer the kernel may write overlaps
/// another buffer argument of the launch.
uint32_t aliasFlags(const CpuKernel &k, const uint8_t *args) {
  if (!k.anyWritten)
    return abi::kCpuBuffersDistinct;
  struct Range {
    uint64_t begin, end;
    bool written;
  };
  std::array<Range, 32> small;
  std::vector<Range> large;
  Range *ranges = small.data();
  if (k.buffers.size() > small.size()) {
    large.resize(k.buffers.size());
    ranges = large.data();
  }
  for (size_t i = 0; i < k.buffers.size(); ++i) {
    const CpuKernel::BufferArg &b = k.buffers[i];
    uint64_t at, count;
    std::memcpy(&at, args + b.pointerOffset, 8);
    std::memcpy(&count, args + b.countOffset, 8);
    ranges[i] = {at, at + count * b.elementBytes, b.written};
  }
  for (size_t i = 0; i < k.buffers.size(); ++i)
    for (size_t j = i + 1; j < k.buffers.size(); ++j)
      if ((ranges[i].written || ranges[j].written) &&
          ranges[i].begin < ranges[j].end && ranges[j].begin < ranges[i].end)
        return 0;
  return abi::kCpuBuffersDistinct;
}

/// A task of a stream. Arguments of up to kInlineArgs bytes are kept in the
/// task itself, so a launch allocates nothing.
struct Task {
  enum class Kind : uint8_t { copy, launch, record, wait, stop } kind = Kind::copy;
  // copy
  void *dst = nullptr;
  const void *src = nullptr;
  size_t bytes = 0;
  // launch
  Grid grid{};
  const abi::KernelInfo *info = nullptr;
  static constexpr size_t kInlineArgs = 256;
  alignas(16) uint8_t inlineArgs[kInlineArgs];
  std::unique_ptr<uint8_t[]> heapArgs;
  // record, wait
  CpuEvent *event = nullptr;
  uint64_t generation = 0;
  /// Stack the launch's workgroups need beyond their callers' frames.
  uint64_t stackBytes = 0;

  /// Whether a thread that did not start with a kernel-sized stack (an
  /// application thread in synchronize) may run it.
  bool runsOnAnyThread() const {
    return kind != Kind::stop && (kind != Kind::launch || stackBytes <= kAnyThreadStack);
  }
  static constexpr uint64_t kAnyThreadStack = 128 << 10;

  Status run() {
    switch (kind) {
    case Kind::copy: // within one buffer the ranges may overlap
      std::memmove(dst, src, bytes);
      return {};
    case Kind::launch: {
      uint64_t groups = uint64_t(grid.grid[0]) * grid.grid[1] * grid.grid[2];
      ThreadPool::get().parallelFor(groups, runGroups, &grid);
      if (grid.copyingEntry) {
        Grid copying = grid;
        copying.entry = grid.copyingEntry;
        copying.sharedBytes = grid.copyingSharedBytes;
        ThreadPool::get().parallelFor(groups, runGroups, &copying);
      }
      heapArgs.reset();
      return {};
    }
    case Kind::record:
      event->complete(generation);
      return {};
    case Kind::wait:
      event->waitFor(generation);
      return {};
    case Kind::stop:
      return {};
    }
    return {};
  }
};

/// A stream: tasks run in order from a ring of fixed size (a producer
/// waits when it is full), on the stream's worker thread or, when it is
/// not running them already, on the thread that synchronizes: a launch and
/// a synchronize need no thread switch. One thread at a time runs a
/// stream's tasks (`running_`). The first failure is kept and returned by
/// the next synchronize.
class CpuQueue : public rt::Queue {
public:
  CpuQueue() = default;
  Status start() {
    if (!startKernelThread(worker_, &CpuQueue::workerMain, this))
      return {XPU_ERROR_OUT_OF_MEMORY, "cannot start the CPU stream's worker thread"};
    started_ = true;
    return {};
  }
  ~CpuQueue() override {
    if (!started_)
      return;
    // Pushing waits for room in the ring; a stop task cannot fail.
    (void)push([](Task &t) { t.kind = Task::Kind::stop; });
    pthread_join(worker_, nullptr);
  }

  Status copyIn(rt::BackendBuffer &dst, size_t offset, const void *src,
                size_t bytes) override {
    char *to = static_cast<char *>(bytesOf(dst)) + offset;
    return push([&](Task &t) {
      t.kind = Task::Kind::copy;
      t.dst = to;
      t.src = src;
      t.bytes = bytes;
    });
  }
  Status copyBuffer(rt::BackendBuffer &dst, size_t dstOffset, rt::BackendBuffer &src,
                    size_t srcOffset, size_t bytes) override {
    char *to = static_cast<char *>(bytesOf(dst)) + dstOffset;
    const char *from = static_cast<const char *>(bytesOf(src)) + srcOffset;
    return push([&](Task &t) {
      t.kind = Task::Kind::copy;
      t.dst = to;
      t.src = from;
      t.bytes = bytes;
    });
  }
  Status copyOut(rt::BackendBuffer &src, size_t offset, void *dst,
                 size_t bytes) override {
    const char *from = static_cast<const char *>(bytesOf(src)) + offset;
    return push([&](Task &t) {
      t.kind = Task::Kind::copy;
      t.dst = dst;
      t.src = from;
      t.bytes = bytes;
    });
  }
  Status launch(const rt::LaunchRequest &r) override {
    auto *kernel = static_cast<const CpuKernel *>(r.kernel);
    uint64_t invocations = uint64_t(r.block[0]) * r.block[1] * r.block[2];
    if (invocations == 0 || invocations > kMaxWorkgroupInvocations)
      return {XPU_ERROR_INVALID_ARGUMENT,
              "kernel '" + r.info->name + "': a CPU workgroup has 1 to " +
                  std::to_string(kMaxWorkgroupInvocations) + " invocations"};
    return push([&](Task &t) {
      t.kind = Task::Kind::launch;
      t.info = r.info;
      uint8_t *args = t.inlineArgs;
      if (r.argBytes > Task::kInlineArgs) {
        t.heapArgs.reset(new uint8_t[r.argBytes]);
        args = t.heapArgs.get();
      }
      if (r.argBytes) // a kernel without parameters passes no argument block
        std::memcpy(args, r.args, r.argBytes);
      t.grid.entry = kernel->entry;
      t.grid.copyingEntry = kernel->copyingEntry;
      t.grid.copyingSharedBytes = kernel->copyingSharedBytes + r.dynamicSharedBytes;
      t.grid.args = args;
      // Dynamic shared memory starts where the static ends (a multiple of
      // kSharedAlign).
      t.grid.sharedBytes = kernel->sharedBytes + r.dynamicSharedBytes;
      std::memcpy(t.grid.grid, r.grid, sizeof t.grid.grid);
      std::memcpy(t.grid.block, r.block, sizeof t.grid.block);
      if (kernel->anyShape)
        chooseCpuShape(t.grid.grid, t.grid.block, ThreadPool::get().concurrency());
      t.grid.flags = aliasFlags(*kernel, args);
      t.grid.status = reinterpret_cast<uint32_t *>(r.status);
      t.stackBytes = std::max(kernel->stackBytes, kernel->copyingStackBytes);
    });
  }
  Status record(rt::BackendEvent &event) override {
    auto &e = static_cast<CpuEvent &>(event);
    uint64_t gen = e.mark();
    return push([&](Task &t) {
      t.kind = Task::Kind::record;
      t.event = &e;
      t.generation = gen;
    });
  }
  Status wait(rt::BackendEvent &event) override {
    auto &e = static_cast<CpuEvent &>(event);
    uint64_t gen;
    {
      std::lock_guard<std::mutex> g(e.mu);
      gen = e.recorded;
    }
    return push([&](Task &t) {
      t.kind = Task::Kind::wait;
      t.event = &e;
      t.generation = gen;
    });
  }
  Status synchronize() override {
    uint64_t target = submitted_.load(std::memory_order_acquire);
    while (completed_.load(std::memory_order_acquire) < target) {
      if (own()) {
        bool blocked = drain(target, /*anyThread=*/true);
        release();
        if (blocked)
          postedWord_.wake(); // the worker takes what this thread may not run
        else
          continue;
      }
      doneWord_.await([&] {
        return completed_.load(std::memory_order_acquire) >= target ||
               (!running_.load(std::memory_order_acquire) && !nextNeedsWorker());
      });
    }
    std::lock_guard<std::mutex> g(errorMu_);
    Status st = std::move(firstError_);
    firstError_ = Status();
    return st;
  }

private:
  static constexpr uint64_t kSlots = 256;

  template <typename Fill> Status push(Fill fill) {
    std::lock_guard<std::mutex> g(pushMu_);
    uint64_t at = submitted_.load(std::memory_order_relaxed);
    doneWord_.await([&] {
      return at - completed_.load(std::memory_order_acquire) < kSlots;
    });
    fill(ring_[at % kSlots]);
    submitted_.store(at + 1, std::memory_order_release);
    postedWord_.wake();
    return {};
  }

  static void *workerMain(void *self) {
    static_cast<CpuQueue *>(self)->run();
    return nullptr;
  }

  bool own() {
    bool expected = false;
    return running_.compare_exchange_strong(expected, true, std::memory_order_acquire);
  }
  void release() {
    running_.store(false, std::memory_order_release);
    postedWord_.wake();
    doneWord_.wake();
  }
  bool nextNeedsWorker() {
    uint64_t next = completed_.load(std::memory_order_acquire);
    return next < submitted_.load(std::memory_order_acquire) &&
           !ring_[next % kSlots].runsOnAnyThread();
  }

  /// Runs tasks in order while this thread owns the stream, up to `target`
  /// (exclusive). Returns true if it stopped at a task it may not run.
  bool drain(uint64_t target, bool anyThread) {
    for (uint64_t next = completed_.load(std::memory_order_relaxed); next < target; ++next) {
      Task &t = ring_[next % kSlots];
      if (anyThread && !t.runsOnAnyThread())
        return true;
      Status st = t.run();
      if (!st.isOk()) {
        std::lock_guard<std::mutex> g(errorMu_);
        if (firstError_.isOk())
          firstError_ = std::move(st);
      }
      completed_.store(next + 1, std::memory_order_release);
      doneWord_.wake();
      if (t.kind == Task::Kind::stop)
        stopped_ = true;
    }
    return false;
  }

  void run() {
    while (!stopped_) {
      postedWord_.await([&] {
        return submitted_.load(std::memory_order_acquire) >
                   completed_.load(std::memory_order_acquire) &&
               !running_.load(std::memory_order_acquire);
      });
      if (!own())
        continue;
      drain(submitted_.load(std::memory_order_acquire), /*anyThread=*/false);
      release();
    }
  }

  std::array<Task, kSlots> ring_;
  std::mutex pushMu_; ///< one producer at a time
  std::atomic<uint64_t> submitted_{0}, completed_{0};
  std::atomic<bool> running_{false};
  bool stopped_ = false; ///< the worker ran the stop task
  WaitWord postedWord_, doneWord_;
  std::mutex errorMu_;
  Status firstError_;
  pthread_t worker_{};
  bool started_ = false;
};

std::string cpuInfoField(const char *key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        size_t start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? "" : line.substr(start);
      }
    }
  }
  return {};
}

class CpuDevice : public rt::Device {
  static constexpr uint64_t kMaxSharedBytes = 64ull << 20;

public:
  CpuDevice() {
    id.backend = XPU_BACKEND_CPU;
    id.name = cpuInfoField("model name");
    if (id.name.empty())
      id.name = "host CPU";
    id.vendor = cpuInfoField("vendor_id");
    target_ = hostTarget();
    id.arch = target_.triple.substr(0, target_.triple.find('-')) + " (" +
              target_.chip + ")";
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    id.memoryBytes = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
    id.computeUnits = ThreadPool::get().concurrency();
    id.waveWidth = 1;
    id.maxWorkgroupSize = 1024;
    id.runsOnHostCpu = true;
  }

  const rt::DeviceIdentity &identity() const override { return id; }
  const rt::TargetDesc &target() const override { return target_; }

  Status allocate(size_t bytes, std::unique_ptr<rt::BackendBuffer> &out) override {
    // 64-byte alignment (a cache line, and room for any vector load); a
    // size that cannot be rounded up is more than memory holds anyway.
    size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    void *p = rounded >= bytes ? std::aligned_alloc(64, rounded) : nullptr;
    if (!p)
      return {XPU_ERROR_OUT_OF_MEMORY,
              "cannot allocate " + std::to_string(bytes) + " bytes of host memory"};
    out = std::make_unique<CpuBuffer>(p, /*owned=*/true);
    return {};
  }
  /// Every kind of memory is the same host memory here.
  Status allocateKind(size_t bytes, xpu_memory_kind,
                      std::unique_ptr<rt::BackendBuffer> &out) override {
    return allocate(bytes, out);
  }
  /// Host and device addresses are the same on the CPU. 16-byte alignment
  /// (malloc's) covers every element type's natural alignment, which is all
  /// the generated code assumes of a buffer.
  Status importMemory(const rt::ImportRequest &request,
                      std::unique_ptr<rt::BackendBuffer> &out) override {
    if (request.address % 16)
      return {XPU_ERROR_INVALID_ARGUMENT,
              "imported host memory must be aligned to 16 bytes; address " +
                  std::to_string(request.address) + " is not"};
    out = std::make_unique<CpuBuffer>(reinterpret_cast<void *>(request.address),
                                      /*owned=*/false);
    return {};
  }
  Status upload(rt::BackendBuffer &dst, size_t offset, const void *src,
                size_t bytes) override {
    std::memcpy(static_cast<char *>(bytesOf(dst)) + offset, src, bytes);
    return {};
  }
  Status download(rt::BackendBuffer &src, size_t offset, void *dst,
                  size_t bytes) override {
    std::memcpy(dst, static_cast<const char *>(bytesOf(src)) + offset, bytes);
    return {};
  }
  Status createQueue(std::unique_ptr<rt::Queue> &out) override {
    auto queue = std::make_unique<CpuQueue>();
    XPU_RETURN_IF_ERROR(queue->start());
    out = std::move(queue);
    return {};
  }
  Status createEvent(std::unique_ptr<rt::BackendEvent> &out) override {
    out = std::make_unique<CpuEvent>();
    return {};
  }
  Status allocateStatusWord(rt::StatusWord &out) override {
    out.host = new uint32_t[abi::kStatusWords]();
    out.device = reinterpret_cast<uint64_t>(out.host);
    return {};
  }
  void freeStatusWord(const rt::StatusWord &word) override { delete[] word.host; }

  std::vector<cap::Fact> probeCapabilities() override {
    using xpu::Capability;
    return {
        {Capability::sharedMemory, cap::Kind::deviceOptional, cap::Available{},
         "xpujit CPU runtime: a worker's shared block grows to any size up to "
         "this limit",
         kMaxSharedBytes},
        {Capability::workgroupInvocations, cap::Kind::deviceOptional,
         cap::Available{},
         "xpujit CPU runtime: a workgroup's invocations run as loops on one "
         "thread, at most this many",
         uint64_t(id.maxWorkgroupSize)},
    };
  }

  std::string toolchainIdentity() const override {
    return "LLVM " LLVM_VERSION_STRING " (ORC JIT linker)";
  }

  Status compile(mlir::ModuleOp module, const std::vector<abi::KernelInfo> &,
                 rt::Blob &out) override {
    return compileForHost(module, out);
  }
  Status load(const rt::Blob &blob, const std::vector<abi::KernelInfo> &kernels,
              std::unique_ptr<rt::LoadedModule> &out) override {
    return loadHostObject(blob, kernels, out);
  }

private:
  rt::DeviceIdentity id;
  rt::TargetDesc target_;
};

class CpuBackend : public rt::Backend {
public:
  xpu_backend kind() const override { return XPU_BACKEND_CPU; }
  Status enumerate(std::vector<std::unique_ptr<rt::Device>> &out,
                   std::string &) override {
    out.push_back(std::make_unique<CpuDevice>());
    return {};
  }
};

} // namespace

std::unique_ptr<rt::Backend> createCpuBackend() {
  return std::make_unique<CpuBackend>();
}

} // namespace xpu::cpu
