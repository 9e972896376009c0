// Streams on Vulkan: work is recorded into a command buffer (with a barrier
// between commands, so a stream runs in order) and submitted in batches;
// each submission waits for the stream's previous one and for the events
// the stream waits on, and signals the next value of its timeline.
#include "vulkan_queue.h"
#include "vulkan_dispatch.h"
#include "vulkan_graph.h"
#include "vulkan_kernels.h"

#include <cstring>

namespace xpu::vk {

namespace {
/// Commands recorded before a batch is submitted while the device is busy.
constexpr unsigned kBatchCommands = 32;
/// Bytes of each arena; larger uploads get staging memory of their own.
constexpr VkDeviceSize kArenaBytes = 256 << 10;

VkDeviceSize alignUp(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }
} // namespace

//===----------------------------------------------------------------------===//
// Timelines and events
//===----------------------------------------------------------------------===//

Timeline::~Timeline() {
  if (semaphore)
    device.fn.vkDestroySemaphore(device.device, semaphore, nullptr);
}

Status Timeline::create() {
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  info.pNext = &type;
  XPU_VK_RETURN_IF_ERROR(
      device.fn.vkCreateSemaphore(device.device, &info, nullptr, &semaphore),
      "vkCreateSemaphore");
  return {};
}

Status Timeline::wait(uint64_t value) {
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &value;
  for (;;) {
    // A finite timeout, so that a lost device is noticed even by drivers
    // that leave a wait on it blocked.
    VkResult r = device.fn.vkWaitSemaphores(device.device, &info, 1000000000ull);
    if (r == VK_SUCCESS)
      return {};
    if (r != VK_TIMEOUT)
      return device.markLost(vkStatus(r, "vkWaitSemaphores"));
    XPU_RETURN_IF_ERROR(device.open());
  }
}

uint64_t Timeline::reached() {
  uint64_t value = 0;
  if (device.fn.vkGetSemaphoreCounterValue(device.device, semaphore, &value) !=
      VK_SUCCESS)
    return 0;
  return value;
}

void VulkanEvent::set(std::shared_ptr<Timeline> t, uint64_t v) {
  std::lock_guard<std::mutex> g(mu);
  timeline = std::move(t);
  value = v;
}

std::pair<std::shared_ptr<Timeline>, uint64_t> VulkanEvent::point() {
  std::lock_guard<std::mutex> g(mu);
  return {timeline, value};
}

Status VulkanEvent::synchronize() {
  auto [t, v] = point();
  return t ? t->wait(v) : Status();
}

bool VulkanEvent::isComplete() {
  auto [t, v] = point();
  return !t || t->reached() >= v;
}

TimestampQuery::~TimestampQuery() {
  if (pool)
    device.fn.vkDestroyQueryPool(device.device, pool, nullptr);
}

Status VulkanEvent::timestamp(std::shared_ptr<TimestampQuery> &out) {
  std::lock_guard<std::mutex> g(mu);
  if (!query && device.info.timestampBits) {
    auto q = std::make_shared<TimestampQuery>(device);
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = 1;
    XPU_VK_RETURN_IF_ERROR(
        device.fn.vkCreateQueryPool(device.device, &info, nullptr, &q->pool),
        "vkCreateQueryPool");
    query = std::move(q);
  }
  out = query;
  return {};
}

Status VulkanEvent::readTime(uint64_t &ticks) {
  std::shared_ptr<TimestampQuery> q;
  {
    std::lock_guard<std::mutex> g(mu);
    q = query;
  }
  if (!q)
    return {XPU_ERROR_UNSUPPORTED,
            "vulkan device '" + device.id.name +
                "' has no timestamps on its compute queue (timestampValidBits = 0)"};
  XPU_VK_RETURN_IF_ERROR(device.fn.vkGetQueryPoolResults(
                             device.device, q->pool, 0, 1, sizeof ticks, &ticks,
                             sizeof ticks, VK_QUERY_RESULT_64_BIT),
                         "vkGetQueryPoolResults");
  return {};
}

/// Device timestamps, as on CUDA: both events must have completed.
Status VulkanEvent::elapsedSince(rt::BackendEvent &start, double &ms) {
  auto &s = static_cast<VulkanEvent &>(start);
  if (!isComplete() || !s.isComplete())
    return {XPU_ERROR_BUSY, "an event has not completed yet"};
  uint64_t t0 = 0, t1 = 0;
  XPU_RETURN_IF_ERROR(s.readTime(t0));
  XPU_RETURN_IF_ERROR(readTime(t1));
  uint32_t bits = device.info.timestampBits;
  uint64_t ticks = (t1 - t0) & (bits >= 64 ? ~0ull : (1ull << bits) - 1);
  ms = double(ticks) * device.info.props.limits.timestampPeriod * 1e-6;
  return {};
}

//===----------------------------------------------------------------------===//
// The stream
//===----------------------------------------------------------------------===//

VulkanQueue::~VulkanQueue() {
  if (!timeline)
    return;
  (void)synchronize();
  if (open.cmd)
    slot.idle.push_back(open.cmd);
  for (Batch &b : inFlight)
    if (b.cmd)
      slot.idle.push_back(b.cmd);
  device.returnStreamSlot(std::move(slot));
}

/// The stream's Vulkan objects, taken on first use so that a context that
/// never uses a Vulkan device never creates one.
Status VulkanQueue::ready() {
  XPU_RETURN_IF_ERROR(device.open());
  if (timeline)
    return {};
  XPU_RETURN_IF_ERROR(device.takeStreamSlot(slot));
  timeline = slot.timeline.get();
  return {};
}

/// Opens the batch's command buffer, or orders the next command after the
/// ones already in it.
Status VulkanQueue::begin() {
  XPU_RETURN_IF_ERROR(ready());
  if (open.cmd) {
    recordBarrier(device, open.cmd);
    return {};
  }
  retire(timeline->reached());
  if (slot.idle.empty()) {
    VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    info.commandPool = slot.pool;
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    VkCommandBuffer cmd;
    XPU_VK_RETURN_IF_ERROR(device.fn.vkAllocateCommandBuffers(device.device, &info, &cmd),
                           "vkAllocateCommandBuffers");
    slot.idle.push_back(cmd);
  }
  VkCommandBuffer cmd = slot.idle.back();
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  XPU_VK_RETURN_IF_ERROR(device.fn.vkBeginCommandBuffer(cmd, &info),
                         "vkBeginCommandBuffer");
  slot.idle.pop_back();
  open.cmd = cmd;
  return {};
}

/// Submits the open batch (or, with no commands, just the waits it owes).
Status VulkanQueue::flush() {
  if (!open.cmd && waits.empty())
    return {};
  XPU_RETURN_IF_ERROR(ready());
  if (open.cmd) {
    // The host reads status words and mapped buffers after a wait.
    recordHostBarrier(device, open.cmd);
    XPU_VK_RETURN_IF_ERROR(device.fn.vkEndCommandBuffer(open.cmd), "vkEndCommandBuffer");
  }
  for (auto &[t, v] : waits)
    open.keep.push_back(t);
  Status st = submit(open.cmd, waits, open.value);
  waits.clear();
  if (!st.isOk()) {
    // The batch's work is dropped; its command buffer can be reused.
    if (open.cmd)
      slot.idle.push_back(open.cmd);
    open = Batch();
    return fail(st);
  }
  for (Arena &a : arenas)
    if (a.lastUse == UINT64_MAX)
      a.lastUse = open.value;
  inFlight.push_back(std::move(open));
  open = Batch();
  return {};
}

/// Submits `cmd` (may be null) after this stream's previous submission,
/// `extra` waits and blocking copies, signalling the stream's next value.
Status VulkanQueue::submit(VkCommandBuffer cmd,
                           const std::vector<std::pair<std::shared_ptr<Timeline>, uint64_t>> &extra,
                           uint64_t &value) {
  // One queue does not order submissions by itself.
  std::vector<VkSemaphore> sems;
  std::vector<uint64_t> values;
  auto addWait = [&](const std::shared_ptr<Timeline> &t, uint64_t v) {
    if (v) {
      sems.push_back(t->semaphore);
      values.push_back(v);
    }
  };
  addWait(slot.timeline, timeline->submitted);
  for (auto &[t, v] : extra)
    addWait(t, v);
  std::shared_ptr<Timeline> copies = device.copies();
  addWait(copies, copies->submitted);
  std::vector<VkPipelineStageFlags> stages(sems.size(),
                                           VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  value = timeline->submitted + 1;
  VkTimelineSemaphoreSubmitInfo timelineInfo{
      VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timelineInfo.waitSemaphoreValueCount = uint32_t(values.size());
  timelineInfo.pWaitSemaphoreValues = values.data();
  timelineInfo.signalSemaphoreValueCount = 1;
  timelineInfo.pSignalSemaphoreValues = &value;
  VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  info.pNext = &timelineInfo;
  info.waitSemaphoreCount = uint32_t(sems.size());
  info.pWaitSemaphores = sems.data();
  info.pWaitDstStageMask = stages.data();
  info.commandBufferCount = cmd ? 1 : 0;
  info.pCommandBuffers = &cmd;
  info.signalSemaphoreCount = 1;
  info.pSignalSemaphores = &timeline->semaphore;
  VkResult r;
  {
    std::lock_guard<std::mutex> g(device.queueMu);
    r = device.fn.vkQueueSubmit(device.queue, 1, &info, VK_NULL_HANDLE);
  }
  if (r != VK_SUCCESS)
    return device.markLost(vkStatus(r, "vkQueueSubmit"));
  timeline->submitted = value;
  return {};
}

Status VulkanQueue::launchGraph(rt::BackendGraph &graph) {
  XPU_RETURN_IF_ERROR(ready());
  XPU_RETURN_IF_ERROR(flush()); // what was recorded before runs before
  Batch batch;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  std::shared_ptr<void> keep;
  XPU_RETURN_IF_ERROR(prepareGraph(graph, cmd, keep));
  batch.keep.push_back(std::move(keep));
  // The graph's command buffer stays the graph's: the batch only keeps it.
  XPU_RETURN_IF_ERROR(fail(submit(cmd, {}, batch.value)));
  inFlight.push_back(std::move(batch));
  return {};
}

/// Recycles the batches the timeline has passed.
void VulkanQueue::retire(uint64_t reached) {
  while (!inFlight.empty() && inFlight.front().value <= reached) {
    if (inFlight.front().cmd)
      slot.idle.push_back(inFlight.front().cmd);
    inFlight.pop_front();
  }
}

/// Keeps the first error for the next synchronize, and returns it.
Status VulkanQueue::fail(Status st) {
  if (firstError.isOk())
    firstError = st;
  return st;
}

Status VulkanQueue::synchronize() {
  if (!timeline)
    return std::exchange(firstError, Status());
  Status st = flush();
  if (st.isOk() && timeline->submitted)
    st = timeline->wait(timeline->submitted);
  if (st.isOk())
    retire(timeline->submitted);
  else
    (void)fail(st);
  return std::exchange(firstError, Status());
}

Status VulkanQueue::copyIn(rt::BackendBuffer &dst, size_t offset, const void *src,
                           size_t bytes) {
  // The source is read now, into host-visible memory the copy reads in
  // stream order.
  XPU_RETURN_IF_ERROR(ready());
  VulkanBuffer *from = nullptr;
  VkDeviceSize at = 0;
  std::shared_ptr<VulkanBuffer> own;
  if (bytes <= kArenaBytes) {
    XPU_RETURN_IF_ERROR(hostSlot(src, bytes, 4, from, at));
  } else {
    std::unique_ptr<VulkanBuffer> staging;
    XPU_RETURN_IF_ERROR(device.createBuffer(bytes, /*host=*/true, staging));
    std::memcpy(staging->mapped, src, bytes);
    own = std::move(staging);
    from = own.get();
  }
  XPU_RETURN_IF_ERROR(begin());
  VkBufferCopy region{at, offset, bytes};
  device.fn.vkCmdCopyBuffer(open.cmd, from->buffer,
                            static_cast<VulkanBuffer &>(dst).buffer, 1, &region);
  if (own)
    open.keep.push_back(std::move(own));
  ++open.commands;
  return recorded();
}

Status VulkanQueue::copyBuffer(rt::BackendBuffer &dst, size_t dstOffset,
                               rt::BackendBuffer &src, size_t srcOffset, size_t bytes) {
  XPU_RETURN_IF_ERROR(ready());
  XPU_RETURN_IF_ERROR(begin());
  VkBufferCopy region{srcOffset, dstOffset, bytes};
  device.fn.vkCmdCopyBuffer(open.cmd, static_cast<VulkanBuffer &>(src).buffer,
                            static_cast<VulkanBuffer &>(dst).buffer, 1, &region);
  ++open.commands;
  return recorded();
}

Status VulkanQueue::copyOut(rt::BackendBuffer &src, size_t offset, void *dst,
                            size_t bytes) {
  // The destination is host memory the device cannot write in order, so
  // this waits for the stream (as a copy to pageable memory does on CUDA).
  std::unique_ptr<VulkanBuffer> staging;
  XPU_RETURN_IF_ERROR(device.createBuffer(bytes, /*host=*/true, staging));
  XPU_RETURN_IF_ERROR(begin());
  VkBufferCopy region{offset, 0, bytes};
  device.fn.vkCmdCopyBuffer(open.cmd, static_cast<VulkanBuffer &>(src).buffer,
                            staging->buffer, 1, &region);
  ++open.commands;
  XPU_RETURN_IF_ERROR(flush());
  XPU_RETURN_IF_ERROR(fail(timeline->wait(timeline->submitted)));
  std::memcpy(dst, staging->mapped, bytes);
  retire(timeline->submitted);
  return {};
}

Status VulkanQueue::record(rt::BackendEvent &event) {
  auto &e = static_cast<VulkanEvent &>(event);
  XPU_RETURN_IF_ERROR(ready());
  std::shared_ptr<TimestampQuery> query;
  XPU_RETURN_IF_ERROR(e.timestamp(query));
  if (query) {
    // The device's time once everything before the event is done.
    XPU_RETURN_IF_ERROR(begin());
    device.fn.vkCmdResetQueryPool(open.cmd, query->pool, 0, 1);
    device.fn.vkCmdWriteTimestamp(open.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                                  query->pool, 0);
    open.keep.push_back(query);
    ++open.commands;
  }
  XPU_RETURN_IF_ERROR(flush());
  e.set(slot.timeline, timeline->submitted);
  return {};
}

Status VulkanQueue::wait(rt::BackendEvent &event) {
  XPU_RETURN_IF_ERROR(ready());
  auto [t, v] = static_cast<VulkanEvent &>(event).point();
  if (!t || t.get() == timeline || v == 0)
    return {}; // nothing to wait for, or already in stream order
  // Work recorded before the wait need not wait: submit it first.
  XPU_RETURN_IF_ERROR(flush());
  waits.push_back({t, v});
  return {};
}

Status VulkanQueue::hostSlot(const void *data, VkDeviceSize bytes, VkDeviceSize align,
                             VulkanBuffer *&buffer, VkDeviceSize &offset) {
  uint64_t reached = timeline->reached();
  Arena *arena = nullptr;
  for (Arena &a : arenas) {
    if (a.lastUse != UINT64_MAX && a.lastUse <= reached)
      a.used = 0;
    if (alignUp(a.used, align) + bytes <= a.buffer->size) {
      arena = &a;
      break;
    }
  }
  if (!arena) {
    std::unique_ptr<VulkanBuffer> fresh;
    XPU_RETURN_IF_ERROR(device.createBuffer(std::max(kArenaBytes, bytes),
                                            /*host=*/true, fresh));
    arenas.push_back({std::move(fresh), 0, 0});
    arena = &arenas.back();
  }
  offset = alignUp(arena->used, align);
  arena->used = offset + bytes;
  arena->lastUse = UINT64_MAX; // read by the open batch
  std::memcpy(arena->buffer->mapped + offset, data, bytes);
  buffer = arena->buffer.get();
  return {};
}

Status VulkanQueue::recorded() {
  if (open.commands >= kBatchCommands ||
      timeline->reached() >= timeline->submitted)
    return flush();
  return {};
}

Status VulkanQueue::launch(const rt::LaunchRequest &r) {
  XPU_RETURN_IF_ERROR(ready());
  Dispatch d;
  XPU_RETURN_IF_ERROR(prepareDispatch(
      device, r,
      [this](const void *data, VkDeviceSize bytes, VkDeviceSize align,
             VulkanBuffer *&buffer, VkDeviceSize &offset) {
        return hostSlot(data, bytes, align, buffer, offset);
      },
      d));
  XPU_RETURN_IF_ERROR(begin());
  recordDispatch(device, open.cmd, d);
  open.keep.push_back(std::move(d.program));
  ++open.commands;
  return recorded();
}

} // namespace xpu::vk
