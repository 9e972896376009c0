// The Vulkan device: logical-device creation with the requested features,
// memory and buffers, blocking copies through staging, status words.
#include "vulkan_codegen.h"
#include "vulkan_graph.h"
#include "vulkan_kernels.h"
#include "vulkan_queue.h"

#include "runtime/env.h"
#include "runtime/log.h"

#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <cstring>

namespace xpu::vk {

namespace {
/// Status-word slots per host-visible chunk.
constexpr uint32_t kStatusSlotsPerChunk = 256;
/// The largest staging buffer a blocking copy uses; longer copies go in parts.
constexpr VkDeviceSize kStagingBytes = 64ull << 20;

std::atomic<uint64_t> nextSerial{1};

VkDeviceSize alignUp(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }
} // namespace

Instance::~Instance() {
  if (handle)
    fn.vkDestroyInstance(handle, nullptr);
}

VulkanBuffer::~VulkanBuffer() {
  if (device.descriptors)
    device.descriptors->forgetBuffer(serial);
  if (buffer)
    device.fn.vkDestroyBuffer(device.device, buffer, nullptr);
  if (memory)
    device.fn.vkFreeMemory(device.device, memory, nullptr);
}

VulkanDevice::VulkanDevice(std::shared_ptr<Instance> inst, PhysicalInfo physical)
    : info(std::move(physical)), instance(std::move(inst)) {
  id = describeIdentity(info);
  target_ = describeTarget(info);
}

VulkanDevice::~VulkanDevice() {
  if (!device)
    return;
  fn.vkDeviceWaitIdle(device);
  for (StreamSlot &slot : freeSlots)
    fn.vkDestroyCommandPool(device, slot.pool, nullptr);
  freeSlots.clear();
  statusChunks.clear();
  staging.reset();
  copyTimeline.reset();
  descriptors.reset();
  if (copyPool)
    fn.vkDestroyCommandPool(device, copyPool, nullptr);
  if (pipelineCache)
    fn.vkDestroyPipelineCache(device, pipelineCache, nullptr);
  fn.vkDestroyDevice(device, nullptr);
}

Status VulkanDevice::open() {
  std::call_once(openOnce, [this] { openStatus = create(); });
  if (!openStatus.isOk())
    return openStatus;
  if (lost.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> g(lostMu);
    return lostStatus;
  }
  return {};
}

Status VulkanDevice::markLost(const Status &st) {
  if (st.code() != XPU_ERROR_DEVICE_LOST)
    return st;
  std::lock_guard<std::mutex> g(lostMu);
  if (!lost.load(std::memory_order_relaxed)) {
    lostStatus = {XPU_ERROR_DEVICE_LOST,
                  "vulkan device '" + id.name + "' was lost (" + st.message() +
                      "); its work and memory are gone"};
    lost.store(true, std::memory_order_release);
  }
  return lostStatus;
}

Status VulkanDevice::create() {
  // Two gates: a kernel may use a feature only if the device reported it
  // and it is enabled here (info.requested).
  bool atomicFloat = false;
  for (Feature f : {Feature::shaderBufferFloat32Atomics, Feature::shaderBufferFloat32AtomicAdd,
                    Feature::shaderBufferFloat64Atomics, Feature::shaderBufferFloat64AtomicAdd,
                    Feature::shaderSharedFloat32Atomics, Feature::shaderSharedFloat32AtomicAdd,
                    Feature::shaderSharedFloat64Atomics, Feature::shaderSharedFloat64AtomicAdd})
    atomicFloat |= info.requested[f];
  // Cooperative matrices: the extension and its feature, both or neither.
  bool coopMatrix = info.requested[Feature::cooperativeMatrix];
  // VK_NV_cooperative_matrix2 where one of its features is requested.
  bool coopMatrix2 = coopMatrix && (info.requested[Feature::cooperativeMatrixWorkgroupScope] ||
                                    info.requested[Feature::cooperativeMatrixFlexibleDimensions]);
  FeatureChain chain(atomicFloat, info.hasV13, coopMatrix, coopMatrix2);
  chain.write(info.requested);
  std::vector<const char *> extensions;
  if (atomicFloat)
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  if (coopMatrix)
    extensions.push_back(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (coopMatrix2)
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME);
  // Pipeline statistics for manifests, where the driver offers them.
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableInfo{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  executableInfo.pipelineExecutableInfo = VK_TRUE;
  void *features = &chain.core;
  if (info.hasExecutableStatistics) {
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    executableInfo.pNext = features;
    features = &executableInfo;
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = info.queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo createInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  createInfo.pNext = features;
  createInfo.queueCreateInfoCount = 1;
  createInfo.pQueueCreateInfos = &queueInfo;
  createInfo.enabledExtensionCount = uint32_t(extensions.size());
  createInfo.ppEnabledExtensionNames = extensions.data();
  XPU_VK_RETURN_IF_ERROR(
      instance->fn.vkCreateDevice(info.handle, &createInfo, nullptr, &device),
      "vkCreateDevice");
  XPU_RETURN_IF_ERROR(loadDeviceFns(instance->fn, device, fn));
  fn.vkGetDeviceQueue(device, info.queueFamily, 0, &queue);
  if (info.hasExecutableStatistics) {
    getExecutables = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
        instance->fn.vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
    getStatistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        instance->fn.vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
    captureStatistics = getExecutables && getStatistics;
  }

  VkPipelineCacheCreateInfo cacheInfo{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  XPU_VK_RETURN_IF_ERROR(
      fn.vkCreatePipelineCache(device, &cacheInfo, nullptr, &pipelineCache),
      "vkCreatePipelineCache");
  descriptors = std::make_unique<DescriptorCache>(*this);

  const rt::Settings *settings = nullptr;
  (void)rt::settings(settings);
  int type = memoryType(~0u, /*host=*/false);
  VkMemoryPropertyFlags direct = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                 VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  mapDeviceMemory = type >= 0 && !settings->vulkanStaging &&
                    (info.memory.memoryTypes[type].propertyFlags & direct) == direct;
  statusSlotBytes = uint32_t(alignUp(abi::kStatusWords * sizeof(uint32_t),
                                     info.props.limits.minStorageBufferOffsetAlignment));

  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = info.queueFamily;
  XPU_VK_RETURN_IF_ERROR(fn.vkCreateCommandPool(device, &poolInfo, nullptr, &copyPool),
                         "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cmdInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cmdInfo.commandPool = copyPool;
  cmdInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cmdInfo.commandBufferCount = 1;
  XPU_VK_RETURN_IF_ERROR(fn.vkAllocateCommandBuffers(device, &cmdInfo, &copyCmd),
                         "vkAllocateCommandBuffers");
  copyTimeline = std::make_shared<Timeline>(*this);
  XPU_RETURN_IF_ERROR(copyTimeline->create());
  rt::log(rt::LogLevel::info,
          "vulkan: opened '" + id.name + "' (" + id.driver + ")" +
              (mapDeviceMemory ? ", host-visible device memory"
                               : ", staging copies") +
              (captureStatistics ? ", pipeline statistics" : ""));
  return {};
}

/// Device buffers prefer device-local memory, read and written directly
/// when it is also host-visible and cached (integrated and CPU devices);
/// host buffers need host-visible coherent memory, cached if possible.
int VulkanDevice::memoryType(uint32_t allowed, bool host) const {
  const VkMemoryPropertyFlags visible =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkMemoryPropertyFlags cached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  std::vector<VkMemoryPropertyFlags> wants =
      host ? std::vector<VkMemoryPropertyFlags>{visible | cached, visible}
           : std::vector<VkMemoryPropertyFlags>{local | visible | cached, local, 0};
  for (VkMemoryPropertyFlags want : wants)
    for (uint32_t t = 0; t < info.memory.memoryTypeCount; ++t)
      if ((allowed & (1u << t)) &&
          (info.memory.memoryTypes[t].propertyFlags & want) == want)
        return int(t);
  return -1;
}

Status VulkanDevice::createBuffer(VkDeviceSize bytes, bool host,
                                  std::unique_ptr<VulkanBuffer> &out) {
  XPU_RETURN_IF_ERROR(open());
  auto buf = std::make_unique<VulkanBuffer>(*this);
  buf->size = bytes;
  buf->serial = nextSerial.fetch_add(1);
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.size = std::max<VkDeviceSize>(bytes, 4);
  bufferInfo.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                     VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                     (host ? VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT : 0);
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  XPU_VK_RETURN_IF_ERROR(fn.vkCreateBuffer(device, &bufferInfo, nullptr, &buf->buffer),
                         "vkCreateBuffer");
  VkMemoryRequirements req;
  fn.vkGetBufferMemoryRequirements(device, buf->buffer, &req);
  int type = memoryType(req.memoryTypeBits, host);
  if (type < 0)
    return {XPU_ERROR_UNSUPPORTED, "vulkan device '" + id.name +
                                       "' has no memory type for a " +
                                       (host ? "host-visible" : "device") + " buffer"};
  VkMemoryAllocateInfo allocInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocInfo.allocationSize = req.size;
  allocInfo.memoryTypeIndex = uint32_t(type);
  VkResult r = fn.vkAllocateMemory(device, &allocInfo, nullptr, &buf->memory);
  if (r != VK_SUCCESS) {
    Status st = vkStatus(r, "vkAllocateMemory");
    return {st.code(), "cannot allocate " + std::to_string(bytes) +
                           " bytes on vulkan device '" + id.name + "': " + st.message()};
  }
  XPU_VK_RETURN_IF_ERROR(fn.vkBindBufferMemory(device, buf->buffer, buf->memory, 0),
                         "vkBindBufferMemory");
  if (host || mapDeviceMemory) {
    void *p = nullptr;
    XPU_VK_RETURN_IF_ERROR(fn.vkMapMemory(device, buf->memory, 0, VK_WHOLE_SIZE, 0, &p),
                           "vkMapMemory");
    buf->mapped = static_cast<char *>(p);
  }
  out = std::move(buf);
  return {};
}

Status VulkanDevice::allocate(size_t bytes, std::unique_ptr<rt::BackendBuffer> &out) {
  std::unique_ptr<VulkanBuffer> buf;
  XPU_RETURN_IF_ERROR(createBuffer(bytes, /*host=*/false, buf));
  out = std::move(buf);
  return {};
}

Status VulkanDevice::allocateKind(size_t bytes, xpu_memory_kind kind,
                                  std::unique_ptr<rt::BackendBuffer> &out) {
  if (kind == XPU_MEMORY_MANAGED)
    return rt::Device::allocateKind(bytes, kind, out);
  std::unique_ptr<VulkanBuffer> buf;
  XPU_RETURN_IF_ERROR(createBuffer(bytes, /*host=*/kind == XPU_MEMORY_HOST_VISIBLE, buf));
  out = std::move(buf);
  return {};
}

Status VulkanDevice::upload(rt::BackendBuffer &dst, size_t offset, const void *src,
                            size_t bytes) {
  auto &buf = static_cast<VulkanBuffer &>(dst);
  XPU_RETURN_IF_ERROR(open());
  if (buf.mapped) {
    std::memcpy(buf.mapped + offset, src, bytes);
    return {};
  }
  return copy(buf, offset, const_cast<void *>(src), bytes, /*toDevice=*/true);
}

Status VulkanDevice::download(rt::BackendBuffer &src, size_t offset, void *dst,
                              size_t bytes) {
  auto &buf = static_cast<VulkanBuffer &>(src);
  XPU_RETURN_IF_ERROR(open());
  if (buf.mapped) {
    std::memcpy(dst, buf.mapped + offset, bytes);
    return {};
  }
  return copy(buf, offset, dst, bytes, /*toDevice=*/false);
}

/// A blocking copy between host memory and a device buffer, in parts of at
/// most kStagingBytes through a reused staging buffer.
Status VulkanDevice::copy(VulkanBuffer &buffer, size_t offset, void *host,
                          size_t bytes, bool toDevice) {
  std::lock_guard<std::mutex> g(copyMu);
  VkDeviceSize part = std::min<VkDeviceSize>(bytes, kStagingBytes);
  if (!staging || staging->size < part) {
    staging.reset();
    XPU_RETURN_IF_ERROR(createBuffer(part, /*host=*/true, staging));
  }
  for (size_t done = 0; done < bytes; done += part) {
    VkDeviceSize n = std::min<VkDeviceSize>(part, bytes - done);
    char *at = static_cast<char *>(host) + done;
    if (toDevice)
      std::memcpy(staging->mapped, at, n);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    XPU_VK_RETURN_IF_ERROR(fn.vkBeginCommandBuffer(copyCmd, &begin),
                           "vkBeginCommandBuffer");
    VkBufferCopy region{toDevice ? 0 : offset + done, toDevice ? offset + done : 0, n};
    if (toDevice)
      fn.vkCmdCopyBuffer(copyCmd, staging->buffer, buffer.buffer, 1, &region);
    else
      fn.vkCmdCopyBuffer(copyCmd, buffer.buffer, staging->buffer, 1, &region);
    VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    fn.vkCmdPipelineBarrier(copyCmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, nullptr,
                            0, nullptr);
    XPU_VK_RETURN_IF_ERROR(fn.vkEndCommandBuffer(copyCmd), "vkEndCommandBuffer");
    XPU_RETURN_IF_ERROR(submitAndWait(copyCmd));
    if (!toDevice)
      std::memcpy(at, staging->mapped, n);
  }
  return {};
}

void VulkanDevice::addTimeline(const std::shared_ptr<Timeline> &timeline) {
  std::lock_guard<std::mutex> g(timelinesMu);
  std::erase_if(timelines, [](const std::weak_ptr<Timeline> &t) { return t.expired(); });
  timelines.push_back(timeline);
}

std::shared_ptr<Timeline> VulkanDevice::copies() { return copyTimeline; }

Status VulkanDevice::takeStreamSlot(StreamSlot &out) {
  {
    std::lock_guard<std::mutex> g(timelinesMu);
    if (!freeSlots.empty()) {
      out = std::move(freeSlots.back());
      freeSlots.pop_back();
      return {};
    }
  }
  StreamSlot slot;
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = info.queueFamily;
  XPU_VK_RETURN_IF_ERROR(fn.vkCreateCommandPool(device, &poolInfo, nullptr, &slot.pool),
                         "vkCreateCommandPool");
  slot.timeline = std::make_shared<Timeline>(*this);
  Status st = slot.timeline->create();
  if (!st.isOk()) {
    fn.vkDestroyCommandPool(device, slot.pool, nullptr);
    return st;
  }
  addTimeline(slot.timeline);
  out = std::move(slot);
  return {};
}

void VulkanDevice::returnStreamSlot(StreamSlot slot) {
  std::lock_guard<std::mutex> g(timelinesMu);
  freeSlots.push_back(std::move(slot));
}

Status VulkanDevice::submitAndWait(VkCommandBuffer cmd) {
  // Wait on what each stream has finished: a no-op in time, it makes the
  // streams' writes visible to this copy.
  std::vector<std::shared_ptr<Timeline>> keep;
  std::vector<VkSemaphore> waitSems;
  std::vector<uint64_t> waitValues;
  {
    std::lock_guard<std::mutex> g(timelinesMu);
    for (auto &w : timelines)
      if (auto t = w.lock()) {
        uint64_t reached = t->reached();
        if (reached) {
          waitSems.push_back(t->semaphore);
          waitValues.push_back(reached);
          keep.push_back(std::move(t));
        }
      }
  }
  std::vector<VkPipelineStageFlags> stages(waitSems.size(),
                                           VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  uint64_t value = copyTimeline->submitted + 1;
  VkTimelineSemaphoreSubmitInfo timelineInfo{
      VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timelineInfo.waitSemaphoreValueCount = uint32_t(waitValues.size());
  timelineInfo.pWaitSemaphoreValues = waitValues.data();
  timelineInfo.signalSemaphoreValueCount = 1;
  timelineInfo.pSignalSemaphoreValues = &value;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.pNext = &timelineInfo;
  submit.waitSemaphoreCount = uint32_t(waitSems.size());
  submit.pWaitSemaphores = waitSems.data();
  submit.pWaitDstStageMask = stages.data();
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &copyTimeline->semaphore;
  {
    std::lock_guard<std::mutex> g(queueMu);
    VkResult r = fn.vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE);
    if (r != VK_SUCCESS)
      return markLost(vkStatus(r, "vkQueueSubmit"));
    copyTimeline->submitted = value;
  }
  return copyTimeline->wait(value);
}

Status VulkanDevice::allocateStatusWord(rt::StatusWord &out) {
  XPU_RETURN_IF_ERROR(open());
  std::lock_guard<std::mutex> g(statusMu);
  if (freeStatus.empty()) {
    std::unique_ptr<VulkanBuffer> chunk;
    XPU_RETURN_IF_ERROR(createBuffer(VkDeviceSize(statusSlotBytes) * kStatusSlotsPerChunk,
                                     /*host=*/true, chunk));
    uint64_t index = statusChunks.size() + 1;
    for (uint32_t s = kStatusSlotsPerChunk; s-- > 0;)
      freeStatus.push_back(index << 32 | uint64_t(s) * statusSlotBytes);
    statusChunks.push_back(std::move(chunk));
  }
  uint64_t word = freeStatus.back();
  freeStatus.pop_back();
  out.host = reinterpret_cast<uint32_t *>(statusChunks[(word >> 32) - 1]->mapped +
                                          (word & 0xFFFFFFFFu));
  std::memset(out.host, 0, abi::kStatusWords * sizeof(uint32_t));
  out.device = word;
  return {};
}

void VulkanDevice::freeStatusWord(const rt::StatusWord &word) {
  std::lock_guard<std::mutex> g(statusMu);
  freeStatus.push_back(word.device);
}

Binding VulkanDevice::statusBinding(uint64_t word, uint32_t &offset) {
  std::lock_guard<std::mutex> g(statusMu); // chunks may be added meanwhile
  const VulkanBuffer &chunk = *statusChunks[(word >> 32) - 1];
  offset = uint32_t(word & 0xFFFFFFFFu);
  Binding b;
  b.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
  b.buffer = chunk.buffer;
  b.range = abi::kStatusWords * sizeof(uint32_t);
  b.serial = chunk.serial;
  return b;
}

Status VulkanDevice::createQueue(std::unique_ptr<rt::Queue> &out) {
  out = std::make_unique<VulkanQueue>(*this);
  return {};
}

Status VulkanDevice::createGraph(const std::vector<const rt::LaunchRequest *> &nodes,
                                 const std::vector<std::vector<uint32_t>> &after,
                                 std::unique_ptr<rt::BackendGraph> &out) {
  return createVulkanGraph(*this, nodes, after, out);
}

Status VulkanDevice::createEvent(std::unique_ptr<rt::BackendEvent> &out) {
  out = std::make_unique<VulkanEvent>(*this);
  return {};
}

Status VulkanDevice::compile(mlir::ModuleOp module,
                             const std::vector<abi::KernelInfo> &kernels,
                             rt::Blob &out) {
  return compileSPIRV(*this, module, kernels, out);
}

Status VulkanDevice::load(const rt::Blob &blob,
                          const std::vector<abi::KernelInfo> &kernels,
                          std::unique_ptr<rt::LoadedModule> &out) {
  return loadKernels(*this, blob, kernels, out);
}

} // namespace xpu::vk
