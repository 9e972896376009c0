// One launch as Vulkan commands; see vulkan_dispatch.h.
#include "vulkan_dispatch.h"

#include <cstring>

namespace xpu::vk {

Status prepareDispatch(VulkanDevice &device, const rt::LaunchRequest &r,
                       const UniformSlot &uniform, Dispatch &out) {
  const std::shared_ptr<KernelProgram> &program =
      static_cast<VulkanKernel *>(r.kernel)->program;
  const KernelProgram &k = *program;
  const VkPhysicalDeviceLimits &limits = device.info.props.limits;
  static const char axes[] = "xyz";
  for (int d = 0; d < 3; ++d)
    if (r.block[d] > limits.maxComputeWorkGroupSize[d])
      return rt::invalidArgument(
          "a workgroup extent of " + std::to_string(r.block[d]) + " along " +
          axes[d] + " exceeds the vulkan device limit maxComputeWorkGroupSize[" +
          std::to_string(d) + "] = " + std::to_string(limits.maxComputeWorkGroupSize[d]));
  // Without shaderInt64 `index` is 32 bits wide, and bounds proofs rely on
  // every global id and size being a non-negative index (abi::maxGlobalExtent).
  if (!device.info.requested[Feature::shaderInt64])
    for (int d = 0; d < 3; ++d)
      if (uint64_t(r.grid[d]) * r.block[d] > abi::maxGlobalExtent(32))
        return rt::invalidArgument(
            "a launch of " + std::to_string(uint64_t(r.grid[d]) * r.block[d]) +
            " invocations along " + axes[d] + " exceeds " +
            std::to_string(abi::maxGlobalExtent(32)) +
            ", the most a vulkan device without shaderInt64 (32-bit index) runs");

  // The argument block: element counts and scalars (abi::vulkanArgLayout).
  std::vector<uint8_t> block(k.args.bytes, 0);
  std::vector<Binding> bindings;
  std::vector<uint32_t> dynamicOffsets;
  size_t slot = 0;
  for (size_t i = 0; i < k.info.params.size(); ++i) {
    const abi::Param &p = k.info.params[i];
    uint8_t *to = block.data() + k.args.offsets[i];
    if (p.isBuffer) {
      auto *buf = static_cast<VulkanBuffer *>(r.buffers[i]);
      if (buf->size > limits.maxStorageBufferRange)
        return {XPU_ERROR_UNSUPPORTED,
                "kernel '" + k.info.name + "' argument " + std::to_string(i) +
                    " ('" + p.name + "'): a buffer of " + std::to_string(buf->size) +
                    " bytes exceeds the vulkan device limit maxStorageBufferRange = " +
                    std::to_string(limits.maxStorageBufferRange)};
      uint64_t count;
      std::memcpy(&count, r.args + (*r.slots)[slot + 1].offset, 8);
      uint32_t count32 = uint32_t(count);
      std::memcpy(to, &count32, 4);
      Binding b;
      b.index = uint32_t(bindings.size());
      b.buffer = buf->buffer;
      b.serial = buf->serial;
      bindings.push_back(b);
      slot += 2;
      continue;
    }
    // Lanes narrower than 32 bits are widened; the kernel truncates them.
    const uint8_t *from = r.args + (*r.slots)[slot++].offset;
    unsigned bytes = abi::scalarBytes(p.elem), lane = abi::vulkanLaneBytes(p.elem);
    for (unsigned l = 0; l < p.lanes; ++l)
      std::memcpy(to + l * lane, from + l * bytes, bytes);
  }
  if (k.hasStatus) {
    uint32_t offset;
    Binding b = device.statusBinding(r.status, offset);
    b.index = k.numBuffers;
    bindings.push_back(b);
    dynamicOffsets.push_back(offset);
  }
  if (k.argsInUniform) {
    VulkanBuffer *arena;
    VkDeviceSize offset;
    XPU_RETURN_IF_ERROR(uniform(block.data(), k.args.bytes,
                                limits.minUniformBufferOffsetAlignment, arena, offset));
    Binding b;
    b.index = k.numBuffers + 1;
    b.type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
    b.buffer = arena->buffer;
    b.range = k.args.bytes;
    b.serial = arena->serial;
    bindings.push_back(b);
    dynamicOffsets.push_back(uint32_t(offset));
  }

  XPU_RETURN_IF_ERROR(device.descriptors->get(k, bindings, out.set));
  XPU_RETURN_IF_ERROR(program->pipeline(r.block, block.data(), out.pipeline));
  if (!k.copying.entry.empty())
    XPU_RETURN_IF_ERROR(program->pipeline(r.block, block.data(), out.copying, true));
  out.program = program;
  out.dynamicOffsets = std::move(dynamicOffsets);
  out.block = k.argsInUniform ? std::vector<uint8_t>() : std::move(block);
  for (int d = 0; d < 3; ++d)
    out.grid[d] = r.grid[d];
  return {};

}

void recordDispatch(VulkanDevice &device, VkCommandBuffer cmd, const Dispatch &d) {
  const KernelProgram &k = *d.program;
  device.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d.pipeline);
  if (d.set)
    device.fn.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1,
                                      &d.set, uint32_t(d.dynamicOffsets.size()),
                                      d.dynamicOffsets.data());
  if (!k.argsInUniform && k.args.bytes)
    device.fn.vkCmdPushConstants(cmd, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                 k.args.bytes, d.block.data());
  device.fn.vkCmdDispatch(cmd, d.grid[0], d.grid[1], d.grid[2]);
  // The copying companion's workgroups do what the kernel's skipped; the
  // layout is the same, so the sets and push constants stay bound, and
  // the two may overlap as one dispatch's workgroups would.
  if (d.copying) {
    device.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d.copying);
    device.fn.vkCmdDispatch(cmd, d.grid[0], d.grid[1], d.grid[2]);
  }
}

void recordBarrier(VulkanDevice &device, VkCommandBuffer cmd) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  VkPipelineStageFlags stages =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  device.fn.vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &barrier, 0, nullptr, 0,
                                 nullptr);
}

void recordHostBarrier(VulkanDevice &device, VkCommandBuffer cmd) {
  VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  toHost.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  device.fn.vkCmdPipelineBarrier(
      cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, nullptr, 0, nullptr);
}

} // namespace xpu::vk
