// The backend seam: what each of backends/{cpu,cuda,hip,vulkan} implements.
// The dispatch layer (src/runtime) owns handles, argument checking, borrows
// and error reporting; a backend only moves bytes, compiles and runs.
#pragma once

#include "capability/capability.h"
#include "runtime/status.h"
#include "xpu/KernelABI.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
}
namespace xpu::cal {
class DeviceCalibration;
}

namespace xpu::rt {

struct DeviceIdentity {
  xpu_backend backend = XPU_BACKEND_CPU;
  std::string name, vendor, arch, driver;
  uint8_t uuid[16] = {};
  uint64_t memoryBytes = 0;
  uint32_t computeUnits = 0;
  uint32_t waveWidth = 1;
  uint32_t maxWorkgroupSize = 1024;
  uint32_t maxGrid[3] = {0x7FFFFFFF, 65535, 65535};
  /// The native CPU backend, or a software renderer (lavapipe:
  /// VK_PHYSICAL_DEVICE_TYPE_CPU): ordered after the CPU backend by default,
  /// and given small calibration probes.
  bool runsOnHostCpu = false;
};

/// What code is generated for. Every field changes the generated code, so
/// every field goes into cache keys.
struct TargetDesc {
  enum class Kind { cpu, nvptx, amdgcn, spirv } kind = Kind::cpu;
  std::string triple;   ///< "x86_64-unknown-linux-gnu", "nvptx64-nvidia-cuda"
  std::string chip;     ///< "znver3", "sm_90", "gfx942"
  std::string features; ///< "+avx2,+fma,...", "+ptx80"
  uint32_t waveWidth = 1;
};

/// The output of code generation for one module.
struct Blob {
  std::vector<uint8_t> code; ///< object file, cubin/PTX, code object, SPIR-V
  std::string format;        ///< "elf-object", "cubin", "ptx", ...
  std::string toolchain;     ///< what produced it, e.g. "LLVM 22.1.8; ptxas 13.0"
  std::string log;           ///< how long each stage took, for the build log
  /// Per kernel (KernelInfo order), what the code generator knows of the
  /// code it made: ptxas's report, the AMD code object's metadata. Empty
  /// when it knows nothing.
  std::vector<abi::Footprint> footprints;
};

/// "host-visible", "managed", ...
const char *memoryKindName(xpu_memory_kind kind);

/// Device memory.
class BackendBuffer {
public:
  virtual ~BackendBuffer() = default;
  /// The address kernels receive for this buffer (host pointer on the CPU,
  /// device pointer on CUDA/HIP; unused by Vulkan's binding model).
  virtual uint64_t address() const = 0;
  /// Where the host reads and writes it directly (xpu_buffer_map), or null
  /// when the host reaches it only by copies.
  virtual void *hostPointer() const { return nullptr; }
};

/// Memory that xpujit did not allocate (xpu_buffer_import).
struct ImportRequest {
  xpu_import_kind kind = XPU_IMPORT_HOST_POINTER;
  uint64_t address = 0;
  size_t bytes = 0;
};

class BackendEvent {
public:
  virtual ~BackendEvent() = default;
  virtual Status synchronize() = 0;
  virtual bool isComplete() = 0;
  /// Milliseconds from `start` to this event, both complete.
  virtual Status elapsedSince(BackendEvent &start, double &ms) = 0;
  /// The host's steady clock when this complete event completed, where the
  /// backend knows it (the CPU's); GPU events have device times only.
  virtual std::optional<std::chrono::steady_clock::time_point> completedAt() {
    return std::nullopt;
  }
};

class BackendKernel {
public:
  virtual ~BackendKernel() = default;
};

/// A loaded module: the kernels of one compiled blob, in the order of the
/// KernelInfo list given at load.
class LoadedModule {
public:
  virtual ~LoadedModule() = default;
  virtual BackendKernel *kernel(size_t index) = 0;
  /// Adds what the driver says of kernel `index`'s loaded code to `f`
  /// (cuFuncGetAttribute); a backend whose driver says nothing adds nothing.
  virtual void describe(size_t index, abi::Footprint &f) { (void)index, (void)f; }
};

/// A word kernels report failed run-time checks through (abi::kStatusWords
/// u32 values), readable by the host after the launch's stream syncs.
struct StatusWord {
  uint32_t *host = nullptr;  ///< where the host reads it
  uint64_t device = 0;       ///< what the kernel receives
};

struct LaunchRequest {
  BackendKernel *kernel = nullptr;
  const abi::KernelInfo *info = nullptr;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  /// Flattened arguments in the kernel ABI's slot layout (abi::layoutArgs).
  const uint8_t *args = nullptr;
  size_t argBytes = 0;
  const std::vector<abi::Slot> *slots = nullptr;
  /// The buffer behind each parameter (null for scalars).
  std::vector<BackendBuffer *> buffers;
  uint64_t status = 0; ///< StatusWord::device
  /// Dynamic shared memory per workgroup, after the static (interop).
  uint32_t dynamicSharedBytes = 0;
};

/// A chain of launches the device replays as one unit: a CUDA or HIP graph,
/// a pre-recorded Vulkan command buffer (src/scheduler/ owns the rest).
class BackendGraph {
public:
  virtual ~BackendGraph() = default;
  /// "cuda graph", "vulkan command buffer", ...
  virtual const char *kind() const = 0;
  /// Node `index` runs `request` (its kernel and shape, new arguments and
  /// buffers) from the graph's next launch on.
  virtual Status update(size_t index, const LaunchRequest &request) = 0;
};

class Device;

/// An in-order queue of work: a stream.
class Queue {
public:
  virtual ~Queue() = default;
  virtual Status copyIn(BackendBuffer &dst, size_t offset, const void *src,
                        size_t bytes) = 0;
  virtual Status copyOut(BackendBuffer &src, size_t offset, void *dst,
                         size_t bytes) = 0;
  /// Device-to-device copy between two buffers of this queue's device.
  virtual Status copyBuffer(BackendBuffer &dst, size_t dstOffset, BackendBuffer &src,
                            size_t srcOffset, size_t bytes) = 0;
  /// A copy from a buffer of another device of the same backend, in this
  /// queue's order (CUDA peer copies). Null where the backend has none: the
  /// dispatch layer then stages the copy through host memory.
  virtual Status copyFromPeer(BackendBuffer &dst, size_t dstOffset, Device &srcDevice,
                              BackendBuffer &src, size_t srcOffset, size_t bytes) {
    return {XPU_ERROR_UNSUPPORTED, "no peer copies"};
  }
  /// Whether wait() takes an event of another device of the same backend
  /// (CUDA's cuStreamWaitEvent does); if not, the host waits for it.
  virtual bool waitsForPeerEvents() const { return false; }
  virtual Status launch(const LaunchRequest &request) = 0;
  virtual Status record(BackendEvent &event) = 0;
  virtual Status wait(BackendEvent &event) = 0;
  /// Blocks until the queue is empty; returns the first error of its work
  /// since the last synchronization.
  virtual Status synchronize() = 0;
  /// The driver's own stream (CUstream, hipStream_t), for interop; null
  /// where there is none.
  virtual void *nativeHandle() const { return nullptr; }
  /// Enqueues a graph its device made (Device::createGraph).
  virtual Status launchGraph(BackendGraph &graph) {
    (void)graph;
    return {XPU_ERROR_UNSUPPORTED, "this queue replays no graphs"};
  }
  /// Hands work recorded for the queue to the device now, where the queue
  /// batches it (Vulkan): for latency.
  virtual Status flush() { return {}; }
};

/// A queue whose launches run on part of a device's compute units (a
/// compute-unit budget, spec §17.8).
struct PartitionRequest {
  uint32_t computeUnits = 0; ///< this many, or the fewest above it the driver gives
};

class Device {
public:
  Device();
  virtual ~Device();
  virtual const DeviceIdentity &identity() const = 0;
  virtual const TargetDesc &target() const = 0;
  /// What turns the target's code into what the device runs, with
  /// versions ("LLVM 22.1.8", "ptxas 13.0; libdevice <hash>"). It goes into
  /// cache keys, so an upgraded toolchain never gets stale code.
  virtual std::string toolchainIdentity() const = 0;

  virtual Status allocate(size_t bytes, std::unique_ptr<BackendBuffer> &out) = 0;
  /// Memory of a kind other than plain device memory; a backend without it
  /// says why.
  virtual Status allocateKind(size_t bytes, xpu_memory_kind kind,
                              std::unique_ptr<BackendBuffer> &out) {
    if (kind == XPU_MEMORY_DEVICE)
      return allocate(bytes, out);
    return {XPU_ERROR_UNSUPPORTED, label() + " has no " + memoryKindName(kind) +
                                       " memory in xpujit"};
  }
  /// Wraps external memory without taking ownership of it.
  virtual Status importMemory(const ImportRequest &request,
                              std::unique_ptr<BackendBuffer> &out) {
    return {XPU_ERROR_UNSUPPORTED, label() + " cannot import external memory in xpujit"};
  }
  /// Blocking copies, not ordered with any queue.
  virtual Status upload(BackendBuffer &dst, size_t offset, const void *src,
                        size_t bytes) = 0;
  virtual Status download(BackendBuffer &src, size_t offset, void *dst,
                          size_t bytes) = 0;
  virtual Status createQueue(std::unique_ptr<Queue> &out) = 0;
  /// A queue restricted to `request.computeUnits` compute units, where the
  /// driver partitions compute; else UNSUPPORTED saying why. `reserved`:
  /// the compute units the queue runs on, which a driver with a partition
  /// granularity may round up to (CUDA green contexts).
  virtual Status createPartitionedQueue(const PartitionRequest &request,
                                        std::unique_ptr<Queue> &out, uint32_t &reserved) {
    (void)request, (void)out, (void)reserved;
    return {XPU_ERROR_UNSUPPORTED,
            label() + " offers no compute partitioning to xpujit"};
  }
  /// Records `nodes` (in stream order) as one graph; node i runs after the
  /// nodes `after[i]` names (earlier ones), the others may overlap it.
  /// UNSUPPORTED where the device has no graphs of its own: the scheduler
  /// then replays the launches one by one.
  virtual Status createGraph(const std::vector<const LaunchRequest *> &nodes,
                             const std::vector<std::vector<uint32_t>> &after,
                             std::unique_ptr<BackendGraph> &out) {
    (void)nodes, (void)after, (void)out;
    return {XPU_ERROR_UNSUPPORTED, label() + " has no native graphs"};
  }
  virtual Status createEvent(std::unique_ptr<BackendEvent> &out) = 0;
  virtual Status allocateStatusWord(StatusWord &out) = 0;
  virtual void freeStatusWord(const StatusWord &word) = 0;

  /// Lowers an admitted module for this device and generates code.
  virtual Status compile(mlir::ModuleOp module,
                         const std::vector<abi::KernelInfo> &kernels,
                         Blob &out) = 0;
  virtual Status load(const Blob &blob,
                      const std::vector<abi::KernelInfo> &kernels,
                      std::unique_ptr<LoadedModule> &out) = 0;

  /// Facts for the capabilities its target leaves to the device (see
  /// capability/target_facts.cpp), each naming the query that produced it.
  virtual std::vector<cap::Fact> probeCapabilities() = 0;

  /// The device's whole capability table, resolved once (its measured
  /// facts from the calibration).
  const cap::FactTable &capabilities();
  /// What was measured on this device (src/calibration), loaded or measured
  /// on first use.
  cal::DeviceCalibration &calibration() { return *calibration_; }
  /// "cuda device 'NVIDIA H200'", for messages.
  std::string label() const;

private:
  std::once_flag capabilitiesOnce_;
  cap::FactTable capabilities_;
  std::unique_ptr<cal::DeviceCalibration> calibration_;
};

/// A backend finds its devices. A backend whose driver library is missing
/// finds none and says why in `note`.
class Backend {
public:
  virtual ~Backend() = default;
  virtual xpu_backend kind() const = 0;
  virtual Status enumerate(std::vector<std::unique_ptr<Device>> &out,
                           std::string &note) = 0;
};

/// The backends built into this library, in the default device order.
std::vector<std::unique_ptr<Backend>> createBackends();

/// Where a device goes in the default order (lower first): CUDA, HIP,
/// Vulkan, the CPU backend, then Vulkan devices that run on the host CPU
/// (lavapipe). Devices of equal rank keep their backend's order.
int defaultOrderRank(const DeviceIdentity &id);
constexpr int kLastDefaultOrderRank = 4;

} // namespace xpu::rt
