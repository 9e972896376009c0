// The CPU backend: the host as a device. Buffers are host memory, a stream
// is a worker thread with a queue, and a launch spreads its workgroups over
// the thread pool.
#include "cpu_codegen.h"
#include "thread_pool.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Config/llvm-config.h"
#include "workgroup.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

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
  std::chrono::steady_clock::time_point completedAt;

  uint64_t mark() {
    std::lock_guard<std::mutex> g(mu);
    return ++recorded;
  }
  void complete(uint64_t gen) {
    {
      std::lock_guard<std::mutex> g(mu);
      completed = std::max(completed, gen);
      completedAt = std::chrono::steady_clock::now();
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
  bool isComplete() override {
    std::lock_guard<std::mutex> g(mu);
    return completed >= recorded;
  }
  Status elapsedSince(rt::BackendEvent &start, double &ms) override {
    auto &s = static_cast<CpuEvent &>(start);
    if (!isComplete() || !s.isComplete())
      return {XPU_ERROR_BUSY, "an event has not completed yet"};
    std::lock_guard<std::mutex> g(mu);
    std::lock_guard<std::mutex> g2(s.mu);
    ms = std::chrono::duration<double, std::milli>(completedAt - s.completedAt).count();
    return {};
  }
};

/// Runs the workgroups of one launch on the pool.
Status runGrid(const CpuKernel &kernel, const abi::KernelInfo &info,
               const uint32_t grid[3], const uint32_t block[3],
               const uint8_t *args, uint32_t *status, uint32_t dynamicShared) {
  uint64_t gx = grid[0], gy = grid[1], gz = grid[2];
  uint64_t groups = gx * gy * gz;
  // Dynamic shared memory starts where the static ends (info.sharedBytes
  // is a multiple of kSharedAlign).
  size_t sharedBytes = info.sharedBytes + dynamicShared;
  std::atomic<bool> fibersFailed{false};
  ThreadPool::get().parallelFor(groups, [&](uint64_t begin, uint64_t end) {
    // Each worker's shared block, reused across workgroups and launches.
    thread_local std::vector<std::max_align_t> shared;
    size_t words = (sharedBytes + sizeof(std::max_align_t) - 1) /
                   sizeof(std::max_align_t);
    if (shared.size() < words)
      shared.resize(words);
    abi::CpuLaunch launch{};
    for (int d = 0; d < 3; ++d) {
      launch.block[d] = block[d];
      launch.grid[d] = grid[d];
    }
    launch.shared = reinterpret_cast<char *>(shared.data());
    launch.status = status;
    for (uint64_t g = begin; g < end; ++g) {
      launch.wg[0] = uint32_t(g % gx);
      launch.wg[1] = uint32_t((g / gx) % gy);
      launch.wg[2] = uint32_t(g / (gx * gy));
      if (kernel.group) {
        reinterpret_cast<GroupEntry>(kernel.group)(args, &launch);
      } else if (!runWithFibers(reinterpret_cast<ItemEntry>(kernel.item), args,
                                &launch)) {
        fibersFailed = true;
        return;
      }
    }
  });
  if (fibersFailed)
    return {XPU_ERROR_OUT_OF_MEMORY,
            "kernel '" + info.name +
                "': cannot allocate fiber stacks for its workgroup"};
  return {};
}

/// A stream: tasks run in order on a worker thread. The first failure is
/// kept and returned by the next synchronize.
class CpuQueue : public rt::Queue {
public:
  CpuQueue() : worker([this] { run(); }) {}
  ~CpuQueue() override {
    {
      std::lock_guard<std::mutex> g(mu);
      stopping = true;
    }
    wake.notify_all();
    worker.join();
  }

  Status copyIn(rt::BackendBuffer &dst, size_t offset, const void *src,
                size_t bytes) override {
    char *to = static_cast<char *>(bytesOf(dst)) + offset;
    return push([=] {
      std::memcpy(to, src, bytes);
      return Status();
    });
  }
  Status copyBuffer(rt::BackendBuffer &dst, size_t dstOffset, rt::BackendBuffer &src,
                    size_t srcOffset, size_t bytes) override {
    char *to = static_cast<char *>(bytesOf(dst)) + dstOffset;
    const char *from = static_cast<const char *>(bytesOf(src)) + srcOffset;
    return push([=] {
      std::memmove(to, from, bytes);
      return Status();
    });
  }
  Status copyOut(rt::BackendBuffer &src, size_t offset, void *dst,
                 size_t bytes) override {
    const char *from = static_cast<const char *>(bytesOf(src)) + offset;
    return push([=] {
      std::memcpy(dst, from, bytes);
      return Status();
    });
  }
  Status launch(const rt::LaunchRequest &r) override {
    auto *kernel = static_cast<const CpuKernel *>(r.kernel);
    const abi::KernelInfo *info = r.info;
    std::vector<uint8_t> args(r.args, r.args + r.argBytes);
    std::array<uint32_t, 3> grid{r.grid[0], r.grid[1], r.grid[2]};
    std::array<uint32_t, 3> block{r.block[0], r.block[1], r.block[2]};
    auto *status = reinterpret_cast<uint32_t *>(r.status);
    uint32_t dynamicShared = r.dynamicSharedBytes;
    return push([=, args = std::move(args)] {
      return runGrid(*kernel, *info, grid.data(), block.data(), args.data(),
                     status, dynamicShared);
    });
  }
  Status record(rt::BackendEvent &event) override {
    auto &e = static_cast<CpuEvent &>(event);
    uint64_t gen = e.mark();
    return push([&e, gen] {
      e.complete(gen);
      return Status();
    });
  }
  Status wait(rt::BackendEvent &event) override {
    auto &e = static_cast<CpuEvent &>(event);
    uint64_t gen;
    {
      std::lock_guard<std::mutex> g(e.mu);
      gen = e.recorded;
    }
    return push([&e, gen] {
      e.waitFor(gen);
      return Status();
    });
  }
  Status synchronize() override {
    std::unique_lock<std::mutex> l(mu);
    idle.wait(l, [&] { return tasks.empty() && !busy; });
    Status st = std::move(firstError);
    firstError = Status();
    return st;
  }

private:
  Status push(std::function<Status()> task) {
    {
      std::lock_guard<std::mutex> g(mu);
      tasks.push_back(std::move(task));
    }
    wake.notify_one();
    return {};
  }

  void run() {
    std::unique_lock<std::mutex> l(mu);
    for (;;) {
      wake.wait(l, [&] { return stopping || !tasks.empty(); });
      if (tasks.empty() && stopping)
        return;
      std::function<Status()> task = std::move(tasks.front());
      tasks.pop_front();
      busy = true;
      l.unlock();
      Status st = task();
      l.lock();
      busy = false;
      if (!st.isOk() && firstError.isOk())
        firstError = std::move(st);
      if (tasks.empty())
        idle.notify_all();
    }
  }

  std::mutex mu;
  std::condition_variable wake, idle;
  std::deque<std::function<Status()>> tasks;
  bool busy = false, stopping = false;
  Status firstError;
  std::thread worker; // last: starts after the members it uses
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
    // 64-byte alignment (a cache line, and room for any vector load).
    size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, rounded);
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
    out = std::make_unique<CpuQueue>();
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
         "xpujit CPU runtime: one fiber per invocation, at most this many",
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
