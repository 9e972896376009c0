// The objects behind the C API's handles, and the rules that tie them
// together: ownership, borrows of buffers by in-flight work, and the checks
// that run when a stream is synchronized.
#pragma once

#include "observe/observe.h"
#include "runtime/backend.h"
#include "runtime/compiler.h"
#include "runtime/handles.h"
#include "runtime/kernel_builder.h"
#include "xpu/Diagnostic.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

namespace xpu::sched {
struct Manifest;
}

namespace xpu::rt {

struct ContextObj;
struct StreamObj;

struct DeviceObj : Object {
  std::unique_ptr<Device> device;
  uint32_t index = 0;
  std::weak_ptr<ContextObj> context;
  DeviceCache cache; ///< programs loaded on this device, by source

  std::mutex mu;
  std::shared_ptr<StreamObj> defaultStream;      ///< null once shut down
  std::vector<std::weak_ptr<StreamObj>> streams; ///< every live stream

  /// The default stream (for a NULL stream argument), or INVALID_HANDLE
  /// once the device's context has been released.
  Status stream0(std::shared_ptr<StreamObj> &out);

  /// Synchronizes every stream of the device; returns the first error.
  Status synchronizeAll();
  /// At context release: lets go of the default stream (which refers back
  /// to the device), so that the device, its queues and their worker
  /// threads are destroyed once nothing else refers to them.
  void shutDown();
};

struct ContextObj : Object {
  std::vector<std::shared_ptr<DeviceObj>> devices;
  /// Per backend: "" when it found devices, else why it found none.
  std::map<xpu_backend, std::string> backendNotes;

  /// Handles of everything made from this context, released with it.
  std::mutex mu;
  std::unordered_set<uint64_t> children;

  void adopt(uint64_t handle);
  void forget(uint64_t handle);
};

/// A run-time check a finished launch must pass: its status word.
struct PendingCheck {
  StatusWord word;
  std::shared_ptr<const abi::KernelInfo> kernel;
  /// A word a graph owns and reuses (scheduler/graph.h): read and reset,
  /// not freed.
  std::shared_ptr<const void> owner;
};

struct BufferObj;

/// A launch that prints: its print buffer, formatted at synchronization.
struct PendingPrint {
  std::shared_ptr<BufferObj> buffer;
  std::shared_ptr<const abi::KernelInfo> kernel;
};

struct StreamObj : Object {
  std::shared_ptr<DeviceObj> device;
  std::unique_ptr<Queue> queue;

  std::mutex mu;                       ///< serializes enqueue and sync
  uint64_t enqueued = 0;               ///< sequence number of the last work
  std::atomic<uint64_t> synchronized{0}; ///< last sequence known finished
  std::vector<PendingCheck> checks;
  /// What enqueued work uses (events recorded or waited on, kernels with
  /// their modules, buffers), held until the stream synchronizes: releasing
  /// a handle while its object is still queued is safe (xpu_c.h, "Queued
  /// work keeps what it uses alive").
  std::vector<std::shared_ptr<Object>> inUse;
  std::vector<PendingPrint> prints;

  /// Keeps `obj` alive until the next synchronization. Call with `mu` held,
  /// with each enqueue. A loop that launches one kernel on the same
  /// buffers keeps each of them once: the last few entries are checked.
  void keep(std::shared_ptr<Object> obj) {
    size_t window = std::min<size_t>(inUse.size(), 8);
    for (size_t i = inUse.size() - window; i < inUse.size(); ++i)
      if (inUse[i] == obj)
        return;
    inUse.push_back(std::move(obj));
  }

  observe::StreamLog observed; ///< launches awaiting device times (last: see it)

  /// Waits for the queue, then prints what finished launches printed and
  /// checks their status words; ends the borrows of everything enqueued so far and lets go
  /// of what the finished work used.
  Status synchronize();
};

/// A buffer lent to enqueued work: resolved once `stream` synchronizes past
/// `sequence` (deferred borrow until sync).
struct Borrow {
  std::weak_ptr<StreamObj> stream;
  uint64_t sequence = 0;
  bool writes = false;
  /// What borrowed it: a launch of this kernel, or else `what` ("upload").
  std::shared_ptr<const abi::KernelInfo> kernel;
  const char *what = "";
};

struct BufferObj : Object {
  ~BufferObj() override;
  std::shared_ptr<DeviceObj> device;
  std::unique_ptr<BackendBuffer> memory;
  size_t bytes = 0;
  /// Imported memory: told when xpujit stops using it (after `memory` goes).
  xpu_release_fn release = nullptr;
  void *releaseData = nullptr;
  /// Open xpu_buffer_map calls; device work is refused while any is open.
  std::atomic<uint32_t> maps{0};

  std::mutex mu;
  std::vector<Borrow> borrows;

  /// Fails with XPU_ERROR_BUSY if unresolved work conflicts with `what`:
  /// freeing or writing conflicts with any borrow, reading only with a
  /// writing one. Work on `sameStream` is ordered and never conflicts.
  Status checkConflicts(const char *what, bool isWrite,
                        const StreamObj *sameStream);
  /// What blocking host access does instead: synchronizes the streams of
  /// unresolved work that conflicts with it, returning their first error.
  Status waitForConflicts(bool isWrite);
  /// XPU_ERROR_BUSY while the host has the buffer mapped.
  Status checkNotMapped(const char *what) const;
  void lend(const std::shared_ptr<StreamObj> &stream, uint64_t sequence,
            bool writes, std::shared_ptr<const abi::KernelInfo> kernel,
            const char *what = "");
};

struct EventObj : Object {
  std::shared_ptr<DeviceObj> device;
  std::unique_ptr<BackendEvent> event;
  std::atomic<bool> recorded{false};
};

struct KernelObj;

struct ModuleObj : Object {
  std::shared_ptr<DeviceObj> device;
  /// Shared with the device's cache and every module of the same source.
  std::shared_ptr<const Program> program;
  std::vector<uint64_t> kernelHandles;
  std::string buildInfo; ///< for xpu_module_build_info
  std::shared_ptr<observe::ModuleRecord> observed; ///< for xpu_module_report
};

struct KernelObj : Object {
  std::shared_ptr<ModuleObj> module;
  std::shared_ptr<const abi::KernelInfo> info;
  BackendKernel *code = nullptr;
  std::vector<abi::Slot> slots; ///< flattened argument layout
  uint32_t argBytes = 0;
  /// The flattened parameters that are launch arguments (the others are
  /// filled by the launch: abi::Role), and where each parameter's slots
  /// begin.
  std::vector<uint32_t> arguments, firstSlot;
  /// Dynamic shared memory a launch may ask for (interop).
  uint64_t dynamicSharedCapacity = 0;
  std::vector<std::string> paramNames; ///< stable storage for the C API
  /// The kernel's manifest (scheduler/manifest.h), made on first use.
  std::once_flag manifestOnce;
  std::shared_ptr<const sched::Manifest> manifest;
};

/// Compiler diagnostics handed to the caller; not owned by any context.
struct DiagnosticsObj : Object {
  std::vector<xpu::Diagnostic> list;
  std::string json, text; ///< rendered once, on creation
};

/// A kernel builder; owned by its context. One call at a time.
struct BuilderObj : Object {
  uint64_t context = 0; ///< the context's handle, for xpu_builder_finish
  std::mutex mu;
  KernelBuilder builder;
  std::string printed; ///< the text of the last xpu_builder_print
};

template <> constexpr Kind kindOf<ContextObj>() { return Kind::context; }
template <> constexpr Kind kindOf<DeviceObj>() { return Kind::device; }
template <> constexpr Kind kindOf<BufferObj>() { return Kind::buffer; }
template <> constexpr Kind kindOf<StreamObj>() { return Kind::stream; }
template <> constexpr Kind kindOf<EventObj>() { return Kind::event; }
template <> constexpr Kind kindOf<ModuleObj>() { return Kind::module; }
template <> constexpr Kind kindOf<KernelObj>() { return Kind::kernel; }
template <> constexpr Kind kindOf<DiagnosticsObj>() { return Kind::diagnostics; }
template <> constexpr Kind kindOf<BuilderObj>() { return Kind::builder; }

/// Registers `obj` under a new handle owned by `device`'s context.
template <typename T>
Status registerObject(const std::shared_ptr<DeviceObj> &device,
                      std::shared_ptr<T> obj, uint64_t &handle) {
  uint64_t h = HandleTable::get().add(kindOf<T>(), obj);
  if (!h)
    return handleTableFull(kindOf<T>());
  if (auto ctx = device->context.lock())
    ctx->adopt(h);
  handle = h;
  return {};
}

/// Unregisters a handle made by registerObject.
template <typename T>
std::shared_ptr<T> unregisterObject(uint64_t handle) {
  auto obj = std::static_pointer_cast<T>(
      HandleTable::get().remove(handle, kindOf<T>()));
  return obj;
}

/// Makes a stream on `device` and registers it with the device.
Status createStream(const std::shared_ptr<DeviceObj> &device,
                    std::shared_ptr<StreamObj> &out);

} // namespace xpu::rt
