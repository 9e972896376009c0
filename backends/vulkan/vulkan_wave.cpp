// Wave (subgroup) operations on Vulkan; see vulkan_wave.h.
#include "vulkan_wave.h"
#include "vulkan_codegen.h"

namespace xpu::vk {

namespace {

/// The subgroup operations xpujit's lowering of each capability uses
/// (LowerWaveOps.cpp): shuffles test their source lane against a ballot of
/// the active lanes.
struct Need {
  Capability capability;
  VkSubgroupFeatureFlags operations;
  const char *what;
};
const Need kNeeds[] = {
    {Capability::waveShuffle, VK_SUBGROUP_FEATURE_SHUFFLE_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT,
     "shuffle and ballot"},
    {Capability::waveBallot, VK_SUBGROUP_FEATURE_BALLOT_BIT, "ballot"},
    {Capability::waveVote, VK_SUBGROUP_FEATURE_VOTE_BIT, "vote"},
    {Capability::waveReduce, VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "arithmetic"},
};

bool inCompute(const PhysicalInfo &info, VkSubgroupFeatureFlags ops) {
  return (info.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
         (info.subgroup.supportedOperations & ops) == ops;
}

std::string operationNames(VkSubgroupFeatureFlags ops) {
  static const std::pair<VkSubgroupFeatureFlagBits, const char *> names[] = {
      {VK_SUBGROUP_FEATURE_BASIC_BIT, "BASIC"},
      {VK_SUBGROUP_FEATURE_VOTE_BIT, "VOTE"},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "ARITHMETIC"},
      {VK_SUBGROUP_FEATURE_BALLOT_BIT, "BALLOT"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "SHUFFLE"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "SHUFFLE_RELATIVE"},
      {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "CLUSTERED"},
      {VK_SUBGROUP_FEATURE_QUAD_BIT, "QUAD"},
  };
  std::string s;
  for (auto [bit, name] : names)
    if (ops & bit)
      s += std::string(s.empty() ? "" : "|") + name;
  return s.empty() ? "none" : s;
}

} // namespace

void addSubgroupCapabilities(const PhysicalInfo &info,
                             llvm::SmallVectorImpl<mlir::spirv::Capability> &caps) {
  using C = mlir::spirv::Capability;
  const std::pair<VkSubgroupFeatureFlagBits, C> map[] = {
      {VK_SUBGROUP_FEATURE_VOTE_BIT, C::GroupNonUniformVote},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, C::GroupNonUniformArithmetic},
      {VK_SUBGROUP_FEATURE_BALLOT_BIT, C::GroupNonUniformBallot},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, C::GroupNonUniformShuffle},
  };
  for (auto [bit, c] : map)
    if (inCompute(info, VK_SUBGROUP_FEATURE_BASIC_BIT | bit))
      caps.push_back(c);
}

void addWaveFacts(const VulkanDevice &device, std::vector<cap::Fact> &facts) {
  const PhysicalInfo &info = device.info;
  std::string query =
      "vkGetPhysicalDeviceProperties2: VkPhysicalDeviceSubgroupProperties "
      "supportedStages has COMPUTE=" +
      std::string(info.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT ? "yes"
                                                                              : "no") +
      ", supportedOperations=" + operationNames(info.subgroup.supportedOperations);
  for (const Need &n : kNeeds) {
    VkSubgroupFeatureFlags ops = VK_SUBGROUP_FEATURE_BASIC_BIT | n.operations;
    if (inCompute(info, ops))
      facts.push_back({n.capability, cap::Kind::deviceOptional, cap::Available{}, query});
    else
      facts.push_back({n.capability, cap::Kind::deviceOptional,
                       cap::Unavailable{cap::Kind::deviceOptional,
                                        std::string("the device has no subgroup ") +
                                            n.what + " operations (" +
                                            operationNames(ops) + ") in compute shaders"},
                       query});
  }
  cap::Fact wide = featureFact(device, Capability::waveReduce64,
                               {Feature::shaderSubgroupExtendedTypes, Feature::shaderInt64});
  if (cap::permits(wide.verdict) && !inCompute(info, VK_SUBGROUP_FEATURE_BASIC_BIT |
                                                         VK_SUBGROUP_FEATURE_ARITHMETIC_BIT))
    wide = {Capability::waveReduce64, cap::Kind::deviceOptional,
            cap::Unavailable{cap::Kind::deviceOptional,
                             "the device has no subgroup arithmetic operations in "
                             "compute shaders"},
            query};
  facts.push_back(std::move(wide));
}

} // namespace xpu::vk
