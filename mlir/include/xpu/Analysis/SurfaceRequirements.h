// What the kernel-surface ops (XPUSurfaceOps.td) need from a target; the
// requirement analysis (Requirements.cpp) asks for every op it visits.
#pragma once

#include "xpu/Requirements.h"

#include "mlir/IR/Operation.h"

#include "llvm/ADT/SmallVector.h"

namespace xpu {

/// The capabilities `op` needs beyond those of its types (none for ops that
/// are not surface ops).
llvm::SmallVector<Capability, 2> surfaceNeeds(mlir::Operation *op);

} // namespace xpu
