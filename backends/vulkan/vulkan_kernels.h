// Loaded Vulkan kernels: one shader module per compiled blob, and per kernel
// its descriptor-set and pipeline layouts (from the parameter list, as in
// abi::vulkanArgLayout) and its pipelines, one per launch shape (and per
// value of the parameters it is specialized on).
#pragma once

#include "vulkan_device.h"

#include "llvm/ADT/SmallVector.h"

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

  /// The pipeline for a workgroup shape and, for a kernel specialized on
  /// parameters, their values in `args` (the argument block of a launch);
  /// made on first use. With `ofCopying`, that of the copying companion.
  Status pipeline(const uint32_t block[3], const uint8_t *args, VkPipeline &out,
                  bool ofCopying = false);
  /// The shape and argument block of a pipeline made already, if there is
  /// one (the block holds only the specialized parameters' values).
  bool madePipeline(uint32_t block[3], std::vector<uint8_t> &args);

  /// A parameter the pipelines are specialized on (abi::kSpecializeAttr):
  /// its SpecId, and where its value lies in the argument block.
  struct Specialized {
    uint32_t specId, offset, bytes;
  };
  std::vector<Specialized> specialized;

  /// The kernel's copying companion (abi::kCopyingCompanionSuffix), an
  /// entry point of the same shader module and layout that every launch
  /// dispatches after the kernel; `entry` empty when there is none.
  struct Companion {
    std::string entry;
    std::vector<Specialized> specialized;
  } copying;

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
  /// By the entry (0 the kernel, 1 its companion) and workgroup shape, then
  /// the specialized parameters' words (held inline: a launch looks its
  /// pipeline up without allocating).
  std::map<llvm::SmallVector<uint32_t, 8>, VkPipeline> pipelines;
  size_t kernelPipelines = 0; ///< those of the kernel's own entry point
};

struct VulkanKernel : rt::BackendKernel {
  std::shared_ptr<KernelProgram> program;
};

/// Makes the shader module and each kernel's layouts.
Status loadKernels(VulkanDevice &device, const rt::Blob &blob,
                   const std::vector<abi::KernelInfo> &kernels,
                   std::unique_ptr<rt::LoadedModule> &out);

} // namespace xpu::vk
