// Wave (subgroup) operations on Vulkan: the SPIR-V capabilities a device's
// subgroups offer in compute shaders, and the capability facts behind them.
#pragma once

#include "vulkan_device.h"

#include "capability/capability.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVEnums.h"
#include "llvm/ADT/SmallVector.h"

namespace xpu::vk {

/// Appends GroupNonUniformVote, Arithmetic, Ballot and Shuffle for the
/// subgroup operations the device supports in compute shaders
/// (VkPhysicalDeviceSubgroupProperties: a property, nothing to enable).
void addSubgroupCapabilities(const PhysicalInfo &info,
                             llvm::SmallVectorImpl<mlir::spirv::Capability> &caps);

/// Appends the facts of the wave-operation capabilities: each needs its
/// subgroup operations in compute shaders; 64-bit reductions also need
/// shaderSubgroupExtendedTypes (queried and enabled) and shaderInt64.
void addWaveFacts(const VulkanDevice &device, std::vector<cap::Fact> &facts);

} // namespace xpu::vk
