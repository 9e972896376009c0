// Loading libvulkan.so.1 at run time, the function tables of vulkan_symbols.h,
// and the one conversion from VkResult to Status.
#pragma once

#include "runtime/status.h"
#include "vulkan_symbols.h"

#include <string>
#include <string_view>

namespace xpu::vk {

struct GlobalFns {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define XPU_VK_DECLARE(name) PFN_##name name = nullptr;
  XPU_VK_GLOBAL_FUNCTIONS(XPU_VK_DECLARE)
};
struct InstanceFns {
  XPU_VK_INSTANCE_FUNCTIONS(XPU_VK_DECLARE)
};
struct DeviceFns {
  XPU_VK_DEVICE_FUNCTIONS(XPU_VK_DECLARE)
#undef XPU_VK_DECLARE
};

/// The loader's global functions, or null with the reason in `why`. The
/// library is opened once per process and never closed: drivers it loads
/// (lavapipe brings its own LLVM) do not expect to be unloaded.
const GlobalFns *loadVulkan(std::string &why);

rt::Status loadInstanceFns(const GlobalFns &global, VkInstance instance,
                           InstanceFns &out);
rt::Status loadDeviceFns(const InstanceFns &instance, VkDevice device,
                         DeviceFns &out);

/// "VK_ERROR_DEVICE_LOST", or the number for codes it does not know.
std::string resultName(VkResult result);

/// `result` as a Status naming the call and Vulkan's code for the error:
/// VK_ERROR_DEVICE_LOST is XPU_ERROR_DEVICE_LOST, exhausted memory, pools
/// or object counts are XPU_ERROR_OUT_OF_MEMORY, a missing feature,
/// extension or driver is XPU_ERROR_UNSUPPORTED, the rest XPU_ERROR_BACKEND.
rt::Status vkStatus(VkResult result, std::string_view call);

#define XPU_VK_RETURN_IF_ERROR(call, what)                                     \
  do {                                                                         \
    VkResult _r = (call);                                                      \
    if (_r != VK_SUCCESS)                                                      \
      return ::xpu::vk::vkStatus(_r, what);                                    \
  } while (0)

} // namespace xpu::vk
