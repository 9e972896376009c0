// Streams and events on Vulkan: each stream records its work into command
// buffers and orders their submissions with its own timeline semaphore
// (variance row 6); an event is a point on a stream's timeline.
#pragma once

#include "vulkan_device.h"

#include <deque>

namespace xpu::vk {

/// A timeline semaphore and the last value submitted to signal it.
struct Timeline {
  explicit Timeline(VulkanDevice &device) : device(device) {}
  ~Timeline();
  Status create();
  /// Blocks until the semaphore reaches `value`.
  Status wait(uint64_t value);
  /// The value the semaphore has reached.
  uint64_t reached();

  VulkanDevice &device;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  std::atomic<uint64_t> submitted{0};
};

/// A GPU timestamp slot; the batches that write it keep it alive.
struct TimestampQuery {
  explicit TimestampQuery(VulkanDevice &device) : device(device) {}
  ~TimestampQuery();
  VulkanDevice &device;
  VkQueryPool pool = VK_NULL_HANDLE;
};

class VulkanEvent : public rt::BackendEvent {
public:
  explicit VulkanEvent(VulkanDevice &device) : device(device) {}
  Status synchronize() override;
  bool isComplete() override;
  Status elapsedSince(rt::BackendEvent &start, double &ms) override;
  /// The query recording writes the device's time into (null when the
  /// queue family has no timestamps).
  Status timestamp(std::shared_ptr<TimestampQuery> &out);
  void set(std::shared_ptr<Timeline> timeline, uint64_t value);
  /// Where the event was recorded (null timeline: never, or before any work).
  std::pair<std::shared_ptr<Timeline>, uint64_t> point();

private:
  Status readTime(uint64_t &ticks);

  VulkanDevice &device;
  std::mutex mu;
  std::shared_ptr<Timeline> timeline;
  uint64_t value = 0;
  std::shared_ptr<TimestampQuery> query;
};

class VulkanQueue : public rt::Queue {
public:
  explicit VulkanQueue(VulkanDevice &device) : device(device) {}
  ~VulkanQueue() override;

  Status copyIn(rt::BackendBuffer &dst, size_t offset, const void *src,
                size_t bytes) override;
  Status copyBuffer(rt::BackendBuffer &dst, size_t dstOffset, rt::BackendBuffer &src,
                    size_t srcOffset, size_t bytes) override;
  Status copyOut(rt::BackendBuffer &src, size_t offset, void *dst,
                 size_t bytes) override;
  Status launch(const rt::LaunchRequest &request) override;
  Status launchGraph(rt::BackendGraph &graph) override;
  Status record(rt::BackendEvent &event) override;
  Status wait(rt::BackendEvent &event) override;
  Status synchronize() override;
  /// Submits the open batch now (latency; also before any wait).
  Status flush() override;

private:
  /// Work recorded into one command buffer and submitted together; what it
  /// uses stays alive until the timeline passes `value`.
  struct Batch {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    unsigned commands = 0;
    uint64_t value = 0;
    std::vector<std::shared_ptr<void>> keep;
  };
  /// Host-visible memory that small uploads and the argument blocks of
  /// uniform-bound kernels are written to; reused once the work that read
  /// it is done.
  struct Arena {
    std::shared_ptr<VulkanBuffer> buffer;
    VkDeviceSize used = 0;
    uint64_t lastUse = 0; ///< timeline value; UINT64_MAX while recording
  };

  Status ready();
  Status begin();
  Status submit(VkCommandBuffer cmd,
                const std::vector<std::pair<std::shared_ptr<Timeline>, uint64_t>> &extra,
                uint64_t &value);
  /// Submits after a command when the batch is full, or when the device has
  /// nothing else to do (so work starts at once unless the device is busy).
  Status recorded();
  void retire(uint64_t reached);
  Status fail(Status st);
  /// Copies `bytes` of `data` into arena memory read by the open batch.
  Status hostSlot(const void *data, VkDeviceSize bytes, VkDeviceSize align,
                  VulkanBuffer *&buffer, VkDeviceSize &offset);

  VulkanDevice &device;
  StreamSlot slot;
  Timeline *timeline = nullptr; ///< slot.timeline, once the stream is ready
  Batch open;
  std::deque<Batch> inFlight;
  std::vector<std::pair<std::shared_ptr<Timeline>, uint64_t>> waits;
  std::vector<Arena> arenas;
  Status firstError;
};

} // namespace xpu::vk
