// Launch graphs on HIP: a hipGraph of kernel nodes with the dependencies the
// scheduler gives, instantiated once, updated in place
// (hipGraphExecKernelNodeSetParams) and launched with hipGraphLaunch.
// Checked against the mock runtime only (tests/hip_mock/), like the rest of
// the HIP backend.
#pragma once

#include "hip_runtime.h"
#include "../common/driver_launch.h"
#include "runtime/backend.h"

#include <functional>
#include <memory>
#include <vector>

namespace xpu::hip {

/// What a graph needs of its device.
struct GraphContext {
  const Runtime *hip = nullptr;
  std::function<rt::Status()> enter;                                 ///< device current
  std::function<rt::Status(hipError_t, const std::string &)> check; ///< errors, faults
  std::function<hipFunction_t(const rt::BackendKernel *)> function;
};

rt::Status createHipGraph(const GraphContext &context,
                          const std::vector<const rt::LaunchRequest *> &nodes,
                          const std::vector<std::vector<uint32_t>> &after,
                          std::unique_ptr<rt::BackendGraph> &out);

/// hipGraphLaunch of a graph createHipGraph made; its kernels join
/// `running`, so that a fault reported later names them.
rt::Status launchHipGraph(rt::BackendGraph &graph, hipStream_t stream,
                          driver::InFlightKernels &running);

} // namespace xpu::hip
