// libvulkan.so.1 through dlopen, the function tables, VkResult as Status.
#include "vulkan_loader.h"

#include <dlfcn.h>

#include <mutex>

namespace xpu::vk {

const GlobalFns *loadVulkan(std::string &why) {
  static GlobalFns fns;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *e = dlerror();
      error = std::string("cannot load the Vulkan loader libvulkan.so.1 (") +
              (e ? e : "not found") + ")";
      return;
    }
    fns.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
        dlsym(lib, "vkGetInstanceProcAddr"));
    if (!fns.vkGetInstanceProcAddr) {
      error = "libvulkan.so.1 has no vkGetInstanceProcAddr";
      return;
    }
#define XPU_VK_LOAD(name)                                                      \
  fns.name = reinterpret_cast<PFN_##name>(fns.vkGetInstanceProcAddr(nullptr, #name));
    XPU_VK_GLOBAL_FUNCTIONS(XPU_VK_LOAD)
#undef XPU_VK_LOAD
    if (!fns.vkCreateInstance)
      error = "libvulkan.so.1 does not provide vkCreateInstance";
  });
  if (!error.empty()) {
    why = error;
    return nullptr;
  }
  return &fns;
}

rt::Status loadInstanceFns(const GlobalFns &global, VkInstance instance,
                           InstanceFns &out) {
#define XPU_VK_LOAD(name)                                                      \
  out.name = reinterpret_cast<PFN_##name>(                                     \
      global.vkGetInstanceProcAddr(instance, #name));                          \
  if (!out.name)                                                               \
    return {XPU_ERROR_UNSUPPORTED, "the Vulkan instance has no " #name};
  XPU_VK_INSTANCE_FUNCTIONS(XPU_VK_LOAD)
#undef XPU_VK_LOAD
  return {};
}

rt::Status loadDeviceFns(const InstanceFns &instance, VkDevice device,
                         DeviceFns &out) {
#define XPU_VK_LOAD(name)                                                      \
  out.name = reinterpret_cast<PFN_##name>(                                     \
      instance.vkGetDeviceProcAddr(device, #name));                            \
  if (!out.name)                                                               \
    return {XPU_ERROR_UNSUPPORTED, "the Vulkan device has no " #name};
  XPU_VK_DEVICE_FUNCTIONS(XPU_VK_LOAD)
#undef XPU_VK_LOAD
  return {};
}

std::string resultName(VkResult result) {
  switch (result) {
#define XPU_VK_RESULT(code)                                                    \
  case code:                                                                   \
    return #code;
    XPU_VK_RESULT(VK_SUCCESS)
    XPU_VK_RESULT(VK_NOT_READY)
    XPU_VK_RESULT(VK_TIMEOUT)
    XPU_VK_RESULT(VK_INCOMPLETE)
    XPU_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    XPU_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    XPU_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    XPU_VK_RESULT(VK_ERROR_DEVICE_LOST)
    XPU_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    XPU_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    XPU_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    XPU_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    XPU_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    XPU_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    XPU_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    XPU_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    XPU_VK_RESULT(VK_ERROR_UNKNOWN)
    XPU_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    XPU_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    XPU_VK_RESULT(VK_ERROR_FRAGMENTATION)
    XPU_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    XPU_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
    XPU_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef XPU_VK_RESULT
  default:
    return "VkResult " + std::to_string(int(result));
  }
}

rt::Status vkStatus(VkResult result, std::string_view call) {
  if (result == VK_SUCCESS)
    return {};
  xpu_status code = XPU_ERROR_BACKEND;
  switch (result) {
  case VK_ERROR_DEVICE_LOST:
    code = XPU_ERROR_DEVICE_LOST;
    break;
  case VK_ERROR_OUT_OF_HOST_MEMORY:
  case VK_ERROR_OUT_OF_DEVICE_MEMORY:
  case VK_ERROR_OUT_OF_POOL_MEMORY:
  case VK_ERROR_FRAGMENTED_POOL:
  case VK_ERROR_FRAGMENTATION:
  case VK_ERROR_TOO_MANY_OBJECTS:
    code = XPU_ERROR_OUT_OF_MEMORY;
    break;
  case VK_ERROR_FEATURE_NOT_PRESENT:
  case VK_ERROR_EXTENSION_NOT_PRESENT:
  case VK_ERROR_LAYER_NOT_PRESENT:
  case VK_ERROR_INCOMPATIBLE_DRIVER:
  case VK_ERROR_FORMAT_NOT_SUPPORTED:
    code = XPU_ERROR_UNSUPPORTED;
    break;
  default:
    break;
  }
  return {code, std::string(call) + " failed: " + resultName(result)};
}

} // namespace xpu::vk
