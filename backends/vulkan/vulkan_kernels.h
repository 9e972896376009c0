// Loaded Vulkan kernels: one shader module per compiled blob, and per kernel
// its descriptor-set and pipeline layouts (from the parameter list, as in
// abi::vulkanArgLayout) and its pipelines, one per launch shape.
#pragma once

#include "vulkan_device.h"

namespace xpu::vk {

struct ShaderModule {
  ShaderModule(VulkanDevice &device) : device(device) {}
  ~ShaderModule();
  VulkanDevice &device;
  VkShaderModule handle = VK_NULL_HANDLE;
};

/// What a launch needs of one kernel. Shared with the batches that use it,
/// so it outlives its module until their work is done.
struct KernelProgram {
  KernelProgram(VulkanDevice &device) : device(device) {}
  ~KernelProgram();

  /// The pipeline for a workgroup shape, made on the shape's first launch.
  Status pipeline(const uint32_t block[3], VkPipeline &out);
  /// The workgroup shape of a pipeline made already, if there is one.
  bool madeShape(uint32_t block[3]);

  VulkanDevice &device;
  std::shared_ptr<ShaderModule> shader;
  abi::KernelInfo info;
  abi::VulkanArgs args;
  bool argsInUniform = false; ///< the block exceeds maxPushConstantsSize
  bool hasStatus = false;     ///< binding B holds the status word
  uint32_t numBuffers = 0;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  uint64_t layoutId = 0;

private:
  std::mutex mu;
  std::map<std::array<uint32_t, 3>, VkPipeline> pipelines;
};

struct VulkanKernel : rt::BackendKernel {
  std::shared_ptr<KernelProgram> program;
};

/// Makes the shader module and each kernel's layouts.
Status loadKernels(VulkanDevice &device, const rt::Blob &blob,
                   const std::vector<abi::KernelInfo> &kernels,
                   std::unique_ptr<rt::LoadedModule> &out);

} // namespace xpu::vk
