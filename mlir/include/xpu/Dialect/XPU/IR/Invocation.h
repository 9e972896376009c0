// The invocation's linear index inside its workgroup, which reductions and
// wave lowerings order invocations by: x + y * sx + z * sx * sy.
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/IR/Builders.h"

namespace xpu {

struct LinearInvocation {
  mlir::Value index; ///< the invocation's linear index (index type)
  mlir::Value count; ///< invocations in the workgroup, sx * sy * sz
};

/// Builds both from xpu.thread_id and xpu.workgroup_size at `b`'s point.
LinearInvocation linearInvocation(mlir::OpBuilder &b, mlir::Location loc);

} // namespace xpu
