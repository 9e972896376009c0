// The backends built into the library, in the default device order:
// CUDA, HIP, Vulkan, CPU, then software Vulkan devices.
#include "runtime/backend.h"

namespace xpu::cpu {
std::unique_ptr<rt::Backend> createCpuBackend();
}
namespace xpu::cuda {
std::unique_ptr<rt::Backend> createCudaBackend();
}
namespace xpu::hip {
std::unique_ptr<rt::Backend> createHipBackend();
}
namespace xpu::vk {
std::unique_ptr<rt::Backend> createVulkanBackend();
}

namespace xpu::rt {

std::vector<std::unique_ptr<Backend>> createBackends() {
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(cuda::createCudaBackend());
  backends.push_back(hip::createHipBackend());
  backends.push_back(vk::createVulkanBackend());
  backends.push_back(cpu::createCpuBackend());
  return backends;
}

int defaultOrderRank(const DeviceIdentity &id) {
  // DESIGN §6: a software Vulkan device ranks after the native CPU backend;
  // it is slower and has a measured per-invocation loop budget (lavapipe:
  // 65,535 passes, src/calibration/loop_probe.cpp) the CPU backend lacks.
  if (id.backend == XPU_BACKEND_VULKAN && id.runsOnHostCpu)
    return 4;
  switch (id.backend) {
  case XPU_BACKEND_CUDA: return 0;
  case XPU_BACKEND_HIP: return 1;
  case XPU_BACKEND_VULKAN: return 2;
  default: return 3;
  }
}

} // namespace xpu::rt
