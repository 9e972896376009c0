// The backends built into the library, in the default device order:
// CUDA, HIP, Vulkan, CPU.
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

namespace xpu::rt {

std::vector<std::unique_ptr<Backend>> createBackends() {
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(cuda::createCudaBackend());
  backends.push_back(hip::createHipBackend());
  backends.push_back(cpu::createCpuBackend());
  return backends;
}

} // namespace xpu::rt
