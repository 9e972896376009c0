// Vulkan code generation: the SPIR-V target a device offers, the gate on
// the features a kernel needs, and lowering plus serialization to SPIR-V.
#pragma once

#include "vulkan_device.h"

namespace xpu::vk {

/// The SPIR-V target of a device (version, enabled capabilities, index
/// width, push-constant room), as cache keys see it.
rt::TargetDesc describeTarget(const PhysicalInfo &info);

/// Refuses kernels that need a feature the device lacks or did not enable,
/// then lowers the module to SPIR-V for it.
Status compileSPIRV(VulkanDevice &device, mlir::ModuleOp module,
                    const std::vector<abi::KernelInfo> &kernels, rt::Blob &out);

} // namespace xpu::vk
