// VK_KHR_cooperative_matrix (issue 15): what a device offers of it, from
// vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR. Debian 12's Vulkan
// headers (1.3.239) predate the extension, so its types are declared here
// when the headers lack them, with the values of the Vulkan registry.
#pragma once

#include "vulkan_symbols.h"

#include <string>

#ifndef VK_KHR_cooperative_matrix
#define VK_KHR_cooperative_matrix 1
#define VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME "VK_KHR_cooperative_matrix"
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR                     \
  ((VkStructureType)1000506000)
#define VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR ((VkStructureType)1000506001)
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_KHR                   \
  ((VkStructureType)1000506002)

typedef enum VkComponentTypeKHR {
  VK_COMPONENT_TYPE_FLOAT16_KHR = 0,
  VK_COMPONENT_TYPE_FLOAT32_KHR = 1,
  VK_COMPONENT_TYPE_FLOAT64_KHR = 2,
  VK_COMPONENT_TYPE_SINT8_KHR = 3,
  VK_COMPONENT_TYPE_SINT16_KHR = 4,
  VK_COMPONENT_TYPE_SINT32_KHR = 5,
  VK_COMPONENT_TYPE_SINT64_KHR = 6,
  VK_COMPONENT_TYPE_UINT8_KHR = 7,
  VK_COMPONENT_TYPE_UINT16_KHR = 8,
  VK_COMPONENT_TYPE_UINT32_KHR = 9,
  VK_COMPONENT_TYPE_UINT64_KHR = 10,
  VK_COMPONENT_TYPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkComponentTypeKHR;

typedef enum VkScopeKHR {
  VK_SCOPE_DEVICE_KHR = 1,
  VK_SCOPE_WORKGROUP_KHR = 2,
  VK_SCOPE_SUBGROUP_KHR = 3,
  VK_SCOPE_QUEUE_FAMILY_KHR = 5,
  VK_SCOPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkScopeKHR;

typedef struct VkCooperativeMatrixPropertiesKHR {
  VkStructureType sType;
  void *pNext;
  uint32_t MSize;
  uint32_t NSize;
  uint32_t KSize;
  VkComponentTypeKHR AType;
  VkComponentTypeKHR BType;
  VkComponentTypeKHR CType;
  VkComponentTypeKHR ResultType;
  VkBool32 saturatingAccumulation;
  VkScopeKHR scope;
} VkCooperativeMatrixPropertiesKHR;

typedef struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
  VkStructureType sType;
  void *pNext;
  VkBool32 cooperativeMatrix;
  VkBool32 cooperativeMatrixRobustBufferAccess;
} VkPhysicalDeviceCooperativeMatrixFeaturesKHR;

typedef struct VkPhysicalDeviceCooperativeMatrixPropertiesKHR {
  VkStructureType sType;
  void *pNext;
  VkShaderStageFlags cooperativeMatrixSupportedStages;
} VkPhysicalDeviceCooperativeMatrixPropertiesKHR;

typedef VkResult(VKAPI_PTR *PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)(
    VkPhysicalDevice, uint32_t *, VkCooperativeMatrixPropertiesKHR *);
#endif // VK_KHR_cooperative_matrix

// VK_NV_cooperative_matrix2 (workgroup-scope and flexibly sized matrices),
// likewise absent from Debian 12's headers.
#ifndef VK_NV_cooperative_matrix2
#define VK_NV_cooperative_matrix2 1
#define VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME "VK_NV_cooperative_matrix2"
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV                    \
  ((VkStructureType)1000593000)
#define VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV                \
  ((VkStructureType)1000593001)
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV                  \
  ((VkStructureType)1000593002)

typedef struct VkPhysicalDeviceCooperativeMatrix2FeaturesNV {
  VkStructureType sType;
  void *pNext;
  VkBool32 cooperativeMatrixWorkgroupScope;
  VkBool32 cooperativeMatrixFlexibleDimensions;
  VkBool32 cooperativeMatrixReductions;
  VkBool32 cooperativeMatrixConversions;
  VkBool32 cooperativeMatrixPerElementOperations;
  VkBool32 cooperativeMatrixTensorAddressing;
  VkBool32 cooperativeMatrixBlockLoads;
} VkPhysicalDeviceCooperativeMatrix2FeaturesNV;

typedef struct VkPhysicalDeviceCooperativeMatrix2PropertiesNV {
  VkStructureType sType;
  void *pNext;
  uint32_t cooperativeMatrixWorkgroupScopeMaxWorkgroupSize;
  uint32_t cooperativeMatrixFlexibleDimensionsMaxDimension;
  uint32_t cooperativeMatrixWorkgroupScopeReservedSharedMemory;
} VkPhysicalDeviceCooperativeMatrix2PropertiesNV;

typedef struct VkCooperativeMatrixFlexibleDimensionsPropertiesNV {
  VkStructureType sType;
  void *pNext;
  uint32_t MGranularity;
  uint32_t NGranularity;
  uint32_t KGranularity;
  VkComponentTypeKHR AType;
  VkComponentTypeKHR BType;
  VkComponentTypeKHR CType;
  VkComponentTypeKHR ResultType;
  VkBool32 saturatingAccumulation;
  VkScopeKHR scope;
  uint32_t workgroupInvocations;
} VkCooperativeMatrixFlexibleDimensionsPropertiesNV;

typedef VkResult(VKAPI_PTR *PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV)(
    VkPhysicalDevice, uint32_t *, VkCooperativeMatrixFlexibleDimensionsPropertiesNV *);
#endif // VK_NV_cooperative_matrix2

namespace xpu::vk {

/// What vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR listed.
struct CoopMatrixSupport {
  bool queried = false;  ///< the query ran (extension listed, entry point found)
  /// 16x16x16, A and B f16, C and the result f32, subgroup scope: the
  /// combination xpujit's cooperative-matrix tier lowers.
  bool f16f32Subgroup16 = false;
  std::string listed;    ///< every combination, "16x16x16 f16*f16+f32->f32 subgroup; ..."
  /// VkPhysicalDeviceCooperativeMatrixPropertiesKHR (vkGetPhysicalDeviceProperties2).
  VkShaderStageFlags stages = 0;
};

/// Runs the query on `device` (only when it lists the extension).
CoopMatrixSupport queryCoopMatrix(PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR query,
                                  VkPhysicalDevice device);

/// What VK_NV_cooperative_matrix2 offers of workgroup-scope matrices.
struct CoopMatrix2Support {
  bool queried = false; ///< vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV ran
  /// f16*f16+f32->f32 at workgroup scope for 32, 64, 128 and 256
  /// invocations, each with a granularity that divides 32x32x16: what
  /// xpujit's workgroup tier lowers (tile_tiering.cpp).
  bool f16f32Workgroup = false;
  std::string listed; ///< the workgroup-scope entries, "32x32x16 f16*f16+f32->f32 @256; ..."
  VkPhysicalDeviceCooperativeMatrix2PropertiesNV properties{};
};

/// Runs the flexible-dimensions query on `device` (when it lists the
/// extension); `properties` as vkGetPhysicalDeviceProperties2 read them.
CoopMatrix2Support queryCoopMatrix2(
    PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV query,
    VkPhysicalDevice device, const VkPhysicalDeviceCooperativeMatrix2PropertiesNV &properties);

} // namespace xpu::vk
