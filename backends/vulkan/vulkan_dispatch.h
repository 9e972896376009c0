// One launch as Vulkan commands: its pipeline, descriptor set and argument
// block (abi::vulkanArgLayout), prepared once and recorded into a command
// buffer, a stream's (vulkan_queue.cpp) or a graph's (vulkan_graph.cpp).
#pragma once

#include "vulkan_kernels.h"

#include <functional>
#include <vector>

namespace xpu::vk {

struct Dispatch {
  std::shared_ptr<KernelProgram> program;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipeline copying = VK_NULL_HANDLE; ///< the copying companion's, dispatched after
  VkDescriptorSet set = VK_NULL_HANDLE;
  std::vector<uint32_t> dynamicOffsets;
  std::vector<uint8_t> block; ///< push constants (unless in a uniform buffer)
  uint32_t grid[3] = {1, 1, 1};
};

/// Where an argument block bound as a uniform buffer is written: `bytes` of
/// `data` at an offset aligned to `align` of a host-visible buffer.
using UniformSlot = std::function<Status(const void *data, VkDeviceSize bytes,
                                         VkDeviceSize align, VulkanBuffer *&buffer,
                                         VkDeviceSize &offset)>;

/// Checks `r` against the device's limits and prepares its dispatch.
Status prepareDispatch(VulkanDevice &device, const rt::LaunchRequest &r,
                       const UniformSlot &uniform, Dispatch &out);

/// Records `d` into `cmd` (no barrier before it).
void recordDispatch(VulkanDevice &device, VkCommandBuffer cmd, const Dispatch &d);

/// A barrier that orders every earlier command's writes before later
/// commands' accesses (a stream runs in order).
void recordBarrier(VulkanDevice &device, VkCommandBuffer cmd);

/// The barrier after which the host reads what the commands wrote (status
/// words, mapped buffers).
void recordHostBarrier(VulkanDevice &device, VkCommandBuffer cmd);

} // namespace xpu::vk
