// Tiles on Vulkan (issue 15): the SPIR-V capabilities the tile tiers use
// and the facts behind them (integer dot products, cooperative matrices).
#pragma once

#include "vulkan_device.h"

#include "capability/capability.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVEnums.h"
#include "llvm/ADT/SmallVector.h"

namespace xpu::vk {

/// Appends DotProduct and DotProductInput4x8Bit where shaderIntegerDotProduct
/// is enabled (and shaderInt8, which the vector<4xi8> form needs), and
/// CooperativeMatrixKHR with SPV_KHR_cooperative_matrix where the
/// cooperativeMatrix feature is enabled on a Vulkan 1.3 device.
void addTileCapabilities(const PhysicalInfo &info,
                         llvm::SmallVectorImpl<mlir::spirv::Capability> &caps,
                         llvm::SmallVectorImpl<mlir::spirv::Extension> &exts);

/// Appends the tile-tier facts: tileDotInt8 (shaderIntegerDotProduct,
/// queried and enabled) and tileCoopMatrix: VK_KHR_cooperative_matrix listed
/// and its cooperativeMatrix feature enabled on a Vulkan 1.3 device,
/// vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR listing 16x16x16
/// f16*f16+f32->f32 at subgroup scope, and subgroups fixed at 32; and
/// tileCoopMatrixWorkgroup: that, with VK_NV_cooperative_matrix2's
/// workgroup scope (coopMatrixWorkgroupFact).
void addTileFacts(const VulkanDevice &device, std::vector<cap::Fact> &facts);

} // namespace xpu::vk
