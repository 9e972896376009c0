// Launch graphs on Vulkan: the launches recorded once into a command buffer
// (a barrier only where a launch depends on one since the last barrier) and
// the same command buffer submitted for every replay. An update records a
// new command buffer at the next replay; replays still pending keep theirs.
#pragma once

#include "vulkan_device.h"

#include <memory>
#include <vector>

namespace xpu::vk {

Status createVulkanGraph(VulkanDevice &device,
                         const std::vector<const rt::LaunchRequest *> &nodes,
                         const std::vector<std::vector<uint32_t>> &after,
                         std::unique_ptr<rt::BackendGraph> &out);

/// The command buffer that replays `graph` (recorded now if the graph
/// changed) and what its submission must keep alive until it completes.
Status prepareGraph(rt::BackendGraph &graph, VkCommandBuffer &cmd,
                    std::shared_ptr<void> &keep);

} // namespace xpu::vk
