// The optional device features xpujit uses: what a device reports (queried
// with vkGetPhysicalDeviceFeatures2) and what was requested when its logical
// device was created. A kernel that needs a feature is refused unless it
// passed both gates.
#pragma once

#include "runtime/status.h"
#include "vulkan_coop_matrix.h"
#include "vulkan_symbols.h"

#include <string>
#include <vector>

namespace xpu::vk {

/// F(name, member of FeatureChain that holds it, the structure reporting it).
#define XPU_VK_FEATURES(F)                                                     \
  F(shaderInt64, core.features, "VkPhysicalDeviceFeatures")                    \
  F(shaderFloat64, core.features, "VkPhysicalDeviceFeatures")                  \
  F(shaderInt16, core.features, "VkPhysicalDeviceFeatures")                    \
  F(storageBuffer16BitAccess, v11, "VkPhysicalDeviceVulkan11Features")         \
  F(shaderInt8, v12, "VkPhysicalDeviceVulkan12Features")                       \
  F(shaderFloat16, v12, "VkPhysicalDeviceVulkan12Features")                    \
  F(storageBuffer8BitAccess, v12, "VkPhysicalDeviceVulkan12Features")          \
  F(shaderBufferInt64Atomics, v12, "VkPhysicalDeviceVulkan12Features")         \
  F(shaderSharedInt64Atomics, v12, "VkPhysicalDeviceVulkan12Features")         \
  F(timelineSemaphore, v12, "VkPhysicalDeviceVulkan12Features")                \
  F(shaderSubgroupExtendedTypes, v12, "VkPhysicalDeviceVulkan12Features")      \
  F(vulkanMemoryModel, v12, "VkPhysicalDeviceVulkan12Features")                \
  F(vulkanMemoryModelDeviceScope, v12, "VkPhysicalDeviceVulkan12Features")     \
  F(shaderIntegerDotProduct, v13, "VkPhysicalDeviceVulkan13Features")          \
  F(shaderBufferFloat32Atomics, atomicFloat,                                   \
    "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT")                            \
  F(shaderBufferFloat32AtomicAdd, atomicFloat,                                 \
    "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT")                            \
  F(shaderBufferFloat64Atomics, atomicFloat,                                   \
    "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT")                            \
  F(shaderBufferFloat64AtomicAdd, atomicFloat,                                 \
    "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT")                            \
  F(shaderSharedFloat32Atomics, atomicFloat,                                   \
    "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT")                            \
  F(shaderSharedFloat32AtomicAdd, atomicFloat,                                 \
    "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT")                            \
  F(shaderSharedFloat64Atomics, atomicFloat,                                   \
    "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT")                            \
  F(shaderSharedFloat64AtomicAdd, atomicFloat,                                 \
    "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT")                            \
  F(cooperativeMatrix, coopMatrix, "VkPhysicalDeviceCooperativeMatrixFeaturesKHR") \
  F(cooperativeMatrixWorkgroupScope, coopMatrix2,                              \
    "VkPhysicalDeviceCooperativeMatrix2FeaturesNV")                            \
  F(cooperativeMatrixFlexibleDimensions, coopMatrix2,                          \
    "VkPhysicalDeviceCooperativeMatrix2FeaturesNV")

enum class Feature {
#define XPU_VK_ENUM(name, member, query) name,
  XPU_VK_FEATURES(XPU_VK_ENUM)
#undef XPU_VK_ENUM
  count
};

const char *featureName(Feature f);
const char *featureQuery(Feature f);

struct FeatureSet {
  bool has[size_t(Feature::count)] = {};
  bool operator[](Feature f) const { return has[size_t(f)]; }
  bool &operator[](Feature f) { return has[size_t(f)]; }
};

/// The feature structures, linked for vkGetPhysicalDeviceFeatures2 and
/// VkDeviceCreateInfo::pNext. The atomic-float one is linked only when the
/// device has VK_EXT_shader_atomic_float, the Vulkan 1.3 one only when the
/// device and the instance are Vulkan 1.3, the cooperative-matrix ones only
/// when the device has VK_KHR_cooperative_matrix (and
/// VK_NV_cooperative_matrix2).
struct FeatureChain {
  VkPhysicalDeviceFeatures2 core{};
  VkPhysicalDeviceVulkan11Features v11{};
  VkPhysicalDeviceVulkan12Features v12{};
  VkPhysicalDeviceVulkan13Features v13{};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{};
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopMatrix{};
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV coopMatrix2{};

  FeatureChain(bool withAtomicFloat, bool withV13, bool withCoopMatrix,
               bool withCoopMatrix2 = false);
  FeatureChain(const FeatureChain &) = delete;
  FeatureSet read() const;
  /// Sets exactly the features in `set`.
  void write(const FeatureSet &set);
};

/// Parses XPU_VK_FEATURES names (e.g. "shaderFloat64"), as
/// XPU_VULKAN_DISABLE_FEATURES lists them.
rt::Status parseFeatureList(const std::string &list, FeatureSet &out);

} // namespace xpu::vk
