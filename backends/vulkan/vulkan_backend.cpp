// The Vulkan backend: finds every physical device with a compute queue and
// describes it. No loader, no instance or no usable device means no Vulkan
// devices and a note saying why, never a failure.
#include "vulkan_device.h"

#include "runtime/env.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include <algorithm>
#include <mutex>

namespace xpu::vk {

namespace {

std::string versionText(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." +
         std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

std::string vendorName(uint32_t id) {
  switch (id) {
  case 0x10DE: return "NVIDIA";
  case 0x1002: return "AMD";
  case 0x8086: return "Intel";
  case 0x13B5: return "ARM";
  case 0x5143: return "Qualcomm";
  case 0x1010: return "Imagination";
  case 0x106B: return "Apple";
  case VK_VENDOR_ID_MESA: return "Mesa";
  default: {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%04X", id);
    return std::string("vendor ") + hex;
  }
  }
}

std::string deviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
  default: return "other";
  }
}

/// NVIDIA packs its driver version as 10.8.8.6 bits; others use Vulkan's
/// version layout.
std::string driverVersionText(uint32_t vendor, uint32_t v) {
  if (vendor == 0x10DE)
    return std::to_string(v >> 22) + "." + std::to_string((v >> 14) & 0xFF) + "." +
           std::to_string((v >> 6) & 0xFF) + "." + std::to_string(v & 0x3F);
  return versionText(v);
}

/// Fills `out` for one physical device, or says in `skip` why it cannot be
/// used.
bool probe(const Instance &inst, VkPhysicalDevice pd, const FeatureSet &disabled,
           PhysicalInfo &out, std::string &skip) {
  const InstanceFns &fn = inst.fn;
  VkPhysicalDeviceProperties2 base{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  fn.vkGetPhysicalDeviceProperties2(pd, &base);
  std::string name = base.properties.deviceName;
  if (base.properties.apiVersion < VK_API_VERSION_1_2) {
    skip = "device '" + name + "' supports Vulkan " +
           versionText(base.properties.apiVersion) +
           "; xpujit needs 1.2 (timeline semaphores)";
    return false;
  }
  out.handle = pd;
  uint32_t extCount = 0;
  fn.vkEnumerateDeviceExtensionProperties(pd, nullptr, &extCount, nullptr);
  std::vector<VkExtensionProperties> exts(extCount);
  fn.vkEnumerateDeviceExtensionProperties(pd, nullptr, &extCount, exts.data());
  bool smBuiltins = false, executableProperties = false;
  for (const auto &e : exts) {
    std::string ext = e.extensionName;
    executableProperties |= ext == VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    out.hasAtomicFloat |= ext == VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME;
    smBuiltins |= ext == VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME;
    out.hasCoopMatrix |= ext == VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
    out.hasCoopMatrix2 |= ext == VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME;
  }
  out.hasCoopMatrix2 &= out.hasCoopMatrix; // it extends the KHR extension
  out.hasV13 = base.properties.apiVersion >= VK_API_VERSION_1_3 &&
               inst.apiVersion >= VK_API_VERSION_1_3;

  VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  out.subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  out.driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  out.floatControls.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &ids;
  ids.pNext = &out.subgroup;
  out.subgroup.pNext = &out.driver;
  out.driver.pNext = &out.floatControls;
  out.floatControls.pNext = smBuiltins ? &sm : nullptr;
  out.subgroupSizeControl.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES;
  if (out.hasV13) {
    out.subgroupSizeControl.pNext = props.pNext;
    props.pNext = &out.subgroupSizeControl;
  }
  VkPhysicalDeviceCooperativeMatrixPropertiesKHR coopStages{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_KHR};
  if (out.hasCoopMatrix) {
    coopStages.pNext = props.pNext;
    props.pNext = &coopStages;
  }
  VkPhysicalDeviceCooperativeMatrix2PropertiesNV coop2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV};
  if (out.hasCoopMatrix2) {
    coop2.pNext = props.pNext;
    props.pNext = &coop2;
  }
  fn.vkGetPhysicalDeviceProperties2(pd, &props);
  out.subgroup.pNext = out.driver.pNext = out.floatControls.pNext = nullptr;
  out.subgroupSizeControl.pNext = nullptr;
  out.props = props.properties;
  out.smCount = smBuiltins ? sm.shaderSMCount : 0;
  std::copy(std::begin(ids.deviceUUID), std::end(ids.deviceUUID), out.uuid);
  fn.vkGetPhysicalDeviceMemoryProperties(pd, &out.memory);

  // A compute queue; one without graphics runs beside a display's work.
  uint32_t count = 0;
  fn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  fn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families.data());
  int best = -1;
  for (uint32_t f = 0; f < count; ++f) {
    if (!(families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) || !families[f].queueCount)
      continue;
    if (best < 0 || !(families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT))
      best = int(f);
    if (!(families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT))
      break;
  }
  if (best < 0) {
    skip = "device '" + name + "' has no compute queue";
    return false;
  }
  out.queueFamily = uint32_t(best);
  out.timestampBits = families[best].timestampValidBits;

  FeatureChain chain(out.hasAtomicFloat, out.hasV13, out.hasCoopMatrix, out.hasCoopMatrix2);
  fn.vkGetPhysicalDeviceFeatures2(pd, &chain.core);
  if (out.hasCoopMatrix) {
    out.coopMatrix = queryCoopMatrix(inst.coopMatrixProperties, pd);
    out.coopMatrix.stages = coopStages.cooperativeMatrixSupportedStages;
  }
  if (out.hasCoopMatrix2)
    out.coopMatrix2 = queryCoopMatrix2(inst.coopMatrixFlexibleDimensions, pd, coop2);
  if (executableProperties) {
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableInfo{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &executableInfo;
    fn.vkGetPhysicalDeviceFeatures2(pd, &features);
    out.hasExecutableStatistics = executableInfo.pipelineExecutableInfo == VK_TRUE;
  }
  out.supported = chain.read();
  out.disabled = disabled;
  for (size_t f = 0; f < size_t(Feature::count); ++f)
    out.requested.has[f] = out.supported.has[f] && !disabled.has[f];
  // VK_NV_cooperative_matrix2 is enabled with its base extension only.
  if (!out.requested[Feature::cooperativeMatrix])
    for (Feature f : {Feature::cooperativeMatrixWorkgroupScope,
                      Feature::cooperativeMatrixFlexibleDimensions})
      out.requested[f] = false;
  if (!out.requested[Feature::timelineSemaphore]) {
    skip = "device '" + name + "' " +
           (out.supported[Feature::timelineSemaphore]
                ? "has timelineSemaphore disabled (XPU_VULKAN_DISABLE_FEATURES)"
                : "reports timelineSemaphore=false (VkPhysicalDeviceVulkan12Features)") +
           "; xpujit orders streams with timeline semaphores";
    return false;
  }
  return true;
}

/// The process's VkInstance, made by the first context that looks for
/// Vulkan devices and kept, like the loader, for the life of the process:
/// contexts come and go without creating and destroying an instance each
/// (with lavapipe, tens of milliseconds and its threads every time). Null
/// with `note` set when none can be made (retried by the next context).
rt::Status processInstance(const GlobalFns &global, uint32_t loaderVersion,
                           std::shared_ptr<Instance> &out, std::string &note) {
  static std::mutex mu;
  static std::shared_ptr<Instance> *kept = new std::shared_ptr<Instance>();
  std::lock_guard<std::mutex> g(mu);
  if (*kept) {
    out = *kept;
    return {};
  }
  auto inst = std::make_shared<Instance>();
  inst->apiVersion = std::min<uint32_t>(loaderVersion, VK_API_VERSION_1_3);
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "xpujit";
  app.pEngineName = "xpujit";
  app.apiVersion = inst->apiVersion;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkResult r = global.vkCreateInstance(&info, nullptr, &inst->handle);
  if (r != VK_SUCCESS) {
    inst->handle = VK_NULL_HANDLE;
    note = vkStatus(r, "vkCreateInstance").message();
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
      note += " (the loader found no usable Vulkan driver)";
    return {};
  }
  XPU_RETURN_IF_ERROR(loadInstanceFns(global, inst->handle, inst->fn));
  inst->coopMatrixProperties =
      reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
          global.vkGetInstanceProcAddr(inst->handle,
                                       "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  inst->coopMatrixFlexibleDimensions =
      reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV>(
          global.vkGetInstanceProcAddr(
              inst->handle, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"));
  *kept = inst;
  out = std::move(inst);
  return {};
}

class VulkanBackend : public rt::Backend {
public:
  xpu_backend kind() const override { return XPU_BACKEND_VULKAN; }

  Status enumerate(std::vector<std::unique_ptr<rt::Device>> &out,
                   std::string &note) override {
    // A bad setting is an error whether or not a driver is installed.
    const rt::Settings *settings = nullptr;
    XPU_RETURN_IF_ERROR(rt::settings(settings));
    FeatureSet disabled;
    XPU_RETURN_IF_ERROR(parseFeatureList(settings->vulkanDisableFeatures, disabled));
    const GlobalFns *global = loadVulkan(note);
    if (!global)
      return {};

    uint32_t loaderVersion = VK_API_VERSION_1_0;
    if (global->vkEnumerateInstanceVersion)
      global->vkEnumerateInstanceVersion(&loaderVersion);
    if (loaderVersion < VK_API_VERSION_1_2) {
      note = "the Vulkan loader supports Vulkan " + versionText(loaderVersion) +
             "; xpujit needs 1.2";
      return {};
    }
    std::shared_ptr<Instance> inst;
    XPU_RETURN_IF_ERROR(processInstance(*global, loaderVersion, inst, note));
    if (!inst)
      return {};

    uint32_t count = 0;
    inst->fn.vkEnumeratePhysicalDevices(inst->handle, &count, nullptr);
    std::vector<VkPhysicalDevice> devices(count);
    inst->fn.vkEnumeratePhysicalDevices(inst->handle, &count, devices.data());
    std::string skipped;
    for (VkPhysicalDevice pd : devices) {
      PhysicalInfo physical;
      std::string skip;
      if (probe(*inst, pd, disabled, physical, skip))
        out.push_back(std::make_unique<VulkanDevice>(inst, std::move(physical)));
      else
        skipped += (skipped.empty() ? "" : "; ") + skip;
    }
    if (out.empty())
      note = devices.empty() ? "the Vulkan loader found no physical devices "
                               "(vkEnumeratePhysicalDevices)"
                             : skipped;
    return {};
  }
};

} // namespace

rt::DeviceIdentity describeIdentity(const PhysicalInfo &info) {
  const VkPhysicalDeviceProperties &p = info.props;
  rt::DeviceIdentity id;
  id.backend = XPU_BACKEND_VULKAN;
  id.name = p.deviceName;
  id.vendor = vendorName(p.vendorID);
  id.arch = "Vulkan " + versionText(p.apiVersion) + ", " + deviceTypeName(p.deviceType);
  id.driver = std::string(info.driver.driverName) + " " + info.driver.driverInfo +
              " (driver version " + driverVersionText(p.vendorID, p.driverVersion) + ")";
  std::copy(std::begin(info.uuid), std::end(info.uuid), id.uuid);
  for (uint32_t h = 0; h < info.memory.memoryHeapCount; ++h)
    if (info.memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      id.memoryBytes = std::max<uint64_t>(id.memoryBytes, info.memory.memoryHeaps[h].size);
  id.computeUnits = info.smCount; // 0: Vulkan has no portable query for it
  id.waveWidth = info.subgroup.subgroupSize;
  // Kernels size reduction scratch for at most kMaxWorkgroupExtent invocations.
  id.maxWorkgroupSize = std::min<uint32_t>(p.limits.maxComputeWorkGroupInvocations,
                                           uint32_t(kMaxWorkgroupExtent));
  for (int d = 0; d < 3; ++d)
    id.maxGrid[d] = p.limits.maxComputeWorkGroupCount[d];
  id.runsOnHostCpu = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  return id;
}

std::unique_ptr<rt::Backend> createVulkanBackend() {
  return std::make_unique<VulkanBackend>();
}

} // namespace xpu::vk
