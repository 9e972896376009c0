// The Vulkan entry points xpujit calls, as one X-macro table. They are
// resolved at run time from libvulkan.so.1 (vulkan_loader.cpp), never linked:
// <vulkan/vulkan.h> is included with VK_NO_PROTOTYPES, so each F(name) has
// the type PFN_name.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

/// Resolved with vkGetInstanceProcAddr(NULL, name).
#define XPU_VK_GLOBAL_FUNCTIONS(F)                                             \
  F(vkEnumerateInstanceVersion)                                                \
  F(vkCreateInstance)

/// Resolved with vkGetInstanceProcAddr(instance, name).
#define XPU_VK_INSTANCE_FUNCTIONS(F)                                           \
  F(vkDestroyInstance)                                                         \
  F(vkEnumeratePhysicalDevices)                                                \
  F(vkEnumerateDeviceExtensionProperties)                                      \
  F(vkGetPhysicalDeviceProperties2)                                            \
  F(vkGetPhysicalDeviceFeatures2)                                              \
  F(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  F(vkGetPhysicalDeviceMemoryProperties)                                       \
  F(vkCreateDevice)                                                            \
  F(vkGetDeviceProcAddr)

/// Resolved with vkGetDeviceProcAddr(device, name); the timeline-semaphore
/// functions are Vulkan 1.2 core.
#define XPU_VK_DEVICE_FUNCTIONS(F)                                             \
  F(vkDestroyDevice)                                                           \
  F(vkGetDeviceQueue)                                                          \
  F(vkQueueSubmit)                                                             \
  F(vkDeviceWaitIdle)                                                          \
  F(vkAllocateMemory)                                                          \
  F(vkFreeMemory)                                                              \
  F(vkMapMemory)                                                               \
  F(vkCreateBuffer)                                                            \
  F(vkDestroyBuffer)                                                           \
  F(vkGetBufferMemoryRequirements)                                             \
  F(vkBindBufferMemory)                                                        \
  F(vkCreateShaderModule)                                                      \
  F(vkDestroyShaderModule)                                                     \
  F(vkCreateDescriptorSetLayout)                                               \
  F(vkDestroyDescriptorSetLayout)                                              \
  F(vkCreatePipelineLayout)                                                    \
  F(vkDestroyPipelineLayout)                                                   \
  F(vkCreatePipelineCache)                                                     \
  F(vkDestroyPipelineCache)                                                    \
  F(vkCreateComputePipelines)                                                  \
  F(vkDestroyPipeline)                                                         \
  F(vkCreateDescriptorPool)                                                    \
  F(vkDestroyDescriptorPool)                                                   \
  F(vkAllocateDescriptorSets)                                                  \
  F(vkFreeDescriptorSets)                                                      \
  F(vkUpdateDescriptorSets)                                                    \
  F(vkCreateCommandPool)                                                       \
  F(vkDestroyCommandPool)                                                      \
  F(vkAllocateCommandBuffers)                                                  \
  F(vkFreeCommandBuffers)                                                      \
  F(vkBeginCommandBuffer)                                                      \
  F(vkEndCommandBuffer)                                                        \
  F(vkCmdBindPipeline)                                                         \
  F(vkCmdBindDescriptorSets)                                                   \
  F(vkCmdPushConstants)                                                        \
  F(vkCmdDispatch)                                                             \
  F(vkCmdPipelineBarrier)                                                      \
  F(vkCmdCopyBuffer)                                                           \
  F(vkCmdResetQueryPool)                                                       \
  F(vkCmdWriteTimestamp)                                                       \
  F(vkCreateQueryPool)                                                         \
  F(vkDestroyQueryPool)                                                        \
  F(vkGetQueryPoolResults)                                                     \
  F(vkCreateSemaphore)                                                         \
  F(vkDestroySemaphore)                                                        \
  F(vkWaitSemaphores)                                                          \
  F(vkGetSemaphoreCounterValue)
