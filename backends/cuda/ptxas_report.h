// What ptxas -v says about each kernel it assembled: registers, spills,
// stack frame and shared memory (the CUDA manifest's compile-time facts).
#pragma once

#include "xpu/KernelABI.h"

#include <string>
#include <vector>

namespace xpu::cuda {

/// Footprints of `kernels`, in order, from ptxas's `-v` report. A kernel the
/// report does not describe gets no facts; `version` names ptxas in each
/// fact's source.
std::vector<abi::Footprint> parsePtxasReport(const std::string &report,
                                             const std::vector<abi::KernelInfo> &kernels,
                                             const std::string &version);

} // namespace xpu::cuda
