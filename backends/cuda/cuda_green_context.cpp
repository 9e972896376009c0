// Green contexts for compute-unit budgets; see cuda_green_context.h.
#include "cuda_green_context.h"

#include <algorithm>

namespace xpu::cuda {

uint32_t roundSmRequest(uint32_t request, const SmSplitRules &rules) {
  uint64_t n = std::max({request, rules.minPartition, 1u});
  uint64_t align = std::max(rules.alignment, 1u);
  n = (n + align - 1) / align * align;
  return n < rules.smCount ? uint32_t(n) : 0;
}

rt::Status createGreenStream(const Driver &drv, CUdevice device, uint32_t request,
                             GreenStream &out) {
  if (std::string missing = missingGreenContextEntryPoints(drv); !missing.empty())
    return {XPU_ERROR_UNSUPPORTED,
            "the CUDA driver lacks what green contexts need (CUDA 12.5): " + missing};
  CudaDevResource all{};
  CUresult r = drv.cuDeviceGetDevResource(device, &all, CU_DEV_RESOURCE_TYPE_SM);
  if (r != CUDA_SUCCESS)
    return failure(drv, r, "cuDeviceGetDevResource(SM)");
  SmSplitRules rules{all.sm.smCount, all.sm.minSmPartitionSize, all.sm.smCoscheduledAlignment};
  uint32_t ask = roundSmRequest(request, rules);
  if (ask == 0)
    return {XPU_ERROR_UNSUPPORTED,
            std::to_string(request) + " SMs round up (at least " +
                std::to_string(rules.minPartition) + ", multiples of " +
                std::to_string(rules.alignment) + ") to no fewer than the device's " +
                std::to_string(rules.smCount)};
  CudaDevResource group{};
  unsigned groups = 1;
  r = drv.cuDevSmResourceSplitByCount(&group, &groups, &all, nullptr, 0, ask);
  if (r != CUDA_SUCCESS)
    return failure(drv, r, "cuDevSmResourceSplitByCount of " + std::to_string(ask) + " SMs");
  if (groups != 1 || group.sm.smCount == 0 || group.sm.smCount >= rules.smCount)
    return {XPU_ERROR_UNSUPPORTED,
            "cuDevSmResourceSplitByCount made " + std::to_string(groups) + " group(s) of " +
                std::to_string(group.sm.smCount) + " SMs for " + std::to_string(ask) +
                " of " + std::to_string(rules.smCount)};
  CUdevResourceDesc desc = nullptr;
  r = drv.cuDevResourceGenerateDesc(&desc, &group, 1);
  if (r != CUDA_SUCCESS)
    return failure(drv, r, "cuDevResourceGenerateDesc");
  GreenStream g;
  r = drv.cuGreenCtxCreate(&g.context, desc, device, CU_GREEN_CTX_DEFAULT_STREAM);
  if (r != CUDA_SUCCESS)
    return failure(drv, r, "cuGreenCtxCreate of " + std::to_string(group.sm.smCount) + " SMs");
  r = drv.cuGreenCtxStreamCreate(&g.stream, g.context, CU_STREAM_NON_BLOCKING, 0);
  if (r != CUDA_SUCCESS) {
    drv.cuGreenCtxDestroy(g.context);
    return failure(drv, r, "cuGreenCtxStreamCreate");
  }
  g.smCount = group.sm.smCount;
  out = g;
  return {};
}

void destroyGreenStream(const Driver &drv, GreenStream &green) {
  if (green.stream)
    drv.cuStreamDestroy(green.stream);
  if (green.context)
    drv.cuGreenCtxDestroy(green.context);
  green = {};
}

} // namespace xpu::cuda
