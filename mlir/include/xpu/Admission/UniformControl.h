// Admission rule XPU-UC001 (both profiles): an op that every invocation of
// its workgroup or wave must reach (RequiresUniformControlFlow) is refused
// under control flow that is not uniform at that scope.
#pragma once

#include "xpu/Analysis/Uniformity.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

namespace xpu {

/// Checks `kernel`'s body and the device functions it calls, in body order;
/// the first op refused gets one located error (with notes at the decision
/// and at the value it depends on). `uniformity` covers the kernel's module.
mlir::LogicalResult checkUniformControl(KernelOp kernel,
                                        const UniformityAnalysis &uniformity);

} // namespace xpu
