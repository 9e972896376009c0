// Tile capabilities and facts on Vulkan; see vulkan_tiles.h.
#include "vulkan_tiles.h"
#include "vulkan_codegen.h"

namespace xpu::vk {

namespace {

/// xpujit's cooperative-matrix tier hands 16x16 blocks to whole subgroups of
/// 32 invocations (tile_tiering.cpp: a workgroup of whole subgroups), so the
/// subgroup size must be 32 and unable to vary.
constexpr uint32_t kCoopMatrixSubgroup = 32;

/// `c` unavailable on this device, for `why`.
cap::Fact unavailable(Capability c, std::string why, std::string evidence) {
  return {c, cap::Kind::deviceOptional, cap::Unavailable{cap::Kind::deviceOptional, std::move(why)},
          std::move(evidence)};
}

cap::Fact coopMatrixFact(const VulkanDevice &device) {
  const PhysicalInfo &info = device.info;
  using C = Capability;
  auto no = [](std::string why, std::string evidence) {
    return unavailable(C::tileCoopMatrix, std::move(why), std::move(evidence));
  };
  std::string listed = "vkEnumerateDeviceExtensionProperties: VK_KHR_cooperative_matrix ";
  if (!info.hasCoopMatrix)
    return no("the device does not offer VK_KHR_cooperative_matrix", listed + "not listed");
  // Vulkan requires the Vulkan memory model with cooperative matrices
  // (VulkanMemoryModel.cpp), at Device scope for the status-word atomics.
  cap::Fact feature = featureFact(device, C::tileCoopMatrix,
                                  {Feature::cooperativeMatrix, Feature::vulkanMemoryModel,
                                   Feature::vulkanMemoryModelDeviceScope});
  if (!cap::permits(feature.verdict))
    return feature;
  std::string evidence = listed + "listed; " + feature.evidence;
  if (!(info.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
      !(info.subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT))
    return no("the tier names subgroups (SubgroupId), and the device has no basic "
              "subgroup operations in compute shaders",
              evidence + "; VkPhysicalDeviceSubgroupProperties");
  if (!info.hasV13)
    return no("cooperative-matrix instructions need SPIR-V 1.6, which Vulkan 1.3 devices "
              "take (the device or the instance is older)",
              evidence);
  evidence += "; vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR: " +
              (info.coopMatrix.queried ? "[" + info.coopMatrix.listed + "]"
                                       : std::string("not answered"));
  bool compute = info.coopMatrix.stages & VK_SHADER_STAGE_COMPUTE_BIT;
  evidence += std::string("; VkPhysicalDeviceCooperativeMatrixPropertiesKHR."
                          "cooperativeMatrixSupportedStages ") +
              (compute ? "has" : "lacks") + " compute";
  if (!compute)
    return no("the device supports cooperative matrices in no compute shader", evidence);
  if (!info.coopMatrix.f16f32Subgroup16)
    return no("vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR does not list 16x16x16 "
              "f16*f16+f32->f32 at subgroup scope, the combination xpujit lowers",
              evidence);
  uint32_t size = info.subgroup.subgroupSize, lo = info.subgroupSizeControl.minSubgroupSize,
           hi = info.subgroupSizeControl.maxSubgroupSize;
  evidence += "; VkPhysicalDeviceSubgroupProperties.subgroupSize=" + std::to_string(size) +
              ", VkPhysicalDeviceSubgroupSizeControlProperties min/maxSubgroupSize=" +
              std::to_string(lo) + "/" + std::to_string(hi);
  if (size != kCoopMatrixSubgroup || lo != kCoopMatrixSubgroup || hi != kCoopMatrixSubgroup)
    return no("xpujit's cooperative-matrix tier needs subgroups of exactly 32 invocations "
              "(fixed, so whole subgroups are whole multiples of 32 invocations)",
              evidence);
  return {C::tileCoopMatrix, cap::Kind::deviceOptional, cap::Available{}, evidence};
}

/// What xpujit's workgroup tier needs beyond the subgroup tier's fact: the
/// NV extension with workgroup scope and flexible dimensions enabled, the
/// f16 combinations for 32 to 256 invocations, workgroups of 256 and sides
/// of 256 (tile_tiering.cpp's fitsCoopMatrixWorkgroup). The fact's limit is
/// the shared memory left beside the matrices.
cap::Fact coopMatrixWorkgroupFact(const VulkanDevice &device, const cap::Fact &subgroupTier) {
  const PhysicalInfo &info = device.info;
  using C = Capability;
  auto no = [](std::string why, std::string evidence) {
    return unavailable(C::tileCoopMatrixWorkgroup, std::move(why), std::move(evidence));
  };
  std::string listed = "vkEnumerateDeviceExtensionProperties: VK_NV_cooperative_matrix2 ";
  if (!info.hasCoopMatrix2)
    return no("the device does not offer VK_NV_cooperative_matrix2", listed + "not listed");
  if (!cap::permits(subgroupTier.verdict))
    return no("it builds on tile.cooperative-matrix, which is unavailable",
              listed + "listed; " + subgroupTier.evidence);
  cap::Fact feature = featureFact(device, C::tileCoopMatrixWorkgroup,
                                  {Feature::cooperativeMatrixWorkgroupScope,
                                   Feature::cooperativeMatrixFlexibleDimensions});
  if (!cap::permits(feature.verdict))
    return feature;
  const auto &p = info.coopMatrix2.properties;
  std::string evidence =
      listed + "listed; " + feature.evidence +
      "; vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV: " +
      (info.coopMatrix2.queried ? "[" + info.coopMatrix2.listed + "]"
                                : std::string("not answered")) +
      "; VkPhysicalDeviceCooperativeMatrix2PropertiesNV: WorkgroupScopeMaxWorkgroupSize=" +
      std::to_string(p.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize) +
      ", FlexibleDimensionsMaxDimension=" +
      std::to_string(p.cooperativeMatrixFlexibleDimensionsMaxDimension) +
      ", WorkgroupScopeReservedSharedMemory=" +
      std::to_string(p.cooperativeMatrixWorkgroupScopeReservedSharedMemory);
  if (!info.coopMatrix2.f16f32Workgroup)
    return no("the device does not list f16*f16+f32->f32 at workgroup scope for 32, 64, 128 "
              "and 256 invocations in steps dividing 32x32x16, what xpujit lowers",
              evidence);
  if (p.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize < 256 ||
      p.cooperativeMatrixFlexibleDimensionsMaxDimension < 256)
    return no("xpujit's workgroup tier takes workgroups of up to 256 invocations and "
              "matrices of up to 256 rows and columns, more than the device allows",
              evidence);
  uint32_t shared = info.props.limits.maxComputeSharedMemorySize,
           reserved = p.cooperativeMatrixWorkgroupScopeReservedSharedMemory;
  if (reserved >= shared)
    return no("the device reserves all of its shared memory for workgroup-scope matrices",
              evidence);
  cap::Fact fact{C::tileCoopMatrixWorkgroup, cap::Kind::deviceOptional, cap::Available{},
                 evidence + "; maxComputeSharedMemorySize=" + std::to_string(shared)};
  fact.limit = shared - reserved;
  return fact;
}

} // namespace

void addTileCapabilities(const PhysicalInfo &info,
                         llvm::SmallVectorImpl<mlir::spirv::Capability> &caps,
                         llvm::SmallVectorImpl<mlir::spirv::Extension> &exts) {
  using C = mlir::spirv::Capability;
  if (info.requested[Feature::shaderIntegerDotProduct] && info.requested[Feature::shaderInt8])
    for (C c : {C::DotProduct, C::DotProductInput4x8Bit})
      caps.push_back(c);
  if (info.requested[Feature::cooperativeMatrix] && info.hasV13) {
    caps.push_back(C::CooperativeMatrixKHR);
    exts.push_back(mlir::spirv::Extension::SPV_KHR_cooperative_matrix);
  }
}

void addTileFacts(const VulkanDevice &device, std::vector<cap::Fact> &facts) {
  cap::Fact dot = featureFact(device, Capability::tileDotInt8,
                              {Feature::shaderIntegerDotProduct, Feature::shaderInt8});
  if (!device.info.hasV13 && !device.info.supported[Feature::shaderIntegerDotProduct])
    dot.evidence += " (VkPhysicalDeviceVulkan13Features is read from Vulkan 1.3 "
                    "devices only)";
  facts.push_back(std::move(dot));
  facts.push_back(coopMatrixFact(device));
  facts.push_back(coopMatrixWorkgroupFact(device, facts.back()));
}

} // namespace xpu::vk
