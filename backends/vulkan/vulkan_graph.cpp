// Launch graphs on Vulkan; see vulkan_graph.h.
#include "vulkan_graph.h"

#include "vulkan_dispatch.h"
#include "vulkan_kernels.h"

#include <cstring>
#include <mutex>

namespace xpu::vk {

namespace {

VkDeviceSize alignUp(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

/// The graph's command pool: a stream slot, handed back to the device (not
/// destroyed) when the graph goes, as streams do theirs.
struct GraphSlot {
  GraphSlot(VulkanDevice &device) : device(device) {}
  ~GraphSlot() {
    if (slot.pool)
      device.returnStreamSlot(std::move(slot));
  }
  VulkanDevice &device;
  StreamSlot slot;
  std::mutex mu; ///< the pool is externally synchronized
};

/// One recorded command buffer and what it uses; its command buffer goes
/// back to the slot once no submission keeps it.
struct Recording {
  ~Recording() {
    if (!cmd)
      return;
    std::lock_guard<std::mutex> g(slot->mu);
    slot->slot.idle.push_back(cmd);
  }
  std::shared_ptr<GraphSlot> slot;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  std::vector<std::shared_ptr<KernelProgram>> programs;
  std::shared_ptr<VulkanBuffer> uniforms; ///< argument blocks too large to push
};

class VulkanGraph : public rt::BackendGraph {
public:
  VulkanGraph(VulkanDevice &d) : device(d), slot(std::make_shared<GraphSlot>(d)) {}
  const char *kind() const override { return "vulkan command buffer"; }
  Status update(size_t index, const rt::LaunchRequest &r) override {
    std::lock_guard<std::mutex> g(mu);
    requests.at(index) = r;
    dirty = true;
    return {};
  }
  Status prepare(VkCommandBuffer &cmd, std::shared_ptr<void> &keep) {
    std::lock_guard<std::mutex> g(mu);
    if (dirty || !current) {
      std::shared_ptr<Recording> fresh;
      XPU_RETURN_IF_ERROR(record(fresh));
      current = std::move(fresh);
      dirty = false;
    }
    cmd = current->cmd;
    keep = current;
    return {};
  }

  VulkanDevice &device;
  std::shared_ptr<GraphSlot> slot;
  std::vector<rt::LaunchRequest> requests;
  std::vector<std::vector<uint32_t>> after;

private:
  Status record(std::shared_ptr<Recording> &out);

  std::mutex mu;
  std::shared_ptr<Recording> current;
  bool dirty = true;
};

Status VulkanGraph::record(std::shared_ptr<Recording> &out) {
  auto rec = std::make_shared<Recording>();
  rec->slot = slot;
  {
    std::lock_guard<std::mutex> g(slot->mu);
    if (slot->slot.idle.empty()) {
      VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
      info.commandPool = slot->slot.pool;
      info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
      info.commandBufferCount = 1;
      VkCommandBuffer cmd;
      XPU_VK_RETURN_IF_ERROR(device.fn.vkAllocateCommandBuffers(device.device, &info, &cmd),
                             "vkAllocateCommandBuffers");
      slot->slot.idle.push_back(cmd);
    }
    rec->cmd = slot->slot.idle.back();
    slot->slot.idle.pop_back();
  }

  // Argument blocks bound as uniform buffers get room of their own.
  const VkDeviceSize align = device.info.props.limits.minUniformBufferOffsetAlignment;
  VkDeviceSize uniformBytes = 0;
  for (const rt::LaunchRequest &r : requests) {
    const KernelProgram &k = *static_cast<VulkanKernel *>(r.kernel)->program;
    if (k.argsInUniform)
      uniformBytes = alignUp(uniformBytes, align) + k.args.bytes;
  }
  if (uniformBytes) {
    std::unique_ptr<VulkanBuffer> buffer;
    XPU_RETURN_IF_ERROR(device.createBuffer(uniformBytes, /*host=*/true, buffer));
    rec->uniforms = std::move(buffer);
  }
  VkDeviceSize used = 0;
  UniformSlot uniform = [&](const void *data, VkDeviceSize bytes, VkDeviceSize a,
                            VulkanBuffer *&buffer, VkDeviceSize &offset) -> Status {
    offset = alignUp(used, a);
    used = offset + bytes;
    std::memcpy(rec->uniforms->mapped + offset, data, bytes);
    buffer = rec->uniforms.get();
    return {};
  };

  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  // A replay may be submitted while the previous one is still pending.
  begin.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  XPU_VK_RETURN_IF_ERROR(device.fn.vkBeginCommandBuffer(rec->cmd, &begin),
                         "vkBeginCommandBuffer");
  size_t sinceBarrier = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    Dispatch d;
    XPU_RETURN_IF_ERROR(prepareDispatch(device, requests[i], uniform, d));
    // A barrier only where this launch depends on one after the last one.
    bool needs = false;
    for (uint32_t j : after[i])
      needs = needs || j >= sinceBarrier;
    if (needs) {
      recordBarrier(device, rec->cmd);
      sinceBarrier = i;
    }
    recordDispatch(device, rec->cmd, d);
    rec->programs.push_back(std::move(d.program));
  }
  recordHostBarrier(device, rec->cmd);
  XPU_VK_RETURN_IF_ERROR(device.fn.vkEndCommandBuffer(rec->cmd), "vkEndCommandBuffer");
  out = std::move(rec);
  return {};
}

} // namespace

Status createVulkanGraph(VulkanDevice &device,
                         const std::vector<const rt::LaunchRequest *> &nodes,
                         const std::vector<std::vector<uint32_t>> &after,
                         std::unique_ptr<rt::BackendGraph> &out) {
  XPU_RETURN_IF_ERROR(device.open());
  auto g = std::make_unique<VulkanGraph>(device);
  XPU_RETURN_IF_ERROR(device.takeStreamSlot(g->slot->slot));
  for (const rt::LaunchRequest *r : nodes)
    g->requests.push_back(*r);
  g->after = after;
  // Recorded now, so that errors (limits, pipelines) come at instantiation.
  VkCommandBuffer cmd;
  std::shared_ptr<void> keep;
  XPU_RETURN_IF_ERROR(g->prepare(cmd, keep));
  out = std::move(g);
  return {};
}

Status prepareGraph(rt::BackendGraph &graph, VkCommandBuffer &cmd,
                    std::shared_ptr<void> &keep) {
  return static_cast<VulkanGraph &>(graph).prepare(cmd, keep);
}

} // namespace xpu::vk
