// Vulkan code generation: the SPIR-V target a device offers, the gate on
// the features a kernel needs, and lowering plus serialization to SPIR-V.
#pragma once

#include "vulkan_device.h"

#include "capability/capability.h"

namespace xpu::vk {

/// The SPIR-V target of a device (version, enabled capabilities, index
/// width, push-constant room), as cache keys see it.
rt::TargetDesc describeTarget(const PhysicalInfo &info);

/// The verdict of a capability that needs every feature in `features`
/// enabled, with the query that reported them as evidence.
cap::Fact featureFact(const VulkanDevice &device, Capability c,
                      std::initializer_list<Feature> features);

/// Refuses kernels that need a feature the device lacks or did not enable,
/// then lowers the module to SPIR-V for it.
Status compileSPIRV(VulkanDevice &device, mlir::ModuleOp module,
                    const std::vector<abi::KernelInfo> &kernels, rt::Blob &out);

} // namespace xpu::vk
