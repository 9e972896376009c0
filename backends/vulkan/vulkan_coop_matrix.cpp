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

} // namespace xpu::vk
