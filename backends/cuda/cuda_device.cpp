// The CUDA backend: devices through the driver API, buffers in device
// memory, streams and events, modules from cubin or PTX, launches through
// cuLaunchKernel. A device fault loses the device's context: later calls fail
// cleanly with XPU_ERROR_DEVICE_LOST, and a new xpu context gets a new one.
#include "cuda_codegen.h"
#include "cuda_driver.h"
#include "cuda_graph.h"
#include "cuda_green_context.h"
#include "capability/tile_facts.h"
#include "../common/driver_launch.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"

#include <atomic>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

namespace xpu::cuda {

using rt::Status;

namespace {

/// Which device's context this thread last made current, by serial number
/// (a destroyed context's address may come back for a new one).
thread_local uint64_t tlsCurrent = 0;
std::atomic<uint64_t> nextSerial{1};

class CudaDevice;

/// Device memory (cuMemAlloc), pinned host memory mapped into the device
/// (cuMemHostAlloc), managed memory, or an imported address xpujit does not own.
class CudaBuffer : public rt::BackendBuffer {
public:
  enum class Origin { device, pinned, managed, imported };
  CudaBuffer(CudaDevice &d, CUdeviceptr p, Origin o, void *host = nullptr)
      : device(d), ptr(p), origin(o), host(host) {}
  ~CudaBuffer() override;
  uint64_t address() const override { return ptr; }
  void *hostPointer() const override { return host; }
  CudaDevice &device;
  CUdeviceptr ptr;
  Origin origin;
  void *host; ///< where the host reaches it directly, if it can
};

class CudaEvent : public rt::BackendEvent {
public:
  CudaEvent(CudaDevice &d, CUevent e) : device(d), event(e) {}
  ~CudaEvent() override;
  Status synchronize() override;
  bool isComplete() override;
  Status elapsedSince(rt::BackendEvent &start, double &ms) override;
  CudaDevice &device;
  CUevent event;
};

struct CudaKernel : rt::BackendKernel {
  CUfunction function = nullptr;
  /// Its own shared memory in the dynamic window (Footprint::
  /// launchSharedBytes): every launch adds it before the caller's bytes.
  uint32_t launchShared = 0;
};

class CudaModule : public rt::LoadedModule {
public:
  CudaModule(CudaDevice &d, CUmodule m) : device(d), module(m) {}
  ~CudaModule() override;
  rt::BackendKernel *kernel(size_t index) override { return &kernels.at(index); }
  void describe(size_t index, abi::Footprint &f) override;
  CudaDevice &device;
  CUmodule module;
  std::vector<CudaKernel> kernels;
};

/// The device's primary context (the one the CUDA runtime, PyTorch, CuPy and
/// NCCL use), retained on first use for the rest of the process (see
/// retainPrimaryContext): device pointers are then shared with
/// them. A fault in any of their kernels loses it for all of them.
class CudaDevice : public rt::Device {
public:
  CudaDevice(const Driver &d, CUdevice dev) : drv(d), cuDevice(dev) {}
  ~CudaDevice() override;

  const rt::DeviceIdentity &identity() const override { return id; }
  const rt::TargetDesc &target() const override { return target_; }

  /// Makes this device's context current on the calling thread, creating it
  /// on first use; fails once the context is lost.
  Status enter();
  /// Records a sticky error: the context is lost from now on.
  Status lose(const Status &fault);
  Status check(CUresult r, const std::string &what) {
    if (r == CUDA_SUCCESS)
      return {};
    Status st = failure(drv, r, what);
    return isStickyError(r) ? lose(st) : st;
  }

  Status allocate(size_t bytes, std::unique_ptr<rt::BackendBuffer> &out) override {
    XPU_RETURN_IF_ERROR(enter());
    CUdeviceptr p = 0;
    XPU_RETURN_IF_ERROR(check(drv.cuMemAlloc(&p, bytes),
                              "cuMemAlloc of " + std::to_string(bytes) + " bytes"));
    out = std::make_unique<CudaBuffer>(*this, p, CudaBuffer::Origin::device);
    return {};
  }
  Status allocateKind(size_t bytes, xpu_memory_kind kind,
                      std::unique_ptr<rt::BackendBuffer> &out) override;
  Status importMemory(const rt::ImportRequest &request,
                      std::unique_ptr<rt::BackendBuffer> &out) override;
  Status upload(rt::BackendBuffer &dst, size_t offset, const void *src,
                size_t bytes) override {
    XPU_RETURN_IF_ERROR(enter());
    XPU_RETURN_IF_ERROR(
        check(drv.cuMemcpyHtoD(dst.address() + offset, src, bytes), "cuMemcpyHtoD"));
    // From pageable memory cuMemcpyHtoD returns once the bytes are staged,
    // before the DMA lands, and our queues are non-blocking streams that do
    // not wait for the legacy stream: a launch could read the old contents.
    // 64 processes on one H200 saw up to 18,639 of 4,099 x 9 elements wrong
    // (tests/cache/cache_ranks.c). Waiting for the legacy stream ends the DMA.
    return check(drv.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  }
  Status download(rt::BackendBuffer &src, size_t offset, void *dst,
                  size_t bytes) override {
    XPU_RETURN_IF_ERROR(enter());
    return check(drv.cuMemcpyDtoH(dst, src.address() + offset, bytes), "cuMemcpyDtoH");
  }
  Status createQueue(std::unique_ptr<rt::Queue> &out) override;
  /// A stream of a green context holding the budget's SMs (rounded up to
  /// the driver's partition granularity: 8 SMs on sm_90).
  Status createPartitionedQueue(const rt::PartitionRequest &request,
                                std::unique_ptr<rt::Queue> &out,
                                uint32_t &reserved) override;
  Status createGraph(const std::vector<const rt::LaunchRequest *> &nodes,
                     const std::vector<std::vector<uint32_t>> &after,
                     std::unique_ptr<rt::BackendGraph> &out) override {
    GraphContext c;
    c.drv = &drv;
    c.enter = [this] { return enter(); };
    c.check = [this](CUresult r, const std::string &what) { return check(r, what); };
    c.function = [](const rt::BackendKernel *k) {
      return static_cast<const CudaKernel *>(k)->function;
    };
    c.launchShared = [](const rt::BackendKernel *k) {
      return static_cast<const CudaKernel *>(k)->launchShared;
    };
    return createCudaGraph(c, nodes, after, out);
  }
  Status createEvent(std::unique_ptr<rt::BackendEvent> &out) override {
    XPU_RETURN_IF_ERROR(enter());
    CUevent e = nullptr;
    // Timing stays on so xpu_event_elapsed works on any event.
    XPU_RETURN_IF_ERROR(check(drv.cuEventCreate(&e, 0), "cuEventCreate"));
    out = std::make_unique<CudaEvent>(*this, e);
    return {};
  }
  Status allocateStatusWord(rt::StatusWord &out) override;
  void freeStatusWord(const rt::StatusWord &word) override;

  Status compile(mlir::ModuleOp module, const std::vector<abi::KernelInfo> &kernels,
                 rt::Blob &out) override {
    return compileForNVPTX(module, target_, out, &kernels);
  }
  Status load(const rt::Blob &blob, const std::vector<abi::KernelInfo> &kernels,
              std::unique_ptr<rt::LoadedModule> &out) override;
  std::vector<cap::Fact> probeCapabilities() override;
  std::string toolchainIdentity() const override { return nvptxToolchainIdentity(); }

  Status describe();
  Status allowOptinShared(const CudaKernel &k, const std::string &name);
  /// The primary context, once enter() has retained it.
  CUcontext context() const { return ctx; }

  const Driver &drv;
  CUdevice cuDevice;
  int ccMajor = 0, ccMinor = 0;
  /// Shared memory a block may have: without opting in (48 KiB), and with
  /// cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) (227 KiB on sm_90).
  int sharedPerBlock = 0, sharedOptin = 0;

private:
  rt::DeviceIdentity id;
  rt::TargetDesc target_;

  std::mutex mu;
  std::once_flag ctxOnce;
  CUcontext ctx = nullptr;
  const uint64_t serial = nextSerial++;
  CUresult ctxError = CUDA_SUCCESS;
  std::atomic<bool> lostFlag{false};
  Status lost_; ///< set once a fault loses the context (under mu)

  // Status words live in pinned host memory the device can write.
  std::vector<std::pair<uint32_t *, CUdeviceptr>> slabs;
  std::vector<std::pair<uint32_t *, CUdeviceptr>> freeWords;
};


/// The primary context of `dev`, retained once per process and never
/// released: releasing the last reference destroys the driver's context, and
/// the next xpu context then rebuilds it (about 200 ms on the H200, and
/// 23 KiB of the driver's memory that it does not give back: resident memory
/// grew 2,092 KiB over 90 create/release cycles of tests/misuse/context_loop.cpp;
/// retained, +0 KiB over 90). The CUDA runtime, PyTorch and CuPy keep it so.
CUresult retainPrimaryContext(const Driver &drv, CUdevice dev, CUcontext &out) {
  static std::mutex mu;
  static std::map<CUdevice, CUcontext> retained;
  std::lock_guard<std::mutex> g(mu);
  if (auto it = retained.find(dev); it != retained.end()) {
    out = it->second;
    return CUDA_SUCCESS;
  }
  CUresult r = drv.cuDevicePrimaryCtxRetain(&out, dev);
  if (r == CUDA_SUCCESS)
    retained.emplace(dev, out);
  return r;
}

Status CudaDevice::enter() {
  if (lostFlag.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> g(mu);
    return {XPU_ERROR_DEVICE_LOST,
            label() + " was lost after a device fault (" + lost_.message() +
                "); the CUDA driver needs the process to restart before it "
                "runs anything again"};
  }
  std::call_once(ctxOnce, [this] { ctxError = retainPrimaryContext(drv, cuDevice, ctx); });
  if (ctxError != CUDA_SUCCESS)
    return failure(drv, ctxError, "cuDevicePrimaryCtxRetain on " + label());
  if (tlsCurrent != serial) {
    CUresult r = drv.cuCtxSetCurrent(ctx);
    if (r != CUDA_SUCCESS)
      return failure(drv, r, "cuCtxSetCurrent");
    tlsCurrent = serial;
  }
  return {};
}

Status CudaDevice::lose(const Status &fault) {
  poison(fault.message());
  std::lock_guard<std::mutex> g(mu);
  if (lost_.isOk())
    lost_ = fault;
  lostFlag.store(true, std::memory_order_release);
  return fault;
}

CudaDevice::~CudaDevice() {
  if (!ctx)
    return;
  drv.cuCtxSetCurrent(ctx);
  tlsCurrent = serial;
  for (auto &[host, dev] : slabs)
    drv.cuMemFreeHost(host);
  if (tlsCurrent == serial)
    tlsCurrent = 0;
}

CudaBuffer::~CudaBuffer() {
  if (origin == Origin::imported || !device.enter().isOk())
    return;
  if (origin == Origin::pinned)
    device.drv.cuMemFreeHost(host);
  else
    device.drv.cuMemFree(ptr);
}

Status CudaDevice::allocateKind(size_t bytes, xpu_memory_kind kind,
                                std::unique_ptr<rt::BackendBuffer> &out) {
  if (kind == XPU_MEMORY_DEVICE)
    return allocate(bytes, out);
  XPU_RETURN_IF_ERROR(enter());
  std::string what = std::to_string(bytes) + " bytes";
  if (kind == XPU_MEMORY_HOST_VISIBLE) {
    void *host = nullptr;
    CUdeviceptr p = 0;
    XPU_RETURN_IF_ERROR(check(drv.cuMemHostAlloc(&host, bytes,
                                                 CU_MEMHOSTALLOC_DEVICEMAP |
                                                     CU_MEMHOSTALLOC_PORTABLE),
                              "cuMemHostAlloc of " + what));
    if (Status st = check(drv.cuMemHostGetDevicePointer(&p, host, 0),
                          "cuMemHostGetDevicePointer");
        !st.isOk()) {
      drv.cuMemFreeHost(host);
      return st;
    }
    out = std::make_unique<CudaBuffer>(*this, p, CudaBuffer::Origin::pinned, host);
    return {};
  }
  CUdeviceptr p = 0;
  XPU_RETURN_IF_ERROR(check(drv.cuMemAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL),
                            "cuMemAllocManaged of " + what));
  out = std::make_unique<CudaBuffer>(*this, p, CudaBuffer::Origin::managed,
                                     reinterpret_cast<void *>(p));
  return {};
}

Status CudaDevice::importMemory(const rt::ImportRequest &request,
                                std::unique_ptr<rt::BackendBuffer> &out) {
  if (request.kind != XPU_IMPORT_DEVICE_POINTER)
    return {XPU_ERROR_UNSUPPORTED,
            label() + " imports device pointers only (XPU_IMPORT_DEVICE_POINTER)"};
  XPU_RETURN_IF_ERROR(enter());
  // The driver says what the address is: it must be memory of this device
  // (or managed memory) covering the whole range.
  auto dptr = CUdeviceptr(request.address);
  unsigned type = 0;
  int ordinal = -1;
  CUdeviceptr start = 0;
  size_t size = 0;
  CUresult r = drv.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dptr);
  if (r == CUDA_SUCCESS)
    r = drv.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dptr);
  if (r == CUDA_SUCCESS)
    r = drv.cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, dptr);
  if (r == CUDA_SUCCESS)
    r = drv.cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, dptr);
  if (r != CUDA_SUCCESS)
    return {XPU_ERROR_INVALID_ARGUMENT,
            "address 0x" + llvm::utohexstr(request.address) + " is not CUDA memory (" +
                failure(drv, r, "cuPointerGetAttribute").message() + ")"};
  if (ordinal != cuDevice || (type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED))
    return {XPU_ERROR_INVALID_ARGUMENT,
            "address 0x" + llvm::utohexstr(request.address) +
                " is not device memory of " + label() + " (device ordinal " +
                std::to_string(ordinal) + ")"};
  if (dptr + request.bytes > start + size)
    return {XPU_ERROR_INVALID_ARGUMENT,
            "the imported range of " + std::to_string(request.bytes) +
                " bytes runs past the end of its allocation (" + std::to_string(size) +
                " bytes from 0x" + llvm::utohexstr(start) + ")"};
  out = std::make_unique<CudaBuffer>(*this, dptr, CudaBuffer::Origin::imported,
                                     type == CU_MEMORYTYPE_UNIFIED
                                         ? reinterpret_cast<void *>(dptr)
                                         : nullptr);
  return {};
}

CudaEvent::~CudaEvent() {
  if (device.enter().isOk())
    device.drv.cuEventDestroy(event);
}

Status CudaEvent::synchronize() {
  XPU_RETURN_IF_ERROR(device.enter());
  return device.check(device.drv.cuEventSynchronize(event), "cuEventSynchronize");
}

Status CudaEvent::elapsedSince(rt::BackendEvent &start, double &ms) {
  XPU_RETURN_IF_ERROR(device.enter());
  float f = 0;
  XPU_RETURN_IF_ERROR(device.check(
      device.drv.cuEventElapsedTime(&f, static_cast<CudaEvent &>(start).event, event),
      "cuEventElapsedTime"));
  ms = f;
  return {};
}

bool CudaEvent::isComplete() {
  return device.enter().isOk() && device.drv.cuEventQuery(event) == CUDA_SUCCESS;
}

CudaModule::~CudaModule() {
  if (device.enter().isOk())
    device.drv.cuModuleUnload(module);
}

/// The driver's word on the loaded code. No attribute gives spills: they
/// come from ptxas's report, when ptxas made the cubin.
void CudaModule::describe(size_t index, abi::Footprint &f) {
  if (!device.enter().isOk())
    return;
  auto query = [&](abi::CodeFact &fact, int attribute, const char *name) {
    int v = 0;
    if (device.drv.cuFuncGetAttribute(&v, attribute, kernels.at(index).function) ==
            CUDA_SUCCESS && v >= 0)
      fact = {true, uint64_t(v), std::string("cuFuncGetAttribute(") + name + ")"};
  };
  query(f.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS");
  query(f.sharedBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES");
  if (uint32_t own = kernels.at(index).launchShared; own && f.sharedBytes.known) {
    f.sharedBytes.value += own;
    f.sharedBytes.source += " + " + std::to_string(own) +
                            " bytes of its own in dynamic shared memory";
  }
  query(f.localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES");
  query(f.maxWorkgroupSize, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        "MAX_THREADS_PER_BLOCK");
}

Status CudaDevice::allocateStatusWord(rt::StatusWord &out) {
  XPU_RETURN_IF_ERROR(enter());
  std::lock_guard<std::mutex> g(mu);
  if (freeWords.empty()) {
    constexpr size_t kSlabWords = 4096 * abi::kStatusWords;
    void *host = nullptr;
    CUresult r = drv.cuMemHostAlloc(&host, kSlabWords * sizeof(uint32_t),
                                    CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    if (r != CUDA_SUCCESS)
      return failure(drv, r, "cuMemHostAlloc for status words");
    CUdeviceptr dev = 0;
    r = drv.cuMemHostGetDevicePointer(&dev, host, 0);
    if (r != CUDA_SUCCESS) {
      drv.cuMemFreeHost(host);
      return failure(drv, r, "cuMemHostGetDevicePointer");
    }
    slabs.emplace_back(static_cast<uint32_t *>(host), dev);
    for (size_t i = 0; i < kSlabWords; i += abi::kStatusWords)
      freeWords.emplace_back(static_cast<uint32_t *>(host) + i,
                             dev + i * sizeof(uint32_t));
  }
  auto [host, dev] = freeWords.back();
  freeWords.pop_back();
  std::memset(host, 0, abi::kStatusWords * sizeof(uint32_t));
  out.host = host;
  out.device = dev;
  return {};
}

void CudaDevice::freeStatusWord(const rt::StatusWord &word) {
  std::lock_guard<std::mutex> g(mu);
  freeWords.emplace_back(word.host, word.device);
}

/// A CUstream, of the primary context or of a green context the queue owns
/// (a budget's). The kernels launched since the last synchronization are
/// remembered so a fault can be attributed.
class CudaQueue : public rt::Queue {
public:
  CudaQueue(CudaDevice &d, CUstream s) : device(d), stream(s) {}
  CudaQueue(CudaDevice &d, const GreenStream &g) : device(d), stream(g.stream), green(g) {}
  ~CudaQueue() override {
    if (device.enter().isOk()) {
      device.drv.cuStreamSynchronize(stream);
      if (green.context)
        destroyGreenStream(device.drv, green);
      else
        device.drv.cuStreamDestroy(stream);
    }
  }
  void *nativeHandle() const override { return stream; }

  Status copyIn(rt::BackendBuffer &dst, size_t offset, const void *src,
                size_t bytes) override {
    XPU_RETURN_IF_ERROR(device.enter());
    return device.check(
        device.drv.cuMemcpyHtoDAsync(dst.address() + offset, src, bytes, stream),
        "cuMemcpyHtoDAsync");
  }
  Status copyOut(rt::BackendBuffer &src, size_t offset, void *dst,
                 size_t bytes) override {
    XPU_RETURN_IF_ERROR(device.enter());
    return device.check(
        device.drv.cuMemcpyDtoHAsync(dst, src.address() + offset, bytes, stream),
        "cuMemcpyDtoHAsync");
  }
  Status copyBuffer(rt::BackendBuffer &dst, size_t dstOffset, rt::BackendBuffer &src,
                    size_t srcOffset, size_t bytes) override {
    XPU_RETURN_IF_ERROR(device.enter());
    return device.check(device.drv.cuMemcpyDtoDAsync(dst.address() + dstOffset,
                                                      src.address() + srcOffset, bytes, stream),
                        "cuMemcpyDtoDAsync");
  }
  /// The driver copies directly where peer access exists, else stages it.
  Status copyFromPeer(rt::BackendBuffer &dst, size_t dstOffset, rt::Device &srcDevice,
                      rt::BackendBuffer &src, size_t srcOffset, size_t bytes) override {
    auto &peer = static_cast<CudaDevice &>(srcDevice);
    XPU_RETURN_IF_ERROR(peer.enter());
    XPU_RETURN_IF_ERROR(device.enter());
    return device.check(device.drv.cuMemcpyPeerAsync(dst.address() + dstOffset,
                                                     device.context(),
                                                     src.address() + srcOffset,
                                                     peer.context(), bytes, stream),
                        "cuMemcpyPeerAsync");
  }
  bool waitsForPeerEvents() const override { return true; }
  Status launch(const rt::LaunchRequest &r) override {
    XPU_RETURN_IF_ERROR(device.enter());
    driver::KernelParams params;
    XPU_RETURN_IF_ERROR(params.fill(r));
    auto *kernel = static_cast<const CudaKernel *>(r.kernel);
    CUresult res = device.drv.cuLaunchKernel(kernel->function, r.grid[0], r.grid[1],
                                             r.grid[2], r.block[0], r.block[1],
                                             r.block[2],
                                             r.dynamicSharedBytes + kernel->launchShared, stream,
                                             params.data(), nullptr);
    if (res != CUDA_SUCCESS && green.context &&
        (res == CUDA_ERROR_INVALID_HANDLE || res == CUDA_ERROR_INVALID_CONTEXT))
      return failure(device.drv, res,
                     "cuLaunchKernel of '" + r.info->name + "' (loaded in the primary "
                     "context) on the stream of a green context of " +
                         std::to_string(green.smCount) +
                         " SMs, for a compute-unit budget: the driver refused it there");
    if (res != CUDA_SUCCESS)
      return device.check(res, "cuLaunchKernel of '" + r.info->name + "'");
    inFlight.add(r.info->name);
    return {};
  }
  Status launchGraph(rt::BackendGraph &graph) override {
    return launchCudaGraph(graph, stream, inFlight);
  }
  Status record(rt::BackendEvent &event) override {
    XPU_RETURN_IF_ERROR(device.enter());
    CUevent e = static_cast<CudaEvent &>(event).event;
    CUresult r = device.drv.cuEventRecord(e, stream);
    // cuEventRecord wants the event and the stream of one context; events
    // are the primary context's. A green context records any event of its
    // primary context, and its only work is this stream's.
    if (r == CUDA_ERROR_INVALID_HANDLE && green.context)
      return device.check(device.drv.cuGreenCtxRecordEvent(green.context, e),
                          "cuGreenCtxRecordEvent");
    return device.check(r, "cuEventRecord");
  }
  Status wait(rt::BackendEvent &event) override {
    XPU_RETURN_IF_ERROR(device.enter());
    return device.check(device.drv.cuStreamWaitEvent(
                            stream, static_cast<CudaEvent &>(event).event, 0),
                        "cuStreamWaitEvent");
  }
  Status synchronize() override {
    XPU_RETURN_IF_ERROR(device.enter());
    CUresult r = device.drv.cuStreamSynchronize(stream);
    std::string running = inFlight.take();
    if (r == CUDA_SUCCESS)
      return {};
    Status st = failure(device.drv, r, "device fault on " + device.label() + running);
    return isStickyError(r) ? device.lose(st) : st;
  }

private:
  CudaDevice &device;
  CUstream stream;
  GreenStream green; ///< the budget's green context, if the stream is in one
  driver::InFlightKernels inFlight;
};

Status CudaDevice::createPartitionedQueue(const rt::PartitionRequest &request,
                                          std::unique_ptr<rt::Queue> &out,
                                          uint32_t &reserved) {
  if (request.computeUnits == 0 || request.computeUnits > id.computeUnits)
    return rt::invalidArgument("a budget of " + std::to_string(request.computeUnits) +
                               " SMs on a device of " + std::to_string(id.computeUnits));
  // The primary context first: a green context retains it, and the
  // kernels its stream runs are loaded there.
  XPU_RETURN_IF_ERROR(enter());
  GreenStream g;
  Status st = createGreenStream(drv, cuDevice, request.computeUnits, g);
  // A driver that refuses the partition (MIG, MPS, a configuration it
  // does not offer) leaves the budget unreserved; the work still runs.
  if (!st.isOk())
    return {st.code() == XPU_ERROR_BACKEND ? XPU_ERROR_UNSUPPORTED : st.code(),
            label() + ": " + st.message()};
  out = std::make_unique<CudaQueue>(*this, g);
  reserved = g.smCount;
  return {};
}

Status CudaDevice::createQueue(std::unique_ptr<rt::Queue> &out) {
  XPU_RETURN_IF_ERROR(enter());
  CUstream s = nullptr;
  XPU_RETURN_IF_ERROR(check(drv.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING),
                            "cuStreamCreate"));
  out = std::make_unique<CudaQueue>(*this, s);
  return {};
}

Status CudaDevice::load(const rt::Blob &blob, const std::vector<abi::KernelInfo> &kernels,
                        std::unique_ptr<rt::LoadedModule> &out) {
  XPU_RETURN_IF_ERROR(enter());
  char errorLog[8192] = {0}, infoLog[4096] = {0};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog, reinterpret_cast<void *>(sizeof errorLog), infoLog,
                    reinterpret_cast<void *>(sizeof infoLog)};
  CUmodule m = nullptr;
  CUresult r = drv.cuModuleLoadDataEx(&m, blob.code.data(), 4, opts, values);
  if (r != CUDA_SUCCESS)
    return failure(drv, r, "cuModuleLoadDataEx (" + blob.format + ", " + blob.toolchain +
                               ")" + (errorLog[0] ? std::string("; driver log: ") + errorLog
                                                  : ""));
  auto module = std::make_unique<CudaModule>(*this, m);
  module->kernels.resize(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    CudaKernel &k = module->kernels[i];
    r = drv.cuModuleGetFunction(&k.function, m, kernels[i].name.c_str());
    if (r != CUDA_SUCCESS)
      return failure(drv, r, "kernel '" + kernels[i].name + "' not found in the module");
    if (i < blob.footprints.size())
      k.launchShared = uint32_t(blob.footprints[i].launchSharedBytes);
    XPU_RETURN_IF_ERROR(allowOptinShared(k, kernels[i].name));
  }
  out = std::move(module);
  return {};
}

/// Lets every launch of `k` ask for as much dynamic shared memory as the
/// device allows a block beyond its static part (the capability says a
/// block may have sharedOptin bytes). Without it a launch over 48 KiB fails.
Status CudaDevice::allowOptinShared(const CudaKernel &k, const std::string &name) {
  int staticBytes = 0;
  if (sharedOptin <= sharedPerBlock ||
      drv.cuFuncGetAttribute(&staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k.function) !=
          CUDA_SUCCESS ||
      staticBytes >= sharedOptin)
    return {};
  CUresult r = drv.cuFuncSetAttribute(k.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      sharedOptin - staticBytes);
  // Only a kernel whose own buffers are dynamic needs it to run at all.
  if (r != CUDA_SUCCESS && k.launchShared)
    return failure(drv, r, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
                               std::to_string(sharedOptin - staticBytes) + ") of '" + name +
                               "', which has " + std::to_string(k.launchShared) +
                               " bytes of shared memory");
  return {};
}

std::vector<cap::Fact> CudaDevice::probeCapabilities() {
  using C = xpu::Capability;
  std::string cc = "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR/MINOR)=" +
                   std::to_string(ccMajor) + "." + std::to_string(ccMinor);
  int version = ccMajor * 10 + ccMinor;
  auto byCC = [&](C c, int needed, const char *what) -> cap::Fact {
    if (version >= needed)
      return {c, cap::Kind::deviceOptional, cap::Available{}, cc};
    return {c, cap::Kind::deviceOptional,
            cap::Unavailable{cap::Kind::deviceOptional,
                             std::string(what) + " needs sm_" + std::to_string(needed) +
                                 "; the device is sm_" + std::to_string(version)},
            cc};
  };
  std::vector<cap::Fact> facts = {
      byCC(C::f16Arith, 53, "native f16 arithmetic"),
      byCC(C::bf16Arith, 80, "native bf16 arithmetic"),
      byCC(C::atomicF64Add, 60, "f64 atomic add"),
  };
  for (cap::Fact &f : cap::nvidiaTileFacts(ccMajor, ccMinor, cc))
    facts.push_back(std::move(f));
  int threads = 0;
  // Past MAX_SHARED_MEMORY_PER_BLOCK a kernel's shared memory is dynamic
  // (xpu-place-shared-memory) and load() opts in.
  if (sharedOptin > sharedPerBlock)
    facts.push_back({C::sharedMemory, cap::Kind::deviceOptional, cap::Available{},
                     "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)=" +
                         std::to_string(sharedOptin) + " (MAX_SHARED_MEMORY_PER_BLOCK=" +
                         std::to_string(sharedPerBlock) +
                         "; beyond it a block's shared memory is dynamic)",
                     uint64_t(sharedOptin)});
  else if (sharedPerBlock > 0)
    facts.push_back({C::sharedMemory, cap::Kind::deviceOptional, cap::Available{},
                     "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK)=" +
                         std::to_string(sharedPerBlock),
                     uint64_t(sharedPerBlock)});
  if (drv.cuDeviceGetAttribute(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                               cuDevice) == CUDA_SUCCESS)
    facts.push_back({C::workgroupInvocations, cap::Kind::deviceOptional,
                     cap::Available{},
                     "cuDeviceGetAttribute(MAX_THREADS_PER_BLOCK)=" +
                         std::to_string(threads),
                     uint64_t(threads)});
  return facts;
}

Status CudaDevice::describe() {
  char name[256] = {0};
  CUresult r = drv.cuDeviceGetName(name, sizeof name, cuDevice);
  if (r != CUDA_SUCCESS)
    return failure(drv, r, "cuDeviceGetName");
  auto attr = [&](int a) {
    int v = 0;
    drv.cuDeviceGetAttribute(&v, a, cuDevice);
    return v;
  };
  ccMajor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  ccMinor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  sharedPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  sharedOptin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  id.backend = XPU_BACKEND_CUDA;
  id.name = name;
  id.vendor = "NVIDIA";
  target_ = nvptxTarget(ccMajor, ccMinor);
  id.arch = target_.chip;
  int version = 0;
  drv.cuDriverGetVersion(&version);
  id.driver = "CUDA " + std::to_string(version / 1000) + "." +
              std::to_string(version % 1000 / 10);
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  ..."
  std::ifstream proc("/proc/driver/nvidia/version");
  std::string word;
  while (proc >> word)
    if (word.find('.') != std::string::npos &&
        word.find_first_not_of("0123456789.") == std::string::npos) {
      id.driver += ", kernel module " + word;
      break;
    }
  CUuuid uuid;
  if (drv.cuDeviceGetUuid(&uuid, cuDevice) == CUDA_SUCCESS)
    std::memcpy(id.uuid, uuid.bytes, 16);
  size_t mem = 0;
  drv.cuDeviceTotalMem(&mem, cuDevice);
  id.memoryBytes = mem;
  id.computeUnits = uint32_t(attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  id.waveWidth = uint32_t(attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE));
  id.maxWorkgroupSize = uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  id.maxGrid[0] = uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X));
  id.maxGrid[1] = uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y));
  id.maxGrid[2] = uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z));
  return {};
}

class CudaBackend : public rt::Backend {
public:
  xpu_backend kind() const override { return XPU_BACKEND_CUDA; }
  Status enumerate(std::vector<std::unique_ptr<rt::Device>> &out,
                   std::string &note) override {
    const Driver *drv = driver(note);
    if (!drv)
      return {};
    if (std::string why = poisoned(); !why.empty()) {
      note = "the CUDA driver is unusable in this process since a device fault (" +
             why + "); restart the process";
      return {};
    }
    int count = 0;
    CUresult r = drv->cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS) {
      note = "cuDeviceGetCount failed: " + cuda::describe(*drv, r);
      return {};
    }
    for (int i = 0; i < count; ++i) {
      CUdevice dev;
      if (drv->cuDeviceGet(&dev, i) != CUDA_SUCCESS)
        continue;
      auto d = std::make_unique<CudaDevice>(*drv, dev);
      if (d->describe().isOk())
        out.push_back(std::move(d));
    }
    return {};
  }
};

} // namespace

std::unique_ptr<rt::Backend> createCudaBackend() {
  return std::make_unique<CudaBackend>();
}

} // namespace xpu::cuda
