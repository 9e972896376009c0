// The HIP backend: devices through the HIP runtime, buffers in device
// memory, streams and events, modules from code objects, launches through
// hipModuleLaunchKernel. A device fault poisons the device's HIP state for
// the rest of the process: later calls fail cleanly with
// XPU_ERROR_DEVICE_LOST.
#include "hip_code_object.h"
#include "capability/tile_facts.h"
#include "hip_codegen.h"
#include "hip_graph.h"
#include "hip_runtime.h"
#include "../common/driver_launch.h"

#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace xpu::hip {

using rt::Status;

namespace {

class HipDevice;

class HipBuffer : public rt::BackendBuffer {
public:
  HipBuffer(HipDevice &d, void *p) : device(d), ptr(p) {}
  ~HipBuffer() override;
  uint64_t address() const override { return reinterpret_cast<uint64_t>(ptr); }
  HipDevice &device;
  void *ptr;
};

class HipEvent : public rt::BackendEvent {
public:
  HipEvent(HipDevice &d, hipEvent_t e) : device(d), event(e) {}
  ~HipEvent() override;
  Status synchronize() override;
  bool isComplete() override;
  Status elapsedSince(rt::BackendEvent &start, double &ms) override;
  HipDevice &device;
  hipEvent_t event;
};

struct HipKernel : rt::BackendKernel {
  hipFunction_t function = nullptr;
};

class HipModule : public rt::LoadedModule {
public:
  HipModule(HipDevice &d, hipModule_t m) : device(d), module(m) {}
  ~HipModule() override;
  rt::BackendKernel *kernel(size_t index) override { return &kernels.at(index); }
  HipDevice &device;
  hipModule_t module;
  std::vector<HipKernel> kernels;
};

void *devicePtr(const rt::BackendBuffer &b, size_t offset) {
  return reinterpret_cast<void *>(b.address() + offset);
}

/// One HIP device. HIP's current device is per thread; every call selects it.
class HipDevice : public rt::Device {
public:
  HipDevice(const Runtime &r, int index) : hip(r), ordinal(index) {}
  ~HipDevice() override;

  const rt::DeviceIdentity &identity() const override { return id; }
  const rt::TargetDesc &target() const override { return target_; }

  /// Makes this device current on the calling thread; fails once lost.
  Status enter();
  /// Records a sticky error: the device is lost from now on.
  Status lose(const Status &fault);
  Status check(hipError_t e, const std::string &what) {
    if (e == hipSuccess)
      return {};
    Status st = failure(hip, e, what);
    return isStickyError(e) ? lose(st) : st;
  }

  Status allocate(size_t bytes, std::unique_ptr<rt::BackendBuffer> &out) override {
    XPU_RETURN_IF_ERROR(enter());
    void *p = nullptr;
    XPU_RETURN_IF_ERROR(
        check(hip.hipMalloc(&p, bytes), "hipMalloc of " + std::to_string(bytes) + " bytes"));
    out = std::make_unique<HipBuffer>(*this, p);
    return {};
  }
  Status upload(rt::BackendBuffer &dst, size_t offset, const void *src,
                size_t bytes) override {
    XPU_RETURN_IF_ERROR(enter());
    XPU_RETURN_IF_ERROR(
        check(hip.hipMemcpyHtoD(devicePtr(dst, offset), src, bytes), "hipMemcpyHtoD"));
    // As with cuMemcpyHtoD (cuda_device.cpp): from pageable memory the copy
    // returns once staged, and our non-blocking streams do not wait for the
    // null stream, so the DMA is waited for here.
    return check(hip.hipStreamSynchronize(nullptr), "hipStreamSynchronize");
  }
  Status download(rt::BackendBuffer &src, size_t offset, void *dst,
                  size_t bytes) override {
    XPU_RETURN_IF_ERROR(enter());
    return check(hip.hipMemcpyDtoH(dst, devicePtr(src, offset), bytes), "hipMemcpyDtoH");
  }
  Status createQueue(std::unique_ptr<rt::Queue> &out) override;
  Status createPartitionedQueue(const rt::PartitionRequest &request,
                                std::unique_ptr<rt::Queue> &out, uint32_t &reserved) override;
  Status createGraph(const std::vector<const rt::LaunchRequest *> &nodes,
                     const std::vector<std::vector<uint32_t>> &after,
                     std::unique_ptr<rt::BackendGraph> &out) override {
    GraphContext c;
    c.hip = &hip;
    c.enter = [this] { return enter(); };
    c.check = [this](hipError_t e, const std::string &what) { return check(e, what); };
    c.function = [](const rt::BackendKernel *k) {
      return static_cast<const HipKernel *>(k)->function;
    };
    return createHipGraph(c, nodes, after, out);
  }
  Status createEvent(std::unique_ptr<rt::BackendEvent> &out) override {
    XPU_RETURN_IF_ERROR(enter());
    hipEvent_t e = nullptr;
    // Timing stays on so xpu_event_elapsed works on any event.
    XPU_RETURN_IF_ERROR(check(hip.hipEventCreateWithFlags(&e, 0), "hipEventCreateWithFlags"));
    out = std::make_unique<HipEvent>(*this, e);
    return {};
  }
  Status allocateStatusWord(rt::StatusWord &out) override;
  void freeStatusWord(const rt::StatusWord &word) override;

  Status compile(mlir::ModuleOp module, const std::vector<abi::KernelInfo> &kernels,
                 rt::Blob &out) override {
    return compileForAMDGPU(module, target_, kernels, out);
  }
  Status load(const rt::Blob &blob, const std::vector<abi::KernelInfo> &kernels,
              std::unique_ptr<rt::LoadedModule> &out) override;
  std::vector<cap::Fact> probeCapabilities() override;
  std::string toolchainIdentity() const override { return amdgpuToolchainIdentity(); }

  /// Reads the device's identity and target; fails for a device xpujit
  /// cannot generate code for.
  Status describe();

  const Runtime &hip;
  int ordinal;

private:
  int attribute(int which) const {
    int v = 0;
    return hip.hipDeviceGetAttribute(&v, which, ordinal) == hipSuccess ? v : 0;
  }

  rt::DeviceIdentity id;
  rt::TargetDesc target_;
  std::string gcnArchName; ///< "gfx90a:sramecc+:xnack-"

  std::mutex mu;
  Status lost_; ///< set once a fault poisons the device

  // Status words live in pinned, device-mapped, coherent host memory: the
  // kernels update them with system-scope atomics.
  std::vector<uint32_t *> slabs;
  std::vector<std::pair<uint32_t *, uint64_t>> freeWords;
};

Status HipDevice::enter() {
  {
    std::lock_guard<std::mutex> g(mu);
    if (!lost_.isOk())
      return {XPU_ERROR_DEVICE_LOST,
              label() + " is lost after a device fault (" + lost_.message() +
                  "); the HIP runtime keeps the fault for the rest of the process"};
  }
  // Every time: the host program may select another device on this thread
  // between our calls, and selecting one is cheap.
  hipError_t e = hip.hipSetDevice(ordinal);
  if (e != hipSuccess)
    return failure(hip, e, "hipSetDevice(" + std::to_string(ordinal) + ")");
  return {};
}

Status HipDevice::lose(const Status &fault) {
  std::lock_guard<std::mutex> g(mu);
  if (lost_.isOk())
    lost_ = fault;
  return fault;
}

HipDevice::~HipDevice() {
  if (slabs.empty() || hip.hipSetDevice(ordinal) != hipSuccess)
    return;
  for (uint32_t *host : slabs)
    hip.hipHostFree(host);
}

HipBuffer::~HipBuffer() {
  if (device.enter().isOk())
    device.hip.hipFree(ptr);
}

HipEvent::~HipEvent() {
  if (device.enter().isOk())
    device.hip.hipEventDestroy(event);
}

Status HipEvent::synchronize() {
  XPU_RETURN_IF_ERROR(device.enter());
  return device.check(device.hip.hipEventSynchronize(event), "hipEventSynchronize");
}

Status HipEvent::elapsedSince(rt::BackendEvent &start, double &ms) {
  XPU_RETURN_IF_ERROR(device.enter());
  float f = 0;
  XPU_RETURN_IF_ERROR(device.check(
      device.hip.hipEventElapsedTime(&f, static_cast<HipEvent &>(start).event, event),
      "hipEventElapsedTime"));
  ms = f;
  return {};
}

bool HipEvent::isComplete() {
  return device.enter().isOk() && device.hip.hipEventQuery(event) == hipSuccess;
}

HipModule::~HipModule() {
  if (device.enter().isOk())
    device.hip.hipModuleUnload(module);
}

Status HipDevice::allocateStatusWord(rt::StatusWord &out) {
  XPU_RETURN_IF_ERROR(enter());
  std::lock_guard<std::mutex> g(mu);
  if (freeWords.empty()) {
    constexpr size_t kSlabWords = 4096 * abi::kStatusWords;
    void *host = nullptr;
    hipError_t e = hip.hipHostMalloc(&host, kSlabWords * sizeof(uint32_t),
                                     hipHostMallocPortable | hipHostMallocMapped |
                                         hipHostMallocCoherent);
    if (e != hipSuccess)
      return failure(hip, e, "hipHostMalloc for status words");
    void *dev = nullptr;
    e = hip.hipHostGetDevicePointer(&dev, host, 0);
    if (e != hipSuccess) {
      hip.hipHostFree(host);
      return failure(hip, e, "hipHostGetDevicePointer");
    }
    slabs.push_back(static_cast<uint32_t *>(host));
    uint64_t base = reinterpret_cast<uint64_t>(dev);
    for (size_t i = 0; i < kSlabWords; i += abi::kStatusWords)
      freeWords.emplace_back(static_cast<uint32_t *>(host) + i,
                             base + i * sizeof(uint32_t));
  }
  auto [host, dev] = freeWords.back();
  freeWords.pop_back();
  std::memset(host, 0, abi::kStatusWords * sizeof(uint32_t));
  out.host = host;
  out.device = dev;
  return {};
}

void HipDevice::freeStatusWord(const rt::StatusWord &word) {
  std::lock_guard<std::mutex> g(mu);
  freeWords.emplace_back(word.host, word.device);
}

/// A hipStream_t. The kernels launched since the last synchronization are
/// remembered so a fault can be attributed.
class HipQueue : public rt::Queue {
public:
  HipQueue(HipDevice &d, hipStream_t s) : device(d), stream(s) {}
  ~HipQueue() override {
    if (device.enter().isOk()) {
      device.hip.hipStreamSynchronize(stream);
      device.hip.hipStreamDestroy(stream);
    }
  }
  void *nativeHandle() const override { return stream; }

  Status copyIn(rt::BackendBuffer &dst, size_t offset, const void *src,
                size_t bytes) override {
    XPU_RETURN_IF_ERROR(device.enter());
    return device.check(
        device.hip.hipMemcpyHtoDAsync(devicePtr(dst, offset), src, bytes, stream),
        "hipMemcpyHtoDAsync");
  }
  Status copyOut(rt::BackendBuffer &src, size_t offset, void *dst,
                 size_t bytes) override {
    XPU_RETURN_IF_ERROR(device.enter());
    return device.check(
        device.hip.hipMemcpyDtoHAsync(dst, devicePtr(src, offset), bytes, stream),
        "hipMemcpyDtoHAsync");
  }
  Status copyBuffer(rt::BackendBuffer &dst, size_t dstOffset, rt::BackendBuffer &src,
                    size_t srcOffset, size_t bytes) override {
    XPU_RETURN_IF_ERROR(device.enter());
    return device.check(device.hip.hipMemcpyDtoDAsync(devicePtr(dst, dstOffset),
                                                       devicePtr(src, srcOffset), bytes, stream),
                        "hipMemcpyDtoDAsync");
  }
  Status launch(const rt::LaunchRequest &r) override {
    XPU_RETURN_IF_ERROR(device.enter());
    driver::KernelParams params;
    XPU_RETURN_IF_ERROR(params.fill(r));
    auto *kernel = static_cast<const HipKernel *>(r.kernel);
    hipError_t e = device.hip.hipModuleLaunchKernel(
        kernel->function, r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1],
        r.block[2], r.dynamicSharedBytes, stream, params.data(), nullptr);
    if (e != hipSuccess)
      return device.check(e, "hipModuleLaunchKernel of '" + r.info->name + "'");
    inFlight.add(r.info->name);
    return {};
  }
  Status launchGraph(rt::BackendGraph &graph) override {
    return launchHipGraph(graph, stream, inFlight);
  }
  Status record(rt::BackendEvent &event) override {
    XPU_RETURN_IF_ERROR(device.enter());
    return device.check(
        device.hip.hipEventRecord(static_cast<HipEvent &>(event).event, stream),
        "hipEventRecord");
  }
  Status wait(rt::BackendEvent &event) override {
    XPU_RETURN_IF_ERROR(device.enter());
    return device.check(device.hip.hipStreamWaitEvent(
                            stream, static_cast<HipEvent &>(event).event, 0),
                        "hipStreamWaitEvent");
  }
  Status synchronize() override {
    XPU_RETURN_IF_ERROR(device.enter());
    hipError_t e = device.hip.hipStreamSynchronize(stream);
    std::string running = inFlight.take();
    if (e == hipSuccess)
      return {};
    Status st = failure(device.hip, e, "device fault on " + device.label() + running);
    return isStickyError(e) ? device.lose(st) : st;
  }

private:
  HipDevice &device;
  hipStream_t stream;
  driver::InFlightKernels inFlight;
};

Status HipDevice::createQueue(std::unique_ptr<rt::Queue> &out) {
  XPU_RETURN_IF_ERROR(enter());
  hipStream_t s = nullptr;
  XPU_RETURN_IF_ERROR(check(hip.hipStreamCreateWithFlags(&s, hipStreamNonBlocking),
                            "hipStreamCreateWithFlags"));
  out = std::make_unique<HipQueue>(*this, s);
  return {};
}

/// A stream on the first `computeUnits` CUs of the device
/// (hipExtStreamCreateWithCUMask: bit i of the mask enables CU i).
Status HipDevice::createPartitionedQueue(const rt::PartitionRequest &request,
                                         std::unique_ptr<rt::Queue> &out,
                                         uint32_t &reserved) {
  if (!hip.hipExtStreamCreateWithCUMask)
    return {XPU_ERROR_UNSUPPORTED, hip.library + " lacks hipExtStreamCreateWithCUMask"};
  if (request.computeUnits == 0 || request.computeUnits > id.computeUnits)
    return rt::invalidArgument("a budget of " + std::to_string(request.computeUnits) +
                               " compute units on a device of " +
                               std::to_string(id.computeUnits));
  XPU_RETURN_IF_ERROR(enter());
  std::vector<uint32_t> mask((id.computeUnits + 31) / 32, 0);
  for (uint32_t cu = 0; cu < request.computeUnits; ++cu)
    mask[cu / 32] |= 1u << (cu % 32);
  hipStream_t s = nullptr;
  XPU_RETURN_IF_ERROR(check(hip.hipExtStreamCreateWithCUMask(&s, uint32_t(mask.size()),
                                                             mask.data()),
                            "hipExtStreamCreateWithCUMask"));
  out = std::make_unique<HipQueue>(*this, s);
  reserved = request.computeUnits;
  return {};
}

Status HipDevice::load(const rt::Blob &blob, const std::vector<abi::KernelInfo> &kernels,
                       std::unique_ptr<rt::LoadedModule> &out) {
  XPU_RETURN_IF_ERROR(enter());
  if (blob.format != "hsaco")
    return {XPU_ERROR_INTERNAL, "a HIP device cannot load a " + blob.format + " blob"};
  // The runtime trusts what it loads; a blob from the disk cache is checked
  // the way freshly generated code is.
  CodeObject code;
  XPU_RETURN_IF_ERROR(readCodeObject(blob.code, code));
  XPU_RETURN_IF_ERROR(checkCodeObject(code, target_, kernels));
  hipModule_t m = nullptr;
  hipError_t e = hip.hipModuleLoadData(&m, blob.code.data());
  if (e != hipSuccess)
    return failure(hip, e, "hipModuleLoadData (" + blob.toolchain + ") on " + gcnArchName);
  auto module = std::make_unique<HipModule>(*this, m);
  module->kernels.resize(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    e = hip.hipModuleGetFunction(&module->kernels[i].function, m, kernels[i].name.c_str());
    if (e != hipSuccess)
      return failure(hip, e, "kernel '" + kernels[i].name + "' not found in the module");
  }
  out = std::move(module);
  return {};
}

std::vector<cap::Fact> HipDevice::probeCapabilities() {
  using C = xpu::Capability;
  std::vector<cap::Fact> facts;
  // f64 atomic add is an instruction from gfx90a (CDNA2) on; elsewhere in
  // the gfx9 family and on RDNA it is not.
  std::string arch = "hipGetDevicePropertiesR0600.gcnArchName=" + gcnArchName;
  bool f64Add = target_.chip == "gfx90a" || target_.chip.rfind("gfx94", 0) == 0 ||
                target_.chip.rfind("gfx95", 0) == 0;
  if (f64Add)
    facts.push_back({C::atomicF64Add, cap::Kind::deviceOptional, cap::Available{}, arch});
  else
    facts.push_back({C::atomicF64Add, cap::Kind::deviceOptional,
                     cap::Unavailable{cap::Kind::deviceOptional,
                                      "f64 atomic add needs gfx90a or gfx94x; the device "
                                      "is " + target_.chip},
                     arch});
  for (cap::Fact &f : cap::amdTileFacts(target_.chip, arch))
    facts.push_back(std::move(f));
  auto limit = [&](C c, int which, const char *name) {
    int v = 0;
    if (hip.hipDeviceGetAttribute(&v, which, ordinal) == hipSuccess && v > 0)
      facts.push_back({c, cap::Kind::deviceOptional, cap::Available{},
                       std::string("hipDeviceGetAttribute(") + name + ")=" +
                           std::to_string(v),
                       uint64_t(v)});
  };
  limit(C::sharedMemory, hipDeviceAttributeMaxSharedMemoryPerBlock,
        "hipDeviceAttributeMaxSharedMemoryPerBlock");
  limit(C::workgroupInvocations, hipDeviceAttributeMaxThreadsPerBlock,
        "hipDeviceAttributeMaxThreadsPerBlock");
  return facts;
}

Status HipDevice::describe() {
  char name[256] = {0};
  hipError_t e = hip.hipDeviceGetName(name, sizeof name - 1, ordinal);
  if (e != hipSuccess)
    return failure(hip, e, "hipDeviceGetName");
  std::vector<char> props(kPropsBufferBytes, 0);
  e = hip.hipGetDevicePropertiesR0600(props.data(), ordinal);
  if (e != hipSuccess)
    return failure(hip, e, "hipGetDevicePropertiesR0600");
  props.back() = 0;
  gcnArchName.assign(props.data() + kPropsGcnArchNameOffset,
                     strnlen(props.data() + kPropsGcnArchNameOffset, 255));
  int warp = attribute(hipDeviceAttributeWarpSize);
  XPU_RETURN_IF_ERROR(amdgcnTarget(gcnArchName, unsigned(warp), target_));
  id.backend = XPU_BACKEND_HIP;
  id.name = name;
  id.vendor = "AMD";
  id.arch = gcnArchName;
  int driver = 0, runtime = 0;
  hip.hipDriverGetVersion(&driver);
  hip.hipRuntimeGetVersion(&runtime);
  id.driver = "HIP runtime " + versionText(runtime) + ", driver " + versionText(driver);
  std::memcpy(id.uuid, props.data() + kPropsUuidOffset, 16);
  size_t mem = 0;
  hip.hipDeviceTotalMem(&mem, ordinal);
  id.memoryBytes = mem;
  id.computeUnits = uint32_t(attribute(hipDeviceAttributeMultiprocessorCount));
  id.waveWidth = uint32_t(warp);
  id.maxWorkgroupSize = uint32_t(attribute(hipDeviceAttributeMaxThreadsPerBlock));
  for (int d = 0; d < 3; ++d)
    id.maxGrid[d] = uint32_t(attribute(hipDeviceAttributeMaxGridDimX + d));
  return {};
}

class HipBackend : public rt::Backend {
public:
  xpu_backend kind() const override { return XPU_BACKEND_HIP; }
  Status enumerate(std::vector<std::unique_ptr<rt::Device>> &out,
                   std::string &note) override {
    const Runtime *api = runtime(note);
    if (!api)
      return {};
    int count = 0;
    hipError_t e = api->hipGetDeviceCount(&count);
    if (e != hipSuccess || count == 0) {
      note = e == hipSuccess || e == hipErrorNoDevice
                 ? "the HIP runtime found no device"
                 : "hipGetDeviceCount failed: " + describe(*api, e);
      return {};
    }
    std::string skipped;
    for (int i = 0; i < count; ++i) {
      auto d = std::make_unique<HipDevice>(*api, i);
      if (Status st = d->describe(); st.isOk())
        out.push_back(std::move(d));
      else
        skipped += (skipped.empty() ? "" : "; ") + ("device " + std::to_string(i) +
                                                   ": " + st.message());
    }
    if (out.empty())
      note = "no usable HIP device (" + skipped + ")";
    return {};
  }
};

} // namespace

std::unique_ptr<rt::Backend> createHipBackend() { return std::make_unique<HipBackend>(); }

} // namespace xpu::hip
