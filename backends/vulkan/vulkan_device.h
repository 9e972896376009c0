// A Vulkan physical device as an xpujit Device: what enumeration learned
// about it, and the logical device made from it on first use (memory,
// buffers, blocking copies, status words, the caches kernels share).
#pragma once

#include "runtime/backend.h"
#include "vulkan_features.h"
#include "vulkan_loader.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace xpu::vk {

using rt::Status;

class VulkanDevice;
struct KernelProgram;
struct Timeline;

/// One instance per enumeration, shared by the devices it found.
struct Instance {
  VkInstance handle = VK_NULL_HANDLE;
  InstanceFns fn;
  uint32_t apiVersion = 0;
  /// VK_KHR_cooperative_matrix's query; null where no driver has it.
  PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR coopMatrixProperties = nullptr;
  /// VK_NV_cooperative_matrix2's query; null where no driver has it.
  PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV
      coopMatrixFlexibleDimensions = nullptr;
  ~Instance();
};

/// What enumeration learned about a physical device.
struct PhysicalInfo {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceSubgroupProperties subgroup{};
  VkPhysicalDeviceDriverProperties driver{};
  VkPhysicalDeviceFloatControlsProperties floatControls{};
  /// minSubgroupSize and maxSubgroupSize; read from Vulkan 1.3 devices only.
  VkPhysicalDeviceSubgroupSizeControlProperties subgroupSizeControl{};
  uint32_t smCount = 0;        ///< VK_NV_shader_sm_builtins, when present
  uint8_t uuid[VK_UUID_SIZE] = {};
  VkPhysicalDeviceMemoryProperties memory{};
  uint32_t queueFamily = 0;
  uint32_t timestampBits = 0;  ///< of the queue family; 0: no timestamps
  bool hasAtomicFloat = false; ///< VK_EXT_shader_atomic_float
  bool hasV13 = false;         ///< device and instance are Vulkan 1.3
  bool hasCoopMatrix = false;  ///< VK_KHR_cooperative_matrix is listed
  CoopMatrixSupport coopMatrix; ///< what its query listed (when listed)
  bool hasCoopMatrix2 = false;  ///< VK_NV_cooperative_matrix2 is listed (with the KHR one)
  CoopMatrix2Support coopMatrix2; ///< what it offers (when listed)
  /// VK_KHR_pipeline_executable_properties is listed and its
  /// pipelineExecutableInfo feature reported (manifest facts).
  bool hasExecutableStatistics = false;
  FeatureSet supported;        ///< what the device reports
  FeatureSet requested;        ///< what the logical device is created with
  FeatureSet disabled;         ///< XPU_VULKAN_DISABLE_FEATURES
};

/// A VkBuffer with its own memory. `mapped` is set for host-visible memory
/// the host reads and writes directly.
class VulkanBuffer : public rt::BackendBuffer {
public:
  VulkanBuffer(VulkanDevice &device) : device(device) {}
  ~VulkanBuffer() override;
  /// A number no other buffer of the process has had: descriptor sets are
  /// cached by it (VkBuffer handles are reused).
  uint64_t address() const override { return serial; }
  void *hostPointer() const override { return mapped; }

  VulkanDevice &device;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  char *mapped = nullptr;
  uint64_t serial = 0;
};

/// One binding of a descriptor set: where, what kind, what is bound, and
/// the bound buffer's serial.
struct Binding {
  uint32_t index = 0;
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize range = VK_WHOLE_SIZE;
  uint64_t serial = 0;
};

/// Descriptor sets, reused for as long as the kernel and the buffers they
/// name live (pipelines and sets are never made per launch: variance row 2).
class DescriptorCache {
public:
  explicit DescriptorCache(VulkanDevice &device) : device(device) {}
  ~DescriptorCache();
  Status get(const KernelProgram &kernel, const std::vector<Binding> &bindings,
             VkDescriptorSet &out);
  /// The buffer is gone (and with it any work that used its sets).
  void forgetBuffer(uint64_t serial);
  /// The kernel is gone.
  void forgetLayout(uint64_t layoutId);

private:
  struct Entry {
    VkDescriptorSet set;
    VkDescriptorPool pool;
  };
  Status allocate(VkDescriptorSetLayout layout, Entry &out);
  void release(const Entry &entry);

  VulkanDevice &device;
  std::mutex mu;
  /// Key: the kernel's layout id, then the serial of each binding.
  std::map<std::vector<uint64_t>, Entry> sets;
  std::vector<VkDescriptorPool> pools;
};

/// What a stream records and orders its work with. Kept by the device and
/// handed to the next stream instead of destroyed: Mesa's threaded submit
/// (lavapipe) may still release a finished submission's semaphore and
/// command-buffer references after the semaphore is signaled.
struct StreamSlot {
  VkCommandPool pool = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> idle;
  std::shared_ptr<Timeline> timeline;
};

/// Work counters, logged at XPU_LOG=debug so tests can see that launches
/// reuse pipelines and descriptor sets.
struct Counters {
  std::atomic<uint64_t> pipelines{0}, descriptorSets{0};
};

/// The device as `xpujit devices` and xpu_device_info show it.
rt::DeviceIdentity describeIdentity(const PhysicalInfo &info);

class VulkanDevice : public rt::Device {
public:
  VulkanDevice(std::shared_ptr<Instance> instance, PhysicalInfo info);
  ~VulkanDevice() override;

  const rt::DeviceIdentity &identity() const override { return id; }
  const rt::TargetDesc &target() const override { return target_; }

  Status allocate(size_t bytes, std::unique_ptr<rt::BackendBuffer> &out) override;
  Status allocateKind(size_t bytes, xpu_memory_kind kind,
                      std::unique_ptr<rt::BackendBuffer> &out) override;
  Status upload(rt::BackendBuffer &dst, size_t offset, const void *src,
                size_t bytes) override;
  Status download(rt::BackendBuffer &src, size_t offset, void *dst,
                  size_t bytes) override;
  Status createQueue(std::unique_ptr<rt::Queue> &out) override;
  Status createGraph(const std::vector<const rt::LaunchRequest *> &nodes,
                     const std::vector<std::vector<uint32_t>> &after,
                     std::unique_ptr<rt::BackendGraph> &out) override;
  Status createEvent(std::unique_ptr<rt::BackendEvent> &out) override;
  std::string toolchainIdentity() const override;
  std::vector<cap::Fact> probeCapabilities() override;
  Status allocateStatusWord(rt::StatusWord &out) override;
  void freeStatusWord(const rt::StatusWord &word) override;
  Status compile(mlir::ModuleOp module, const std::vector<abi::KernelInfo> &kernels,
                 rt::Blob &out) override;
  Status load(const rt::Blob &blob, const std::vector<abi::KernelInfo> &kernels,
              std::unique_ptr<rt::LoadedModule> &out) override;

  /// Creates the logical device on first use; after that, fails only once
  /// the device is lost.
  Status open();
  /// Records that the device is lost (from `status`, a failed call) and
  /// returns the status every later call gets.
  Status markLost(const Status &status);

  /// A buffer in device memory (`host` false) or host-visible, coherent,
  /// mapped memory for staging and status words (`host` true).
  Status createBuffer(VkDeviceSize bytes, bool host, std::unique_ptr<VulkanBuffer> &out);
  /// Where a status word lives: its chunk's binding and the offset in it.
  Binding statusBinding(uint64_t word, uint32_t &offset);
  /// Submits `cmd` alone on the queue and waits for it (blocking copies).
  Status submitAndWait(VkCommandBuffer cmd);
  /// Registers a stream's timeline: blocking copies wait on what every
  /// stream has finished, for its writes to be visible to them.
  void addTimeline(const std::shared_ptr<Timeline> &timeline);
  /// The timeline blocking copies signal: streams wait on it for the same.
  std::shared_ptr<Timeline> copies();
  /// A stream's command pool and timeline, new or recycled.
  Status takeStreamSlot(StreamSlot &out);
  void returnStreamSlot(StreamSlot slot);

  const PhysicalInfo info;
  const std::shared_ptr<Instance> instance;
  rt::DeviceIdentity id;
  rt::TargetDesc target_;

  VkDevice device = VK_NULL_HANDLE;
  DeviceFns fn{};
  VkQueue queue = VK_NULL_HANDLE;
  std::mutex queueMu; ///< vkQueueSubmit needs the queue externally synchronized
  VkPipelineCache pipelineCache = VK_NULL_HANDLE;
  std::unique_ptr<DescriptorCache> descriptors;
  Counters counters;
  bool mapDeviceMemory = false; ///< device memory is host-visible and cached
  /// Pipelines are made with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR
  /// and these read them (vulkan_statistics.h); null without the extension.
  PFN_vkGetPipelineExecutablePropertiesKHR getExecutables = nullptr;
  PFN_vkGetPipelineExecutableStatisticsKHR getStatistics = nullptr;
  bool captureStatistics = false;

private:
  Status create();
  Status copy(VulkanBuffer &buffer, size_t offset, void *host, size_t bytes,
              bool toDevice);
  int memoryType(uint32_t allowed, bool host) const;

  std::once_flag openOnce;
  Status openStatus;
  std::mutex lostMu;
  Status lostStatus;
  std::atomic<bool> lost{false};

  std::mutex timelinesMu;
  std::vector<std::weak_ptr<Timeline>> timelines;
  std::vector<StreamSlot> freeSlots; ///< guarded by timelinesMu

  /// Blocking copies: one at a time, through a reused staging buffer.
  std::mutex copyMu;
  VkCommandPool copyPool = VK_NULL_HANDLE;
  VkCommandBuffer copyCmd = VK_NULL_HANDLE;
  std::shared_ptr<Timeline> copyTimeline;
  std::unique_ptr<VulkanBuffer> staging;

  /// Status words: slots of host-visible chunks, bound with dynamic offsets.
  std::mutex statusMu;
  std::vector<std::unique_ptr<VulkanBuffer>> statusChunks;
  std::vector<uint64_t> freeStatus;
  uint32_t statusSlotBytes = 0;
};

} // namespace xpu::vk
