// Tile capabilities and facts on Vulkan; see vulkan_tiles.h.
#include "vulkan_tiles.h"
#include "vulkan_codegen.h"

namespace xpu::vk {

void addTileCapabilities(const PhysicalInfo &info,
                         llvm::SmallVectorImpl<mlir::spirv::Capability> &caps) {
  using C = mlir::spirv::Capability;
  if (info.requested[Feature::shaderIntegerDotProduct] && info.requested[Feature::shaderInt8])
    for (C c : {C::DotProduct, C::DotProductInput4x8Bit})
      caps.push_back(c);
}

void addTileFacts(const VulkanDevice &device, std::vector<cap::Fact> &facts) {
  cap::Fact dot = featureFact(device, Capability::tileDotInt8,
                              {Feature::shaderIntegerDotProduct, Feature::shaderInt8});
  if (!device.info.hasV13 && !device.info.supported[Feature::shaderIntegerDotProduct])
    dot.evidence += " (VkPhysicalDeviceVulkan13Features is read from Vulkan 1.3 "
                    "devices only)";
  facts.push_back(std::move(dot));
  std::string listed = "vkEnumerateDeviceExtensionProperties: VK_KHR_cooperative_matrix ";
  if (device.info.hasCoopMatrix)
    facts.push_back({Capability::tileCoopMatrix, cap::Kind::deviceOptional,
                     cap::Available{}, listed + "listed"});
  else
    facts.push_back({Capability::tileCoopMatrix, cap::Kind::deviceOptional,
                     cap::Unavailable{cap::Kind::deviceOptional,
                                      "the device does not offer VK_KHR_cooperative_matrix"},
                     listed + "not listed"});
}

} // namespace xpu::vk
