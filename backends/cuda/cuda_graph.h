// Launch graphs on CUDA: a CUgraph of kernel nodes in stream order,
// instantiated once and updated in place
// (cuGraphExecKernelNodeSetParams), launched with cuGraphLaunch.
#pragma once

#include "../common/driver_launch.h"
#include "cuda_driver.h"
#include "runtime/backend.h"

#include <functional>
#include <memory>
#include <vector>

namespace xpu::cuda {

/// What a graph needs of its device.
struct GraphContext {
  const Driver *drv = nullptr;
  std::function<rt::Status()> enter;                                   ///< context current
  std::function<rt::Status(CUresult, const std::string &)> check;      ///< errors, faults
  std::function<CUfunction(const rt::BackendKernel *)> function;
  /// The kernel's own dynamic shared memory, added to each node's.
  std::function<uint32_t(const rt::BackendKernel *)> launchShared;
};

rt::Status createCudaGraph(const GraphContext &context,
                           const std::vector<const rt::LaunchRequest *> &nodes,
                           const std::vector<std::vector<uint32_t>> &after,
                           std::unique_ptr<rt::BackendGraph> &out);

/// cuGraphLaunch of a graph createCudaGraph made; its kernels join
/// `running`, so that a fault reported later names them.
rt::Status launchCudaGraph(rt::BackendGraph &graph, CUstream stream,
                           driver::InFlightKernels &running);

} // namespace xpu::cuda
