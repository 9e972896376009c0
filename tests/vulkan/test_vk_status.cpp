// Unit test of the one conversion from VkResult to Status (no Vulkan
// device needed; a lost device cannot be provoked on demand).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "vulkan_loader.h"

#include <doctest/doctest.h>

using xpu::vk::vkStatus;

TEST_CASE("a lost device is XPU_ERROR_DEVICE_LOST, named as Vulkan names it") {
  auto st = vkStatus(VK_ERROR_DEVICE_LOST, "vkQueueSubmit");
  CHECK(st.code() == XPU_ERROR_DEVICE_LOST);
  CHECK(st.message() == "vkQueueSubmit failed: VK_ERROR_DEVICE_LOST");
}

TEST_CASE("exhausted memory, pools and object counts are XPU_ERROR_OUT_OF_MEMORY") {
  for (VkResult r : {VK_ERROR_OUT_OF_HOST_MEMORY, VK_ERROR_OUT_OF_DEVICE_MEMORY,
                     VK_ERROR_OUT_OF_POOL_MEMORY, VK_ERROR_FRAGMENTED_POOL,
                     VK_ERROR_TOO_MANY_OBJECTS})
    CHECK(vkStatus(r, "vkAllocateMemory").code() == XPU_ERROR_OUT_OF_MEMORY);
  CHECK(vkStatus(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory").message() ==
        "vkAllocateMemory failed: VK_ERROR_OUT_OF_DEVICE_MEMORY");
}

TEST_CASE("missing features, extensions and drivers are XPU_ERROR_UNSUPPORTED") {
  for (VkResult r : {VK_ERROR_FEATURE_NOT_PRESENT, VK_ERROR_EXTENSION_NOT_PRESENT,
                     VK_ERROR_INCOMPATIBLE_DRIVER})
    CHECK(vkStatus(r, "vkCreateDevice").code() == XPU_ERROR_UNSUPPORTED);
}

TEST_CASE("success is success; unknown codes keep their number") {
  CHECK(vkStatus(VK_SUCCESS, "vkCreateBuffer").isOk());
  auto st = vkStatus(VkResult(-123456), "vkCreateBuffer");
  CHECK(st.code() == XPU_ERROR_BACKEND);
  CHECK(st.message() == "vkCreateBuffer failed: VkResult -123456");
}
