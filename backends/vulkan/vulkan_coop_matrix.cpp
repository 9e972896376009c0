// The cooperative-matrix query; see vulkan_coop_matrix.h.
#include "vulkan_coop_matrix.h"

#include <optional>
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

/// The entries a two-call Vulkan list query returns (each of `sType`), or
/// nullopt when it fails or there is no query.
template <typename Entry, typename Query>
std::optional<std::vector<Entry>> listOf(Query query, VkPhysicalDevice device,
                                         VkStructureType sType) {
  uint32_t count = 0;
  if (!query || query(device, &count, nullptr) != VK_SUCCESS)
    return std::nullopt;
  std::vector<Entry> entries(count);
  for (auto &e : entries) {
    e = {};
    e.sType = sType;
  }
  VkResult r = query(device, &count, entries.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    return std::nullopt;
  entries.resize(count);
  return entries;
}

/// "AxBxC f16*f16+f32->f32[ saturating]" of a list entry.
template <typename Entry>
std::string combination(uint32_t m, uint32_t n, uint32_t k, const Entry &e) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
         componentName(e.AType) + "*" + componentName(e.BType) + "+" + componentName(e.CType) +
         "->" + componentName(e.ResultType) + (e.saturatingAccumulation ? " saturating" : "");
}

/// f16*f16+f32->f32 without saturation: the combination xpujit lowers.
template <typename Entry> bool f16IntoF32(const Entry &e) {
  return e.AType == VK_COMPONENT_TYPE_FLOAT16_KHR && e.BType == VK_COMPONENT_TYPE_FLOAT16_KHR &&
         e.CType == VK_COMPONENT_TYPE_FLOAT32_KHR &&
         e.ResultType == VK_COMPONENT_TYPE_FLOAT32_KHR && !e.saturatingAccumulation;
}

} // namespace

CoopMatrixSupport queryCoopMatrix(PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR query,
                                  VkPhysicalDevice device) {
  CoopMatrixSupport out;
  auto props = listOf<VkCooperativeMatrixPropertiesKHR>(
      query, device, VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR);
  if (!props)
    return out;
  out.queried = true;
  for (const auto &p : *props) {
    out.listed += (out.listed.empty() ? "" : "; ") + combination(p.MSize, p.NSize, p.KSize, p) +
                  " " + scopeName(p.scope);
    out.f16f32Subgroup16 |= p.MSize == 16 && p.NSize == 16 && p.KSize == 16 &&
                            f16IntoF32(p) && p.scope == VK_SCOPE_SUBGROUP_KHR;
  }
  return out;
}

CoopMatrix2Support queryCoopMatrix2(
    PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV query,
    VkPhysicalDevice device, const VkPhysicalDeviceCooperativeMatrix2PropertiesNV &properties) {
  CoopMatrix2Support out;
  out.properties = properties;
  out.properties.pNext = nullptr;
  auto props = listOf<VkCooperativeMatrixFlexibleDimensionsPropertiesNV>(
      query, device, VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV);
  if (!props)
    return out;
  out.queried = true;
  unsigned sizes = 0; // bit i: 32 << i invocations
  for (const auto &p : *props) {
    if (p.scope != VK_SCOPE_WORKGROUP_KHR)
      continue;
    out.listed += (out.listed.empty() ? "" : "; ") +
                  combination(p.MGranularity, p.NGranularity, p.KGranularity, p) + " @" +
                  std::to_string(p.workgroupInvocations);
    bool divides = p.MGranularity && p.NGranularity && p.KGranularity &&
                   32 % p.MGranularity == 0 && 32 % p.NGranularity == 0 &&
                   16 % p.KGranularity == 0;
    for (unsigned i = 0; i < 4; ++i)
      if (f16IntoF32(p) && divides && p.workgroupInvocations == (32u << i))
        sizes |= 1u << i;
  }
  out.f16f32Workgroup = sizes == 0xf;
  return out;
}

} // namespace xpu::vk
