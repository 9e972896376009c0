// Whether a kernel's result depends on how its launch cuts the grid into
// workgroups. See CPUWorkgroupShape.cpp.
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

namespace xpu {

/// True when `kernel` computes the same for every workgroup shape that
/// covers the same global index space: it reads no coordinate but global
/// ids and sizes, and uses nothing a workgroup shares (barriers,
/// reductions, scratch, wave operations). The CPU backend then runs it in
/// the workgroup shape that suits its loops (backends/cpu/launch_shape.h).
bool anyWorkgroupShapeComputesTheSame(KernelOp kernel);

} // namespace xpu
