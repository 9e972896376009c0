// The feature table of vulkan_features.h.
#include "vulkan_features.h"

namespace xpu::vk {

const char *featureName(Feature f) {
  static const char *names[] = {
#define XPU_VK_NAME(name, member, query) #name,
      XPU_VK_FEATURES(XPU_VK_NAME)
#undef XPU_VK_NAME
  };
  return names[size_t(f)];
}

const char *featureQuery(Feature f) {
  static const char *queries[] = {
#define XPU_VK_QUERY(name, member, query) query,
      XPU_VK_FEATURES(XPU_VK_QUERY)
#undef XPU_VK_QUERY
  };
  return queries[size_t(f)];
}

FeatureChain::FeatureChain(bool withAtomicFloat, bool withV13, bool withCoopMatrix,
                           bool withCoopMatrix2) {
  core.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  atomicFloat.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
  coopMatrix.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR;
  coopMatrix2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV;
  core.pNext = &v11;
  v11.pNext = &v12;
  void **tail = &v12.pNext;
  if (withV13) {
    *tail = &v13;
    tail = &v13.pNext;
  }
  if (withAtomicFloat) {
    *tail = &atomicFloat;
    tail = &atomicFloat.pNext;
  }
  *tail = withCoopMatrix ? &coopMatrix : nullptr;
  if (withCoopMatrix && withCoopMatrix2)
    coopMatrix.pNext = &coopMatrix2;
}

FeatureSet FeatureChain::read() const {
  FeatureSet set;
#define XPU_VK_READ(name, member, query)                                       \
  set[Feature::name] = member.name == VK_TRUE;
  XPU_VK_FEATURES(XPU_VK_READ)
#undef XPU_VK_READ
  return set;
}

void FeatureChain::write(const FeatureSet &set) {
#define XPU_VK_WRITE(name, member, query)                                      \
  member.name = set[Feature::name] ? VK_TRUE : VK_FALSE;
  XPU_VK_FEATURES(XPU_VK_WRITE)
#undef XPU_VK_WRITE
}

rt::Status parseFeatureList(const std::string &list, FeatureSet &out) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos
                                              ? std::string::npos
                                              : comma - start);
    if (!name.empty()) {
      bool found = false;
      for (size_t f = 0; f < size_t(Feature::count); ++f)
        if (name == featureName(Feature(f))) {
          out[Feature(f)] = true;
          found = true;
        }
      if (!found) {
        std::string known;
        for (size_t f = 0; f < size_t(Feature::count); ++f)
          known += std::string(f ? ", " : "") + featureName(Feature(f));
        return rt::invalidArgument("XPU_VULKAN_DISABLE_FEATURES: '" + name +
                                   "' is not one of: " + known);
      }
    }
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return {};
}

} // namespace xpu::vk
