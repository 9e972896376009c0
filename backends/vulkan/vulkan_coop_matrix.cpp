// The cooperative-matrix query; see vulkan_coop_matrix.h.
#include "vulkan_coop_matrix.h"

#include <vector>

namespace xpu::vk {

namespace {

const char *componentName(VkComponentTypeKHR t) {
  switch (t) {
  case VK_COMPONENT_TYPE_FLOAT16_KHR: return "f16";
  case VK_COMPONENT_TYPE_FLOAT32_KHR: return "f32";
  case VK_COMPONENT_TYPE_FLOAT64_KHR: return "f64";
  case VK_COMPONENT_TYPE_SINT8_KHR: return "s8";
  case VK_COMPONENT_TYPE_SINT16_KHR: return "s16";
  case VK_COMPONENT_TYPE_SINT32_KHR: return "s32";
  case VK_COMPONENT_TYPE_SINT64_KHR: return "s64";
  case VK_COMPONENT_TYPE_UINT8_KHR: return "u8";
  case VK_COMPONENT_TYPE_UINT16_KHR: return "u16";
  case VK_COMPONENT_TYPE_UINT32_KHR: return "u32";
  case VK_COMPONENT_TYPE_UINT64_KHR: return "u64";
  default: return "other";
  }
}

const char *scopeName(VkScopeKHR s) {
  switch (s) {
  case VK_SCOPE_DEVICE_KHR: return "device";
  case VK_SCOPE_WORKGROUP_KHR: return "workgroup";
  case VK_SCOPE_SUBGROUP_KHR: return "subgroup";
  case VK_SCOPE_QUEUE_FAMILY_KHR: return "queue-family";
  default: return "other";
  }
}

} // namespace

CoopMatrixSupport queryCoopMatrix(PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR query,
                                  VkPhysicalDevice device) {
  CoopMatrixSupport out;
  if (!query)
    return out;
  uint32_t count = 0;
  if (query(device, &count, nullptr) != VK_SUCCESS)
    return out;
  std::vector<VkCooperativeMatrixPropertiesKHR> props(count);
  for (auto &p : props) {
    p = {};
    p.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
  }
  VkResult r = query(device, &count, props.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    return out;
  out.queried = true;
  props.resize(count);
  for (const auto &p : props) {
    out.listed += (out.listed.empty() ? "" : "; ") + std::to_string(p.MSize) + "x" +
                  std::to_string(p.NSize) + "x" + std::to_string(p.KSize) + " " +
                  componentName(p.AType) + "*" + componentName(p.BType) + "+" +
                  componentName(p.CType) + "->" + componentName(p.ResultType) +
                  (p.saturatingAccumulation ? " saturating" : "") + " " + scopeName(p.scope);
    out.f16f32Subgroup16 |= p.MSize == 16 && p.NSize == 16 && p.KSize == 16 &&
                            p.AType == VK_COMPONENT_TYPE_FLOAT16_KHR &&
                            p.BType == VK_COMPONENT_TYPE_FLOAT16_KHR &&
                            p.CType == VK_COMPONENT_TYPE_FLOAT32_KHR &&
                            p.ResultType == VK_COMPONENT_TYPE_FLOAT32_KHR &&
                            !p.saturatingAccumulation && p.scope == VK_SCOPE_SUBGROUP_KHR;
  }
  return out;
}

CoopMatrix2Support queryCoopMatrix2(
    PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV query,
    VkPhysicalDevice device, const VkPhysicalDeviceCooperativeMatrix2PropertiesNV &properties) {
  CoopMatrix2Support out;
  out.properties = properties;
  out.properties.pNext = nullptr;
  uint32_t count = 0;
  if (!query || query(device, &count, nullptr) != VK_SUCCESS)
    return out;
  std::vector<VkCooperativeMatrixFlexibleDimensionsPropertiesNV> props(count);
  for (auto &p : props) {
    p = {};
    p.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV;
  }
  VkResult r = query(device, &count, props.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    return out;
  out.queried = true;
  props.resize(count);
  unsigned sizes = 0; // bit i: 32 << i invocations
  for (const auto &p : props) {
    if (p.scope != VK_SCOPE_WORKGROUP_KHR)
      continue;
    out.listed += (out.listed.empty() ? "" : "; ") + std::to_string(p.MGranularity) + "x" +
                  std::to_string(p.NGranularity) + "x" + std::to_string(p.KGranularity) + " " +
                  componentName(p.AType) + "*" + componentName(p.BType) + "+" +
                  componentName(p.CType) + "->" + componentName(p.ResultType) +
                  (p.saturatingAccumulation ? " saturating" : "") + " @" +
                  std::to_string(p.workgroupInvocations);
    bool f16f32 = p.AType == VK_COMPONENT_TYPE_FLOAT16_KHR &&
                  p.BType == VK_COMPONENT_TYPE_FLOAT16_KHR &&
                  p.CType == VK_COMPONENT_TYPE_FLOAT32_KHR &&
                  p.ResultType == VK_COMPONENT_TYPE_FLOAT32_KHR && !p.saturatingAccumulation;
    bool divides = p.MGranularity && p.NGranularity && p.KGranularity &&
                   32 % p.MGranularity == 0 && 32 % p.NGranularity == 0 &&
                   16 % p.KGranularity == 0;
    for (unsigned i = 0; i < 4; ++i)
      if (f16f32 && divides && p.workgroupInvocations == (32u << i))
        sizes |= 1u << i;
  }
  out.f16f32Workgroup = sizes == 0xf;
  return out;
}

} // namespace xpu::vk
